/* Wavefront OBJ loader: triangles only, from a file (plain or gzip) or from memory.
 * kd_mesh_load_file (mesh_load.h) is the entry point that also reads PLY; the text
 * is read a window at a time (mesh_reader.h), never copied whole.
 *
 * What it reads
 *   v x y z [w] | v x y z r g b [a]   a vertex; 3, 4, 6 or 7 numbers. Only x y z are kept.
 *                                      Fewer than 3, 5, or more than 7 numbers is an error.
 *   f i j k ...                        a face of 3 or more vertices, fan-triangulated
 *                                      (i,j,k), (i,k,l), ...; each index in any of the
 *                                      forms v, v/vt, v//vn, v/vt/vn (forms may mix;
 *                                      an index may carry a + sign).
 *                                      Negative indices count back from the last element
 *                                      of that kind defined so far; positive ones may
 *                                      point forward (checked once the file is read).
 *   vt and vn are counted so that the vt/vn parts of face indices are range-checked
 *   too; every other statement (vp, g, o, s, usemtl, mtllib, l, p, unknown keywords)
 *   is skipped without error.
 *
 * Text rules
 *   LF or CRLF line ends; blanks are spaces and tabs; blank lines are fine.
 *   '#' starts a comment that runs to the end of its physical line (a backslash at the
 *   end of a comment does not continue it, so a Windows path in a comment cannot
 *   swallow the next statement). A backslash followed only by blanks up to the line end
 *   joins the next physical line to the statement.
 *   Numbers: [+-] digits [. digits] [e|E [+-] digits], also "nan", "inf" and "infinity"
 *   in any case; values too large for a float become infinite. Hexadecimal floats and
 *   locale-specific commas are malformed. Conversion is exactly rounded (as strtof).
 *
 * What it produces (kd_mesh)
 *   Every vertex read, and the triangles that survive the drop rules: a triangle is
 *   dropped and counted when one of its coordinates is NaN or infinite, or when the
 *   cross product of its edges is exactly the zero vector (zero area, including
 *   repeated vertices). num_triangles_read counts triangles before dropping.
 *
 * Errors (KD_ERR_PARSE unless noted; the mesh is then left zeroed)
 *   Messages read "NAME:LINE: reason". LINE is the physical line of the offending token,
 *   or, for errors about a whole statement (too few face vertices or coordinates), the
 *   line where the statement starts. Errors about the whole file have no line:
 *   unreadable file (KD_ERR_IO), empty file, no triangles at all, all triangles dropped,
 *   counts beyond 2^32-1 vertices or triangles (KD_ERR_NOMEM), out of memory, binary
 *   data (a NUL byte, or 8 control bytes in a row, in the first 64 KiB: "not an OBJ
 *   file (binary data at byte N)", after any error in the lines before it), a logical
 *   line longer than 64 MiB. An error on a last line that has no line end adds "was
 *   the file cut off?"; without an error, such a line ending a v or f statement is a
 *   warning (kd_mesh_load_info).
 */
#ifndef KD_OBJ_LOADER_H
#define KD_OBJ_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads an OBJ file (whatever its first line: no PLY). A gzip-compressed file
 * (recognised by its magic bytes, whatever its name) is read directly when scankd
 * was built with zlib (KD_HAVE_ZLIB); without it the error says to gunzip the file
 * first. */
kd_status kd_obj_load_file(const char *path, kd_mesh *mesh, kd_error *err);

/* Loads OBJ text held in memory (not compressed); name stands for the file in messages.
 * data need not be NUL-terminated and is not modified. */
kd_status kd_obj_load_memory(const char *data, size_t size, const char *name, kd_mesh *mesh,
                             kd_error *err);

/* What kd_obj_load_file_ex reports besides the mesh. */
typedef struct kd_obj_file_info {
    uint64_t file_bytes; /* bytes read from the file (its size, for a regular file) */
    uint64_t text_bytes; /* OBJ text parsed (after decompression) */
    int compressed;      /* 1 when the file was gzip-compressed */
} kd_obj_file_info;

/* kd_obj_load_file that also reports the file and text sizes (info may be NULL). */
kd_status kd_obj_load_file_ex(const char *path, kd_mesh *mesh, kd_obj_file_info *info,
                              kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
