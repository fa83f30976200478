/* Scene variants: meshes moved, turned, scaled, merged and copied on a grid,
 * for tree-quality tests away from the axis-aligned, unit-sized shared scenes.
 *
 * A mesh is held in double while it is transformed, so a chain of operations
 * rounds to float once, when it is written. Rotations and scales act about
 * the centre of the mesh's bounds (its referenced vertices), so that they
 * leave the scene where it was; translations move it. */
#ifndef KD_VARIANT_MESH_H
#define KD_VARIANT_MESH_H

#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"

typedef struct kd_vmesh {
    double *pos;          /* 3 per vertex */
    uint32_t *indices;    /* 3 per triangle */
    uint32_t num_vertices, num_triangles;
} kd_vmesh;

/* Copies a loaded mesh (every vertex, the surviving triangles). */
kd_status kd_vmesh_from_mesh(kd_vmesh *vm, const kd_mesh *mesh, kd_error *err);
void kd_vmesh_free(kd_vmesh *vm);

/* Bounds of the referenced vertices; the size is the largest extent. */
void kd_vmesh_bounds(const kd_vmesh *vm, double lo[3], double hi[3]);
double kd_vmesh_size(const kd_vmesh *vm);

/* A uniformly distributed random rotation, the same for the same seed:
 * a unit quaternion by Shoemake's method from three uniforms of splitmix64. */
void kd_quat_from_seed(uint64_t seed, double q[4]);
/* A rotation by deg degrees about axis (any nonzero length). */
void kd_quat_from_axis_angle(const double axis[3], double deg, double q[4]);
/* The rotation matrix of a unit quaternion (x, y, z, w). */
void kd_quat_to_matrix(const double q[4], double m[3][3]);

void kd_vmesh_rotate(kd_vmesh *vm, const double m[3][3]);
void kd_vmesh_scale(kd_vmesh *vm, double s);
void kd_vmesh_translate(kd_vmesh *vm, const double t[3]);
/* Moves the centre of the bounds to the origin. */
void kd_vmesh_center(kd_vmesh *vm);

/* One input of the output scene: a mesh and its grid of copies, copy (i, j, k)
 * displaced by (i, j, k) * spacing. */
typedef struct kd_variant_part {
    const kd_vmesh *mesh;
    uint32_t grid[3];    /* copies per axis, each >= 1 */
    double spacing[3];
} kd_variant_part;

/* The grid spacing of a mesh: its extent on each axis (the size on an axis
 * where it is flat) times 1 + gap. */
void kd_variant_grid_spacing(const kd_vmesh *vm, double gap, double spacing[3]);

typedef struct kd_variant_counts {
    uint64_t num_vertices, num_triangles;
} kd_variant_counts;

/* Counts of what kd_variants_write_obj writes; fails when they overflow the
 * 32-bit counts a kd_mesh can hold. */
kd_status kd_variants_count(const kd_variant_part *parts, int num_parts, kd_variant_counts *counts,
                            kd_error *err);

/* Writes the parts as one OBJ (path "-" is stdout), whole or not at all: for
 * each part and copy, its vertices rounded to the nearest float (printed so
 * that they read back bit for bit), then its faces. comment, if not NULL,
 * heads the file as a '#' line. */
kd_status kd_variants_write_obj(const char *path, const kd_variant_part *parts, int num_parts,
                                const char *comment, kd_variant_counts *counts, kd_error *err);

/* The same mesh as binary little-endian PLY (the same floats: it loads to
 * the OBJ's mesh), built whole in memory first. */
kd_status kd_variants_write_ply(const char *path, const kd_variant_part *parts, int num_parts,
                                kd_variant_counts *counts, kd_error *err);

#endif
