/* gzip data under the loaders' reader: decompressed block by block with zlib's
 * inflate, every member of a concatenated file in turn. Messages name the file and
 * the compressed byte where the data went wrong. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_reader.h"
#include "mesh_tuning.h"

#ifdef KD_HAVE_ZLIB
#include <zlib.h>

struct kd_gzip {
    z_stream z;
    unsigned char *in; /* compressed bytes, z.next_in into it */
    size_t in_cap;
    bool member_end; /* a member ended: the next bytes start another, or nothing */
    bool done;
};

/* Offset in the file of the next compressed byte inflate will take. */
static uint64_t raw_offset(const kd_reader *r)
{
    return r->raw_bytes - r->gz->z.avail_in;
}

/* Reads compressed bytes until at least min are buffered or the file ends. */
static kd_status pull(kd_reader *r, size_t min)
{
    kd_gzip *g = r->gz;
    if (g->z.avail_in >= min || r->raw_end)
        return KD_OK;
    memmove(g->in, g->z.next_in, g->z.avail_in);
    g->z.next_in = g->in;
    while (g->z.avail_in < min && !r->raw_end) {
        size_t got;
        KD_TRY(kd_reader_raw_read(r, g->in + g->z.avail_in, g->in_cap - g->z.avail_in, &got));
        g->z.avail_in += (uInt)got;
    }
    return KD_OK;
}

kd_status kd_gzip_start(kd_reader *r, uint64_t compressed_bytes, const unsigned char *trailer)
{
    kd_gzip *g = calloc(1, sizeof *g);
    size_t in_cap = compressed_bytes > 0 && compressed_bytes < KD_MESH_GZIP_INPUT_BYTES
                        ? (size_t)compressed_bytes
                        : KD_MESH_GZIP_INPUT_BYTES;
    in_cap = r->len > in_cap ? r->len : in_cap;
    if (g)
        g->in = malloc(in_cap);
    if (!g || !g->in || inflateInit2(&g->z, 16 + MAX_WBITS) != Z_OK) {
        if (g)
            free(g->in);
        free(g);
        return kd_error_set(r->err, KD_ERR_NOMEM, "%s: cannot start decompressing: out of memory",
                            r->name);
    }
    r->gz = g;
    g->in_cap = in_cap;
    memcpy(g->in, r->buf, r->len);
    g->z.next_in = g->in;
    g->z.avail_in = (uInt)r->len;
    r->len = 0;
    /* The trailer's size (modulo 2^32) is a first guess, within what the file can
     * hold; a truncated or padded file turns it into any number at all. */
    r->size_hint = 0;
    if (trailer) {
        uint64_t isize = (uint64_t)trailer[0] | (uint64_t)trailer[1] << 8 |
                         (uint64_t)trailer[2] << 16 | (uint64_t)trailer[3] << 24;
        uint64_t most = compressed_bytes * KD_MESH_GZIP_MAX_RATIO;
        r->size_hint = isize < most ? isize : most;
    }
    return KD_OK;
}

/* At the end of a member: another member, the end of the file, or bytes that are
 * not gzip (ignored with a warning, as gzip -d does). */
static kd_status next_member(kd_reader *r)
{
    kd_gzip *g = r->gz;
    KD_TRY(pull(r, 2));
    if (g->z.avail_in == 0) {
        g->done = true;
    } else if (g->z.avail_in >= 2 && g->z.next_in[0] == 0x1f && g->z.next_in[1] == 0x8b) {
        inflateReset(&g->z);
        g->member_end = false;
    } else {
        kd_reader_warn(r, "%s: bytes after the end of the gzip data (from byte %" PRIu64 ") ignored",
                       r->name, raw_offset(r));
        g->done = true;
    }
    return KD_OK;
}

/* Decompresses into dst until it is full or the data ends; *got is what came out,
 * also when an error stops it. */
static kd_status inflate_into(kd_reader *r)
{
    kd_gzip *g = r->gz;
    while (g->z.avail_out > 0 && !g->done) {
        KD_TRY(pull(r, 1));
        if (g->member_end) {
            KD_TRY(next_member(r));
            continue;
        }
        /* With the input all read, inflate may still hold bits: only when it can
         * make no progress is the data cut short. */
        int ret = inflate(&g->z, Z_NO_FLUSH);
        if (ret == Z_STREAM_END)
            g->member_end = true;
        else if (ret == Z_MEM_ERROR)
            return kd_error_set(r->err, KD_ERR_NOMEM, "%s: out of memory decompressing", r->name);
        else if (ret == Z_BUF_ERROR && g->z.avail_in == 0 && r->raw_end)
            return kd_error_set(r->err, KD_ERR_IO,
                                "%s: truncated gzip data: the file ends at byte %" PRIu64
                                " inside the compressed stream",
                                r->name, r->raw_bytes);
        else if (ret != Z_OK && ret != Z_BUF_ERROR)
            return kd_error_set(r->err, KD_ERR_IO, "%s: corrupt gzip data near byte %" PRIu64 ": %s",
                                r->name, raw_offset(r), g->z.msg ? g->z.msg : "invalid data");
    }
    return KD_OK;
}

kd_status kd_gzip_read(kd_reader *r, char *dst, size_t cap, size_t *got)
{
    kd_gzip *g = r->gz;
    if (cap > (1u << 30))
        cap = 1u << 30;
    g->z.next_out = (unsigned char *)dst;
    g->z.avail_out = (uInt)cap;
    kd_status st = inflate_into(r);
    *got = cap - g->z.avail_out;
    return st;
}

void kd_gzip_end(kd_reader *r)
{
    if (!r->gz)
        return;
    inflateEnd(&r->gz->z);
    free(r->gz->in);
    free(r->gz);
    r->gz = NULL;
}

#else /* no zlib */

kd_status kd_gzip_start(kd_reader *r, uint64_t compressed_bytes, const unsigned char *trailer)
{
    (void)compressed_bytes;
    (void)trailer;
    return kd_error_set(r->err, KD_ERR_UNSUPPORTED,
                        "%s: is gzip-compressed and this scankd was built without zlib: "
                        "run 'gunzip -k %s' and load the result (or install zlib1g-dev and rebuild)",
                        r->name, r->name);
}

kd_status kd_gzip_read(kd_reader *r, char *dst, size_t cap, size_t *got)
{
    (void)r;
    (void)dst;
    (void)cap;
    *got = 0;
    return KD_OK;
}

void kd_gzip_end(kd_reader *r)
{
    (void)r;
}

#endif
