/* OBJ loading entry points. A file is read whole before parsing: large plain files
 * are mapped (the parser reads the page cache in place), small ones read into a
 * buffer, gzip files decompressed into one. Parsing is obj_parse.c, finishing
 * (forward references, degenerate triangles) obj_finish.c. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#endif
#include "obj_loader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef KD_HAVE_ZLIB
#include <zlib.h>
#endif

#include "obj_number.h" /* character classes */

/* Bytes kept free after the text: the parser appends a line end there. */
enum { TEXT_PADDING = 2 };

typedef struct text_buffer {
    char *data;
    size_t size;
    size_t cap; /* excluding TEXT_PADDING */
} text_buffer;

static bool buffer_reserve(text_buffer *buf, size_t need)
{
    if (need <= buf->cap)
        return true;
    size_t cap = buf->cap ? buf->cap : 1 << 16;
    while (cap < need) {
        if (cap > (SIZE_MAX - TEXT_PADDING) / 2)
            return false;
        cap *= 2;
    }
    char *bigger = realloc(buf->data, cap + TEXT_PADDING);
    if (!bigger)
        return false;
    buf->data = bigger;
    buf->cap = cap;
    return true;
}

/* Reads a plain file from fd; size_hint is what fstat said (files that grow or
 * report no size, like pipes, still read fully). */
static kd_status read_plain(int fd, const char *path, size_t size_hint, text_buffer *buf,
                            kd_error *err)
{
    if (!buffer_reserve(buf, size_hint + 1))
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, size_hint);
    for (;;) {
        if (buf->size == buf->cap && !buffer_reserve(buf, buf->cap + 1))
            return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, buf->size);
        ssize_t got = read(fd, buf->data + buf->size, buf->cap - buf->size);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return kd_error_set(err, KD_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        }
        if (got == 0)
            return KD_OK;
        buf->size += (size_t)got;
    }
}

#ifdef KD_HAVE_ZLIB
/* Decompresses a gzip file (all members) from fd, which it closes. */
static kd_status read_gzip(int fd, const char *path, uint64_t file_bytes, text_buffer *buf,
                           kd_error *err)
{
    /* The gzip trailer holds the uncompressed size modulo 2^32: a good first size. */
    unsigned char trailer[4];
    size_t hint = 0;
    if (file_bytes >= 18 && pread(fd, trailer, 4, (off_t)file_bytes - 4) == 4)
        hint = (size_t)trailer[0] | (size_t)trailer[1] << 8 | (size_t)trailer[2] << 16 |
               (size_t)trailer[3] << 24;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return kd_error_set(err, KD_ERR_NOMEM, "%s: cannot start decompressing", path);
    }
    gzbuffer(gz, 1 << 18);
    kd_status st = KD_OK;
    if (!buffer_reserve(buf, hint + 1))
        st = kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, hint);
    while (st == KD_OK) {
        if (buf->size == buf->cap && !buffer_reserve(buf, buf->cap + 1)) {
            st = kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, buf->size);
            break;
        }
        size_t room = buf->cap - buf->size;
        unsigned chunk = room > (1u << 30) ? (1u << 30) : (unsigned)room;
        int got = gzread(gz, buf->data + buf->size, chunk);
        if (got < 0) {
            int code;
            const char *why = gzerror(gz, &code);
            st = kd_error_set(err, KD_ERR_IO, "%s: corrupt gzip data: %s", path, why);
            break;
        }
        if (got == 0) {
            int code;
            const char *why = gzerror(gz, &code);
            if (code != Z_OK)
                st = kd_error_set(err, KD_ERR_IO, "%s: corrupt or truncated gzip data: %s", path, why);
            break;
        }
        buf->size += (size_t)got;
    }
    gzclose(gz);
    return st;
}
#endif

