/* Writing a mesh as PLY (binary either byte order, or ASCII) or as OBJ: what
 * `scankd convert` and the loaders' round-trip tests use. Positions are written
 * exactly (binary floats, or 9 significant digits, which read back to the same
 * float); faces are the mesh's triangles. */
#ifndef KD_MESH_WRITE_H
#define KD_MESH_WRITE_H

#include <stdio.h>

#include "kd_error.h"
#include "kd_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_mesh_out_format {
    KD_MESH_OUT_PLY = 0,   /* binary little-endian */
    KD_MESH_OUT_PLY_BE,    /* binary big-endian */
    KD_MESH_OUT_PLY_ASCII,
    KD_MESH_OUT_OBJ
} kd_mesh_out_format;

/* Writes mesh to an open stream; name stands for it in messages. */
kd_status kd_mesh_write(FILE *f, const char *name, const kd_mesh *mesh, kd_mesh_out_format format,
                        kd_error *err);

/* Writes mesh to path whole or not at all (kd_file.h; "-" is stdout). */
kd_status kd_mesh_save(const char *path, const kd_mesh *mesh, kd_mesh_out_format format,
                       kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
