/* OBJ loading entry points over the reader (mesh_reader.h): the text is parsed
 * window by window (obj_stream.c, obj_parse.c), then finished (obj_finish.c). */
#include "obj_loader.h"

#include <string.h>

#include "mesh_internal.h"

kd_status kd_obj_load_reader(kd_reader *r, kd_obj_limits limits, kd_mesh *mesh)
{
    KD_TRY(kd_reader_start_text(r));
    kd_obj_parser ps;
    kd_obj_parser_init(&ps, r->name, limits, (size_t)r->size_hint, r->err);
    kd_status st = kd_obj_parse_reader(&ps, r);
    if (st == KD_OK)
        st = kd_obj_parser_finish(&ps, mesh);
    kd_obj_parser_free(&ps);
    if (st)
        kd_mesh_free(mesh);
    return st;
}

kd_status kd_obj_load_memory_blocks(const char *data, size_t size, const char *name,
                                    kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh,
                                    kd_error *err, char *warning, size_t warning_bytes)
{
    return kd_mesh_load_memory_as(KD_MESH_FORMAT_OBJ, data, size, name, limits, block_bytes, mesh, err, warning,
                                  warning_bytes);
}

kd_status kd_obj_load_memory_limited(const char *data, size_t size, const char *name,
                                     kd_obj_limits limits, kd_mesh *mesh, kd_error *err)
{
    return kd_obj_load_memory_blocks(data, size, name, limits, 0, mesh, err, NULL, 0);
}

kd_status kd_obj_load_memory(const char *data, size_t size, const char *name, kd_mesh *mesh,
                             kd_error *err)
{
    return kd_obj_load_memory_limited(data, size, name, kd_obj_default_limits(), mesh, err);
}

kd_status kd_obj_load_file_ex(const char *path, kd_mesh *mesh, kd_obj_file_info *info,
                              kd_error *err)
{
    kd_obj_file_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    memset(mesh, 0, sizeof *mesh);
    kd_error_clear(err);
    kd_reader r;
    kd_status st = kd_reader_open_file(&r, path, err);
    if (st)
        return st;
    st = kd_obj_load_reader(&r, kd_obj_default_limits(), mesh);
    info->file_bytes = r.raw_bytes;
    info->text_bytes = r.base + r.len;
    info->compressed = r.gz != NULL;
    kd_reader_close(&r);
    return st;
}

kd_status kd_obj_load_file(const char *path, kd_mesh *mesh, kd_error *err)
{
    return kd_obj_load_file_ex(path, mesh, NULL, err);
}
