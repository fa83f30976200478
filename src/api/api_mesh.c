/* Meshes for the public API: from an OBJ file, or copied from caller arrays
 * with the loader's drop rules. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api_internal.h"
#include "obj_internal.h"
#include "mesh_load.h"

kd_status scankd_mesh_load(const char *path, kd_mesh *mesh, kd_error *err)
{
    if (!mesh)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_mesh_load: mesh is NULL");
    memset(mesh, 0, sizeof *mesh);
    if (!path)
        return kd_error_set(err, KD_ERR_INVALID, "scankd_mesh_load: path is NULL");
    return kd_mesh_load_file(path, mesh, NULL, err);
}

kd_status kd_api_check_mesh(const char *who, const kd_mesh *mesh, kd_error *err)
{
    if (!mesh)
        return kd_error_set(err, KD_ERR_INVALID, "%s: mesh is NULL", who);
    if (mesh->num_triangles == 0)
        return kd_error_set(err, KD_ERR_INVALID, "%s: the mesh has no triangles", who);
    if (!mesh->positions || !mesh->indices)
        return kd_error_set(err, KD_ERR_INVALID, "%s: the mesh's %s array is NULL", who,
                            mesh->positions ? "indices" : "positions");
    for (uint64_t i = 0; i < 3ull * mesh->num_triangles; i++)
        if (mesh->indices[i] >= mesh->num_vertices)
            return kd_error_set(err, KD_ERR_INVALID,
                                "%s: triangle %" PRIu64 " names vertex %u, beyond the %u vertices",
                                who, i / 3, mesh->indices[i], mesh->num_vertices);
    return KD_OK;
}

static bool coords_finite(const float *p)
{
    return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]);
}

/* Keeps the triangles the loader would keep (obj_loader.h, "What it
 * produces"), in order, and counts the others. */
static void drop_degenerate(kd_mesh *mesh)
{
    uint32_t kept = 0;
    for (uint32_t t = 0; t < mesh->num_triangles; t++) {
        const uint32_t *tri = mesh->indices + 3 * (size_t)t;
        const float *a = mesh->positions + 3 * (size_t)tri[0];
        const float *b = mesh->positions + 3 * (size_t)tri[1];
        const float *c = mesh->positions + 3 * (size_t)tri[2];
        if (!coords_finite(a) || !coords_finite(b) || !coords_finite(c)) {
            mesh->num_dropped_nonfinite++;
            continue;
        }
        if (kd_obj_triangle_zero_area(a, b, c)) {
            mesh->num_dropped_zero_area++;
            continue;
        }
        memmove(mesh->indices + 3 * (size_t)kept, tri, 3 * sizeof *tri);
        kept++;
    }
    mesh->num_triangles = kept;
}

kd_status scankd_mesh_from_arrays(const float *positions, uint32_t num_vertices,
                                  const uint32_t *indices, uint32_t num_triangles, kd_mesh *mesh,
                                  kd_error *err)
{
    static const char *const who = "scankd_mesh_from_arrays";
    if (!mesh)
        return kd_error_set(err, KD_ERR_INVALID, "%s: mesh is NULL", who);
    memset(mesh, 0, sizeof *mesh);
    if (num_vertices == 0)
        return kd_error_set(err, KD_ERR_INVALID, "%s: no vertices", who);
    kd_mesh view = {.positions = (float *)positions, .indices = (uint32_t *)indices,
                    .num_vertices = num_vertices, .num_triangles = num_triangles};
    KD_TRY(kd_api_check_mesh(who, &view, err));

    size_t pos_bytes = (size_t)num_vertices * 3 * sizeof(float);
    size_t idx_bytes = (size_t)num_triangles * 3 * sizeof(uint32_t);
    mesh->positions = malloc(pos_bytes);
    mesh->indices = malloc(idx_bytes);
    if (!mesh->positions || !mesh->indices) {
        kd_mesh_free(mesh);
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %u vertices and %u triangles",
                            who, num_vertices, num_triangles);
    }
    memcpy(mesh->positions, positions, pos_bytes);
    memcpy(mesh->indices, indices, idx_bytes);
    mesh->num_vertices = num_vertices;
    mesh->num_triangles = num_triangles;
    mesh->num_faces_read = num_triangles;
    mesh->num_triangles_read = num_triangles;
    drop_degenerate(mesh);
    if (mesh->num_triangles == 0) {
        uint64_t nonfinite = mesh->num_dropped_nonfinite, zero = mesh->num_dropped_zero_area;
        kd_mesh_free(mesh);
        return kd_error_set(err, KD_ERR_INVALID,
                            "%s: no usable triangles: all %u were dropped (%" PRIu64
                            " with a NaN or infinite coordinate, %" PRIu64 " with zero area)",
                            who, num_triangles, nonfinite, zero);
    }
    return KD_OK;
}