static kd_status read_file(const char *path, text_buffer *buf, kd_obj_file_info *info,
                           kd_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return kd_error_set(err, KD_ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return kd_error_set(err, KD_ERR_IO, "%s: is a directory, not an OBJ file", path);
    }
    info->file_bytes = S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;

    unsigned char magic[2] = {0, 0};
    bool gzip = S_ISREG(sb.st_mode) && pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f &&
                magic[1] == 0x8b;
    info->compressed = gzip;
    if (gzip) {
#ifdef KD_HAVE_ZLIB
        return read_gzip(fd, path, info->file_bytes, buf, err);
#else
        close(fd);
        return kd_error_set(err, KD_ERR_UNSUPPORTED,
                            "%s: is gzip-compressed and this scankd was built without zlib: "
                            "run 'gunzip -k %s' and load the .obj (or install zlib1g-dev and rebuild)",
                            path, path);
#endif
    }
    kd_status st = read_plain(fd, path, (size_t)info->file_bytes, buf, err);
    close(fd);
    return st;
}

/* ---- Text in memory -------------------------------------------------------- */

/* The last '\n' in [data, data+size) that ends a logical line (one not preceded by a
 * continuation backslash), or NULL. A backslash inside a comment is taken as a
 * continuation here; that only moves a little more text into the copied tail. */
static const char *last_line_end(const char *data, size_t size)
{
    size_t stop = size; /* search [0, stop) */
    while (stop > 0) {
        size_t nl = stop;
        while (nl > 0 && data[nl - 1] != '\n')
            nl--;
        if (nl == 0)
            return NULL;
        nl--; /* data[nl] == '\n' */
        size_t r = nl;
        while (r > 0 && obj_is_blank(data[r - 1]))
            r--;
        if (!(r > 0 && data[r - 1] == '\\'))
            return data + nl;
        stop = nl;
    }
    return NULL;
}

/* The parser needs its text to end with a line end it can stop at; rather than copy
 * a whole file to append one, the text up to its last complete logical line is
 * parsed in place and only the rest (usually nothing) from a padded copy. */
/* Parses the complete logical lines [data, data + head) a block at a time,
 * each block ending at a logical line end, so that a long load can tell its
 * progress between blocks. */
static kd_status parse_blocks(kd_obj_parser *ps, const char *data, size_t head, size_t size)
{
    enum { BLOCK_BYTES = 16 << 20 }; /* about a tenth of a second of parsing */
    size_t done = 0;
    while (done < head) {
        size_t end = head;
        if (ps->progress && head - done > BLOCK_BYTES) {
            const char *nl = last_line_end(data + done, BLOCK_BYTES);
            if (nl)
                end = (size_t)(nl - data) + 1;
        }
        KD_TRY(kd_obj_parse_lines(ps, data + done, data + end));
        done = end;
        if (ps->progress)
            ps->progress(ps->progress_ctx, done, size);
    }
    return KD_OK;
}

kd_status kd_obj_parse_text(kd_obj_parser *ps, const char *data, size_t size)
{
    const char *nl = last_line_end(data, size);
    size_t head = nl ? (size_t)(nl - data) + 1 : 0;
    kd_status st = parse_blocks(ps, data, head, size);
    if (st)
        return st;
    size_t tail = size - head;
    if (tail == 0)
        return KD_OK;
    /* Two newlines: if the text ends in a continuation backslash the first one is
     * consumed by it, and the second still ends the statement. */
    char *copy = malloc(tail + 2);
    if (!copy)
        return kd_error_set(ps->err, KD_ERR_NOMEM, "%s: out of memory", ps->name);
    memcpy(copy, data + head, tail);
    copy[tail] = '\n';
    copy[tail + 1] = '\n';
    st = kd_obj_parse_lines(ps, copy, copy + tail + 2);
    free(copy);
    return st;
}

