/* The loaders' input window over a file or memory, plain or gzip (mesh_reader.h).
 * Files are read, not mapped: a window reused block after block keeps the resident
 * memory of a load to what the mesh needs, and works the same on pipes. */
#include "mesh_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh_tuning.h"

static bool window_alloc(kd_reader *r, size_t cap)
{
    char *bigger = realloc(r->buf, cap + KD_READER_PADDING);
    if (!bigger)
        return false;
    r->buf = bigger;
    r->cap = cap;
    return true;
}

kd_status kd_reader_raw_read(kd_reader *r, void *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (r->raw_end || cap == 0)
        return KD_OK;
    if (r->fd < 0) {
        size_t n = r->mem_size - r->mem_pos;
        n = n < cap ? n : cap;
        memcpy(dst, r->mem + r->mem_pos, n);
        r->mem_pos += n;
        *got = n;
    } else {
        ssize_t n;
        do
            n = read(r->fd, dst, cap);
        while (n < 0 && errno == EINTR);
        if (n < 0)
            return kd_error_set(r->err, KD_ERR_IO, "%s: cannot read: %s", r->name, strerror(errno));
        *got = (size_t)n;
    }
    if (*got == 0)
        r->raw_end = true;
    r->raw_bytes += *got;
    if (r->progress && r->file_size && *got)
        r->progress(r->progress_ctx, (size_t)r->raw_bytes, (size_t)r->file_size);
    return KD_OK;
}

/* Reads text into buf[len, cap) until it is full or the text ends. */
static kd_status read_text(kd_reader *r)
{
    while (r->len < r->cap && !r->text_end) {
        size_t got = 0;
        kd_status st = r->gz ? kd_gzip_read(r, r->buf + r->len, r->cap - r->len, &got)
                             : kd_reader_raw_read(r, r->buf + r->len, r->cap - r->len, &got);
        r->len += got; /* the text before an error counts, wherever the window ends */
        if (st)
            return st;
        if (got == 0)
            r->text_end = true;
    }
    return KD_OK;
}

kd_status kd_reader_fill(kd_reader *r)
{
    if (r->pos > 0) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->base += r->pos;
        r->len -= r->pos;
        r->pos = 0;
    }
    kd_status st = read_text(r);
    if (st && st != KD_ERR_NOMEM) {
        r->end_status = st;
        snprintf(r->end_message, sizeof r->end_message, "%s", r->err ? r->err->message : "read error");
        r->text_end = true;
        return KD_OK;
    }
    return st;
}

kd_status kd_reader_end_error(kd_reader *r)
{
    if (r->end_status == KD_OK)
        return KD_OK;
    return kd_error_set(r->err, r->end_status, "%s", r->end_message);
}

kd_status kd_reader_grow(kd_reader *r, size_t limit, const char *what)
{
    if (r->cap >= limit)
        return kd_error_set(r->err, KD_ERR_PARSE, "%s is longer than %zu bytes", what, limit);
    size_t cap = r->cap * 2 < limit ? r->cap * 2 : limit;
    if (!window_alloc(r, cap))
        return kd_error_set(r->err, KD_ERR_NOMEM, "%s: out of memory for a window of %zu bytes",
                            r->name, cap);
    return KD_OK;
}

kd_status kd_reader_start_text(kd_reader *r)
{
    KD_TRY(kd_reader_fill(r));
    if (r->text_end && r->pos == r->len) {
        KD_TRY(kd_reader_end_error(r));
        return kd_error_set(r->err, KD_ERR_PARSE, "%s: file is empty", r->name);
    }
    return KD_OK;
}

void kd_reader_warn(kd_reader *r, const char *fmt, ...)
{
    if (r->warning[0])
        return;
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->warning, sizeof r->warning, fmt, args);
    va_end(args);
}

void kd_reader_close(kd_reader *r)
{
    kd_gzip_end(r);
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
    free(r->buf);
    r->buf = NULL;
    r->pos = r->len = r->cap = 0;
}

