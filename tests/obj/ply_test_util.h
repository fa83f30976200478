/* Helpers for the PLY loader tests: a buffer that PLY files are written into
 * (text, and binary values of every type in either byte order), and loading from
 * memory against guard pages and through windows of every size, which must all
 * agree. Include after defining _DEFAULT_SOURCE. */
#ifndef KD_PLY_TEST_UTIL_H
#define KD_PLY_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>

#include "obj_test_util.h"
#include "ply_loader.h"

typedef struct ply_buf {
    char *data;
    size_t len, cap;
    bool big; /* byte order of binary values */
} ply_buf;

static inline void ply_put_bytes(ply_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 256;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static inline void ply_printf(ply_buf *b, const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    ply_put_bytes(b, text, (size_t)n);
}

/* An unsigned value of n bytes in the buffer's byte order. */
static inline void ply_put_uint(ply_buf *b, uint64_t v, size_t n)
{
    unsigned char bytes[8];
    for (size_t i = 0; i < n; i++)
        bytes[b->big ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
    ply_put_bytes(b, bytes, n);
}

/* A value of a PLY type name ("uchar", "int16", "float", "double", ...). */
static inline void ply_put_value(ply_buf *b, const char *type, double v)
{
    bool is_float = type[0] == 'f', is_double = type[0] == 'd';
    if (is_float && (type[5] == '\0' || type[5] == '3')) { /* float, float32 */
        float f = (float)v;
        uint32_t u;
        memcpy(&u, &f, 4);
        ply_put_uint(b, u, 4);
    } else if (is_float || is_double) { /* double, float64 */
        uint64_t u;
        memcpy(&u, &v, 8);
        ply_put_uint(b, u, 8);
    } else {
        size_t n = strstr(type, "char") || strstr(type, "8") ? 1 : strstr(type, "short") || strstr(type, "16") ? 2 : 4;
        ply_put_uint(b, (uint64_t)(int64_t)v, n);
    }
}

/* The formats by number: 0 ASCII, 1 binary little-endian, 2 binary big-endian. */
static const char *const k_ply_formats[3] = {"ascii", "binary_little_endian", "binary_big_endian"};

/* "ply", the format line, then the rest of the header; binary values to come in
 * the format's byte order. */
static inline void ply_begin(ply_buf *b, int format, const char *rest)
{
    b->big = format == 2;
    ply_printf(b, "ply\nformat %s 1.0\n%s", k_ply_formats[format], rest);
}

/* One value of a row: text (then a blank, or the line end after the last) or binary. */
static inline void ply_put(ply_buf *b, int format, const char *type, double v, bool last)
{
    if (format == 0)
        ply_printf(b, last ? "%.17g\n" : "%.17g ", v);
    else
        ply_put_value(b, type, v);
}

/* Loads size bytes of PLY text from memory placed against a guard page after it
 * (at_start false) or before it. */
static inline kd_status ply_load_guarded_at(const char *text, size_t size, kd_obj_limits limits, bool at_start,
                                            size_t block, kd_mesh *mesh, kd_error *err, char *warning)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t total = ((size + page - 1) / page + 3) * page;
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        fprintf(stderr, "mmap failed\n");
        exit(1);
    }
    mprotect(base, page, PROT_NONE);
    mprotect(base + total - page, page, PROT_NONE);
    char *data = at_start ? base + page : base + total - page - size;
    memcpy(data, text, size);
    mprotect(base + page, total - 2 * page, PROT_READ);
    kd_status st = kd_ply_load_memory_blocks(data, size, "t.ply", limits, block, mesh, err, warning, 256);
    munmap(base, total);
    return st;
}

/* Loads PLY data every way (guard page after and before, windows of 1, 2, 5, 16 and
 * 61 bytes), checks that all agree (status, message, mesh, warning), and returns the
 * first. On failure the mesh must be zeroed. warning may be NULL. */
static inline kd_status ply_load_limited(const char *text, size_t size, kd_obj_limits limits,
                                         kd_mesh *mesh, kd_error *err, char *warning)
{
    static const size_t blocks[] = {0, 0, 1, 2, 5, 16, 61};
    char first_warning[256], other_warning[256];
    kd_status st = ply_load_guarded_at(text, size, limits, false, 0, mesh, err, first_warning);
    for (size_t b = 1; b < sizeof blocks / sizeof blocks[0]; b++) {
        kd_mesh other;
        kd_error other_err;
        kd_status st2 = ply_load_guarded_at(text, size, limits, b == 1, blocks[b], &other, &other_err,
                                            other_warning);
        CHECK_MSG(obj_same_result(st, mesh, err, st2, &other, &other_err),
                  "load %zu: status %d '%s' vs %d '%s'", b, (int)st, st ? err->message : "", (int)st2,
                  st2 ? other_err.message : "");
        CHECK_MSG(strcmp(first_warning, other_warning) == 0, "load %zu: warning '%s' vs '%s'", b,
                  first_warning, other_warning);
        kd_mesh_free(&other);
    }
    if (st != KD_OK)
        CHECK_MSG(obj_mesh_is_zeroed(mesh), "mesh not zeroed after error '%s'", err->message);
    if (warning)
        strcpy(warning, first_warning);
    return st;
}

static inline kd_status ply_load(const ply_buf *b, kd_mesh *mesh, kd_error *err)
{
    return ply_load_limited(b->data, b->len, kd_obj_default_limits(), mesh, err, NULL);
}

/* Expects the PLY data to fail with status and exactly the message want. */
#define PLY_EXPECT_ERROR(buf, want_status, want)                                                    \
    do {                                                                                            \
        kd_mesh m_;                                                                                 \
        kd_error e_;                                                                                \
        kd_status s_ = ply_load((buf), &m_, &e_);                                                   \
        CHECK_MSG(s_ == (want_status), "line %d: status %d (%s), want %d", __LINE__, (int)s_,       \
                  s_ ? e_.message : "ok", (int)(want_status));                                      \
        if (s_ != KD_OK)                                                                            \
            CHECK_MSG(strcmp(e_.message, (want)) == 0, "line %d: message '%s', want '%s'", __LINE__, \
                      e_.message, (want));                                                          \
        kd_mesh_free(&m_);                                                                          \
    } while (0)

#endif
