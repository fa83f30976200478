/* The mesh the tree fuzz target checks a tree against: a fixed function of the
 * triangle count the tree file names, so that the seed trees, built over it, are
 * right and their mutations explore near-right trees. */
#ifndef KD_FUZZ_TREE_MESH_H
#define KD_FUZZ_TREE_MESH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kd_mesh.h"

/* Trees over more triangles are loaded and measured, not traced. */
enum { FUZZ_TREE_MAX_TRIANGLES = 256 };

/* n triangles (9 floats each) of a fixed pseudo-random scatter in [0, 8]^3, some
 * large, some small, a few flat on a split-friendly plane. Returns malloc'ed. */
static inline float *fuzz_tree_mesh(uint32_t n)
{
    float *v = malloc(9 * sizeof(float) * (n ? n : 1));
    uint64_t s = 0x2545f4914f6cdd1dull ^ n;
    for (uint32_t t = 0; t < n; t++) {
        float c[3], size;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        size = (float)((s >> 60) + 1) * 0.125f;
        for (int a = 0; a < 3; a++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            c[a] = (float)(s >> 40) / (float)(1u << 24) * 8.0f;
        }
        if (t % 7 == 3)
            c[2] = 4.0f;
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++) {
                s = s * 6364136223846793005ull + 1442695040888963407ull;
                float d = ((float)(s >> 41) / (float)(1u << 23) - 0.5f) * size;
                v[9 * t + 3 * k + a] = c[a] + (t % 7 == 3 && a == 2 ? 0.0f : d);
            }
    }
    return v;
}

/* The mesh over those triangles: 3 vertices each, in order (indices malloc'ed,
 * positions borrowed). */
static inline kd_mesh fuzz_tree_as_mesh(float *tri_verts, uint32_t n)
{
    kd_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.positions = tri_verts;
    mesh.num_vertices = 3 * n;
    mesh.num_triangles = n;
    mesh.indices = malloc(3 * sizeof(uint32_t) * (n ? n : 1));
    for (uint32_t i = 0; i < 3 * n; i++)
        mesh.indices[i] = i;
    return mesh;
}

#endif
