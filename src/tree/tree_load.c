/* Reading tree files (the layout is tree_format.h's). The magic and the
 * header come first, from the first bytes of the file, so that a file that is
 * no tree is refused at once, and the header's counts are trusted (its
 * checksum in version 2) before the body they size is read. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tree_format.h"
#include "tree_io.h"

/* An open tree file and what is known of it. */
typedef struct tree_file {
    FILE *f;
    const char *path;
    bool regular;          /* a regular file: its size is known */
    uint64_t size;         /* when regular */
    unsigned char header[KD_TREE_V2_HEADER_BYTES];
    uint32_t version, header_bytes;
} tree_file;

static kd_status open_file(tree_file *t, const char *path, kd_error *err)
{
    memset(t, 0, sizeof *t);
    t->path = path;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return kd_error_set(err, KD_ERR_IO, "%s: is a directory, not a tree file", path);
    t->f = fopen(path, "rb");
    if (!t->f)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fileno(t->f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        t->regular = true;
        t->size = (uint64_t)sb.st_size;
    }
    return KD_OK;
}

/* Reads up to n bytes; a read error (not the end of the file) fails. */
static kd_status read_some(tree_file *t, unsigned char *dst, size_t n, size_t *got, kd_error *err)
{
    *got = fread(dst, 1, n, t->f);
    if (*got < n && ferror(t->f))
        return kd_error_set(err, KD_ERR_IO, "%s: read failed: %s", t->path, strerror(errno));
    return KD_OK;
}

/* The magic, then the version and the header size, then the rest of the
 * version's header. */
