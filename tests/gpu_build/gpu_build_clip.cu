// The GPU builder's conservative clip (kd_gb_clip_bounds, kd_gb_clip_split)
// against a reference Sutherland-Hodgman clip in long double, with no
// tolerances: the clipped bounds must never be smaller than the reference
// (a triangle touching a box must stay in it) and, on well-shaped input, no
// larger than the outward widening (on awkward input, rarely larger).
// Triangles of every awkward kind: axis-aligned, snapped to a grid with the
// boxes (vertices on faces, edges in faces, triangles in faces), slivers,
// degenerate, far from the origin, nearly parallel to an axis, boxes through
// their vertices. Host code only (label cpu): the device runs the same
// function, and the emulated build tests compare its trees with the device's.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu_build_geom.cuh"

namespace {

int g_checks = 0, g_failures = 0;

// Reference: the triangle clipped by the closed box, in long double.
struct ref_bounds {
    long double lo[3], hi[3];
    bool found;
};

ref_bounds reference_clip(const float *v, const float *cell)
{
    long double poly[2][32][3];
    int n = 3, cur = 0;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            poly[0][i][k] = v[3 * i + k];
    for (int face = 0; face < 6 && n > 0; face++) {
        const int a = face >> 1, upper = face & 1;
        const long double c = upper ? cell[3 + a] : cell[a];
        int m = 0;
        for (int i = 0; i < n; i++) {
            const long double *p = poly[cur][i], *q = poly[cur][(i + 1) % n];
            const bool p_in = upper ? p[a] <= c : p[a] >= c;
            const bool q_in = upper ? q[a] <= c : q[a] >= c;
            if (p_in)
                std::memcpy(poly[cur ^ 1][m++], p, sizeof(long double) * 3);
            if (p_in != q_in) {
                const long double s = (c - p[a]) / (q[a] - p[a]);
                for (int k = 0; k < 3; k++)
                    poly[cur ^ 1][m][k] = k == a ? c : p[k] + s * (q[k] - p[k]);
                m++;
            }
        }
        n = m;
        cur ^= 1;
    }
    ref_bounds r;
    r.found = n > 0;
    for (int k = 0; k < 3 && r.found; k++) {
        r.lo[k] = r.hi[k] = poly[cur][0][k];
        for (int i = 1; i < n; i++) {
            r.lo[k] = std::fmin(r.lo[k], poly[cur][i][k]);
            r.hi[k] = std::fmax(r.hi[k], poly[cur][i][k]);
        }
    }
    return r;
}

enum { KIND_GENERIC, KIND_AXIS, KIND_GRID, KIND_SLIVER, KIND_DEGENERATE, KIND_FAR, KIND_TILTED,
       KIND_THROUGH, NUM_KINDS };
const char *const kind_names[NUM_KINDS] = {"generic", "axis-aligned", "grid", "sliver",
                                           "degenerate", "far", "tilted", "through-vertex"};

struct rng {
    uint64_t s;
    uint32_t next()
    {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        return (uint32_t)(s >> 33);
    }
    float unit() { return (float)next() / 2147483648.0f - 1.0f; } // [-1, 1)
    float snap() { return (float)((int)(next() % 9) - 4) * 0.25f; }
};

void make_case(rng &r, int kind, float *v, float *cell)
{
    for (int i = 0; i < 9; i++)
        v[i] = kind == KIND_GRID ? r.snap() : r.unit();
    for (int k = 0; k < 3; k++) {
        float a = kind == KIND_GRID ? r.snap() : r.unit(), b = kind == KIND_GRID ? r.snap() : r.unit();
        cell[k] = std::fmin(a, b);
        cell[3 + k] = std::fmax(a, b);
    }
    const int axis = (int)(r.next() % 3);
    switch (kind) {
    case KIND_AXIS:
        for (int i = 0; i < 3; i++)
            v[3 * i + axis] = v[axis];
        if (r.next() & 1)
            cell[3 * (r.next() & 1) + axis] = v[axis]; // the triangle in a face
        break;
    case KIND_SLIVER: { // the third vertex a hair off the first edge
        const float s = 0.5f * (r.unit() + 1.0f), hair = std::ldexp(r.unit(), -(int)(r.next() % 30));
        for (int k = 0; k < 3; k++)
            v[6 + k] = v[k] + s * (v[3 + k] - v[k]) + (k == axis ? hair : 0.0f);
        break;
    }
    case KIND_DEGENERATE: // collinear, or two vertices (or all three) the same
        for (int k = 0; k < 3; k++) {
            v[6 + k] = (r.next() & 1) ? v[k] : 0.5f * (v[k] + v[3 + k]);
            if (r.next() % 4 == 0)
                v[3 + k] = v[k];
        }
        break;
    case KIND_FAR: // small triangles and boxes far from the origin
        for (int i = 0; i < 9; i++)
            v[i] = 4096.0f + v[i] * 0.01f;
        for (int k = 0; k < 6; k++)
            cell[k] = 4096.0f + cell[k] * 0.01f;
        break;
    case KIND_TILTED: // nearly along an axis: the third vertex tilts it by up to 2^-8
        for (int i = 1; i < 3; i++)
            v[3 * i + axis] = v[axis] + (i == 2 ? std::ldexp(r.unit(), -8 - (int)(r.next() % 16)) : 0.0f);
        break;
    case KIND_THROUGH: // box faces through vertices, or one float beside them
        for (int f = 0; f < 6; f++) {
            if (r.next() % 3 == 0)
                continue;
            float x = v[3 * (r.next() % 3) + f % 3];
            int step = (int)(r.next() % 3) - 1;
            if (step)
                x = std::nextafterf(x, step > 0 ? INFINITY : -INFINITY);
            cell[f] = x;
        }
        break;
    default:
        break;
    }
    for (int k = 0; k < 3; k++) // faces moved above may have crossed
        if (cell[k] > cell[3 + k]) {
            float t = cell[k];
            cell[k] = cell[3 + k];
            cell[3 + k] = t;
        }
}

double magnitude(const float *v, const float *cell)
{
    double mag = 0.0;
    for (int i = 0; i < 9; i++)
        mag = std::fmax(mag, std::fabs((double)v[i]));
    for (int k = 0; k < 6; k++)
        mag = std::fmax(mag, std::fabs((double)cell[k]));
    return mag;
}

struct tally {
    int cases, loose, loose_reported;
    double worst_loose; // in units of mag
    int past_step;      // bounds more than a float step (of mag) wider than the reference
};

// got: the clip's bounds of the triangle in cell. They must hold the
// reference's; on shapes that clip well, not by more than the widening.
[[maybe_unused]] void check_bounds(const char *what, int kind, const float *v, const float *cell, const float *got,
                  tally *t)
{
    const ref_bounds ref = reference_clip(v, cell);
    const double mag = magnitude(v, cell);
    // The reference's own rounding (long double) is far below this margin.
    const long double margin = std::ldexp(mag, -48);
    // Widening (2^-20 of mag) and rounding to float (2^-23 of mag), and a little more.
    const long double allowed = std::ldexp(mag, -19);
    // The widening is far below a float step, and the rounding outward one
    // step at most: where a clip is not loosened by a grazing edge, its
    // bounds end within about a step of the truth, as the CPU builder's do
    // (a widening of several steps costs far scenes, whose triangles span
    // few steps, dearly).
    const long double step = std::ldexp(mag, -22);
    t->cases++;
    if (!ref.found)
        return;
    double excess = 0.0;
    for (int k = 0; k < 3; k++) {
        g_checks++;
        if (!(got[k] <= ref.lo[k] + margin && got[3 + k] >= ref.hi[k] - margin)) {
            if (g_failures++ < 10) {
                std::fprintf(stderr, "%s (%s): axis %d bounds [%a, %a] miss the clipped triangle's [%La, %La]\n  v",
                             what, kind_names[kind], k, got[k], got[3 + k], ref.lo[k], ref.hi[k]);
                for (int i = 0; i < 9; i++)
                    std::fprintf(stderr, " %a", v[i]);
                std::fprintf(stderr, "\n  cell");
                for (int i = 0; i < 6; i++)
                    std::fprintf(stderr, " %a", cell[i]);
                std::fprintf(stderr, "\n");
            }
        }
        excess = std::fmax(excess, (double)(ref.lo[k] - got[k]));
        excess = std::fmax(excess, (double)(got[3 + k] - ref.hi[k]));
    }
    t->past_step += excess > step;
    if (excess > allowed) {
        t->loose++;
        t->worst_loose = std::fmax(t->worst_loose, excess / mag);
        if (t->loose_reported++ < 3)
            std::printf("  %s (%s): bounds %g (of the magnitude) wider than the clipped triangle's\n",
                         what, kind_names[kind], excess / mag);
    }
}

// Whether the polygon of v clipped to cell outgrew its KD_GB_CLIP_MAX
// points (the clip then falls back to the box, looser but safe).
[[maybe_unused]] bool outgrows(const float *v, const float *cell)
{
    float tlo[3], thi[3];
    kd_gb_clip_prepare(v, cell, tlo, thi);
    kd_gb_poly_local poly;
    return !kd_gb_clip_to_cell(v, tlo, thi, cell, poly).ok;
}

// A split's clip: the triangle's bounds in the cell (kd_gb_clip_bounds of
// its own bounds, as a root holds them) and a plane through a vertex's
// coordinate or anywhere inside the cell.
struct split_case {
    float v[9], cell[6], box[6], pos;
    int axis;
};

void make_split_case(rng &r, int kind, split_case *sc)
{
    make_case(r, kind, sc->v, sc->cell);
    const float *v = sc->v, *cell = sc->cell;
    for (int k = 0; k < 3; k++) {
        sc->box[k] = std::fmin(v[k], std::fmin(v[3 + k], v[6 + k]));
        sc->box[3 + k] = std::fmax(v[k], std::fmax(v[3 + k], v[6 + k]));
    }
    kd_gb_clip_bounds(v, cell, sc->box);
    const int axis = (int)(r.next() % 3);
    float pos = (r.next() & 1) ? v[3 * (r.next() % 3) + axis]
                               : cell[axis] + 0.5f * (r.unit() + 1.0f) * (cell[3 + axis] - cell[axis]);
    sc->pos = std::fmin(std::fmax(pos, cell[axis]), cell[3 + axis]);
    sc->axis = axis;
}

uint64_t kind_seed(int kind)
{
    return 0x9e3779b97f4a7c15ull * (uint64_t)(kind + 1);
}

#if !defined(KD_CLIP_ON_DEVICE)
// Returns how many of the kind's polygons outgrew their points.
int run_kind(int kind, int num_cases, tally *bounds_tally, tally *split_tally)
{
    rng r = {kind_seed(kind)};
    int outgrown = 0;
    for (int c = 0; c < num_cases; c++) {
        split_case sc;
        make_split_case(r, kind, &sc);
        outgrown += outgrows(sc.v, sc.cell);
        check_bounds("kd_gb_clip_bounds", kind, sc.v, sc.cell, sc.box, bounds_tally);
        float child[2][6];
        kd_gb_clip_split(sc.v, sc.cell, sc.box, sc.axis, sc.pos, child);
        for (int side = 0; side < 2; side++) {
            float child_cell[6];
            kd_gb_child_cell(sc.cell, sc.axis, sc.pos, side, child_cell);
            check_bounds("kd_gb_clip_split", kind, sc.v, child_cell, child[side], split_tally);
        }
    }
    return outgrown;
}
#endif

} // namespace

