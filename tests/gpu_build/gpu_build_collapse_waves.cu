// The collapse's launches over the small stage's waves (gpu_build_collapse.cu)
// against the rule applied by recursion, on random pools laid out as the
// small stage lays them out: roots among the upper stages' nodes, then each
// wave's children in the slots after the wave before, two adjacent slots a
// split. Every record must come out as the recursion says (kept, or a
// collapsed leaf of its union naming its small root), whatever the scratch
// held before, for waves from 1 to many (so that the launches, a group of
// KD_GB_COLLAPSE_WAVES waves each, meet every remainder of the count, with
// a deeper first launch and without). Pools of another shape (a
// child outside the next wave, children apart, a leaf that is no mask) must
// end, keeping the node of that shape and every node above it. Host code
// only (label cpu); the device runs the same code.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "gpu_build_collapse.cuh"

static long checks = 0, failures = 0;

static void expect(bool ok, const char *what, int trial, uint32_t id)
{
    checks++;
    if (!ok && failures++ < 10)
        std::fprintf(stderr, "trial %d, pool id %u: %s\n", trial, id, what);
}

// A random pool and where its waves end, as the small stage leaves them.
struct pool_case {
    std::vector<kd_gb_pool_node> pool;
    std::vector<kd_gb_small_root> roots;
    std::vector<uint32_t> wave_ends; // task slots
    uint32_t pool_base;
};

// A node of a wave being laid: its pool id, small root, the references its
// leaves may hold and its box's area.
struct pending {
    uint32_t id, root;
    unsigned long long members;
    double area;
};

static double uniform(std::mt19937_64 &rng, double lo, double hi)
{
    return std::uniform_real_distribution<double>(lo, hi)(rng);
}

// One wave's nodes: each splits (at random, but not past max_waves) into
// two adjacent slots of the next wave, the pairs in random order, or
// becomes a mask leaf of some of its members.
static std::vector<pending> lay_wave(pool_case &c, std::mt19937_64 &rng, const std::vector<pending> &wave,
                                     uint32_t w, uint32_t max_waves)
{
    std::vector<size_t> splits;
    for (size_t k = 0; k < wave.size(); k++) {
        kd_gb_pool_node &n = c.pool[wave[k].id];
        if (w + 1 < max_waves && uniform(rng, 0.0, 1.0) < 0.8)
            splits.push_back(k);
        else
            n = kd_gb_pool_record(KD_GB_POOL_LEAF_MASK, 0.0f, wave[k].root, 0, wave[k].members & rng(), n.parent, w);
        kd_gb_pool_set_area(&n, wave[k].area);
    }
    std::shuffle(splits.begin(), splits.end(), rng);
    std::vector<pending> next;
    for (size_t k : splits) {
        const pending &p = wave[k];
        const uint32_t a = (uint32_t)c.pool.size();
        kd_gb_pool_node &n = c.pool[p.id];
        n = kd_gb_pool_record((uint32_t)(rng() % 3), 0.5f, a, a + 1, 0ull, n.parent, w);
        kd_gb_pool_set_area(&n, p.area);
        for (uint32_t j = 0; j < 2; j++) {
            c.pool.push_back(kd_gb_pool_record(0, 0.0f, 0, 0, 0ull, p.id, w + 1));
            next.push_back({a + j, p.root, p.members & (rng() | rng()), p.area * uniform(rng, 0.3, 1.0)});
        }
    }
    return next;
}

// Upper nodes (list leaves) with `roots` small roots among them, then waves
// until none splits or max_waves.
static pool_case make_case(std::mt19937_64 &rng, uint32_t roots, uint32_t max_waves)
{
    pool_case c;
    c.pool_base = roots + (uint32_t)(rng() % 50);
    c.pool.assign(c.pool_base, kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0ull, 0, 1));
    std::vector<pending> wave;
    for (uint32_t id = 0; id < c.pool_base && wave.size() < roots; id++) {
        if (rng() % (c.pool_base - id) < roots - wave.size()) {
            kd_gb_small_root r = {};
            r.pool_id = id;
            c.roots.push_back(r);
            wave.push_back({id, (uint32_t)wave.size(), rng(), std::ldexp(uniform(rng, 1.0, 2.0), (int)(rng() % 40) - 20)});
        }
    }
    for (uint32_t w = 0; !wave.empty(); w++) {
        c.wave_ends.push_back(roots + (uint32_t)(c.pool.size() - c.pool_base));
        wave = lay_wave(c, rng, wave, w, max_waves);
    }
    return c;
}

