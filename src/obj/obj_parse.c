/* The OBJ statement parser: one pass over the text, vertices and fan-triangulated
 * faces appended to growable arrays. Rules and messages are described in obj_loader.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "obj_number.h"

kd_obj_limits kd_obj_default_limits(void)
{
    kd_obj_limits limits = {UINT32_MAX, UINT32_MAX};
    return limits;
}

void kd_obj_parser_init(kd_obj_parser *ps, const char *name, kd_obj_limits limits,
                        size_t text_bytes, kd_error *err)
{
    memset(ps, 0, sizeof *ps);
    ps->name = name ? name : "<memory>";
    ps->err = err;
    ps->limits = limits;
    ps->line = 1;
    /* First guesses from typical OBJ line lengths; they only save reallocations, and
     * pages never written are never touched. */
    ps->cap_vertices = text_bytes / 48 + 64;
    ps->cap_triangles = text_bytes / 32 + 64;
}

void kd_obj_parser_free(kd_obj_parser *ps)
{
    free(ps->positions);
    free(ps->indices);
    for (int k = 0; k < 3; k++)
        free(ps->refs[k].forward);
    memset(ps, 0, sizeof *ps);
}

/* ---- Messages ------------------------------------------------------------ */

/* Copies the token at p (up to a delimiter or '/') into out for a message, with
 * unprintable bytes shown as '?'. */
