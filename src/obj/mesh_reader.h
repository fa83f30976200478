/* The mesh loaders' input: a file (regular, pipe or device) or memory, plain or
 * gzip (recognised by its magic bytes, on a pipe too), read through one window of
 * text that the parsers consume from the front. Memory stays bounded by the window
 * (a block, or the longest line a parser asks to hold) whatever the file's size.
 * Internal to the loaders (mesh_load.h is the entry point). */
#ifndef KD_MESH_READER_H
#define KD_MESH_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

/* Bytes kept writable after the window's end, so that a parser can append line
 * ends to the last text. */
enum { KD_READER_PADDING = 8, KD_READER_WARNING_BYTES = 256 };

typedef struct kd_gzip kd_gzip;

typedef struct kd_reader {
    const char *name; /* for messages */
    kd_error *err;
    /* Where the bytes come from. */
    int fd;                   /* -1 when reading memory */
    const unsigned char *mem; /* the memory source */
    size_t mem_size, mem_pos;
    bool raw_end;       /* the file or memory has nothing more */
    uint64_t raw_bytes; /* bytes taken from it so far */
    uint64_t size_hint; /* text bytes to expect, 0 when unknown (sizes first allocations) */
    kd_gzip *gz;        /* set for gzip data */
    /* The window of text: buf[pos, len) is read and not yet consumed. */
    char *buf;
    size_t pos, len, cap; /* cap + KD_READER_PADDING bytes are allocated */
    uint64_t base;        /* text offset of buf[0] */
    bool text_end;        /* no text after buf[len] */
    kd_status end_status; /* why the text ended early (a read error), else KD_OK */
    char end_message[KD_ERROR_MESSAGE_BYTES];
    char warning[KD_READER_WARNING_BYTES]; /* the first warning, "" for none */
    /* Told the raw bytes read so far of file_size after each read (NULL: none). */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
    uint64_t file_size; /* a regular file's size, 0 otherwise */
} kd_reader;

/* Opens path and reads its first block (a directory, an unreadable file or a gzip
 * file in a build without zlib is an error; the reader is then closed). */
kd_status kd_reader_open_file(kd_reader *r, const char *path, kd_error *err);

/* The same, telling progress (may be NULL) the bytes read after each read. */
kd_status kd_reader_open_file_progress(kd_reader *r, const char *path,
                                       void (*progress)(void *ctx, size_t done, size_t total),
                                       void *progress_ctx, kd_error *err);

/* Reads size bytes at data, which must outlive the reader; with detect_gzip, gzip
 * data is decompressed as from a file. block_bytes is the window's first size (0:
 * KD_MESH_BLOCK_BYTES; 8 at least); tests shrink it to put window ends everywhere. */
kd_status kd_reader_open_memory(kd_reader *r, const void *data, size_t size, const char *name,
                                bool detect_gzip, size_t block_bytes, kd_error *err);

/* Moves the unread text to the front of the window and reads until the window is
 * full or the text ends (text_end). A read error (corrupt or truncated gzip data,
 * an I/O error) ends the text there and is kept for kd_reader_end_error: parsers
 * take the complete lines or rows before it first, so that the error a file gets
 * does not depend on the window's size. */
kd_status kd_reader_fill(kd_reader *r);

/* At the end of the text: the read error that ended it early, else KD_OK. Parsers
 * call it before they act on the end (a cut line, a missing row). */
kd_status kd_reader_end_error(kd_reader *r);

/* Fills the window; "NAME: file is empty" when there is no text at all. */
kd_status kd_reader_start_text(kd_reader *r);

/* Doubles the window, up to limit bytes. At the limit the error reads
 * "<what> is longer than <limit> bytes" (what: "NAME:LINE: a statement", say). */
kd_status kd_reader_grow(kd_reader *r, size_t limit, const char *what);

/* Text offset of buf[pos + k]. */
static inline uint64_t kd_reader_offset(const kd_reader *r, size_t k)
{
    return r->base + r->pos + k;
}

/* Records a warning for the caller (the first one is kept). */
void kd_reader_warn(kd_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void kd_reader_close(kd_reader *r);

/* Raw bytes from the source (used by the gzip layer); 0 at the end. */
kd_status kd_reader_raw_read(kd_reader *r, void *dst, size_t cap, size_t *got);

/* The gzip layer (mesh_gzip.c): starts decompressing with buf[0, len) as the first
 * compressed bytes; reads decompressed text; frees its state. */
kd_status kd_gzip_start(kd_reader *r, uint64_t compressed_bytes, const unsigned char *trailer);
kd_status kd_gzip_read(kd_reader *r, char *dst, size_t cap, size_t *got);
void kd_gzip_end(kd_reader *r);

#endif
