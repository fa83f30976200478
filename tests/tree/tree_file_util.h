/* What the tree-file tests share: whole files in and out of memory, and the
 * format's FNV-1a checksum, computed here on its own so that the tests do
 * not take the reader's word for it. */
#ifndef KD_TEST_TREE_FILE_UTIL_H
#define KD_TEST_TREE_FILE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The whole file in a new buffer (NULL when it cannot be read). */
static inline unsigned char *tf_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    *size = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static inline void tf_write_file(const char *path, const unsigned char *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, size, f);
        fclose(f);
    }
}

static inline uint64_t tf_fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Stores h little-endian at p. */
static inline void tf_put_u64(unsigned char *p, uint64_t h)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(h >> (8 * i));
}

#endif
