/* The body of a binary PLY file, either byte order: values decoded from the reader's
 * window, which is refilled whenever a row (or a list item) is not all there.
 * Elements the loader does not read are skipped a window at a time. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mesh_tuning.h"
#include "ply_internal.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG true
#else
#define HOST_BIG false
#endif

/* Unsigned integers of 1, 2, 4 and 8 bytes at p in the file's byte order. */
static inline uint16_t load16(const unsigned char *p, bool big)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return big != HOST_BIG ? __builtin_bswap16(v) : v;
}

static inline uint32_t load32(const unsigned char *p, bool big)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return big != HOST_BIG ? __builtin_bswap32(v) : v;
}

static inline uint64_t load64(const unsigned char *p, bool big)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return big != HOST_BIG ? __builtin_bswap64(v) : v;
}

/* A value of an integer type at p. */
static inline int64_t load_int(const unsigned char *p, kd_ply_type type, bool big)
{
    switch (type) {
    case KD_PLY_INT8: return (int8_t)p[0];
    case KD_PLY_UINT8: return p[0];
    case KD_PLY_INT16: return (int16_t)load16(p, big);
    case KD_PLY_UINT16: return load16(p, big);
    case KD_PLY_INT32: return (int32_t)load32(p, big);
    default: return load32(p, big);
    }
}

/* A value of any type at p, as a float (a double rounded once). */
static inline float load_float(const unsigned char *p, kd_ply_type type, bool big)
{
    if (type == KD_PLY_FLOAT32) {
        uint32_t bits = load32(p, big);
        float f;
        memcpy(&f, &bits, sizeof f);
        return f;
    }
    if (type == KD_PLY_FLOAT64) {
        uint64_t bits = load64(p, big);
        double d;
        memcpy(&d, &bits, sizeof d);
        /* Beyond the float range C leaves the conversion undefined; rounding would
         * give an infinity from halfway past FLT_MAX on. */
        if (!(fabs(d) < 0x1.ffffffp127) && !isnan(d))
            return d < 0 ? -INFINITY : INFINITY;
        return (float)d;
    }
    return (float)load_int(p, type, big);
}

/* Makes n bytes available at the window's front (r->buf + r->pos). */
static kd_status need(kd_ply_loader *ld, size_t n)
{
    kd_reader *r = ld->r;
    while (r->len - r->pos < n) {
        if (r->text_end) {
            KD_TRY(kd_reader_end_error(r));
            return kd_ply_row_error(ld, KD_ERR_PARSE, "the file ends inside the element (the header promises %" PRIu64 " rows)",
                                    ld->element->count);
        }
        if (r->pos == 0 && r->len == r->cap) {
            char what[300];
            snprintf(what, sizeof what, "%s: a row of element '%s'", ld->name, ld->element->name);
            KD_TRY(kd_reader_grow(r, KD_MESH_MAX_LINE_BYTES, what));
        }
        KD_TRY(kd_reader_fill(r));
    }
    return KD_OK;
}

static inline const unsigned char *front(const kd_ply_loader *ld)
{
    return (const unsigned char *)ld->r->buf + ld->r->pos;
}

/* Items of a list: face indices, a window's worth at a time, or passed over. */
static kd_status read_items(kd_ply_loader *ld, const kd_ply_property *prop, int64_t count, bool big)
{
    kd_reader *r = ld->r;
    size_t item_bytes = kd_ply_type_bytes(prop->type);
    kd_ply_fan fan = {0, 0, 0};
    for (int64_t left = count; left > 0;) {
        KD_TRY(need(ld, item_bytes));
        uint64_t batch = (r->len - r->pos) / item_bytes;
        batch = batch < (uint64_t)left ? batch : (uint64_t)left;
        if (prop->role == KD_PLY_INDICES) {
            const unsigned char *p = front(ld);
            for (uint64_t k = 0; k < batch; k++, p += item_bytes) {
                int64_t index = load_int(p, prop->type, big);
                if (fan.n >= 2)
                    KD_TRY(kd_ply_reserve(ld, 1));
                if (!kd_ply_fan_push(ld, &fan, index))
                    return kd_ply_bad_index(ld, index);
            }
        }
        r->pos += (size_t)(batch * item_bytes);
        left -= (int64_t)batch;
    }
    return KD_OK;
}

