/* OBJ text through the reader: each window is parsed up to its last complete logical
 * line in place, the rest carried to the front of the next window, and the end of
 * the text (usually nothing, or a last line without a line end) parsed with line
 * ends appended in the window's padding. No copy of the file is ever made. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "mesh_internal.h"
#include "mesh_tuning.h"
#include "obj_number.h" /* character classes */

uint64_t kd_mesh_sniff(kd_mesh_sniff_state *state, const kd_reader *r)
{
    uint64_t from = state->done > r->base ? state->done : r->base;
    uint64_t to = r->base + r->len < KD_MESH_SNIFF_BYTES ? r->base + r->len : KD_MESH_SNIFF_BYTES;
    for (uint64_t at = from; at < to; at++) {
        unsigned char c = (unsigned char)r->buf[at - r->base];
        if (c == 0)
            return at;
        bool control = (c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7f;
        state->run = control ? state->run + 1 : 0;
        if (state->run == KD_MESH_BINARY_RUN)
            return at + 1 - state->run;
    }
    if (to > state->done)
        state->done = to;
    return UINT64_MAX;
}

/* Whether the physical line [begin, nl) ends in a continuation: a backslash and
 * blanks before its '\n', with no comment on the line (as skip_statement and the
 * statement parsers read it: a '#' anywhere ends the statement on that line). */
static bool continues(const char *begin, const char *nl)
{
    const char *r = nl;
    while (r > begin && obj_is_blank(r[-1]))
        r--;
    return r > begin && r[-1] == '\\' && !memchr(begin, '#', (size_t)(r - 1 - begin));
}

/* The last '\n' in [data, data+size) that ends a logical line, or NULL. */
static const char *last_line_end(const char *data, size_t size)
{
    const char *stop = data + size; /* search [data, stop) */
    for (;;) {
        const char *nl = stop;
        while (nl > data && nl[-1] != '\n')
            nl--;
        if (nl == data)
            return NULL;
        nl--; /* *nl == '\n' */
        const char *begin = nl;
        while (begin > data && begin[-1] != '\n')
            begin--;
        /* Windows start at a line start, so begin is where this line starts. */
        if (!continues(begin, nl))
            return nl;
        stop = nl;
    }
}

/* The start of the last physical line of [data, data+size), a 'v' or 'f' statement
 * cut off without its line end? */
static bool ends_in_statement(const char *data, size_t size)
{
    const char *p = data + size;
    while (p > data && p[-1] != '\n')
        p--;
    while (p < data + size && obj_is_blank(*p))
        p++;
    return p + 1 < data + size && (*p == 'v' || *p == 'f') && obj_is_end(p[1]);
}

/* The text after the last complete logical line: parsed with two line ends appended
 * (the first may be taken by a continuation backslash, the second ends the
 * statement). A last line without a line end is how a cut-off file looks: say so. */
static kd_status parse_rest(kd_obj_parser *ps, kd_reader *r)
{
    char *data = r->buf + r->pos;
    size_t size = r->len - r->pos;
    if (size == 0)
        return KD_OK;
    bool no_line_end = data[size - 1] != '\n';
    uint64_t last_line = ps->line;
    for (size_t i = 0; i + 1 < size; i++)
        last_line += data[i] == '\n';
    data[size] = '\n';
    data[size + 1] = '\n';
    kd_status st = kd_obj_parse_lines(ps, data, data + size + 2);
    r->pos = r->len;
    if (st && no_line_end && ps->line >= last_line && ps->err) {
        size_t used = strlen(ps->err->message);
        snprintf(ps->err->message + used, sizeof ps->err->message - used,
                 " (line %" PRIu64 " is the last and has no line end: was the file cut off?)", last_line);
    } else if (!st && no_line_end && ends_in_statement(data, size)) {
        kd_reader_warn(r, "%s:%" PRIu64 ": the last line has no line end: if the file was cut off, its "
                          "last statement may be incomplete", ps->name, last_line);
    }
    return st;
}

/* Binary data at text offset `binary`: the lines before it are parsed first, so
 * that an earlier error is the one reported, whatever the window. */
static kd_status reject_binary(kd_obj_parser *ps, kd_reader *r, uint64_t binary)
{
    const char *data = r->buf + r->pos;
    const char *nl = last_line_end(data, (size_t)(binary - kd_reader_offset(r, 0)));
    if (nl)
        KD_TRY(kd_obj_parse_lines(ps, data, nl + 1));
    return kd_error_set(ps->err, KD_ERR_PARSE, "%s: not an OBJ file (binary data at byte %" PRIu64 ")",
                        ps->name, binary);
}

kd_status kd_obj_parse_reader(kd_obj_parser *ps, kd_reader *r)
{
    kd_mesh_sniff_state sniff = {0, 0};
    for (;;) {
        KD_TRY(kd_reader_fill(r));
        uint64_t binary = kd_mesh_sniff(&sniff, r);
        if (binary != UINT64_MAX)
            return reject_binary(ps, r, binary);
        const char *data = r->buf + r->pos;
        const char *nl = last_line_end(data, r->len - r->pos);
        if (r->text_end && r->end_status) {
            if (nl)
                KD_TRY(kd_obj_parse_lines(ps, data, nl + 1));
            return kd_reader_end_error(r);
        }
        if (r->text_end)
            return parse_rest(ps, r);
        if (nl) {
            KD_TRY(kd_obj_parse_lines(ps, data, nl + 1));
            r->pos += (size_t)(nl + 1 - data);
            continue;
        }
        /* A full window and no line end: hold a longer line, within reason. */
        char what[300];
        snprintf(what, sizeof what, "%s:%" PRIu64 ": the statement", ps->name, ps->line);
        KD_TRY(kd_reader_grow(r, KD_MESH_MAX_LINE_BYTES, what));
    }
}
