/* Loading a triangle mesh from a file: the one entry point for every format.
 *
 * Formats
 *   PLY (ply_loader.h) when the text starts with the line "ply", or when the name
 *   ends in .ply or .ply.gz; otherwise Wavefront OBJ (obj_loader.h). Either may be
 *   gzip-compressed (recognised by its magic bytes, whatever the name, on a pipe too)
 *   where scankd was built with zlib.
 *
 * Input
 *   Regular files, pipes and devices are read block by block: the memory a load
 *   takes is the mesh's, plus a window of about a megabyte (more only for a line as
 *   long as that). A file that starts with binary data where text is expected is
 *   rejected at once ("not an OBJ file (binary data at byte N)").
 *
 * Result
 *   Both formats keep the same triangles: polygons fan-triangulated (i,j,k), (i,k,l),
 *   ...; a triangle with a NaN or infinite coordinate, or with an exactly zero edge
 *   cross product, dropped and counted (kd_mesh). Errors name the file and the place
 *   (OBJ: line; PLY: element and row), and leave the mesh zeroed. Doubts that do not
 *   stop the load (a last line without a line end, bytes after the gzip data) come
 *   back as a warning in kd_mesh_load_info, for the caller to show. */
#ifndef KD_MESH_LOAD_H
#define KD_MESH_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_mesh_format { KD_MESH_FORMAT_OBJ = 0, KD_MESH_FORMAT_PLY = 1 } kd_mesh_format;

enum { KD_MESH_WARNING_BYTES = 256 };

/* What a load reports besides the mesh. */
typedef struct kd_mesh_load_info {
    kd_mesh_format format;
    uint64_t file_bytes; /* bytes read from the file (compressed, for gzip) */
    uint64_t text_bytes; /* bytes after decompression */
    int compressed;      /* 1 for gzip data */
    char warning[KD_MESH_WARNING_BYTES]; /* "" when none; a whole sentence naming the file */
} kd_mesh_load_info;

/* Loads an OBJ or PLY file, plain or gzip, choosing by content and name (above).
 * info may be NULL. */
kd_status kd_mesh_load_file(const char *path, kd_mesh *mesh, kd_mesh_load_info *info,
                            kd_error *err);

/* The progress of a long load: called on the loading thread as the file is
 * read; done and total count bytes of the file (compressed, for gzip). */
typedef void (*kd_mesh_progress_fn)(void *ctx, size_t done, size_t total);

/* kd_mesh_load_file that tells progress (may be NULL) as it reads a regular file. */
kd_status kd_mesh_load_file_progress(const char *path, kd_mesh *mesh, kd_mesh_load_info *info,
                                     kd_mesh_progress_fn progress, void *progress_ctx, kd_error *err);

/* The same from memory (data need not be NUL-terminated and is not modified); name
 * stands for the file, in messages and for the choice by extension. */
kd_status kd_mesh_load_memory(const void *data, size_t size, const char *name, kd_mesh *mesh,
                              kd_mesh_load_info *info, kd_error *err);

/* The name of a format ("OBJ", "PLY"). */
const char *kd_mesh_format_name(kd_mesh_format format);

#ifdef __cplusplus
}
#endif
#endif
