/* Internals of the PLY loader (ply_loader.h): the header as parsed, and the state
 * the ASCII and binary body readers share. */
#ifndef KD_PLY_INTERNAL_H
#define KD_PLY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mesh_internal.h"

typedef enum kd_ply_type {
    KD_PLY_INT8,
    KD_PLY_UINT8,
    KD_PLY_INT16,
    KD_PLY_UINT16,
    KD_PLY_INT32,
    KD_PLY_UINT32,
    KD_PLY_FLOAT32,
    KD_PLY_FLOAT64
} kd_ply_type;

typedef enum kd_ply_format { KD_PLY_ASCII, KD_PLY_BINARY_LE, KD_PLY_BINARY_BE } kd_ply_format;

enum { KD_PLY_NAME_BYTES = 64 }; /* longer names are cut (and match no keyword) */

/* What a property means to the loader. */
typedef enum kd_ply_role { KD_PLY_SKIP, KD_PLY_X, KD_PLY_Y, KD_PLY_Z, KD_PLY_INDICES } kd_ply_role;

typedef struct kd_ply_property {
    char name[KD_PLY_NAME_BYTES];
    bool is_list;
    kd_ply_type type;       /* of the value, or of a list's items */
    kd_ply_type count_type; /* of a list's count */
    kd_ply_role role;
} kd_ply_property;

typedef enum kd_ply_element_kind { KD_PLY_OTHER, KD_PLY_VERTEX, KD_PLY_FACE } kd_ply_element_kind;

typedef struct kd_ply_element {
    char name[KD_PLY_NAME_BYTES];
    uint64_t count;
    kd_ply_property *props;
    size_t num_props;
    uint64_t cap_props;
    kd_ply_element_kind kind;
    size_t fixed_bytes; /* binary row size when no property is a list, else 0 */
} kd_ply_element;

typedef struct kd_ply_header {
    kd_ply_format format;
    kd_ply_element *elements;
    size_t num_elements;
    uint64_t cap_elements;
    uint64_t lines; /* lines in the header, end_header included */
    uint64_t num_vertices; /* rows of the vertex element */
} kd_ply_header;

/* The loader's state while it reads the body. */
typedef struct kd_ply_loader {
    kd_reader *r;
    const char *name;
    kd_error *err;
    kd_obj_limits limits;
    kd_ply_header header;
    /* The mesh being read. */
    float *positions; /* 3 per vertex, header.num_vertices of them once read */
    uint64_t vertices_read, cap_vertices;
    uint32_t *indices; /* 3 per triangle */
    uint64_t num_triangles, cap_triangles;
    uint64_t num_faces;
    /* Where reading is, for messages. */
    const kd_ply_element *element;
    uint64_t row;
    uint64_t line;       /* ASCII: line of the row */
    uint64_t row_offset; /* binary: text offset of the row */
} kd_ply_loader;

/* Bytes of one value of a type. */
size_t kd_ply_type_bytes(kd_ply_type type);
bool kd_ply_type_is_int(kd_ply_type type);
const char *kd_ply_type_name(kd_ply_type type);

/* Reads the header from r (its first block read), leaving r at the body. */
kd_status kd_ply_read_header(kd_ply_loader *ld);
void kd_ply_header_free(kd_ply_header *h);

/* "NAME: element 'E' row R (line L|byte B): reason", status st. */
kd_status kd_ply_row_error(kd_ply_loader *ld, kd_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), cold))
#endif
    ;

/* A face being read: its vertices fan-triangulated as they come. */
typedef struct kd_ply_fan {
    uint64_t n;
    uint32_t first, prev;
} kd_ply_fan;

/* Starts a face of count vertices: at least 3. */
kd_status kd_ply_fan_begin(kd_ply_loader *ld, int64_t count);

/* Makes room for n more triangles, within the limit. */
kd_status kd_ply_reserve_slow(kd_ply_loader *ld, uint64_t n);
static inline kd_status kd_ply_reserve(kd_ply_loader *ld, uint64_t n)
{
    uint64_t need = ld->num_triangles + n;
    if (need <= ld->cap_triangles && need <= ld->limits.max_triangles)
        return KD_OK;
    return kd_ply_reserve_slow(ld, n);
}

/* Adds a vertex to the face (room reserved for the triangle it makes from the
 * third on, one kd_ply_reserve at a time so that errors come in file order); false
 * when the index is not one of the file's vertices. */
static inline bool kd_ply_fan_push(kd_ply_loader *ld, kd_ply_fan *fan, int64_t index)
{
    if (index < 0 || (uint64_t)index >= ld->header.num_vertices)
        return false;
    uint32_t v = (uint32_t)index;
    if (fan->n >= 2) {
        uint32_t *dst = ld->indices + 3 * ld->num_triangles++;
        dst[0] = fan->first;
        dst[1] = fan->prev;
        dst[2] = v;
    } else if (fan->n == 0) {
        fan->first = v;
    }
    fan->prev = v;
    fan->n++;
    return true;
}

/* The error for an index kd_ply_fan_push refused. */
kd_status kd_ply_bad_index(kd_ply_loader *ld, int64_t index);

/* Makes room for the vertices of rows below `rows` of the vertex element;
 * kd_ply_set_coord then stores a row's coordinates (axis 0..2). */
kd_status kd_ply_reserve_vertices(kd_ply_loader *ld, uint64_t rows);
static inline void kd_ply_set_coord(kd_ply_loader *ld, uint64_t row, int axis, float value)
{
    ld->positions[3 * row + (uint64_t)axis] = value;
}

/* The body readers: every element's rows in header order. */
kd_status kd_ply_read_ascii(kd_ply_loader *ld);
kd_status kd_ply_read_binary(kd_ply_loader *ld);

#endif