// What a subtree leaves its parent under the rule, by recursion.
struct rule_result {
    double cost;
    unsigned long long members;
    double area;
};

// The rule from node x of small root r over the pool `before`: the records
// that become leaves, in `after`. (kd_subtree_pays, in the collapse's
// steps without contraction.)
static rule_result apply_rule(const std::vector<kd_gb_pool_node> &before, std::vector<kd_gb_pool_node> &after,
                              uint32_t x, uint32_t r, double traversal, double intersect, long *collapsed)
{
    const kd_gb_pool_node &n = before[x];
    const double area = kd_gb_pool_area(n);
    if (n.kind == KD_GB_POOL_LEAF_MASK)
        return {KD_GB_DMUL(intersect, (double)kd_gb_popc64(n.mask)), n.mask, area};
    const rule_result below = apply_rule(before, after, n.a, r, traversal, intersect, collapsed);
    const rule_result above = apply_rule(before, after, n.b, r, traversal, intersect, collapsed);
    const unsigned long long uni = below.members | above.members;
    const double sum = KD_GB_DADD(KD_GB_DMUL(below.area, below.cost), KD_GB_DMUL(above.area, above.cost));
    const double as_tree = KD_GB_DADD(traversal, KD_GB_DDIV(sum, area));
    const double as_leaf = KD_GB_DMUL(intersect, (double)kd_gb_popc64(uni));
    if (as_tree < as_leaf)
        return {as_tree, uni, area};
    after[x] = kd_gb_pool_record(KD_GB_POOL_LEAF_COLLAPSED, 0.0f, r, n.a, uni, n.parent, n.depth);
    (*collapsed)++;
    return {as_leaf, uni, area};
}

static bool same_record(const kd_gb_pool_node &x, const kd_gb_pool_node &y)
{
    return x.kind == y.kind && std::memcmp(&x.split, &y.split, sizeof x.split) == 0 && x.a == y.a && x.b == y.b &&
           x.mask == y.mask && x.parent == y.parent && x.depth == y.depth;
}

// The collapse over case c's pool (in a host builder, the scratch full of
// garbage); the pool it leaves.
static std::vector<kd_gb_pool_node> run_collapse(const pool_case &c, const kd_gpu_build_options &o,
                                                 std::mt19937_64 &rng, int trial)
{
    kd_gpu_builder *b = nullptr;
    kd_error err;
    const size_t n = c.pool.size();
    if (kd_gpu_builder_create(&b, 1, &err) != KD_OK ||
        kd_gb_ensure(b, KD_GB_POOL, n * sizeof(kd_gb_pool_node), 0, &err) != KD_OK ||
        kd_gb_ensure(b, KD_GB_SROOTS, c.roots.size() * sizeof(kd_gb_small_root), 0, &err) != KD_OK) {
        expect(false, "no host builder", trial, 0);
        kd_gpu_builder_destroy(b);
        return c.pool;
    }
    std::memcpy(kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL), c.pool.data(), n * sizeof(kd_gb_pool_node));
    std::memcpy(kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS), c.roots.data(), c.roots.size() * sizeof(kd_gb_small_root));
    kd_gb_build_state s = {};
    s.opts = &o;
    s.max_depth = KD_TREE_DEPTH_LIMIT;
    s.pool_count = (uint32_t)n;
    s.num_small_roots = (uint32_t)c.roots.size();
    s.small_pool_base = c.pool_base;
    s.num_small_waves = (uint32_t)c.wave_ends.size();
    std::copy(c.wave_ends.begin(), c.wave_ends.end(), s.small_wave_ends);
    std::vector<double> cost(n), area(n);
    std::vector<unsigned long long> members(n);
    std::vector<uint32_t> stored(n);
    for (size_t i = 0; i < n; i++) {
        const unsigned long long g = rng();
        std::memcpy(&cost[i], &g, sizeof g);
        area[i] = (double)(g >> 11);
        members[i] = g;
        stored[i] = (uint32_t)g;
    }
    expect(kd_gb_collapse(b, &s, cost.data(), members.data(), area.data(), stored.data(), &err) == KD_OK,
           "the collapse failed", trial, 0);
    std::vector<kd_gb_pool_node> out(n);
    std::memcpy(out.data(), kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL), n * sizeof(kd_gb_pool_node));
    kd_gpu_builder_destroy(b);
    return out;
}

