/* Mesh writers: PLY (binary or ASCII) and OBJ (mesh_write.h). */
#include "mesh_write.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <string.h>

#include "kd_file.h"

/* Appends a 32-bit word to p in the chosen byte order. */
static unsigned char *put_word(unsigned char *p, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * (big ? 3 - i : i)));
    return p + 4;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Vertices as 3 floats, faces as a uchar count 3 and 3 uints, a block at a time. */
static void write_binary_body(FILE *f, const kd_mesh *mesh, bool big)
{
    enum { ROWS = 4096 };
    unsigned char block[ROWS * 13];
    for (uint32_t v = 0; v < mesh->num_vertices;) {
        unsigned char *p = block;
        for (uint32_t end = v + ROWS < mesh->num_vertices ? v + ROWS : mesh->num_vertices; v < end; v++)
            for (int a = 0; a < 3; a++)
                p = put_word(p, float_bits(mesh->positions[3 * (size_t)v + a]), big);
        fwrite(block, 1, (size_t)(p - block), f);
    }
    for (uint32_t t = 0; t < mesh->num_triangles;) {
        unsigned char *p = block;
        for (uint32_t end = t + ROWS < mesh->num_triangles ? t + ROWS : mesh->num_triangles; t < end; t++) {
            *p++ = 3;
            for (int k = 0; k < 3; k++)
                p = put_word(p, mesh->indices[3 * (size_t)t + k], big);
        }
        fwrite(block, 1, (size_t)(p - block), f);
    }
}

static void write_ply(FILE *f, const kd_mesh *mesh, kd_mesh_out_format format)
{
    static const char *const names[] = {"binary_little_endian", "binary_big_endian", "ascii"};
    fprintf(f,
            "ply\nformat %s 1.0\ncomment written by scankd\nelement vertex %u\nproperty float x\n"
            "property float y\nproperty float z\nelement face %u\n"
            "property list uchar uint vertex_indices\nend_header\n",
            names[format], mesh->num_vertices, mesh->num_triangles);
    if (format != KD_MESH_OUT_PLY_ASCII) {
        write_binary_body(f, mesh, format == KD_MESH_OUT_PLY_BE);
        return;
    }
    for (uint32_t v = 0; v < mesh->num_vertices; v++) {
        const float *p = mesh->positions + 3 * (size_t)v;
        fprintf(f, "%.9g %.9g %.9g\n", p[0], p[1], p[2]);
    }
    for (uint32_t t = 0; t < mesh->num_triangles; t++) {
        const uint32_t *i = mesh->indices + 3 * (size_t)t;
        fprintf(f, "3 %u %u %u\n", i[0], i[1], i[2]);
    }
}

static void write_obj(FILE *f, const kd_mesh *mesh)
{
    fprintf(f, "# written by scankd: %u vertices, %u triangles\n", mesh->num_vertices, mesh->num_triangles);
    for (uint32_t v = 0; v < mesh->num_vertices; v++) {
        const float *p = mesh->positions + 3 * (size_t)v;
        fprintf(f, "v %.9g %.9g %.9g\n", p[0], p[1], p[2]);
    }
    for (uint32_t t = 0; t < mesh->num_triangles; t++) {
        const uint32_t *i = mesh->indices + 3 * (size_t)t;
        fprintf(f, "f %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", (uint64_t)i[0] + 1, (uint64_t)i[1] + 1,
                (uint64_t)i[2] + 1);
    }
}

kd_status kd_mesh_write(FILE *f, const char *name, const kd_mesh *mesh, kd_mesh_out_format format,
                        kd_error *err)
{
    if (format == KD_MESH_OUT_OBJ)
        write_obj(f, mesh);
    else
        write_ply(f, mesh, format);
    if (fflush(f) != 0 || ferror(f))
        return kd_error_set(err, KD_ERR_IO, "%s: write failed: %s", name, strerror(errno));
    return KD_OK;
}

kd_status kd_mesh_save(const char *path, const kd_mesh *mesh, kd_mesh_out_format format,
                       kd_error *err)
{
    kd_outfile out;
    KD_TRY(kd_outfile_open(&out, path, err));
    kd_status st = kd_mesh_write(out.file, path, mesh, format, err);
    if (st) {
        kd_outfile_abort(&out);
        return st;
    }
    return kd_outfile_commit(&out, err);
}
