// Preprocess: gather each triangle's vertices and bounds (a map), the scene
// bounds (a min/max reduction), and the root node, which starts in the
// large-node stage, the small-node stage or (no triangles) as an empty leaf.
#include "gpu_build_common.cuh"
#include "gpu_build_geom.cuh"

namespace {

// One triangle: its 9 coordinates for clipping and tracing, its bounds as the
// first level's references (all in node 0).
struct gather_triangles {
    const float *positions;
    const uint32_t *indices;
    uint32_t num_vertices;
    float *tri_verts;
    kd_gb_refs refs;
    uint32_t *bad_index;
    uint32_t *bad_vertex;

    __host__ __device__ void operator()(uint32_t i) const
    {
        float v[9];
        for (int c = 0; c < 3; c++) {
            uint32_t vi = indices[3 * (size_t)i + c];
            if (vi >= num_vertices) {
                *bad_index = 1; // reported by the host (as bad_vertex); vertex 0 keeps the build going safely
                vi = 0;
            }
            for (int k = 0; k < 3; k++) {
                float x = positions[3 * (size_t)vi + k];
                // A NaN or infinity (the OBJ loader drops such triangles,
                // a device mesh may hold them): reported by the host at its
                // first read-back of the counts, and until then a 0 in its
                // place keeps the build finite and safe (the clips, and the
                // device's and the emulation's trees, assume finite
                // vertices). The highest such vertex is named, the same
                // every run.
                if (!isfinite(x)) {
#if defined(__CUDA_ARCH__)
                    atomicMax(bad_vertex, vi + 1u);
#else
                    *bad_vertex = *bad_vertex > vi + 1u ? *bad_vertex : vi + 1u;
#endif
                    x = 0.0f;
                }
                v[3 * c + k] = x;
            }
        }
        for (int k = 0; k < 9; k++)
            tri_verts[9 * (size_t)i + k] = v[k];
        refs.tri[i] = i;
        refs.seg[i] = 0;
        for (int k = 0; k < 3; k++) {
            refs.lo[k][i] = fminf(v[k], fminf(v[3 + k], v[6 + k]));
            refs.hi[k][i] = fmaxf(v[k], fmaxf(v[3 + k], v[6 + k]));
        }
    }
};

// The root record, from the scene box the reduction left in the scalars.
struct init_root {
    kd_gb_scalars *scalars;
    uint32_t num_tris;
    uint32_t small_threshold;
    kd_gb_large_node *large;
    kd_gb_small_root *small;
    kd_gb_pool_node *pool;
    float allowance;

    __host__ __device__ void operator()(uint32_t) const
    {
        float cell[6];
        for (int k = 0; k < 6; k++)
            cell[k] = KD_GB_FADD(scalars->scene_box[k], 0.0f); // -0 becomes +0
        if (num_tris == 0) {
            pool[0] = kd_gb_pool_record(KD_GB_POOL_LEAF_LIST, 0.0f, 0, 0, 0, KD_GB_NONE, 0);
        } else if (num_tris <= small_threshold) {
            kd_gb_small_root r;
            for (int k = 0; k < 6; k++)
                r.cell[k] = cell[k];
            r.ref_start = 0;
            r.ref_count = num_tris;
            r.pool_id = 0;
            r.parent = KD_GB_NONE;
            r.depth = 0;
            r.bad_refines = 0;
            r.allowance = allowance;
            small[0] = r;
        } else {
            kd_gb_large_node n;
            for (int k = 0; k < 6; k++)
                n.cell[k] = cell[k];
            n.ref_start = 0;
            n.ref_count = num_tris;
            n.pool_id = 0;
            n.parent = KD_GB_NONE;
            n.depth = 0;
            n.bad_refines = 0;
            n.allowance = allowance;
            large[0] = n;
        }
    }
};

// A root small enough for the small stage: its references are all of them.
struct copy_refs_small {
    kd_gb_refs from, to;

    __host__ __device__ void operator()(uint32_t i) const
    {
        to.tri[i] = from.tri[i];
        for (int k = 0; k < 3; k++) {
            to.lo[k][i] = from.lo[k][i];
            to.hi[k][i] = from.hi[k][i];
        }
    }
};

} // namespace

kd_status kd_gb_stage_preprocess(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    uint32_t n = s->num_tris;
    uint32_t threshold = (uint32_t)s->opts->small_node_threshold;
    KD_TRY(kd_gb_ensure(b, KD_GB_SCALARS, sizeof(kd_gb_scalars), 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_TRI_VERTS, (size_t)(n ? n : 1) * 9 * sizeof(float), 0, err));
    KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_A, n, 1, 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_LNODES_A, sizeof(kd_gb_large_node), 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_SROOTS, sizeof(kd_gb_small_root), 0, err));
    KD_TRY(kd_gb_ensure(b, KD_GB_POOL, sizeof(kd_gb_pool_node), 0, err));
    if (n > 0 && n <= threshold)
        KD_TRY(kd_gb_ensure_refs(b, KD_GB_REFS_SMALL, n, 0, 0, err));

    kd_gb_scalars *scalars = kd_gb_ptr<kd_gb_scalars>(b, KD_GB_SCALARS);
    KD_TRY(kd_gb_memset(b, scalars, 0, sizeof *scalars, err));

    gather_triangles gather;
    gather.positions = b->d_positions;
    gather.indices = b->d_indices;
    gather.num_vertices = b->num_vertices;
    gather.tri_verts = kd_gb_ptr<float>(b, KD_GB_TRI_VERTS);
    gather.refs = kd_gb_ref_set(b, KD_GB_REFS_A);
    gather.bad_index = &scalars->bad_index;
    gather.bad_vertex = &scalars->bad_vertex;
    KD_TRY(kd_gb_map(b, n, gather, "gathering triangles", err));

    kd_gb_refs refs = kd_gb_ref_set(b, KD_GB_REFS_A);
    kd_gb_reduce_timer_begin(b, s->opts->profile);
    KD_TRY(kd_gb_reduce_bounds(b, s->opts->reduce_variant, &refs, n, scalars->scene_box, err));
    kd_gb_reduce_timer_end(b, s->opts->profile);
    if (s->profile)
        s->profile->num_reduce_calls++;

    init_root root;
    root.scalars = scalars;
    root.num_tris = n;
    root.small_threshold = threshold;
    root.large = kd_gb_ptr<kd_gb_large_node>(b, KD_GB_LNODES_A);
    root.small = kd_gb_ptr<kd_gb_small_root>(b, KD_GB_SROOTS);
    root.pool = kd_gb_ptr<kd_gb_pool_node>(b, KD_GB_POOL);
    // The reference budget, per triangle: small scenes may duplicate freely
    // (up to KD_GB_MIN_ALLOWANCE references in all).
    root.allowance = s->opts->max_refs_per_triangle;
    if (n > 0 && (float)KD_GB_MIN_ALLOWANCE / (float)n > root.allowance)
        root.allowance = (float)KD_GB_MIN_ALLOWANCE / (float)n;
    KD_TRY(kd_gb_map(b, 1, root, "initialising the root", err));

    s->pool_count = 1;
    s->num_small_roots = 0;
    s->num_small_refs = 0;
    s->num_leaf_refs = 0;
    if (n > 0 && n <= threshold) {
        copy_refs_small copy;
        copy.from = refs;
        copy.to = kd_gb_ref_set(b, KD_GB_REFS_SMALL);
        KD_TRY(kd_gb_map(b, n, copy, "copying the root's references", err));
        s->num_small_roots = 1;
        s->num_small_refs = n;
        s->min_small_depth = 0;
    }
    return KD_OK;
}
