/* The PLY header: "ply", "format", then elements with their properties up to
 * "end_header" (ply_loader.h has the grammar). Messages read "NAME:LINE: reason". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_tuning.h"
#include "ply_internal.h"

static const struct {
    const char *name, *alias;
    size_t bytes;
} k_types[] = {
    [KD_PLY_INT8] = {"char", "int8", 1},       [KD_PLY_UINT8] = {"uchar", "uint8", 1},
    [KD_PLY_INT16] = {"short", "int16", 2},    [KD_PLY_UINT16] = {"ushort", "uint16", 2},
    [KD_PLY_INT32] = {"int", "int32", 4},      [KD_PLY_UINT32] = {"uint", "uint32", 4},
    [KD_PLY_FLOAT32] = {"float", "float32", 4}, [KD_PLY_FLOAT64] = {"double", "float64", 8},
};

size_t kd_ply_type_bytes(kd_ply_type type) { return k_types[type].bytes; }
bool kd_ply_type_is_int(kd_ply_type type) { return type < KD_PLY_FLOAT32; }
const char *kd_ply_type_name(kd_ply_type type) { return k_types[type].name; }

void kd_ply_header_free(kd_ply_header *h)
{
    for (size_t e = 0; e < h->num_elements; e++)
        free(h->elements[e].props);
    free(h->elements);
    memset(h, 0, sizeof *h);
}

/* ---- Lines and words ------------------------------------------------------ */

enum { MAX_WORDS = 6 };

typedef struct header_line {
    const char *word[MAX_WORDS];
    size_t len[MAX_WORDS];
    int num_words; /* MAX_WORDS means "that many or more" */
} header_line;

static kd_status header_error(kd_ply_loader *ld, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), cold))
#endif
    ;

static kd_status header_error(kd_ply_loader *ld, const char *fmt, ...)
{
    char reason[320];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    return kd_error_set(ld->err, KD_ERR_PARSE, "%s:%" PRIu64 ": %s", ld->name, ld->header.lines, reason);
}

/* Splits [p, p+n) at blanks (space, tab, CR). */
static void split_words(const char *p, size_t n, header_line *out)
{
    out->num_words = 0;
    size_t i = 0;
    while (out->num_words < MAX_WORDS) {
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
            i++;
        if (i == n)
            return;
        size_t start = i;
        while (i < n && !(p[i] == ' ' || p[i] == '\t' || p[i] == '\r'))
            i++;
        out->word[out->num_words] = p + start;
        out->len[out->num_words++] = i - start;
    }
}

/* The next header line, split into words; the words live in the window until the
 * next call. */
static kd_status next_line(kd_ply_loader *ld, header_line *out)
{
    kd_reader *r = ld->r;
    for (;;) {
        char *p = r->buf + r->pos;
        size_t n = r->len - r->pos;
        char *nl = memchr(p, '\n', n);
        if (nl) {
            ld->header.lines++;
            r->pos += (size_t)(nl + 1 - p);
            split_words(p, (size_t)(nl - p), out);
            return KD_OK;
        }
        if (r->text_end) {
            KD_TRY(kd_reader_end_error(r));
            ld->header.lines++;
            return header_error(ld, "the file ends inside the PLY header (no 'end_header' line)");
        }
        if (r->base + r->len >= KD_MESH_MAX_PLY_HEADER_BYTES)
            return kd_error_set(ld->err, KD_ERR_PARSE, "%s: the PLY header is longer than %u bytes",
                                ld->name, (unsigned)KD_MESH_MAX_PLY_HEADER_BYTES);
        if (r->pos == 0 && r->len == r->cap) {
            char what[300];
            snprintf(what, sizeof what, "%s: the PLY header", ld->name);
            KD_TRY(kd_reader_grow(r, KD_MESH_MAX_PLY_HEADER_BYTES, what));
        }
        KD_TRY(kd_reader_fill(r));
    }
}

static bool word_is(const header_line *l, int k, const char *s)
{
    return k < l->num_words && l->len[k] == strlen(s) && memcmp(l->word[k], s, l->len[k]) == 0;
}

/* A word for a message: at most 40 characters, unprintable bytes as '?'. */
static const char *word_text(const header_line *l, int k, char out[48])
{
    size_t n = l->len[k] < 40 ? l->len[k] : 40;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)l->word[k][i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(out + n, l->len[k] > 40 ? "..." : "");
    return out;
}

static void copy_name(char dst[KD_PLY_NAME_BYTES], const header_line *l, int k)
{
    size_t n = l->len[k] < KD_PLY_NAME_BYTES - 1 ? l->len[k] : KD_PLY_NAME_BYTES - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)l->word[k][i];
        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[n] = '\0';
}

/* ---- Statements ----------------------------------------------------------- */

