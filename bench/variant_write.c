/* Scene variants: the OBJ writer (variant_mesh.h). Grids are never held in
 * memory: each copy's vertices are displaced as they are written. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "kd_file.h"
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

/* One copy's vertices, displaced by d, rounded to float (%.9g reads back
 * exactly); fails when a coordinate leaves the float range. */
static kd_status write_vertices(FILE *f, const kd_vmesh *vm, const double d[3], kd_error *err)
{
    for (size_t i = 0; i < vm->num_vertices; i++) {
        float v[3];
        for (int a = 0; a < 3; a++) {
            v[a] = (float)(vm->pos[3 * i + a] + d[a]);
            if (!isfinite(v[a]))
                return kd_error_set(err, KD_ERR_INVALID,
                                    "vertex %zu: coordinate %g is beyond the float range", i,
                                    vm->pos[3 * i + a] + d[a]);
        }
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
