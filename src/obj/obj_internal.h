/* Internals of the OBJ loader shared by obj_loader.c, obj_parse.c, obj_number.c and
 * the loader's tests. Not part of the public API (see obj_loader.h). */
#ifndef KD_OBJ_INTERNAL_H
#define KD_OBJ_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_mesh.h"

/* A positive index that pointed past the elements defined so far, with its line.
 * Only new maxima are recorded, so the first record beyond the final count is the
 * earliest bad reference in the file. */
typedef struct kd_obj_forward_ref {
    uint64_t index;
    uint64_t line;
} kd_obj_forward_ref;

/* One kind of element that face indices refer to: positions, texture coordinates,
 * normals. */
typedef struct kd_obj_element_refs {
    uint64_t count; /* defined so far */
    uint64_t max_forward;
    kd_obj_forward_ref *forward;
    size_t num_forward;
    size_t cap_forward;
} kd_obj_element_refs;

enum { KD_OBJ_POSITION = 0, KD_OBJ_TEXCOORD = 1, KD_OBJ_NORMAL = 2 };

/* Limits on what one file may hold; the defaults are what kd_mesh can index
 * (uint32_t). Tests lower them to reach the overflow errors. */
typedef struct kd_obj_limits {
    uint64_t max_vertices;
    uint64_t max_triangles;
} kd_obj_limits;

kd_obj_limits kd_obj_default_limits(void);

typedef struct kd_obj_parser {
    const char *name; /* for messages */
    kd_error *err;
    kd_obj_limits limits;
    uint64_t line; /* current physical line, 1-based */
    float *positions; /* 3 floats per vertex */
    uint64_t cap_vertices;
    uint32_t *indices; /* 3 per triangle, before dropping */
    uint64_t num_triangles;
    uint64_t cap_triangles;
    uint64_t num_faces;
    kd_obj_element_refs refs[3]; /* refs[KD_OBJ_POSITION].count is the vertex count */
} kd_obj_parser;

/* Prepares a parser; text_bytes sizes the first allocation (a hint only). */
void kd_obj_parser_init(kd_obj_parser *ps, const char *name, kd_obj_limits limits,
                        size_t text_bytes, kd_error *err);
void kd_obj_parser_free(kd_obj_parser *ps);

/* Parses whole logical lines [begin, end). end[-1] must be a '\n' that does not end a
 * continued line, so every scan stops inside the buffer without a bounds check. */
kd_status kd_obj_parse_lines(kd_obj_parser *ps, const char *begin, const char *end);

/* Checks forward references, drops degenerate triangles and hands the arrays to mesh
 * (which must be zeroed). Frees nothing on failure; call kd_obj_parser_free after. */
kd_status kd_obj_parser_finish(kd_obj_parser *ps, kd_mesh *mesh);

/* kd_obj_load_memory with chosen limits. */
kd_status kd_obj_load_memory_limited(const char *data, size_t size, const char *name,
                                     kd_obj_limits limits, kd_mesh *mesh, kd_error *err);

/* The same read through a window of block_bytes at first (0: the default), so that
 * tests and the fuzzer can put window ends anywhere; the warning, if any, is copied
 * to warning (warning_bytes may be 0). */
kd_status kd_obj_load_memory_blocks(const char *data, size_t size, const char *name,
                                    kd_obj_limits limits, size_t block_bytes, kd_mesh *mesh,
                                    kd_error *err, char *warning, size_t warning_bytes);

/* The number parser on its own, for tests: true when [begin, end) is exactly one
 * number in the loader's syntax. */
bool kd_obj_parse_float_text(const char *begin, const char *end, float *out);

/* Exact fallback used by the number parser for rare inputs (more than 19 significant
 * digits, far exponents, results near float limits). [begin, end) holds a number
 * already validated by the fast parser. */
float kd_obj_slow_float(const char *begin, const char *end);

/* Grows *array (of *cap items of item_bytes) to hold need items, doubling from 64
 * but not past most (unless need is); false when memory runs out. Shared by the
 * loaders (mesh_finish.c). */
bool kd_mesh_grow(void **array, uint64_t *cap, size_t item_bytes, uint64_t need, uint64_t most);

/* True when the triangle's edge cross product is exactly the zero vector. */
bool kd_obj_triangle_zero_area(const float *a, const float *b, const float *c);

#endif