/* The text in memory to a mesh, telling progress (may be NULL) as it goes. */
static kd_status load_text(const char *data, size_t size, const char *name, kd_obj_limits limits,
                           kd_obj_progress_fn progress, void *progress_ctx, kd_mesh *mesh,
                           kd_error *err)
{
    memset(mesh, 0, sizeof *mesh);
    kd_error_clear(err);
    if (!name)
        name = "<memory>";
    if (size == 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: file is empty", name);
    kd_obj_parser ps;
    kd_obj_parser_init(&ps, name, limits, size, err);
    ps.progress = progress;
    ps.progress_ctx = progress_ctx;
    kd_status st = kd_obj_parse_text(&ps, data, size);
    if (st == KD_OK)
        st = kd_obj_parser_finish(&ps, mesh);
    kd_obj_parser_free(&ps);
    if (st)
        kd_mesh_free(mesh);
    return st;
}

kd_status kd_obj_load_memory_limited(const char *data, size_t size, const char *name,
                                     kd_obj_limits limits, kd_mesh *mesh, kd_error *err)
{
    return load_text(data, size, name, limits, NULL, NULL, mesh, err);
}

kd_status kd_obj_load_memory(const char *data, size_t size, const char *name, kd_mesh *mesh,
                             kd_error *err)
{
    return kd_obj_load_memory_limited(data, size, name, kd_obj_default_limits(), mesh, err);
}

/* Maps a large plain file instead of copying it: the parser then reads the page
 * cache directly, which saves the copy and the page faults of a fresh buffer
 * (about a quarter of the load time of a 30 MB file). NULL when it cannot (then
 * the file is read instead). Like any mapping, a file truncated while it is being
 * parsed would fault; OBJ files are not written while scenes load. */
static const char *map_plain_file(const char *path, uint64_t *size)
{
    enum { MAP_THRESHOLD = 1 << 20 }; /* small files: one read() is cheaper */
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return NULL;
    struct stat sb;
    unsigned char magic[2] = {0, 0};
    const char *data = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= MAP_THRESHOLD &&
        (uint64_t)sb.st_size <= SIZE_MAX && pread(fd, magic, 2, 0) == 2 &&
        !(magic[0] == 0x1f && magic[1] == 0x8b)) {
#ifdef MAP_POPULATE
        int flags = MAP_PRIVATE | MAP_POPULATE; /* map every page now, in one go */
#else
        int flags = MAP_PRIVATE;
#endif
        void *map = mmap(NULL, (size_t)sb.st_size, PROT_READ, flags, fd, 0);
        if (map != MAP_FAILED) {
            data = map;
            *size = (uint64_t)sb.st_size;
        }
    }
    close(fd);
    return data;
}

kd_status kd_obj_load_file_progress(const char *path, kd_mesh *mesh, kd_obj_file_info *info,
                                    kd_obj_progress_fn progress, void *progress_ctx, kd_error *err)
{
    kd_obj_file_info local;
    if (!info)
        info = &local;
    memset(info, 0, sizeof *info);
    memset(mesh, 0, sizeof *mesh);
    kd_error_clear(err);

    uint64_t mapped_size = 0;
    const char *mapped = map_plain_file(path, &mapped_size);
    if (mapped) {
        info->file_bytes = info->text_bytes = mapped_size;
        kd_status st = load_text(mapped, (size_t)mapped_size, path, kd_obj_default_limits(), progress,
                                 progress_ctx, mesh, err);
        munmap((void *)mapped, (size_t)mapped_size);
        return st;
    }

    text_buffer buf = {0};
    kd_status st = read_file(path, &buf, info, err);
    if (st == KD_OK) {
        info->text_bytes = buf.size;
        if (buf.size == 0) {
            st = kd_error_set(err, KD_ERR_PARSE, "%s: file is empty", path);
        } else {
            /* A line end in the padding lets the parser read the last line in place. */
            buf.data[buf.size] = '\n';
            st = load_text(buf.data, buf.size + 1, path, kd_obj_default_limits(), progress, progress_ctx,
                           mesh, err);
        }
    }
    free(buf.data);
    return st;
}

kd_status kd_obj_load_file_ex(const char *path, kd_mesh *mesh, kd_obj_file_info *info,
                              kd_error *err)
{
    return kd_obj_load_file_progress(path, mesh, info, NULL, NULL, err);
}

kd_status kd_obj_load_file(const char *path, kd_mesh *mesh, kd_error *err)
{
    return kd_obj_load_file_ex(path, mesh, NULL, err);
}
