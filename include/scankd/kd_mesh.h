/* Triangle mesh as the OBJ loader produces it and every builder consumes it.
 * Plain data, valid in C and CUDA. */
#ifndef KD_MESH_H
#define KD_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_aabb {
    float lo[3];
    float hi[3];
} kd_aabb;

typedef struct kd_mesh {
    float *positions;        /* 3 * num_vertices floats, xyz interleaved */
    uint32_t *indices;       /* 3 * num_triangles vertex indices */
    uint32_t num_vertices;
    uint32_t num_triangles;  /* after degenerate triangles were dropped */
    /* What the loader saw and dropped, for reporting. */
    uint64_t num_faces_read;        /* 'f' statements */
    uint64_t num_triangles_read;    /* triangles before dropping */
    uint64_t num_dropped_nonfinite; /* a NaN or infinite coordinate */
    uint64_t num_dropped_zero_area; /* exactly zero area */
} kd_mesh;

/* Frees what a loader allocated and zeroes the struct; safe on a zeroed mesh. */
void kd_mesh_free(kd_mesh *mesh);

/* Bounds of all referenced vertices (an empty box with lo > hi for no triangles). */
kd_aabb kd_mesh_bounds(const kd_mesh *mesh);

#ifdef __cplusplus
}
#endif
#endif
