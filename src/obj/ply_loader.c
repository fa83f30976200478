/* The PLY loader: header (ply_header.c), body (ply_ascii.c, ply_binary.c), then the
 * finish every loader shares (mesh_finish.c). This file holds what both bodies
 * use: messages, the growing arrays, and fan triangulation. */
#include "ply_loader.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ply_internal.h"

kd_status kd_ply_row_error(kd_ply_loader *ld, kd_status st, const char *fmt, ...)
{
    char reason[320];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    bool ascii = ld->header.format == KD_PLY_ASCII;
    return kd_error_set(ld->err, st, "%s: element '%s' row %" PRIu64 " (%s %" PRIu64 "): %s", ld->name,
                        ld->element ? ld->element->name : "?", ld->row, ascii ? "line" : "byte",
                        ascii ? ld->line : ld->row_offset, reason);
}

kd_status kd_ply_reserve_vertices(kd_ply_loader *ld, uint64_t rows)
{
    if (rows <= ld->cap_vertices)
        return KD_OK;
    if (!kd_mesh_grow((void **)&ld->positions, &ld->cap_vertices, 3 * sizeof(float), rows, ld->header.num_vertices))
        return kd_ply_row_error(ld, KD_ERR_NOMEM, "out of memory after %" PRIu64 " vertices", ld->row);
    return KD_OK;
}

kd_status kd_ply_reserve_slow(kd_ply_loader *ld, uint64_t n)
{
    if (n > ld->limits.max_triangles - ld->num_triangles)
        return kd_ply_row_error(ld, KD_ERR_NOMEM, "more than %" PRIu64 " triangles (the count would overflow)",
                                ld->limits.max_triangles);
    if (!kd_mesh_grow((void **)&ld->indices, &ld->cap_triangles, 3 * sizeof(uint32_t), ld->num_triangles + n,
              UINT64_MAX))
        return kd_ply_row_error(ld, KD_ERR_NOMEM, "out of memory after %" PRIu64 " triangles",
                                ld->num_triangles);
    return KD_OK;
}

kd_status kd_ply_bad_index(kd_ply_loader *ld, int64_t index)
{
    return kd_ply_row_error(ld, KD_ERR_PARSE, "vertex index %" PRId64 " is out of range (the file has %" PRIu64 " vertices)",
                            index, ld->header.num_vertices);
}

kd_status kd_ply_fan_begin(kd_ply_loader *ld, int64_t count)
{
    if (count < 3)
        return kd_ply_row_error(ld, KD_ERR_PARSE, "face has %" PRId64 " vert%s (needs at least 3)", count,
                                count == 1 ? "ex" : "ices");
    return KD_OK;
}

/* First capacities: what the header promises, within what the input can hold
 * (a header may promise billions of rows in a small file). */
static void guess_capacities(kd_ply_loader *ld)
{
    uint64_t text = ld->r->size_hint;
    for (size_t i = 0; i < ld->header.num_elements; i++) {
        const kd_ply_element *e = &ld->header.elements[i];
        uint64_t row_bytes = ld->header.format == KD_PLY_ASCII ? 2 * e->num_props : e->fixed_bytes;
        if (row_bytes == 0)
            row_bytes = 2 * e->num_props;
        uint64_t most = row_bytes ? text / row_bytes + 1 : 1;
        uint64_t guess = e->count < most ? e->count : most;
        if (e->kind == KD_PLY_VERTEX)
            ld->cap_vertices = guess;
        else if (e->kind == KD_PLY_FACE)
            ld->cap_triangles = guess;
    }
    /* Allocated now, falling back to growth from small when the guess fails. */
    if (!kd_mesh_grow((void **)&ld->positions, &ld->cap_vertices, 3 * sizeof(float), 1, ld->header.num_vertices)) {
        ld->cap_vertices = 0;
    }
    if (!kd_mesh_grow((void **)&ld->indices, &ld->cap_triangles, 3 * sizeof(uint32_t), 1, UINT64_MAX)) {
        ld->cap_triangles = 0;
    }
}

kd_status kd_ply_load_reader(kd_reader *r, kd_obj_limits limits, kd_mesh *mesh)
{
    KD_TRY(kd_reader_start_text(r));
    kd_ply_loader ld;
    memset(&ld, 0, sizeof ld);
    ld.r = r;
    ld.name = r->name;
    ld.err = r->err;
    ld.limits = limits;
    kd_status st = kd_ply_read_header(&ld);
    if (st == KD_OK) {
        guess_capacities(&ld);
        st = ld.header.format == KD_PLY_ASCII ? kd_ply_read_ascii(&ld) : kd_ply_read_binary(&ld);
    }
    if (st == KD_OK) {
        kd_mesh_arrays arrays = {ld.positions, ld.indices, ld.header.num_vertices, ld.num_triangles,
                                 ld.num_faces};
        st = kd_mesh_take_arrays(&arrays, ld.name, mesh, ld.err);
        ld.positions = arrays.positions;
        ld.indices = arrays.indices;
    }
    free(ld.positions);
    free(ld.indices);
    kd_ply_header_free(&ld.header);
    if (st)
        kd_mesh_free(mesh);
    return st;
}

kd_status kd_ply_load_memory_blocks(const void *data, size_t size, const char *name,
                                    kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh,
                                    kd_error *err, char *warning, size_t warning_bytes)
{
    return kd_mesh_load_memory_as(KD_MESH_FORMAT_PLY, data, size, name, limits, block_bytes, mesh, err, warning,
                                  warning_bytes);
}
