/* Scene variants: the OBJ and PLY writers (variant_mesh.h). The OBJ writer
 * never holds a grid in memory: each copy's vertices are displaced as they
 * are written. The PLY writer builds the whole mesh, which then loads far
 * faster than its OBJ (a 100 M-triangle grid: 1.8 GB). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_file.h"
#include "mesh_write.h"
#include "variant_mesh.h"

static uint64_t copies_of(const kd_variant_part *p)
{
    return (uint64_t)p->grid[0] * p->grid[1] * p->grid[2];
}

kd_status kd_variants_count(const kd_variant_part *parts, int num_parts, kd_variant_counts *counts,
                            kd_error *err)
{
    counts->num_vertices = counts->num_triangles = 0;
    for (int i = 0; i < num_parts; i++) {
        uint64_t k = copies_of(&parts[i]);
        counts->num_vertices += k * parts[i].mesh->num_vertices;
        counts->num_triangles += k * parts[i].mesh->num_triangles;
    }
    if (counts->num_vertices > UINT32_MAX || counts->num_triangles > UINT32_MAX)
        return kd_error_set(err, KD_ERR_INVALID,
                            "%" PRIu64 " vertices and %" PRIu64 " triangles: a mesh holds at most "
                            "2^32-1 of each",
                            counts->num_vertices, counts->num_triangles);
    return KD_OK;
}

/* Vertex i of a copy, displaced by d, rounded to float; fails when a
 * coordinate leaves the float range. */
static kd_status displaced(const kd_vmesh *vm, size_t i, const double d[3], float v[3], kd_error *err)
{
    for (int a = 0; a < 3; a++) {
        v[a] = (float)(vm->pos[3 * i + a] + d[a]);
        if (!isfinite(v[a]))
            return kd_error_set(err, KD_ERR_INVALID, "vertex %zu: coordinate %g is beyond the float range", i,
                                vm->pos[3 * i + a] + d[a]);
    }
    return KD_OK;
}

/* One copy's vertices (%.9g reads back exactly). */
static kd_status write_vertices(FILE *f, const kd_vmesh *vm, const double d[3], kd_error *err)
{
    for (size_t i = 0; i < vm->num_vertices; i++) {
        float v[3] = {0.0f, 0.0f, 0.0f};
        KD_TRY(displaced(vm, i, d, v, err));
        fprintf(f, "v %.9g %.9g %.9g\n", (double)v[0], (double)v[1], (double)v[2]);
    }
    return KD_OK;
}

/* One copy's faces, their 1-based indices shifted past the vertices before it. */
static void write_faces(FILE *f, const kd_vmesh *vm, uint64_t base)
{
    const uint32_t *ix = vm->indices;
    for (size_t t = 0; t < vm->num_triangles; t++)
        fprintf(f, "f %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", base + ix[3 * t] + 1,
                base + ix[3 * t + 1] + 1, base + ix[3 * t + 2] + 1);
}

static kd_status write_part(FILE *f, const kd_variant_part *p, uint64_t *base, kd_error *err)
{
    for (uint32_t k = 0; k < p->grid[2]; k++)
        for (uint32_t j = 0; j < p->grid[1]; j++)
            for (uint32_t i = 0; i < p->grid[0]; i++) {
                double d[3] = {i * p->spacing[0], j * p->spacing[1], k * p->spacing[2]};
                KD_TRY(write_vertices(f, p->mesh, d, err));
                write_faces(f, p->mesh, *base);
                *base += p->mesh->num_vertices;
            }
    return KD_OK;
}

kd_status kd_variants_write_obj(const char *path, const kd_variant_part *parts, int num_parts,
                                const char *comment, kd_variant_counts *counts, kd_error *err)
{
    KD_TRY(kd_variants_count(parts, num_parts, counts, err));
    kd_outfile out;
    KD_TRY(kd_outfile_open(&out, path, err));
    static char buffer[1 << 20];
    if (!out.is_stdout)
        setvbuf(out.file, buffer, _IOFBF, sizeof buffer);
    if (comment)
        fprintf(out.file, "# %s\n", comment);
    fprintf(out.file, "# %" PRIu64 " vertices, %" PRIu64 " triangles\n", counts->num_vertices,
            counts->num_triangles);
    uint64_t base = 0;
    kd_status st = KD_OK;
    for (int i = 0; i < num_parts && st == KD_OK; i++)
        st = write_part(out.file, &parts[i], &base, err);
    if (st) {
        kd_outfile_abort(&out);
        return st;
    }
    return kd_outfile_commit(&out, err);
}

/* Copy (i, j, k) of a part into the mesh, its vertices from *vertex on and
 * its triangles from *tri on, both advanced. */
static kd_status put_copy(kd_mesh *mesh, const kd_variant_part *p, const double d[3], uint64_t *vertex,
                          uint64_t *tri, kd_error *err)
{
    const kd_vmesh *vm = p->mesh;
    for (size_t i = 0; i < vm->num_vertices; i++)
        KD_TRY(displaced(vm, i, d, mesh->positions + 3 * (*vertex + i), err));
    for (size_t t = 0; t < 3 * vm->num_triangles; t++)
        mesh->indices[3 * *tri + t] = (uint32_t)(*vertex + vm->indices[t]);
    *vertex += vm->num_vertices;
    *tri += vm->num_triangles;
    return KD_OK;
}

kd_status kd_variants_write_ply(const char *path, const kd_variant_part *parts, int num_parts,
                                kd_variant_counts *counts, kd_error *err)
{
    KD_TRY(kd_variants_count(parts, num_parts, counts, err));
    kd_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.positions = (float *)malloc(3 * sizeof(float) * (size_t)counts->num_vertices + 1);
    mesh.indices = (uint32_t *)malloc(3 * sizeof(uint32_t) * (size_t)counts->num_triangles + 1);
    if (!mesh.positions || !mesh.indices) {
        kd_mesh_free(&mesh);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %" PRIu64 " triangles", counts->num_triangles);
    }
    mesh.num_vertices = (uint32_t)counts->num_vertices;
    mesh.num_triangles = (uint32_t)counts->num_triangles;
    uint64_t vertex = 0, tri = 0;
    kd_status st = KD_OK;
    for (int n = 0; n < num_parts; n++) {
        const kd_variant_part *p = &parts[n];
        for (uint32_t k = 0; k < p->grid[2] && st == KD_OK; k++)
            for (uint32_t j = 0; j < p->grid[1] && st == KD_OK; j++)
                for (uint32_t i = 0; i < p->grid[0] && st == KD_OK; i++) {
                    const double d[3] = {i * p->spacing[0], j * p->spacing[1], k * p->spacing[2]};
                    st = put_copy(&mesh, p, d, &vertex, &tri, err);
                }
    }
    if (st == KD_OK)
        st = kd_mesh_save(path, &mesh, KD_MESH_OUT_PLY, err);
    kd_mesh_free(&mesh);
    return st;
}
