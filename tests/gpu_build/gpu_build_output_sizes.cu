// The output stage's subtree sizes (gpu_build_output_sizes.cuh: the small
// stage's waves a group per launch, walks up through the upper stages'
// nodes) against a plain recursive count from the root, on random pools laid
// out as the builder lays them: an upper tree whose leaves are list leaves
// (some of them near 2^31 references, so that the sums saturate) or small
// roots, then the small stage's waves, and some small subtrees collapsed
// (KD_GB_POOL_LEAF_COLLAPSED: the slots under them are neither counted nor
// checked). Every interior node of the tree must keep its below child's
// sizes, the totals must be the root's, every place word must be zeroed and
// the pool not reported corrupt, whatever the arrays held before; for waves
// from 0 to many, so that the groups meet every remainder of the count.
// Malformed pools (a child moved, a parent after its child or none) must be
// reported, and the run must end. Host code only (label cpu); the device
// runs the same code.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu_build_output_sizes.cuh"
#include "gpu_build_pool_case.h"

static long checks = 0, failures = 0;

static void expect(bool ok, const char *what, int trial, uint32_t id)
{
    checks++;
    if (!ok && failures++ < 10)
        std::fprintf(stderr, "trial %d, pool id %u: %s\n", trial, id, what);
}

static const uint32_t MAX_SIZE = (1u << 31) - 1u;

// A leaf's reference count: mostly few, at times near 2^31.
static uint32_t leaf_refs(std::mt19937_64 &rng)
{
    return rng() % 16 == 0 ? (1u << 30) + (uint32_t)(rng() % (1u << 30)) : (uint32_t)(rng() % 9);
}

// The upper tree, breadth first from the root (children after parents):
// each node splits, or is a list leaf, or a small root.
static void lay_upper(pool_case &c, std::mt19937_64 &rng, uint32_t max_upper, int roots_wanted)
{
    c.pool.push_back(kd_gb_pool_record(0, 0.0f, 0, 0, 0ull, KD_GB_NONE, 0));
    for (uint32_t k = 0; k < c.pool.size(); k++) {
        kd_gb_pool_node &n = c.pool[k];
        if (c.pool.size() + 2 <= max_upper && rng() % 10 < 6) {
            const uint32_t a = (uint32_t)c.pool.size();
            n = kd_gb_pool_record((uint32_t)(rng() % 3), 0.5f, a, a + 1, 0ull, n.parent, n.depth);
            const uint32_t depth = n.depth + 1; // n moves as the pool grows
            for (uint32_t j = 0; j < 2; j++)
                c.pool.push_back(kd_gb_pool_record(0, 0.0f, 0, 0, 0ull, k, depth));
        } else if (roots_wanted && rng() % 2) {
            kd_gb_small_root r = {};
            r.pool_id = k;
            c.roots.push_back(r);
        } else {
            n = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, leaf_refs(rng), 0ull, n.parent, n.depth);
        }
    }
    c.pool_base = (uint32_t)c.pool.size();
}

// The small stage's waves: each node splits into two adjacent slots of the
// next wave (the pairs in random order, not past max_waves) or becomes a
// mask leaf (at times a list leaf, which the sizes count alike).
static void lay_waves(pool_case &c, std::mt19937_64 &rng, uint32_t max_waves)
{
    std::vector<uint32_t> wave;
    for (const kd_gb_small_root &r : c.roots)
        wave.push_back(r.pool_id);
    for (uint32_t w = 0; !wave.empty(); w++) {
        c.wave_ends.push_back((uint32_t)(c.roots.size() + c.pool.size() - c.pool_base));
        std::shuffle(wave.begin(), wave.end(), rng);
        std::vector<uint32_t> next;
        for (uint32_t x : wave) {
            kd_gb_pool_node &n = c.pool[x];
            const uint32_t parent = n.parent, depth = n.depth;
            if (w + 1 < max_waves && rng() % 4 != 0) {
                const uint32_t a = (uint32_t)c.pool.size();
                n = kd_gb_pool_record((uint32_t)(rng() % 3), 0.5f, a, a + 1, 0ull, parent, depth);
                for (uint32_t j = 0; j < 2; j++) {
                    c.pool.push_back(kd_gb_pool_record(0, 0.0f, 0, 0, 0ull, x, depth + 1));
                    next.push_back(a + j);
                }
            } else if (rng() % 8 == 0) {
                n = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, leaf_refs(rng), 0ull, parent, depth);
            } else {
                n = kd_gb_pool_record(KD_GB_POOL_LEAF_MASK, 0.0f, 0, 0, rng() & rng(), parent, depth);
            }
        }
        wave = next;
    }
}