/* A window for about `bytes` of text (0: unknown): a block at most, less for a
 * small input. */
static size_t window_for(uint64_t bytes)
{
    if (bytes == 0 || bytes >= KD_MESH_BLOCK_BYTES)
        return KD_MESH_BLOCK_BYTES;
    return bytes < 64 ? 64 : (size_t)bytes;
}

/* The first block: raw bytes, which either are the text or start gzip data
 * (compressed_bytes and trailer, when known, size the decompressed text). */
static kd_status start(kd_reader *r, size_t block_bytes, bool detect_gzip,
                       uint64_t compressed_bytes, const unsigned char *trailer)
{
    /* At least the bytes that tell gzip data and the format apart. */
    size_t cap = block_bytes ? block_bytes : window_for(compressed_bytes);
    if (!window_alloc(r, cap < 8 ? 8 : cap))
        return kd_error_set(r->err, KD_ERR_NOMEM, "%s: out of memory", r->name);
    while (r->len < r->cap && !r->raw_end) {
        size_t got;
        KD_TRY(kd_reader_raw_read(r, r->buf + r->len, r->cap - r->len, &got));
        r->len += got;
    }
    unsigned char b0 = r->len > 0 ? (unsigned char)r->buf[0] : 0;
    unsigned char b1 = r->len > 1 ? (unsigned char)r->buf[1] : 0;
    if (detect_gzip && b0 == 0x1f && b1 == 0x8b) {
        KD_TRY(kd_gzip_start(r, compressed_bytes, trailer));
        size_t want = window_for(r->size_hint);
        if (!block_bytes && want > r->cap && !window_alloc(r, want))
            return kd_error_set(r->err, KD_ERR_NOMEM, "%s: out of memory", r->name);
        return KD_OK;
    }
    r->text_end = r->raw_end;
    return KD_OK;
}

static void reader_init(kd_reader *r, const char *name, kd_error *err)
{
    memset(r, 0, sizeof *r);
    r->name = name ? name : "<memory>";
    r->err = err;
    r->fd = -1;
}

kd_status kd_reader_open_memory(kd_reader *r, const void *data, size_t size, const char *name,
                                bool detect_gzip, size_t block_bytes, kd_error *err)
{
    reader_init(r, name, err);
    r->mem = data;
    r->mem_size = data ? size : 0;
    r->size_hint = size;
    const unsigned char *trailer = size >= 18 ? r->mem + size - 4 : NULL;
    kd_status st = start(r, block_bytes, detect_gzip, size, trailer);
    if (st)
        kd_reader_close(r);
    return st;
}

kd_status kd_reader_open_file(kd_reader *r, const char *path, kd_error *err)
{
    return kd_reader_open_file_progress(r, path, NULL, NULL, err);
}

kd_status kd_reader_open_file_progress(kd_reader *r, const char *path,
                                       void (*progress)(void *ctx, size_t done, size_t total),
                                       void *progress_ctx, kd_error *err)
{
    reader_init(r, path, err);
    r->progress = progress;
    r->progress_ctx = progress_ctx;
    r->fd = open(path, O_RDONLY);
    if (r->fd < 0)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    kd_status st = KD_OK;
    unsigned char trailer[4], *have_trailer = NULL;
    uint64_t file_bytes = 0;
    if (fstat(r->fd, &sb) != 0) {
        st = kd_error_set(err, KD_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    } else if (S_ISDIR(sb.st_mode)) {
        st = kd_error_set(err, KD_ERR_IO, "%s: is a directory, not a mesh file", path);
    } else if (S_ISREG(sb.st_mode)) {
        /* Pipes and devices have no size: their first allocations start small. */
        file_bytes = r->size_hint = r->file_size = (uint64_t)sb.st_size;
        if (file_bytes >= 18 && pread(r->fd, trailer, 4, (off_t)file_bytes - 4) == 4)
            have_trailer = trailer;
    }
    if (st == KD_OK)
        st = start(r, 0, true, file_bytes, have_trailer);
    if (st)
        kd_reader_close(r);
    return st;
}