static const char *token_text(const char *p, char *out, size_t out_bytes)
{
    size_t n = 0;
    /* The first character always counts, so a stray '\\' shows as itself. */
    if (*p != '\n')
        do {
            out[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
            p++;
        } while (!obj_is_end(*p) && n + 4 < out_bytes);
    if (!obj_is_end(*p)) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

/* The literal text of one index ([+-]digits) for a message. */
static const char *index_text(const char *p, char *out, size_t out_bytes)
{
    size_t n = 0;
    if (*p == '-' || *p == '+')
        out[n++] = *p++;
    for (; obj_is_digit(*p) && n + 4 < out_bytes; p++)
        out[n++] = *p;
    if (obj_is_digit(*p)) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

static const char *char_text(char c, char *out)
{
    if (obj_is_end(c))
        strcpy(out, "end of the index");
    else if (c >= 0x20 && c < 0x7f)
        sprintf(out, "'%c'", c);
    else
        sprintf(out, "byte 0x%02x", (unsigned char)c);
    return out;
}

static kd_status parse_error(kd_obj_parser *ps, uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noinline, cold))
#endif
    ;

static kd_status parse_error(kd_obj_parser *ps, uint64_t line, const char *fmt, ...)
{
    char reason[320];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    return kd_error_set(ps->err, KD_ERR_PARSE, "%s:%" PRIu64 ": %s", ps->name, line, reason);
}

/* How messages name the index parts of a face vertex (v/vt/vn). */
static const char *const k_element_names[3] = {"face index", "face texture coordinate index",
                                               "face normal index"};
static const char *const k_element_plurals[3] = {"vertices", "texture coordinates", "normals"};

/* ---- Growth ------------------------------------------------------------------ */

static kd_status out_of_memory(kd_obj_parser *ps, uint64_t count, const char *what)
{
    return kd_error_set(ps->err, KD_ERR_NOMEM, "%s:%" PRIu64 ": out of memory after %" PRIu64 " %s",
                        ps->name, ps->line, count, what);
}

/* ---- Index resolution ------------------------------------------------------- */

/* Index resolution off the common path: forward references, negative (relative)
 * indices and errors. Positive indices past the current count are allowed here and
 * checked when the file is complete (kd_obj_parser_finish). text is where the index
 * starts, for messages. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static kd_status resolve_index_slow(kd_obj_parser *ps, int kind, int64_t raw, uint64_t line,
                                    const char *text, uint32_t *out)
{
    kd_obj_element_refs *refs = &ps->refs[kind];
    char num[40];
    if (raw > 0) {
        if ((uint64_t)raw > ps->limits.max_vertices)
            return parse_error(ps, line, "%s %s is out of range (a mesh holds at most %" PRIu64 " %s)",
                               k_element_names[kind], index_text(text, num, sizeof num),
                               ps->limits.max_vertices, k_element_plurals[kind]);
        if ((uint64_t)raw > refs->max_forward) {
            if (refs->num_forward == refs->cap_forward) {
                uint64_t cap = refs->cap_forward;
                if (!kd_mesh_grow((void **)&refs->forward, &cap, sizeof *refs->forward, cap + 1, UINT64_MAX))
                    return out_of_memory(ps, refs->num_forward, "forward references");
                refs->cap_forward = (size_t)cap;
            }
            refs->forward[refs->num_forward].index = (uint64_t)raw;
            refs->forward[refs->num_forward].line = line;
            refs->num_forward++;
            refs->max_forward = (uint64_t)raw;
        }
        *out = (uint32_t)(raw - 1);
        return KD_OK;
    }
    if (raw < 0) {
        uint64_t back = (uint64_t)(-raw);
        if (back > refs->count)
            return parse_error(ps, line, "%s %s is out of range (only %" PRIu64 " %s defined so far)",
                               k_element_names[kind], index_text(text, num, sizeof num), refs->count,
                               k_element_plurals[kind]);
        *out = (uint32_t)(refs->count - back);
        return KD_OK;
    }
    return parse_error(ps, line, "%s %s is invalid (OBJ indices start at 1)", k_element_names[kind],
                       index_text(text, num, sizeof num));
}

/* Turns a 1-based (or negative, relative) index into a 0-based one. */
static inline kd_status resolve_index(kd_obj_parser *ps, int kind, int64_t raw, uint64_t line,
                                      const char *text, uint32_t *out)
{
    if (raw > 0 && (uint64_t)raw <= ps->refs[kind].count) {
        *out = (uint32_t)(raw - 1);
        return KD_OK;
    }
    return resolve_index_slow(ps, kind, raw, line, text, out);
}

/* ---- Scanning helpers --------------------------------------------------------- */

/* Skips blanks and line continuations (a backslash, optional blanks, then '\n').
 * Stops at anything else, including a backslash that continues nothing. */
static inline const char *skip_blanks(const char *p, uint64_t *line)
{
    for (;;) {
        while (obj_is_blank(*p))
            p++;
        if (*p != '\\')
            return p;
        const char *q = p + 1;
        while (obj_is_blank(*q))
            q++;
        if (*q != '\n')
            return p;
        p = q + 1;
        (*line)++;
    }
}

/* Skips the rest of a statement that is not read (vt, g, usemtl, ...), honouring
 * continuations but not inside a comment. Returns the '\n' that ends it. */
static const char *skip_statement(const char *p, const char *end, uint64_t *line)
{
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *r = nl;
        while (r > p && obj_is_blank(r[-1]))
            r--;
        if (r > p && r[-1] == '\\' && !memchr(p, '#', (size_t)(r - 1 - p))) {
            p = nl + 1;
            (*line)++;
            continue;
        }
        return nl;
    }
}

/* After a statement's last token: a comment runs to the line end. Returns the '\n'. */
static inline const char *end_of_statement(const char *p, const char *end)
{
    return *p == '#' ? memchr(p, '\n', (size_t)(end - p)) : p;
}

/* ---- Statements ----------------------------------------------------------------- */

/* v x y z [w] | v x y z r g b [a]. p points after the keyword. */
static kd_status parse_vertex(kd_obj_parser *ps, const char **pp, const char *end, uint64_t *line)
{
    const char *p = *pp;
    uint64_t stmt_line = *line;
    float xyz[3] = {0, 0, 0};
    int n = 0;
    char tok[64];
    /* The usual shape, " x y z" with single spaces and a line end, goes straight
     * through; anything else (tabs, extra numbers, comments, continuations, errors)
     * takes the general loop from the start. */
    const char *q = p;
    if (*q == ' ' && (q = obj_parse_float(q + 1, &xyz[0])) && *q == ' ' &&
        (q = obj_parse_float(q + 1, &xyz[1])) && *q == ' ' &&
        (q = obj_parse_float(q + 1, &xyz[2])) && (*q == '\n' || (*q == '\r' && q[1] == '\n'))) {
        p = q + (*q == '\r');
        goto store;
    }
    for (;;) {
        p = skip_blanks(p, line);
        if (*p == '\n' || *p == '#')
            break;
        float value;
        const char *after = obj_parse_float(p, &value);
        if (!after || !obj_is_end(*after))
            return parse_error(ps, *line, "malformed number '%s'", token_text(p, tok, sizeof tok));
        if (n < 3)
            xyz[n] = value;
        if (++n > 7)
            return parse_error(ps, stmt_line, "vertex has more than 7 numbers (expected x y z [w] or x y z r g b [a])");
        p = after;
    }
    if (n < 3 || n == 5)
        return parse_error(ps, stmt_line, "vertex has %d number%s (expected x y z [w] or x y z r g b [a])", n,
                           n == 1 ? "" : "s");
store:;
    uint64_t nv = ps->refs[KD_OBJ_POSITION].count;
    if (nv >= ps->limits.max_vertices)
        return kd_error_set(ps->err, KD_ERR_NOMEM, "%s:%" PRIu64 ": more than %" PRIu64 " vertices (the count would overflow)",
                            ps->name, stmt_line, ps->limits.max_vertices);
    if (nv == ps->cap_vertices && !kd_mesh_grow((void **)&ps->positions, &ps->cap_vertices, 3 * sizeof(float), nv + 1, UINT64_MAX))
        return out_of_memory(ps, nv, "vertices");
    float *dst = ps->positions + 3 * nv;
    dst[0] = xyz[0];
    dst[1] = xyz[1];
    dst[2] = xyz[2];
    ps->refs[KD_OBJ_POSITION].count = nv + 1;
    *pp = end_of_statement(p, end);
    return KD_OK;
}

static inline kd_status emit_triangle(kd_obj_parser *ps, uint32_t a, uint32_t b, uint32_t c,
                                      uint64_t stmt_line)
{
    if (ps->num_triangles >= ps->limits.max_triangles)
        return kd_error_set(ps->err, KD_ERR_NOMEM, "%s:%" PRIu64 ": more than %" PRIu64 " triangles (the count would overflow)",
                            ps->name, stmt_line, ps->limits.max_triangles);
    if (ps->num_triangles == ps->cap_triangles &&
        !kd_mesh_grow((void **)&ps->indices, &ps->cap_triangles, 3 * sizeof(uint32_t), ps->num_triangles + 1,
                      UINT64_MAX))
        return out_of_memory(ps, ps->num_triangles, "triangles");
    uint32_t *dst = ps->indices + 3 * ps->num_triangles;
    dst[0] = a;
    dst[1] = b;
    dst[2] = c;
    ps->num_triangles++;
    return KD_OK;
}

/* The usual triangle, " a b c" with single spaces, plain positive indices of vertices
 * already defined and a line end: read straight through, past the general loop's
 * handling of relative indices, slashes and continued lines. Returns NULL for
 * anything else, which the general loop reads. */
static inline const char *plain_triangle(const kd_obj_parser *ps, const char *p, uint32_t tri[3])
{
    uint64_t count = ps->refs[KD_OBJ_POSITION].count;
    for (int k = 0; k < 3; k++) {
        if (p[0] != ' ' || !obj_is_digit(p[1]))
            return NULL;
        uint64_t index = 0;
        const char *after = obj_scan_digits(p + 1, &index);
        if (after - p > 11 || index == 0 || index > count) /* at most 10 digits: no wrap */
            return NULL;
        tri[k] = (uint32_t)(index - 1);
        p = after;
    }
    if (*p == '\r' && p[1] == '\n')
        p++;
    return *p == '\n' ? p : NULL;
}

/* f a b c ...: fan-triangulated into (a,b,c), (a,c,d), ... p points after the keyword. */
static kd_status parse_face(kd_obj_parser *ps, const char **pp, const char *end, uint64_t *line)
{
    const char *p = *pp;
    uint64_t stmt_line = *line;
    uint64_t n = 0;
    uint32_t first = 0, prev = 0;
    char tok[64], ch[24];
    kd_status st;
    uint32_t tri[3];
    const char *plain_end = plain_triangle(ps, p, tri);
    if (plain_end) {
        if ((st = emit_triangle(ps, tri[0], tri[1], tri[2], stmt_line)))
            return st;
        ps->num_faces++;
        *pp = plain_end;
        return KD_OK;
    }
    for (;;) {
        p = skip_blanks(p, line);
        if (*p == '\n' || *p == '#')
            break;
        const char *tok_start = p;
        int64_t raw;
        uint32_t vi, unused;
        const char *q = obj_parse_index(p, &raw);
        if (!q)
            return parse_error(ps, *line, "expected a vertex index, found '%s'", token_text(p, tok, sizeof tok));
        if ((st = resolve_index(ps, KD_OBJ_POSITION, raw, *line, tok_start, &vi)))
            return st;
        p = q;
        if (*p == '/') {
            p++;
            if (*p != '/') { /* v/vt */
                if (!(q = obj_parse_index(p, &raw)))
                    goto bad_index;
                if ((st = resolve_index(ps, KD_OBJ_TEXCOORD, raw, *line, p, &unused)))
                    return st;
                p = q;
            }
            if (*p == '/') { /* v//vn or v/vt/vn */
                if (!(q = obj_parse_index(++p, &raw)))
                    goto bad_index;
                if ((st = resolve_index(ps, KD_OBJ_NORMAL, raw, *line, p, &unused)))
                    return st;
                p = q;
            }
        }
        if (!obj_is_end(*p))
            goto bad_index;

        if (n >= 2) {
            if ((st = emit_triangle(ps, first, prev, vi, stmt_line)))
                return st;
        } else if (n == 0) {
            first = vi;
        }
        prev = vi;
        n++;
        continue;
    bad_index:
        return parse_error(ps, *line, "malformed face index '%s' (unexpected %s)",
                           token_text(tok_start, tok, sizeof tok), char_text(*p, ch));
    }
    if (n < 3)
        return parse_error(ps, stmt_line, "face has %" PRIu64 " vert%s (needs at least 3)", n,
                           n == 1 ? "ex" : "ices");
    ps->num_faces++;
    *pp = end_of_statement(p, end);
    return KD_OK;
}

/* ---- The statement loop -------------------------------------------------------- */

/* The first allocation, of the capacity guessed from the file's size; a guess too
 * large for the memory there is falls back to growing from a small one. */
static bool first_grow(void **array, uint64_t *cap, size_t item_bytes)
{
    if (kd_mesh_grow(array, cap, item_bytes, 1, UINT64_MAX))
        return true;
    *cap = 0;
    return kd_mesh_grow(array, cap, item_bytes, 1, UINT64_MAX);
}

kd_status kd_obj_parse_lines(kd_obj_parser *ps, const char *begin, const char *end)
{
    if (!ps->positions && !first_grow((void **)&ps->positions, &ps->cap_vertices, 3 * sizeof(float)))
        return out_of_memory(ps, 0, "vertices");
    if (!ps->indices && !first_grow((void **)&ps->indices, &ps->cap_triangles, 3 * sizeof(uint32_t)))
        return out_of_memory(ps, 0, "triangles");

    const char *p = begin;
    uint64_t line = ps->line;
    kd_status st = KD_OK;
    while (p < end) {
        char c = *p;
        if (c == 'v') {
            char c1 = p[1];
            if (obj_is_end(c1)) { /* "v" then a blank, the line end, '#' or '\' */
                p++;
                st = parse_vertex(ps, &p, end, &line);
            } else if ((c1 == 't' || c1 == 'n') && obj_is_end(p[2])) {
                ps->refs[c1 == 't' ? KD_OBJ_TEXCOORD : KD_OBJ_NORMAL].count++;
                p = skip_statement(p, end, &line);
            } else {
                p = skip_statement(p, end, &line);
            }
        } else if (c == 'f') {
            if (obj_is_end(p[1])) {
                p++;
                st = parse_face(ps, &p, end, &line);
            } else {
                p = skip_statement(p, end, &line);
            }
        } else if (c == '\n') {
            line++;
            p++;
            continue;
        } else if (obj_is_blank(c)) {
            p++;
            continue;
        } else if (c == '#') {
            p = memchr(p, '\n', (size_t)(end - p));
        } else if (c == '\\') {
            /* A continuation on an otherwise empty line, or a stray backslash. */
            const char *q = skip_blanks(p, &line);
            if (q != p) {
                p = q;
                continue;
            }
            p = skip_statement(p, end, &line);
        } else {
            p = skip_statement(p, end, &line); /* any other keyword */
        }
        if (st) {
            ps->line = line;
            return st;
        }
        /* p is at the '\n' that ends the statement */
        line++;
        p++;
    }
    ps->line = line;
    return KD_OK;
}
