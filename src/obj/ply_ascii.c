/* The body of an ASCII PLY file: one row per line, values separated by blanks. Each
 * line is parsed in place in the reader's window; the last gets a line end in the
 * window's padding, so every scan stops at a '\n'. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mesh_tuning.h"
#include "obj_number.h"
#include "ply_internal.h"

static const int64_t k_int_min[] = {INT8_MIN, 0, INT16_MIN, 0, INT32_MIN, 0};
static const int64_t k_int_max[] = {INT8_MAX, UINT8_MAX, INT16_MAX, UINT16_MAX, INT32_MAX, UINT32_MAX};

static inline bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next non-blank line of the body, [*begin, *end) with **end == '\n'. */
static kd_status next_line(kd_ply_loader *ld, char **begin, char **end)
{
    kd_reader *r = ld->r;
    for (;;) {
        char *p = r->buf + r->pos;
        size_t n = r->len - r->pos;
        char *nl = memchr(p, '\n', n);
        if (!nl && r->text_end)
            KD_TRY(kd_reader_end_error(r));
        if (!nl && r->text_end && n > 0) {
            p[n] = '\n'; /* the padding: a last line without its line end */
            nl = p + n;
        }
        if (nl) {
            ld->line++;
            size_t used = (size_t)(nl + 1 - p);
            r->pos += used < n ? used : n;
            char *q = p;
            while (is_blank(*q))
                q++;
            if (q == nl)
                continue;
            *begin = p;
            *end = nl;
            return KD_OK;
        }
        if (r->text_end) {
            ld->line++;
            return kd_ply_row_error(ld, KD_ERR_PARSE, "the file ends here (the header promises %" PRIu64 " rows)",
                                    ld->element->count);
        }
        if (r->pos == 0 && r->len == r->cap) {
            char what[300];
            snprintf(what, sizeof what, "%s:%" PRIu64 ": the line", ld->name, ld->line + 1);
            KD_TRY(kd_reader_grow(r, KD_MESH_MAX_LINE_BYTES, what));
        }
        KD_TRY(kd_reader_fill(r));
    }
}

/* The token at p for a message: at most 40 characters, unprintable ones as '?'. */
static const char *token_text(const char *p, char out[48])
{
    size_t n = 0;
    for (; !is_blank(p[n]) && p[n] != '\n' && n < 40; n++)
        out[n] = (unsigned char)p[n] >= 0x20 && (unsigned char)p[n] < 0x7f ? p[n] : '?';
    strcpy(out + n, !is_blank(p[n]) && p[n] != '\n' ? "..." : "");
    return out;
}

/* Moves *p to the next value; an error names the property when the line ends. */
static kd_status next_value(kd_ply_loader *ld, char **p, const kd_ply_property *prop, bool item)
{
    while (is_blank(**p))
        (*p)++;
    if (**p != '\n')
        return KD_OK;
    return kd_ply_row_error(ld, KD_ERR_PARSE, "the line ends before %s '%s'",
                            item ? "the items of list" : "property", prop->name);
}

/* An integer of type at *p; moves *p past it. */
static kd_status parse_int(kd_ply_loader *ld, char **p, kd_ply_type type, const kd_ply_property *prop,
                           int64_t *out)
{
    char tok[48];
    const char *q = *p;
    bool negative;
    q = obj_scan_sign(q, &negative);
    uint64_t v = 0;
    const char *digits = q;
    while (*q == '0' && obj_is_digit(q[1]))
        q++, digits++;
    q = obj_scan_digits(q, &v);
    if (q == digits || !(is_blank(*q) || *q == '\n'))
        return kd_ply_row_error(ld, KD_ERR_PARSE, "property '%s': malformed integer '%s'", prop->name,
                                token_text(*p, tok));
    int64_t value = negative ? -(int64_t)(v & INT64_MAX) : (int64_t)(v & INT64_MAX);
    if (q - digits > 12 || value < k_int_min[type] || value > k_int_max[type])
        return kd_ply_row_error(ld, KD_ERR_PARSE, "property '%s': %s does not fit type %s", prop->name,
                                token_text(*p, tok), kd_ply_type_name(type));
    *p = (char *)q;
    *out = value;
    return KD_OK;
}