static kd_status parse_type(kd_ply_loader *ld, const header_line *l, int k, kd_ply_type *type)
{
    for (int t = 0; t <= KD_PLY_FLOAT64; t++)
        if (word_is(l, k, k_types[t].name) || word_is(l, k, k_types[t].alias)) {
            *type = (kd_ply_type)t;
            return KD_OK;
        }
    char w[48];
    return header_error(ld, "unknown property type '%s' (char, uchar, short, ushort, int, uint, float, "
                            "double, or int8 .. float64)", word_text(l, k, w));
}

static kd_status parse_format(kd_ply_loader *ld, const header_line *l, bool *have_format)
{
    char w[48];
    if (*have_format || ld->header.num_elements > 0)
        return header_error(ld, "'format' must come once, before the elements");
    if (l->num_words != 3)
        return header_error(ld, "expected 'format ascii|binary_little_endian|binary_big_endian 1.0'");
    if (word_is(l, 1, "ascii"))
        ld->header.format = KD_PLY_ASCII;
    else if (word_is(l, 1, "binary_little_endian"))
        ld->header.format = KD_PLY_BINARY_LE;
    else if (word_is(l, 1, "binary_big_endian"))
        ld->header.format = KD_PLY_BINARY_BE;
    else
        return header_error(ld, "unknown format '%s' (ascii, binary_little_endian or binary_big_endian)",
                            word_text(l, 1, w));
    if (!word_is(l, 2, "1.0"))
        return header_error(ld, "PLY version '%s' (this loader reads 1.0)", word_text(l, 2, w));
    *have_format = true;
    return KD_OK;
}

static kd_status parse_element(kd_ply_loader *ld, const header_line *l)
{
    kd_ply_header *h = &ld->header;
    if (l->num_words != 3)
        return header_error(ld, "expected 'element NAME COUNT'");
    uint64_t count = 0;
    for (size_t i = 0; i < l->len[2]; i++) {
        char c = l->word[2][i];
        if (c < '0' || c > '9' || count > (UINT64_MAX - 9) / 10) {
            char w[48];
            return header_error(ld, "element count '%s' is not a number of rows", word_text(l, 2, w));
        }
        count = count * 10 + (uint64_t)(c - '0');
    }
    if (!kd_mesh_grow((void **)&h->elements, &h->cap_elements, sizeof *h->elements, h->num_elements + 1,
                      UINT64_MAX))
        return kd_error_set(ld->err, KD_ERR_NOMEM, "%s: out of memory reading the header", ld->name);
    kd_ply_element *e = &h->elements[h->num_elements++];
    memset(e, 0, sizeof *e);
    copy_name(e->name, l, 1);
    e->count = count;
    return KD_OK;
}

static kd_status parse_property(kd_ply_loader *ld, const header_line *l)
{
    kd_ply_header *h = &ld->header;
    if (h->num_elements == 0)
        return header_error(ld, "a property before any element");
    kd_ply_element *e = &h->elements[h->num_elements - 1];
    kd_ply_property p;
    memset(&p, 0, sizeof p);
    p.is_list = word_is(l, 1, "list");
    if (l->num_words != (p.is_list ? 5 : 3))
        return header_error(ld, p.is_list ? "expected 'property list COUNT_TYPE ITEM_TYPE NAME'"
                                          : "expected 'property TYPE NAME'");
    if (p.is_list)
        KD_TRY(parse_type(ld, l, 2, &p.count_type));
    KD_TRY(parse_type(ld, l, p.is_list ? 3 : 1, &p.type));
    copy_name(p.name, l, p.is_list ? 4 : 2);
    if (p.is_list && !kd_ply_type_is_int(p.count_type))
        return header_error(ld, "list '%s' has a count of type %s (an integer type is needed)", p.name,
                            kd_ply_type_name(p.count_type));
    for (size_t k = 0; k < e->num_props; k++)
        if (strcmp(e->props[k].name, p.name) == 0)
            return header_error(ld, "element '%s' has two properties named '%s'", e->name, p.name);
    if (!kd_mesh_grow((void **)&e->props, &e->cap_props, sizeof *e->props, e->num_props + 1, UINT64_MAX))
        return kd_error_set(ld->err, KD_ERR_NOMEM, "%s: out of memory reading the header", ld->name);
    e->props[e->num_props++] = p;
    return KD_OK;
}

/* Reads header lines up to end_header. */
static kd_status parse_lines(kd_ply_loader *ld)
{
    header_line l;
    KD_TRY(next_line(ld, &l));
    if (!(l.num_words == 1 && word_is(&l, 0, "ply")))
        return kd_error_set(ld->err, KD_ERR_PARSE, "%s: not a PLY file (it does not start with a 'ply' line)",
                            ld->name);
    bool have_format = false;
    for (;;) {
        KD_TRY(next_line(ld, &l));
        char w[48];
        if (l.num_words == 0 || word_is(&l, 0, "comment") || word_is(&l, 0, "obj_info"))
            continue;
        if (word_is(&l, 0, "format"))
            KD_TRY(parse_format(ld, &l, &have_format));
        else if (word_is(&l, 0, "element"))
            KD_TRY(parse_element(ld, &l));
        else if (word_is(&l, 0, "property"))
            KD_TRY(parse_property(ld, &l));
        else if (word_is(&l, 0, "end_header") && l.num_words == 1)
            break;
        else
            return header_error(ld, "unknown header line starting '%s'", word_text(&l, 0, w));
        if (!have_format && ld->header.num_elements > 0)
            return header_error(ld, "an element before the 'format' line");
    }
    if (!have_format)
        return header_error(ld, "the header has no 'format' line");
    return KD_OK;
}

