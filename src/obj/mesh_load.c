/* The loaders' entry point: opens the input, picks the format by the first text
 * (or the name) and reports what was read (mesh_load.h). */
#include "mesh_load.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mesh_internal.h"

bool kd_mesh_name_ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && strcasecmp(name + n - k, suffix) == 0;
}

const char *kd_mesh_format_name(kd_mesh_format format)
{
    return format == KD_MESH_FORMAT_PLY ? "PLY" : "OBJ";
}

/* PLY by its first line, else by the name; OBJ otherwise. */
static kd_mesh_format choose_format(const kd_reader *r)
{
    const char *p = r->buf + r->pos;
    size_t n = r->len - r->pos;
    if (n >= 4 && memcmp(p, "ply", 3) == 0 && (p[3] == '\n' || (n >= 5 && p[3] == '\r' && p[4] == '\n')))
        return KD_MESH_FORMAT_PLY;
    if (kd_mesh_name_ends_with(r->name, ".ply") || kd_mesh_name_ends_with(r->name, ".ply.gz"))
        return KD_MESH_FORMAT_PLY;
    return KD_MESH_FORMAT_OBJ;
}

/* Loads from an open reader, fills info and closes the reader. */
static kd_status load(kd_reader *r, kd_mesh *mesh, kd_mesh_load_info *info)
{
    /* The first line decides ("ply\r\n" fits the smallest window; gzip data has
     * given no text yet). */
    kd_status st = kd_reader_fill(r);
    info->format = choose_format(r);
    if (st == KD_OK)
        st = info->format == KD_MESH_FORMAT_PLY
                       ? kd_ply_load_reader(r, kd_obj_default_limits(), mesh)
                       : kd_obj_load_reader(r, kd_obj_default_limits(), mesh);
    info->file_bytes = r->raw_bytes;
    info->text_bytes = r->base + r->len;
    info->compressed = r->gz != NULL;
    snprintf(info->warning, sizeof info->warning, "%s", r->warning);
    kd_reader_close(r);
    return st;
}

kd_status kd_mesh_load_memory_as(kd_mesh_format format, const void *data, size_t size, const char *name,
                                 kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh, kd_error *err,
                                 char *warning, size_t warning_bytes)
{
    memset(mesh, 0, sizeof *mesh);
    kd_error_clear(err);
    if (warning_bytes)
        warning[0] = '\0';
    kd_reader r;
    KD_TRY(kd_reader_open_memory(&r, data, size, name ? name : "<memory>", false, block_bytes, err));
    kd_status st = format == KD_MESH_FORMAT_PLY ? kd_ply_load_reader(&r, limits, mesh)
                                                : kd_obj_load_reader(&r, limits, mesh);
    if (warning_bytes)
        snprintf(warning, warning_bytes, "%s", r.warning);
    kd_reader_close(&r);
    return st;
}

static void start(kd_mesh *mesh, kd_mesh_load_info *info, kd_error *err)
{
    memset(info, 0, sizeof *info);
    memset(mesh, 0, sizeof *mesh);
    kd_error_clear(err);
}

kd_status kd_mesh_load_file_progress(const char *path, kd_mesh *mesh, kd_mesh_load_info *info,
                                     kd_mesh_progress_fn progress, void *progress_ctx, kd_error *err)
{
    kd_mesh_load_info local;
    if (!info)
        info = &local;
    start(mesh, info, err);
    kd_reader r;
    KD_TRY(kd_reader_open_file_progress(&r, path, progress, progress_ctx, err));
    return load(&r, mesh, info);
}

kd_status kd_mesh_load_file(const char *path, kd_mesh *mesh, kd_mesh_load_info *info,
                            kd_error *err)
{
    return kd_mesh_load_file_progress(path, mesh, info, NULL, NULL, err);
}

kd_status kd_mesh_load_memory_blocks(const void *data, size_t size, const char *name, size_t block_bytes,
                                     kd_mesh *mesh, kd_mesh_load_info *info, kd_error *err)
{
    kd_mesh_load_info local;
    if (!info)
        info = &local;
    start(mesh, info, err);
    kd_reader r;
    KD_TRY(kd_reader_open_memory(&r, data, size, name, true, block_bytes, err));
    return load(&r, mesh, info);
}

kd_status kd_mesh_load_memory(const void *data, size_t size, const char *name, kd_mesh *mesh,
                              kd_mesh_load_info *info, kd_error *err)
{
    return kd_mesh_load_memory_blocks(data, size, name, 0, mesh, info, err);
}
