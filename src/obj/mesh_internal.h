/* What the OBJ and PLY loaders share: the reader (mesh_reader.h), the check for
 * binary data, and the last step of every load (degenerate triangles dropped,
 * arrays handed to the mesh). Internal to the loaders. */
#ifndef KD_MESH_INTERNAL_H
#define KD_MESH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"
#include "mesh_load.h"
#include "mesh_reader.h"
#include "obj_internal.h"

/* The check for binary data over the first KD_MESH_SNIFF_BYTES of text, window by
 * window: a NUL byte, or KD_MESH_BINARY_RUN control bytes in a row (tab, line ends,
 * VT and FF are text). kd_mesh_sniff looks at what the window adds and returns the
 * text offset where binary data starts, UINT64_MAX while none is seen. */
typedef struct kd_mesh_sniff_state {
    uint64_t done; /* text offsets below this are checked */
    size_t run;    /* control bytes in a row before it */
} kd_mesh_sniff_state;

uint64_t kd_mesh_sniff(kd_mesh_sniff_state *state, const kd_reader *r);

/* Parses the OBJ text of r to its end. */
kd_status kd_obj_parse_reader(kd_obj_parser *ps, kd_reader *r);

/* The loaders over an open reader whose first block is read. The mesh must be
 * zeroed; on failure it stays zeroed. */
kd_status kd_obj_load_reader(kd_reader *r, kd_obj_limits limits, kd_mesh *mesh);
kd_status kd_ply_load_reader(kd_reader *r, kd_obj_limits limits, kd_mesh *mesh);

/* The arrays a loader filled, before dropping: num_vertices positions (3 floats
 * each) and num_read triangles (3 indices each, all below num_vertices). */
typedef struct kd_mesh_arrays {
    float *positions;
    uint32_t *indices;
    uint64_t num_vertices;
    uint64_t num_read;  /* triangles */
    uint64_t num_faces; /* polygons they came from */
} kd_mesh_arrays;

/* Drops the triangles with a NaN or infinite coordinate or zero area, and hands the
 * arrays (trimmed) to mesh, leaving arrays' pointers NULL. When every triangle is
 * dropped it fails, naming the file, and keeps the arrays (the caller frees them).
 * num_read must not be 0. */
kd_status kd_mesh_take_arrays(kd_mesh_arrays *arrays, const char *name, kd_mesh *mesh,
                              kd_error *err);

/* Loads plain (not compressed) data in memory as the format given, within limits,
 * through a window of block_bytes at first (0: the default); the warning, if any,
 * is copied to warning (warning_bytes may be 0). What kd_obj_load_memory_blocks
 * and kd_ply_load_memory_blocks do. */
kd_status kd_mesh_load_memory_as(kd_mesh_format format, const void *data, size_t size, const char *name,
                                 kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh, kd_error *err,
                                 char *warning, size_t warning_bytes);

/* kd_mesh_load_memory through a window of block_bytes at first (0: the default),
 * for tests and the fuzzer. */
kd_status kd_mesh_load_memory_blocks(const void *data, size_t size, const char *name, size_t block_bytes,
                                     kd_mesh *mesh, kd_mesh_load_info *info, kd_error *err);

/* Whether a name ends in suffix, ignoring case. */
bool kd_mesh_name_ends_with(const char *name, const char *suffix);

#endif
