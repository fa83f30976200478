#include "kd_hash.h"

#include <string.h>

/* One FNV-1a step over a whole word. */
static inline uint64_t mix_word(uint64_t h, uint32_t w)
{
    return (h ^ w) * 1099511628211ull;
}

uint64_t kd_hash64_words(uint64_t h, const uint32_t *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = mix_word(h, words[i]);
    return h;
}

uint64_t kd_hash64_floats(uint64_t h, const float *values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t w;
        memcpy(&w, &values[i], sizeof w); /* the bits, without breaking aliasing rules */
        h = mix_word(h, w);
    }
    return h;
}

/* FNV-1a moves a word's high bits only upward; this finaliser (the one of
 * splitmix64) spreads every bit over the whole value. */
uint64_t kd_hash64_finish(uint64_t h)
{
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    return h ^ (h >> 31);
}

uint64_t kd_mesh_fingerprint(const kd_mesh *mesh)
{
    const uint32_t counts[2] = {mesh->num_vertices, mesh->num_triangles};
    uint64_t h = kd_hash64_words(KD_HASH64_START, counts, 2);
    if (mesh->positions)
        h = kd_hash64_floats(h, mesh->positions, 3ull * mesh->num_vertices);
    if (mesh->indices)
        h = kd_hash64_words(h, mesh->indices, 3ull * mesh->num_triangles);
    return kd_hash64_finish(h);
}

uint64_t kd_build_rules_hash(const kd_build_params *p, const uint32_t *extra, size_t n)
{
    const float floats[] = {p->traversal_cost, p->intersect_cost, p->empty_bonus, p->min_empty_fraction,
                            p->bad_cost_ratio, p->max_duplication};
    const uint32_t ints[] = {(uint32_t)p->max_depth, (uint32_t)p->max_bad_refines,
                             (uint32_t)p->max_prims_in_leaf_for_cost_cutoff, (uint32_t)p->max_leaf_prims};
    uint64_t h = kd_hash64_floats(KD_HASH64_START, floats, sizeof floats / sizeof floats[0]);
    h = kd_hash64_words(h, ints, sizeof ints / sizeof ints[0]);
    if (extra)
        h = kd_hash64_words(h, extra, n);
    return kd_hash64_finish(h);
}