// Some small-stage interior nodes (roots too) collapsed as the rule leaves
// them: a leaf naming its root, its old children from b.
static void collapse_some(pool_case &c, std::mt19937_64 &rng)
{
    std::vector<uint32_t> interior;
    for (const kd_gb_small_root &r : c.roots)
        interior.push_back(r.pool_id);
    for (uint32_t i = c.pool_base; i < c.pool.size(); i++)
        interior.push_back(i);
    for (uint32_t x : interior) {
        kd_gb_pool_node &n = c.pool[x];
        if (n.kind < 3 && rng() % 8 == 0)
            n = kd_gb_pool_record(KD_GB_POOL_LEAF_COLLAPSED, 0.0f, 0, n.a, rng(), n.parent, n.depth);
    }
}

static pool_case make_case(std::mt19937_64 &rng, int trial)
{
    pool_case c;
    lay_upper(c, rng, 1 + (uint32_t)(rng() % 80), trial % 7 != 0);
    lay_waves(c, rng, (uint32_t)(trial % 17));
    collapse_some(c, rng);
    return c;
}

// The sizes by recursion from node x, each interior node's below child's
// into below[] (and has_below[]).
static subtree_size count(const pool_case &c, uint32_t x, std::vector<subtree_size> &below,
                          std::vector<char> &has_below)
{
    const kd_gb_pool_node &n = c.pool[x];
    if (n.kind >= 3) {
        const uint32_t refs = n.kind == KD_GB_POOL_LEAF_LIST ? n.b : (uint32_t)__builtin_popcountll(n.mask);
        return {1u, std::min(refs, MAX_SIZE)};
    }
    const subtree_size a = count(c, n.a, below, has_below), b = count(c, n.b, below, has_below);
    below[x] = a;
    has_below[x] = 1;
    return {(uint32_t)std::min<uint64_t>(1ull + a.nodes + b.nodes, MAX_SIZE),
            (uint32_t)std::min<uint64_t>((uint64_t)a.refs + b.refs, MAX_SIZE)};
}

// What the sizes step leaves: the broken flag, totals, below[] and places[].
struct sizes_out {
    kd_gb_scalars scalars;
    std::vector<subtree_size> below;
    std::vector<unsigned long long> places;
};

static void fill_garbage(void *p, size_t bytes, std::mt19937_64 &rng)
{
    for (size_t k = 0; k < bytes; k++)
        static_cast<unsigned char *>(p)[k] = (unsigned char)rng();
}

// The sizes step over case c's pool, in a host builder whose arrays hold
// garbage.
static sizes_out run_sizes(const pool_case &c, std::mt19937_64 &rng, int trial)
{
    sizes_out out = {};
    kd_error err;
    const size_t n = c.pool.size();
    const int buffers[] = {KD_GB_O_SIZES, KD_GB_O_BELOW, KD_GB_O_ARRIVALS, KD_GB_O_PLACES};
    kd_gpu_builder *b = pool_builder(c);
    int ok = b && kd_gb_ensure(b, KD_GB_SCALARS, sizeof(kd_gb_scalars), 0, &err) == KD_OK;
    for (int k : buffers)
        ok = ok && kd_gb_ensure(b, k, 8 * n, 0, &err) == KD_OK;
    expect(ok, "no host builder", trial, 0);
    if (!ok) {
        kd_gpu_builder_destroy(b);
        return out;
    }
    for (int k : buffers)
        fill_garbage(kd_gb_ptr<unsigned char>(b, k), 8 * n, rng);
    std::memset(kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS), 0, sizeof(kd_gb_scalars));
    const kd_gb_build_state s = pool_state(c);
    expect(kd_gb_output_sizes(b, &s, &err) == KD_OK, "the sizes step failed", trial, 0);
    out.scalars = *kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    const subtree_size *below = kd_gb_ptr<subtree_size>(b, KD_GB_O_BELOW);
    const unsigned long long *places = kd_gb_ptr<unsigned long long>(b, KD_GB_O_PLACES);
    out.below.assign(below, below + n);
    out.places.assign(places, places + n);
    kd_gpu_builder_destroy(b);
    return out;
}