static void check_rule(std::mt19937_64 &rng, const kd_gpu_build_options &o, int trial, long *collapsed,
                       long *kept)
{
    const pool_case c = make_case(rng, 1 + (uint32_t)(rng() % 40), 1 + (uint32_t)(trial % 18));
    std::vector<kd_gb_pool_node> expected = c.pool;
    const long before = *collapsed;
    for (uint32_t r = 0; r < c.roots.size(); r++)
        apply_rule(c.pool, expected, c.roots[r].pool_id, r, o.params.traversal_cost, o.params.intersect_cost,
                   collapsed);
    const std::vector<kd_gb_pool_node> out = run_collapse(c, o, rng, trial);
    for (uint32_t i = 0; i < out.size(); i++)
        expect(same_record(out[i], expected[i]), "record not as the rule says", trial, i);
    for (const kd_gb_pool_node &n : c.pool)
        *kept += n.kind < 3;
    *kept -= *collapsed - before;
}

// Interior node x of case c (or, for a leaf that is no mask, its parent)
// made of another shape; returns the node the collapse must keep.
static uint32_t corrupt(pool_case &c, std::mt19937_64 &rng, uint32_t x)
{
    kd_gb_pool_node &n = c.pool[x];
    switch (rng() % 4) {
    case 0: // children in the node's own wave or before it
        n.a = x - (x > 0 ? 1u : 0u);
        n.b = n.a + 1;
        return x;
    case 1: // children past the pool
        n.a = (uint32_t)c.pool.size() + (uint32_t)(rng() % 3);
        n.b = n.a + 1;
        return x;
    case 2: // children apart
        n.b = n.a + 2;
        return x;
    default: // a leaf that is no mask under it
        for (uint32_t y = n.a; c.pool[y].kind < 3; y = c.pool[y].b)
            x = y;
        c.pool[c.pool[x].b].kind = KD_GB_POOL_LEAF_LIST;
        return x;
    }
}

static void check_corrupt(std::mt19937_64 &rng, const kd_gpu_build_options &o, int trial)
{
    pool_case c = make_case(rng, 1 + (uint32_t)(rng() % 8), 3 + (uint32_t)(trial % 12));
    std::vector<uint32_t> interior;
    for (uint32_t i = 0; i < c.pool.size(); i++)
        if (c.pool[i].kind < 3)
            interior.push_back(i);
    if (interior.empty())
        return;
    uint32_t x = corrupt(c, rng, interior[rng() % interior.size()]);
    const std::vector<kd_gb_pool_node> out = run_collapse(c, o, rng, trial);
    for (uint32_t i = 0; i < out.size(); i++)
        expect(same_record(out[i], c.pool[i]) ||
                   (out[i].kind == KD_GB_POOL_LEAF_COLLAPSED && out[i].a < c.roots.size()),
               "corrupt pool: a record neither kept nor collapsed", trial, i);
    for (uint32_t steps = 0;; steps++) {
        expect(same_record(out[x], c.pool[x]), "corrupt pool: a node of another shape, or above one, changed",
               trial, x);
        if (x < c.pool_base || steps > KD_TREE_DEPTH_LIMIT)
            break;
        x = c.pool[x].parent;
    }
}

int main()
{
    std::mt19937_64 rng(0x9e3779b97f4a7c15ull);
    kd_gpu_build_options o;
    kd_gpu_build_options_default(&o);
    long collapsed = 0, kept = 0;
    for (int trial = 0; trial < 400; trial++)
        check_rule(rng, o, trial, &collapsed, &kept);
    for (int trial = 0; trial < 400; trial++)
        check_corrupt(rng, o, trial);
    // The pools must hold both outcomes, or the comparison proves little.
    expect(collapsed > 0 && kept > 0, "the random pools do not hold both outcomes", -1, 0);
    std::printf("gpu_build_collapse_waves: %ld checks, %ld failures (%ld subtrees collapsed, %ld kept)\n", checks,
                failures, collapsed, kept);
    return failures ? 1 : 0;
}