static kd_status read_header(tree_file *t, kd_error *err)
{
    size_t got;
    KD_TRY(read_some(t, t->header, KD_TREE_MAGIC_BYTES, &got, err));
    if (got == 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: not a scankd tree file: it is empty (no magic)", t->path);
    if (memcmp(t->header, KD_TREE_MAGIC, got) != 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: not a scankd tree file (bad magic)", t->path);
    if (got < KD_TREE_MAGIC_BYTES)
        return kd_error_set(err, KD_ERR_PARSE, "%s: truncated: %zu bytes, within the 8-byte magic", t->path, got);
    KD_TRY(read_some(t, t->header + 8, 8, &got, err));
    if (got < 8)
        return kd_error_set(err, KD_ERR_PARSE, "%s: truncated: %zu bytes, no version and header size", t->path,
                            8 + got);
    t->version = kd_tree_get_u32(t->header + KD_TREE_OFF_VERSION);
    if (t->version != 1 && t->version != 2)
        return kd_error_set(err, KD_ERR_PARSE, "%s: tree file version %u; this build reads versions 1 and 2",
                            t->path, t->version);
    const uint32_t want = t->version == 1 ? KD_TREE_V1_HEADER_BYTES : KD_TREE_V2_HEADER_BYTES;
    t->header_bytes = kd_tree_get_u32(t->header + KD_TREE_OFF_HEADER_SIZE);
    if (t->header_bytes != want)
        return kd_error_set(err, KD_ERR_PARSE, "%s: header field header_size is %u; version %u's header has %u",
                            t->path, t->header_bytes, t->version, want);
    KD_TRY(read_some(t, t->header + 16, want - 16, &got, err));
    if (got < want - 16)
        return kd_error_set(err, KD_ERR_PARSE, "%s: truncated: %zu bytes, the version-%u header needs %u",
                            t->path, 16 + got, t->version, want);
    if (t->version >= 2 && kd_tree_get_u64(t->header + KD_TREE_OFF_HEADER_SUM) !=
                               kd_tree_fnv1a64(t->header, KD_TREE_OFF_HEADER_SUM))
        return kd_error_set(err, KD_ERR_PARSE, "%s: header checksum mismatch: the header is corrupted", t->path);
    return KD_OK;
}

/* Header fields whose range the format fixes (the bounds and the depth cap
 * are the structure check's). */
static kd_status check_fields(const tree_file *t, kd_error *err)
{
    const unsigned char *h = t->header;
    const uint32_t nodes = kd_tree_get_u32(h + KD_TREE_OFF_NODES);
    if (nodes == 0 || nodes > KD_TREE_MAX_NODES)
        return kd_error_set(err, KD_ERR_PARSE, "%s: header field num_nodes %u is out of range 1..%u", t->path,
                            nodes, KD_TREE_MAX_NODES);
    const uint32_t depth = kd_tree_get_u32(h + KD_TREE_OFF_DEPTH);
    if (depth > KD_TREE_DEPTH_LIMIT)
        return kd_error_set(err, KD_ERR_PARSE, "%s: header field max_depth %u is over the limit %u", t->path,
                            depth, KD_TREE_DEPTH_LIMIT);
    const int reserved_at = t->version == 1 ? KD_TREE_OFF_FINGERPRINT : KD_TREE_OFF_RESERVED;
    if (kd_tree_get_u64(h + reserved_at) != 0)
        return kd_error_set(err, KD_ERR_PARSE, "%s: reserved header bytes are not zero", t->path);
    if (t->version >= 2 && kd_tree_get_u32(h + KD_TREE_OFF_BUILDER) >= KD_TREE_NUM_BUILDERS)
        return kd_error_set(err, KD_ERR_PARSE, "%s: header field builder %u is out of range 0..%d", t->path,
                            kd_tree_get_u32(h + KD_TREE_OFF_BUILDER), KD_TREE_NUM_BUILDERS - 1);
    return KD_OK;
}

/* The bytes the header's counts say the file has. */
static uint64_t expected_bytes(const tree_file *t)
{
    return kd_tree_file_bytes(t->header_bytes, kd_tree_get_u32(t->header + KD_TREE_OFF_NODES),
                              kd_tree_get_u32(t->header + KD_TREE_OFF_INDICES));
}

static kd_status wrong_length(const tree_file *t, uint64_t size, kd_error *err)
{
    const uint64_t expected = expected_bytes(t);
    /* Version 1 has no header checksum: its counts may be the damaged part. */
    const char *v1 = t->version == 1 ? " (or its version-1 header, which has no checksum, is damaged)" : "";
    if (size > expected)
        return kd_error_set(err, KD_ERR_PARSE, "%s: %llu bytes of trailing data after the tree%s", t->path,
                            (unsigned long long)(size - expected), v1);
    return kd_error_set(err, KD_ERR_PARSE,
                        "%s: truncated: %llu bytes, but its %u nodes and %u leaf indices need %llu%s", t->path,
                        (unsigned long long)size, kd_tree_get_u32(t->header + KD_TREE_OFF_NODES),
                        kd_tree_get_u32(t->header + KD_TREE_OFF_INDICES), (unsigned long long)expected, v1);
}

/* The whole file into a new buffer: the header read already, then the body.
 * The buffer grows with what arrives (a pipe's size is unknown beforehand),
 * so that a header's counts cannot make it reserve more than the file holds. */
static kd_status read_file(tree_file *t, unsigned char **out, kd_error *err)
{
    const uint64_t expected = expected_bytes(t);
    if (t->regular && t->size != expected)
        return wrong_length(t, t->size, err);
    if (expected > SIZE_MAX)
        return kd_error_set(err, KD_ERR_NOMEM, "%s: %llu bytes do not fit in memory", t->path,
                            (unsigned long long)expected);
    size_t cap = t->regular || expected < (1u << 20) ? (size_t)expected : (size_t)1 << 20;
    size_t have = t->header_bytes;
    unsigned char *buf = malloc(cap);
    kd_status st = buf ? KD_OK : kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %zu bytes", t->path, cap);
    if (buf)
        memcpy(buf, t->header, have);
    while (st == KD_OK && have < expected) {
        if (have == cap) {
            cap = cap > expected / 2 ? (size_t)expected : 2 * cap;
            unsigned char *grown = realloc(buf, cap);
            if (!grown) {
                st = kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %zu bytes", t->path, cap);
                break;
            }
            buf = grown;
        }
        size_t got;
        st = read_some(t, buf + have, cap - have, &got, err);
        if (got == 0)
            break;
        have += got;
    }
    unsigned char extra;
    if (st == KD_OK && have < expected)
        st = wrong_length(t, have, err);
    else if (st == KD_OK && !t->regular && fread(&extra, 1, 1, t->f) == 1)
        st = kd_error_set(err, KD_ERR_PARSE, "%s: trailing data after the tree", t->path);
    if (st != KD_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return KD_OK;
}

/* The tree from a checked file's bytes. */
static kd_status decode_tree(const tree_file *t, const unsigned char *buf, kd_tree *tree, kd_error *err)
{
    const unsigned char *h = buf;
    const uint32_t num_nodes = kd_tree_get_u32(h + KD_TREE_OFF_NODES);
    const uint32_t num_indices = kd_tree_get_u32(h + KD_TREE_OFF_INDICES);
    tree->num_nodes = num_nodes;
    tree->num_leaf_indices = num_indices;
    tree->num_triangles = kd_tree_get_u32(h + KD_TREE_OFF_TRIANGLES);
    tree->max_depth = kd_tree_get_u32(h + KD_TREE_OFF_DEPTH);
    for (int a = 0; a < 3; a++) {
        tree->bounds.lo[a] = kd_tree_get_f32(h + KD_TREE_OFF_BOUNDS + 4 * a);
        tree->bounds.hi[a] = kd_tree_get_f32(h + KD_TREE_OFF_BOUNDS + 12 + 4 * a);
    }
    tree->nodes = malloc(num_nodes * sizeof *tree->nodes);
    tree->leaf_indices = malloc((num_indices ? num_indices : 1) * sizeof *tree->leaf_indices);
    if (!tree->nodes || !tree->leaf_indices) {
        kd_tree_free(tree);
        return kd_error_set(err, KD_ERR_NOMEM, "%s: out of memory for %u nodes", t->path, num_nodes);
    }
    const unsigned char *p = buf + t->header_bytes;
    for (uint32_t i = 0; i < num_nodes; i++, p += 8) {
        tree->nodes[i].leaf_offset = kd_tree_get_u32(p);
        tree->nodes[i].flags = kd_tree_get_u32(p + 4);
    }
    for (uint32_t i = 0; i < num_indices; i++, p += 4)
        tree->leaf_indices[i] = kd_tree_get_u32(p);
    return KD_OK;
}

static void decode_origin(const tree_file *t, kd_tree_origin *origin)
{
    memset(origin, 0, sizeof *origin);
    origin->version = t->version;
    if (t->version < 2)
        return;
    origin->has_fingerprint = true;
    origin->mesh_fingerprint = kd_tree_get_u64(t->header + KD_TREE_OFF_FINGERPRINT);
    origin->num_vertices = kd_tree_get_u32(t->header + KD_TREE_OFF_VERTICES);
    origin->builder = (kd_tree_builder)kd_tree_get_u32(t->header + KD_TREE_OFF_BUILDER);
    origin->rules_hash = kd_tree_get_u64(t->header + KD_TREE_OFF_RULES);
}

/* Header, body and checksum, then the tree's bytes decoded. */
static kd_status load(tree_file *t, kd_tree *tree, kd_tree_origin *origin, kd_error *err)
{
    KD_TRY(read_header(t, err));
    KD_TRY(check_fields(t, err));
    unsigned char *buf = NULL;
    KD_TRY(read_file(t, &buf, err));
    const size_t size = (size_t)expected_bytes(t);
    kd_status st = KD_OK;
    if (kd_tree_get_u64(buf + size - KD_TREE_CHECKSUM_BYTES) != kd_tree_fnv1a64(buf, size - KD_TREE_CHECKSUM_BYTES))
        st = kd_error_set(err, KD_ERR_PARSE, "%s: checksum mismatch: the file is corrupted", t->path);
    if (st == KD_OK)
        st = decode_tree(t, buf, tree, err);
    free(buf);
    if (st == KD_OK && origin)
        decode_origin(t, origin);
    return st;
}

kd_status kd_tree_load(kd_tree *tree, kd_tree_origin *origin, const char *path, kd_error *err)
{
    memset(tree, 0, sizeof *tree);
    if (origin)
        memset(origin, 0, sizeof *origin);
    tree_file t;
    kd_status st = open_file(&t, path, err);
    if (st == KD_OK)
        st = load(&t, tree, origin, err);
    if (t.f)
        fclose(t.f);
    if (st)
        return st;
    kd_error why;
    if (kd_tree_check_structure(tree, &why)) {
        kd_tree_free(tree);
        return kd_error_set(err, KD_ERR_PARSE, "%s: inconsistent tree: %s", path, why.message);
    }
    return KD_OK;
}

kd_status kd_tree_check_file(const char *path, kd_error *err)
{
    tree_file t;
    kd_status st = open_file(&t, path, err);
    if (st == KD_OK)
        st = read_header(&t, err);
    if (st == KD_OK)
        st = check_fields(&t, err);
    if (st == KD_OK && t.regular && t.size != expected_bytes(&t))
        st = wrong_length(&t, t.size, err);
    if (t.f)
        fclose(t.f);
    return st;
}