static void check_sizes(std::mt19937_64 &rng, int trial, long *collapsed, long *saturated)
{
    const pool_case c = make_case(rng, trial);
    std::vector<subtree_size> below(c.pool.size());
    std::vector<char> has_below(c.pool.size());
    const subtree_size total = count(c, 0, below, has_below);
    const sizes_out out = run_sizes(c, rng, trial);
    expect(!out.scalars.broken_pool, "a sound pool reported corrupt", trial, 0);
    expect(out.scalars.total_nodes == total.nodes && out.scalars.total_leaf_refs == total.refs,
           "totals not the root's", trial, 0);
    for (uint32_t i = 0; i < c.pool.size() && i < out.below.size(); i++) {
        if (has_below[i])
            expect(out.below[i].nodes == below[i].nodes && out.below[i].refs == below[i].refs,
                   "below child's sizes not as counted", trial, i);
        expect(out.places[i] == 0, "place word not zeroed", trial, i);
        *collapsed += c.pool[i].kind == KD_GB_POOL_LEAF_COLLAPSED;
    }
    *saturated += total.refs == MAX_SIZE;
}

// Case c made malformed in one of the ways the sizes must report.
static bool malform(pool_case &c, std::mt19937_64 &rng)
{
    const uint32_t x = 1 + (uint32_t)(rng() % (c.pool.size() - 1));
    kd_gb_pool_node &n = c.pool[x];
    switch (rng() % 3) {
    case 0: // a child moved: to the node itself (its own wave) or past the pool
        if (n.kind >= 3)
            return false;
        n.a = rng() % 2 ? x : (uint32_t)c.pool.size() + (uint32_t)(rng() % 3);
        return true;
    case 1: // a parent after its child
        n.parent = x + 1 + (uint32_t)(rng() % 4);
        return true;
    default: // no parent, in the small stage (an upper node without one is a root)
        if (x < c.pool_base)
            return false;
        n.parent = KD_GB_NONE;
        return true;
    }
}

static void check_malformed(std::mt19937_64 &rng, int trial, long *malformed)
{
    pool_case c = make_case(rng, trial);
    if (c.pool.size() < 2 || !malform(c, rng))
        return;
    (*malformed)++;
    const sizes_out out = run_sizes(c, rng, trial);
    expect(out.scalars.broken_pool != 0, "a malformed pool not reported", trial, 0);
}

int main()
{
    std::mt19937_64 rng(0x2545f4914f6cdd1dull);
    long collapsed = 0, saturated = 0, malformed = 0;
    for (int trial = 0; trial < 600; trial++)
        check_sizes(rng, trial, &collapsed, &saturated);
    for (int trial = 0; trial < 600; trial++)
        check_malformed(rng, trial, &malformed);
    // The pools must hold collapsed leaves, saturated sums and malformed
    // shapes, or the comparison proves little.
    expect(collapsed > 0 && saturated > 0 && malformed > 100, "the random pools miss a case", -1, 0);
    std::printf("gpu_build_output_sizes: %ld checks, %ld failures (%ld collapsed leaves, %ld saturated totals, "
                "%ld malformed pools)\n", checks, failures, collapsed, saturated, malformed);
    return failures ? 1 : 0;
}