/* A list: its count, then its items. */
static kd_status read_list(kd_ply_loader *ld, const kd_ply_property *prop, bool big)
{
    size_t count_bytes = kd_ply_type_bytes(prop->count_type);
    KD_TRY(need(ld, count_bytes));
    int64_t count = load_int(front(ld), prop->count_type, big);
    ld->r->pos += count_bytes;
    if (count < 0)
        return kd_ply_row_error(ld, KD_ERR_PARSE, "list '%s' has %" PRId64 " items", prop->name, count);
    if (prop->role == KD_PLY_INDICES)
        KD_TRY(kd_ply_fan_begin(ld, count));
    KD_TRY(read_items(ld, prop, count, big));
    ld->num_faces += prop->role == KD_PLY_INDICES;
    return KD_OK;
}

/* One row, property by property. */
static kd_status read_row(kd_ply_loader *ld, const kd_ply_element *e, bool big)
{
    if (e->kind == KD_PLY_VERTEX)
        KD_TRY(kd_ply_reserve_vertices(ld, ld->row + 1));
    for (size_t k = 0; k < e->num_props; k++) {
        const kd_ply_property *prop = &e->props[k];
        if (prop->is_list) {
            KD_TRY(read_list(ld, prop, big));
            continue;
        }
        size_t bytes = kd_ply_type_bytes(prop->type);
        KD_TRY(need(ld, bytes));
        if (prop->role >= KD_PLY_X && prop->role <= KD_PLY_Z)
            kd_ply_set_coord(ld, ld->row, (int)(prop->role - KD_PLY_X), load_float(front(ld), prop->type, big));
        ld->r->pos += bytes;
    }
    return KD_OK;
}

/* Rows of fixed size, a window's worth at a time: vertices read, others passed over. */
static kd_status read_fixed_rows(kd_ply_loader *ld, const kd_ply_element *e, bool big)
{
    kd_reader *r = ld->r;
    size_t stride = e->fixed_bytes, offset[3] = {0, 0, 0}, at = 0;
    kd_ply_type type[3] = {KD_PLY_FLOAT32, KD_PLY_FLOAT32, KD_PLY_FLOAT32};
    for (size_t k = 0; k < e->num_props; k++) {
        const kd_ply_property *prop = &e->props[k];
        if (prop->role >= KD_PLY_X && prop->role <= KD_PLY_Z) {
            offset[prop->role - KD_PLY_X] = at;
            type[prop->role - KD_PLY_X] = prop->type;
        }
        at += kd_ply_type_bytes(prop->type);
    }
    while (ld->row < e->count) {
        ld->row_offset = kd_reader_offset(r, 0);
        KD_TRY(need(ld, stride));
        uint64_t rows = (r->len - r->pos) / stride;
        rows = rows < e->count - ld->row ? rows : e->count - ld->row;
        if (e->kind == KD_PLY_VERTEX) {
            KD_TRY(kd_ply_reserve_vertices(ld, ld->row + rows));
            const unsigned char *p = front(ld);
            for (uint64_t k = 0; k < rows; k++, p += stride)
                for (int a = 0; a < 3; a++)
                    kd_ply_set_coord(ld, ld->row + k, a, load_float(p + offset[a], type[a], big));
        }
        r->pos += (size_t)(rows * stride);
        ld->row += rows;
    }
    return KD_OK;
}

static kd_status read_element(kd_ply_loader *ld, const kd_ply_element *e, bool big)
{
    ld->element = e;
    ld->row = 0;
    ld->row_offset = kd_reader_offset(ld->r, 0);
    if (e->num_props == 0)
        return KD_OK; /* rows of nothing */
    if (e->fixed_bytes > 0 && e->kind != KD_PLY_FACE)
        return read_fixed_rows(ld, e, big);
    for (; ld->row < e->count; ld->row++) {
        ld->row_offset = kd_reader_offset(ld->r, 0);
        KD_TRY(read_row(ld, e, big));
    }
    return KD_OK;
}
kd_status kd_ply_read_binary(kd_ply_loader *ld)
{
    bool big = ld->header.format == KD_PLY_BINARY_BE;
    for (size_t i = 0; i < ld->header.num_elements; i++)
        KD_TRY(read_element(ld, &ld->header.elements[i], big));
    /* Data after the last element is ignored with a warning, but read: an error in
     * it (corrupt gzip data) still fails the load. */
    kd_reader *r = ld->r;
    KD_TRY(kd_reader_fill(r));
    if (r->pos < r->len)
        kd_reader_warn(r, "%s: data after the last element (from byte %" PRIu64 ") ignored", ld->name,
                       kd_reader_offset(r, 0));
    while (!r->text_end) {
        r->pos = r->len;
        KD_TRY(kd_reader_fill(r));
    }
    return kd_reader_end_error(r);
}