/* A value of type at *p as a float (integers converted); moves *p past it. */
static kd_status parse_value(kd_ply_loader *ld, char **p, kd_ply_type type, const kd_ply_property *prop,
                             float *out)
{
    if (kd_ply_type_is_int(type)) {
        int64_t v;
        KD_TRY(parse_int(ld, p, type, prop, &v));
        *out = (float)v;
        return KD_OK;
    }
    const char *q = obj_parse_float(*p, out);
    if (!q || !(is_blank(*q) || *q == '\n')) {
        char tok[48];
        return kd_ply_row_error(ld, KD_ERR_PARSE, "property '%s': malformed number '%s'", prop->name,
                                token_text(*p, tok));
    }
    *p = (char *)q;
    return KD_OK;
}

/* A list: its count, then its items, read as face indices or read past. */
static kd_status parse_list(kd_ply_loader *ld, char **p, const kd_ply_property *prop)
{
    int64_t count;
    KD_TRY(parse_int(ld, p, prop->count_type, prop, &count));
    if (count < 0)
        return kd_ply_row_error(ld, KD_ERR_PARSE, "list '%s' has %" PRId64 " items", prop->name, count);
    bool indices = prop->role == KD_PLY_INDICES;
    if (indices)
        KD_TRY(kd_ply_fan_begin(ld, count));
    kd_ply_fan fan = {0, 0, 0};
    for (int64_t k = 0; k < count; k++) {
        KD_TRY(next_value(ld, p, prop, true));
        if (indices) {
            int64_t index;
            KD_TRY(parse_int(ld, p, prop->type, prop, &index));
            if (fan.n >= 2)
                KD_TRY(kd_ply_reserve(ld, 1));
            if (!kd_ply_fan_push(ld, &fan, index))
                return kd_ply_bad_index(ld, index);
        } else {
            float unused;
            KD_TRY(parse_value(ld, p, prop->type, prop, &unused));
        }
    }
    ld->num_faces += indices;
    return KD_OK;
}

static kd_status parse_row(kd_ply_loader *ld, const kd_ply_element *e, char *p)
{
    if (e->kind == KD_PLY_VERTEX)
        KD_TRY(kd_ply_reserve_vertices(ld, ld->row + 1));
    for (size_t k = 0; k < e->num_props; k++) {
        const kd_ply_property *prop = &e->props[k];
        KD_TRY(next_value(ld, &p, prop, false));
        if (prop->is_list) {
            KD_TRY(parse_list(ld, &p, prop));
            continue;
        }
        float value;
        KD_TRY(parse_value(ld, &p, prop->type, prop, &value));
        if (prop->role >= KD_PLY_X && prop->role <= KD_PLY_Z && e->kind == KD_PLY_VERTEX)
            kd_ply_set_coord(ld, ld->row, (int)(prop->role - KD_PLY_X), value);
    }
    while (is_blank(*p))
        p++;
    if (*p != '\n') {
        char tok[48];
        return kd_ply_row_error(ld, KD_ERR_PARSE, "more values than the element's %zu properties (from '%s')",
                                e->num_props, token_text(p, tok));
    }
    return KD_OK;
}

kd_status kd_ply_read_ascii(kd_ply_loader *ld)
{
    ld->line = ld->header.lines;
    for (size_t i = 0; i < ld->header.num_elements; i++) {
        const kd_ply_element *e = &ld->header.elements[i];
        ld->element = e;
        if (e->num_props == 0)
            continue; /* rows of nothing take no lines */
        for (ld->row = 0; ld->row < e->count; ld->row++) {
            char *begin, *end;
            KD_TRY(next_line(ld, &begin, &end));
            KD_TRY(parse_row(ld, e, begin));
        }
    }
    /* Anything but blanks after the last row is ignored, with a warning, but read:
     * an error in it (corrupt gzip data) still fails the load. */
    kd_reader *r = ld->r;
    for (;;) {
        for (; r->pos < r->len; r->pos++)
            if (!is_blank(r->buf[r->pos]) && r->buf[r->pos] != '\n') {
                kd_reader_warn(r, "%s: text after the last element (from byte %" PRIu64 ") ignored", ld->name,
                               kd_reader_offset(r, 0));
                r->pos = r->len;
                break;
            }
        if (r->text_end)
            return kd_reader_end_error(r);
        KD_TRY(kd_reader_fill(r));
    }
}