#if defined(KD_CLIP_ON_DEVICE)
// gpu_build_clip_device (label gpu): the same cases' split clips on the
// device, by one thread (kd_gb_clip_split, as the large and medium stages
// and a busy small-stage clip pass run it) and by a team of lanes
// (kd_gb_clip_split_team, a quiet clip pass's), each against the host's,
// bit for bit: the device builds must equal the host emulation's.
// gpu_build_clip_overflow: the same with polygons of at most 5 points,
// so that many overflow and fall back to the box.
#include "gpu_build_clip_team.cuh"

namespace {

__global__ void clip_by_thread(const split_case *cases, int n, float *out)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    const split_case sc = cases[c];
    float child[2][6];
    kd_gb_clip_split(sc.v, sc.cell, sc.box, sc.axis, sc.pos, child);
    for (int k = 0; k < 12; k++)
        out[12 * (size_t)c + k] = child[k / 6][k % 6];
}

enum { TEAM_BLOCK = 128 };

__global__ void clip_by_team(const split_case *cases, int n, float *out)
{
    __shared__ double columns[KD_GB_CLIP_TEAM_ROWS * TEAM_BLOCK]; // a team's polygon, 16 doubles a row
    const kd_gb_clip_team team = kd_gb_clip_team_of(columns, TEAM_BLOCK);
    const int c = (int)((blockIdx.x * blockDim.x + threadIdx.x) / KD_GB_CLIP_TEAM);
    if (c >= n)
        return; // the whole team: c is the team's
    const split_case sc = cases[c];
    float child[2][6];
    kd_gb_clip_split_team(team, sc.v, sc.cell, sc.box, sc.axis, sc.pos, child);
    if (team.lane < 12)
        out[12 * (size_t)c + team.lane] = child[team.lane / 6][team.lane % 6];
}