/* ---- What the loader reads ------------------------------------------------- */

static kd_ply_property *find_property(kd_ply_element *e, const char *name)
{
    for (size_t k = 0; k < e->num_props; k++)
        if (strcmp(e->props[k].name, name) == 0)
            return &e->props[k];
    return NULL;
}

/* The vertex element's x, y and z: scalars of any type. */
static kd_status find_coordinates(kd_ply_loader *ld, kd_ply_element *vertex)
{
    static const char *const axes[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; a++) {
        kd_ply_property *p = find_property(vertex, axes[a]);
        if (!p)
            return kd_error_set(ld->err, KD_ERR_PARSE, "%s: element 'vertex' has no property '%s'",
                                ld->name, axes[a]);
        if (p->is_list)
            return kd_error_set(ld->err, KD_ERR_PARSE,
                                "%s: property '%s' of element 'vertex' is a list (a number is needed)",
                                ld->name, axes[a]);
        p->role = (kd_ply_role)(KD_PLY_X + a);
    }
    if (vertex->count > ld->limits.max_vertices)
        return kd_error_set(ld->err, KD_ERR_NOMEM,
                            "%s: %" PRIu64 " vertices, more than the %" PRIu64 " a mesh can index",
                            ld->name, vertex->count, ld->limits.max_vertices);
    ld->header.num_vertices = vertex->count;
    return KD_OK;
}

/* The face element's vertex_indices (or vertex_index) list of integers; the first
 * such list counts, any other is skipped. */
static kd_status find_indices(kd_ply_loader *ld, kd_ply_element *face)
{
    for (size_t k = 0; k < face->num_props; k++) {
        kd_ply_property *p = &face->props[k];
        if (strcmp(p->name, "vertex_indices") != 0 && strcmp(p->name, "vertex_index") != 0)
            continue;
        if (!p->is_list)
            return kd_error_set(ld->err, KD_ERR_PARSE, "%s: property '%s' of element 'face' is not a list",
                                ld->name, p->name);
        if (!kd_ply_type_is_int(p->type))
            return kd_error_set(ld->err, KD_ERR_PARSE,
                                "%s: list '%s' of element 'face' holds %s values (an integer type is needed)",
                                ld->name, p->name, kd_ply_type_name(p->type));
        p->role = KD_PLY_INDICES;
        return KD_OK;
    }
    return kd_error_set(ld->err, KD_ERR_PARSE, "%s: element 'face' has no 'vertex_indices' list", ld->name);
}

/* Marks the vertex and face elements and the properties the loader reads. */
static kd_status assign_roles(kd_ply_loader *ld)
{
    kd_ply_header *h = &ld->header;
    kd_ply_element *vertex = NULL, *face = NULL;
    for (size_t i = 0; i < h->num_elements; i++) {
        kd_ply_element *e = &h->elements[i];
        kd_ply_element **role = strcmp(e->name, "vertex") == 0 ? &vertex
                                : strcmp(e->name, "face") == 0 ? &face
                                                               : NULL;
        if (role && *role)
            return kd_error_set(ld->err, KD_ERR_PARSE, "%s: the header has two '%s' elements", ld->name,
                                e->name);
        if (role) {
            *role = e;
            e->kind = role == &vertex ? KD_PLY_VERTEX : KD_PLY_FACE;
        }
        e->fixed_bytes = 0;
        bool fixed = true;
        for (size_t k = 0; k < e->num_props; k++) {
            fixed = fixed && !e->props[k].is_list;
            e->fixed_bytes += kd_ply_type_bytes(e->props[k].type);
        }
        if (!fixed)
            e->fixed_bytes = 0;
    }
    if (!vertex)
        return kd_error_set(ld->err, KD_ERR_PARSE, "%s: the PLY header has no 'vertex' element", ld->name);
    KD_TRY(find_coordinates(ld, vertex));
    if (!face || face->count == 0)
        return kd_error_set(ld->err, KD_ERR_PARSE, "%s: no triangles: the file has no faces (%s; %" PRIu64 " vertices)",
                            ld->name, face ? "the 'face' element has no rows" : "no 'face' element",
                            vertex->count);
    return find_indices(ld, face);
}

kd_status kd_ply_read_header(kd_ply_loader *ld)
{
    KD_TRY(parse_lines(ld));
    return assign_roles(ld);
}
