/* The PLY loader: triangles from the vertex and face elements of a PLY file, ASCII or
 * binary (either byte order). kd_mesh_load_file (mesh_load.h) chooses it.
 *
 * What it reads
 *   ply
 *   format ascii|binary_little_endian|binary_big_endian 1.0
 *   element NAME COUNT                       any elements, in any order
 *   property TYPE NAME                       TYPE: char uchar short ushort int uint float
 *   property list COUNT_TYPE TYPE NAME         double, or int8 uint8 int16 uint16 int32
 *   end_header                                 uint32 float32 float64
 *   comment and obj_info lines are skipped; lines may end in CRLF.
 *   vertex: properties x, y and z, of any scalar type (float and double in practice),
 *     converted to float (an ASCII value is rounded once, exactly, as by strtof).
 *   face: the first list named vertex_indices or vertex_index; a count of any integer
 *     type and items of any integer type, 0-based indices below the vertex count.
 *     A face of 3 or more vertices is fan-triangulated (i,j,k), (i,k,l), ...
 *   Every other property and element is read past (lists included), in any order.
 *   ASCII: one row per line (blank lines are skipped), values separated by blanks;
 *   integers are [+-]digits within their type's range, numbers as in OBJ files.
 *
 * What it produces: as the OBJ loader (mesh_load.h), with the same drop rules, so a
 * mesh written as PLY loads to the same kd_mesh; num_faces_read counts face rows.
 *
 * Errors (KD_ERR_PARSE unless noted; the mesh is then left zeroed)
 *   Header: "NAME:LINE: reason". Body: "NAME: element 'E' row R (line L): reason" for
 *   ASCII, "(byte B)" (offset in the decompressed file) for binary; rows count from 0,
 *   like the indices faces hold. A file shorter than its header promises is an error;
 *   data after the last element is ignored with a warning. Counts beyond what a mesh
 *   can index (2^32-1 vertices or triangles) are KD_ERR_NOMEM. */
#ifndef KD_PLY_LOADER_H
#define KD_PLY_LOADER_H

#include <stddef.h>

#include "kd_error.h"
#include "kd_mesh.h"
#include "obj_internal.h" /* kd_obj_limits */

#ifdef __cplusplus
extern "C" {
#endif

/* Loads PLY data held in memory (not compressed) through a window of block_bytes at
 * first (0: the default; tests and the fuzzer shrink it), within limits; a warning,
 * if any, is copied to warning (warning_bytes may be 0). */
kd_status kd_ply_load_memory_blocks(const void *data, size_t size, const char *name,
                                    kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh,
                                    kd_error *err, char *warning, size_t warning_bytes);

#ifdef __cplusplus
}
#endif
#endif