#define CLIP_CUDA(call)                                                                          \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

} // namespace

int main()
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("gpu_build_clip_device: no CUDA device, skipped\n");
        return 77;
    }
    const int per_kind = std::getenv("KD_TEST_QUICK") ? 20000 : 100000, n = per_kind * NUM_KINDS;
    int outgrown = 0; // polygons past KD_GB_CLIP_MAX points (the fallback to the box)
    split_case *cases = (split_case *)std::malloc(sizeof(split_case) * (size_t)n);
    float *host = (float *)std::malloc(sizeof(float) * 12 * (size_t)n);
    float *got = (float *)std::malloc(sizeof(float) * 12 * (size_t)n);
    if (!cases || !host || !got)
        return 1;
    for (int kind = 0; kind < NUM_KINDS; kind++) {
        rng r = {kind_seed(kind)};
        for (int c = 0; c < per_kind; c++) {
            split_case *sc = &cases[kind * per_kind + c];
            make_split_case(r, kind, sc);
            outgrown += outgrows(sc->v, sc->cell);
            float child[2][6];
            kd_gb_clip_split(sc->v, sc->cell, sc->box, sc->axis, sc->pos, child);
            std::memcpy(&host[12 * (size_t)(kind * per_kind + c)], child, sizeof child);
        }
    }
    split_case *d_cases = NULL;
    float *d_out = NULL;
    CLIP_CUDA(cudaMalloc(&d_cases, sizeof(split_case) * (size_t)n));
    CLIP_CUDA(cudaMalloc(&d_out, sizeof(float) * 12 * (size_t)n));
    CLIP_CUDA(cudaMemcpy(d_cases, cases, sizeof(split_case) * (size_t)n, cudaMemcpyHostToDevice));
    const char *names[2] = {"one thread", "a team of lanes"};
    for (int way = 0; way < 2; way++) {
        CLIP_CUDA(cudaMemset(d_out, 0xff, sizeof(float) * 12 * (size_t)n));
        if (way == 0)
            clip_by_thread<<<(n + 127) / 128, 128>>>(d_cases, n, d_out);
        else
            clip_by_team<<<(unsigned)(((size_t)n * KD_GB_CLIP_TEAM + TEAM_BLOCK - 1) / TEAM_BLOCK), TEAM_BLOCK>>>(d_cases, n, d_out);
        CLIP_CUDA(cudaGetLastError());
        CLIP_CUDA(cudaMemcpy(got, d_out, sizeof(float) * 12 * (size_t)n, cudaMemcpyDeviceToHost));
        for (int kind = 0; kind < NUM_KINDS; kind++) {
            int differ = 0;
            for (int c = kind * per_kind; c < (kind + 1) * per_kind; c++)
                differ += std::memcmp(&host[12 * (size_t)c], &got[12 * (size_t)c], 12 * sizeof(float)) != 0;
            g_checks++;
            if (differ) {
                g_failures++;
                std::fprintf(stderr, "%s: %d of %d split clips by %s differ from the host's\n", kind_names[kind],
                             differ, per_kind, names[way]);
            }
        }
        std::printf("split clips by %s on the device: %d cases of %d kinds compared with the host's\n", names[way],
                    n, (int)NUM_KINDS);
    }
    // Built with fewer points (gpu_build_clip_overflow), the cases must
    // overflow, so that the team's overflow rule is compared too.
    std::printf("%d of %d polygons past %d points\n", outgrown, n, (int)KD_GB_CLIP_MAX);
    g_checks++;
    if (KD_GB_CLIP_MAX < 9 && outgrown == 0) {
        g_failures++;
        std::fprintf(stderr, "no polygon outgrew %d points\n", (int)KD_GB_CLIP_MAX);
    }
    cudaFree(d_cases);
    cudaFree(d_out);
    std::free(cases);
    std::free(host);
    std::free(got);
    std::printf("gpu_build_clip_device: %d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
#else
int main()
{
    const int num_cases = std::getenv("KD_TEST_QUICK") ? 20000 : 200000;
    for (int kind = 0; kind < NUM_KINDS; kind++) {
        tally bounds_tally = {0, 0, 0, 0.0, 0}, split_tally = {0, 0, 0, 0.0, 0};
        const int outgrown = run_kind(kind, num_cases, &bounds_tally, &split_tally);
        std::printf("%-15s %7d clips, %5d wider than the widening (worst %.3g of the magnitude); "
                    "%7d split children, %5d wider (worst %.3g); %d polygons past %d points\n",
                    kind_names[kind], bounds_tally.cases, bounds_tally.loose, bounds_tally.worst_loose,
                    split_tally.cases, split_tally.loose, split_tally.worst_loose, outgrown,
                    (int)KD_GB_CLIP_MAX);
        // A box's six planes make at most 9 points of a triangle; the
        // arrays hold KD_GB_CLIP_MAX (9): past that only by rounding, which
        // these cases, awkward ones included, never reach.
        g_checks++;
        if (outgrown != 0) {
            g_failures++;
            std::fprintf(stderr, "%s: %d polygons outgrew %d points\n", kind_names[kind], outgrown,
                         (int)KD_GB_CLIP_MAX);
        }
        // Generic shapes clip as tight as the widening. The awkward ones
        // may clip looser, rarely: an edge that crosses a face at a grazing
        // angle keeps its outside end (the crossing lies between its ends).
        const bool generic = kind == KIND_GENERIC || kind == KIND_FAR;
        const int loose = bounds_tally.loose + split_tally.loose;
        const int cases = bounds_tally.cases + split_tally.cases;
        g_checks++;
        if (generic ? loose != 0 : loose * 1000 > cases) {
            g_failures++;
            std::fprintf(stderr, "%s: %d of %d clipped bounds looser than the widening allows\n", kind_names[kind],
                         loose, cases);
        }
        // And within a float step of the truth but for a few grazing edges.
        const int past_step = bounds_tally.past_step + split_tally.past_step;
        g_checks++;
        if (generic && past_step * 10000 > cases) {
            g_failures++;
            std::fprintf(stderr, "%s: %d of %d clipped bounds more than a float step looser than the truth\n",
                         kind_names[kind], past_step, cases);
        }
    }
    std::printf("gpu_build_clip: %d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
#endif
