/* Tree files: save/load round trip (byte-identical resave), and every way a
 * file can be bad is rejected with a message naming the problem. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_support.h"
#include "cpu_build.h"
#include "test_support.h"
#include "tree_file_util.h"
#include "tree_io.h"

enum { HEADER = 96, HEADER_SUM = 88 };

/* Re-seals a modified file (its header's checksum, then the whole file's)
 * so that only the structure is wrong. */
static void fix_checksum(unsigned char *data, size_t size)
{
    tf_put_u64(data + HEADER_SUM, tf_fnv1a64(data, HEADER_SUM));
    tf_put_u64(data + size - 8, tf_fnv1a64(data, size - 8));
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes data to a scratch file and expects loading to fail with a message
 * containing `needle`. */
static void expect_reject(const char *what, const unsigned char *data, size_t size,
                          const char *needle)
{
    char path[1024];
    kd_test_tmp_path("tree_io_bad.kd", path, sizeof path);
    tf_write_file(path, data, size);
    kd_tree tree;
    kd_error err;
    kd_error_clear(&err);
    kd_status st = kd_tree_load(&tree, NULL, path, &err);
    CHECK_MSG(st == KD_ERR_PARSE, "%s: loaded (status %d)", what, (int)st);
    CHECK_MSG(strstr(err.message, needle) != NULL, "%s: message '%s' lacks '%s'", what,
              err.message, needle);
    CHECK_MSG(tree.nodes == NULL && tree.leaf_indices == NULL, "%s: tree not left empty", what);
    if (st == KD_OK)
        kd_tree_free(&tree);
    remove(path);
}

static bool trees_equal(const kd_tree *a, const kd_tree *b)
{
    return a->num_nodes == b->num_nodes && a->num_leaf_indices == b->num_leaf_indices &&
           a->num_triangles == b->num_triangles && a->max_depth == b->max_depth &&
           memcmp(&a->bounds, &b->bounds, sizeof a->bounds) == 0 &&
           memcmp(a->nodes, b->nodes, a->num_nodes * sizeof *a->nodes) == 0 &&
           memcmp(a->leaf_indices, b->leaf_indices, a->num_leaf_indices * 4) == 0;
}

int main(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 4242, BT_SCENE_MIXED, 500);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_tree tree;
    kd_error err;
    CHECK(kd_build_cpu(&mesh, &p, &tree, NULL, &err) == KD_OK);

    /* Round trip, and a resave that is byte-identical. */
    char path[1024], path2[1024];
    kd_test_tmp_path("tree_io_a.kd", path, sizeof path);
    kd_test_tmp_path("tree_io_b.kd", path2, sizeof path2);
    kd_tree_origin origin, read_back;
    kd_tree_origin_init(&origin, &mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(&p));
    CHECK_MSG(kd_tree_save(&tree, &origin, path, &err) == KD_OK, "save: %s", err.message);
    kd_tree loaded;
    CHECK_MSG(kd_tree_load(&loaded, &read_back, path, &err) == KD_OK, "load: %s", err.message);
    CHECK(trees_equal(&tree, &loaded));
    CHECK(read_back.has_fingerprint && read_back.version == 2 && read_back.builder == KD_TREE_BUILDER_CPU);
    CHECK(read_back.mesh_fingerprint == origin.mesh_fingerprint && read_back.rules_hash == origin.rules_hash);
    CHECK(read_back.num_vertices == mesh.num_vertices);
    CHECK(kd_tree_save(&loaded, &read_back, path2, &err) == KD_OK);
    size_t size = 0, size2 = 0;
    unsigned char *good = tf_read_file(path, &size), *again = tf_read_file(path2, &size2);
    CHECK(good && again && size == size2 && memcmp(good, again, size) == 0);
    CHECK(size == HEADER + 8ull * tree.num_nodes + 4ull * tree.num_leaf_indices + 8);
    CHECK(memcmp(good, "SCANKDT\0", 8) == 0);
    kd_tree_free(&loaded);
    free(again);

    /* Every rejection, each with its own message. */
    unsigned char *bad = malloc(size + 16);
    memcpy(bad, good, size);
    bad[0] = 'X';
    expect_reject("bad magic", bad, size, "magic");
    expect_reject("empty file", bad, 0, "magic");

    memcpy(bad, good, size);
    put_u32(bad + 8, 3);
    expect_reject("version 3", bad, size, "version 3");

    expect_reject("truncated in the header", good, 40, "truncated");
    expect_reject("truncated in the nodes", good, HEADER + 12, "truncated");
    expect_reject("checksum missing", good, size - 8, "truncated");
    expect_reject("one byte short", good, size - 1, "truncated");

    memcpy(bad, good, size);
    memset(bad + size, 0xab, 16);
    expect_reject("trailing bytes", bad, size + 16, "trailing");

    memcpy(bad, good, size);
    bad[HEADER + 3] ^= 0x10; /* a node's bits */
    expect_reject("payload bit flip", bad, size, "checksum");
    memcpy(bad, good, size);
    bad[size - 1] ^= 1;
    expect_reject("checksum bit flip", bad, size, "checksum");

    /* Structure errors behind a valid checksum. */
    uint32_t root_flags = tree.nodes[0].flags;
    CHECK(!kd_node_is_leaf(tree.nodes[0]));
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 4, (root_flags & 3u) | ((tree.num_nodes + 5u) << 2));
    fix_checksum(bad, size);
    expect_reject("child index out of range", bad, size, "inconsistent");
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 4, (root_flags & 3u) | (1u << 2)); /* above child = below child */
    fix_checksum(bad, size);
    expect_reject("above child not after the below subtree", bad, size, "inconsistent");
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 4, (root_flags & 3u) | ((kd_node_above_child(tree.nodes[0]) + 1u) << 2));
    fix_checksum(bad, size);
    expect_reject("above child shifted by one", bad, size, "preorder");

    /* A leaf pointing past the index array; a triangle index out of range. */
    uint32_t leaf = 0;
    while (!kd_node_is_leaf(tree.nodes[leaf]) || kd_node_num_prims(tree.nodes[leaf]) == 0)
        leaf++;
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 8 * leaf, tree.num_leaf_indices);
    fix_checksum(bad, size);
    expect_reject("leaf range out of bounds", bad, size, "leaf indices");
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 8ull * tree.num_nodes, mesh.num_triangles);
    fix_checksum(bad, size);
    expect_reject("triangle index out of range", bad, size, "triangle");
    memcpy(bad, good, size);
    put_u32(bad + 28, 0); /* depth cap 0 for a deeper tree */
    fix_checksum(bad, size);
    expect_reject("deeper than its cap", bad, size, "cap");
    memcpy(bad, good, size);
    put_u32(bad + 28, KD_TREE_DEPTH_LIMIT + 1);
    fix_checksum(bad, size);
    expect_reject("cap over the limit", bad, size, "limit");
    memcpy(bad, good, size);
    put_u32(bad + HEADER + 8 * 0, 0x7f800000u); /* split = +inf */
    fix_checksum(bad, size);
    expect_reject("non-finite split", bad, size, "outside its box");

    /* A missing file is an i/o error. */
    kd_tree none;
    CHECK(kd_tree_load(&none, NULL, "/nonexistent/dir/x.kd", &err) == KD_ERR_IO);

    /* Saving where the folder cannot be made (a file stands where a folder
     * should) fails and leaves nothing behind; missing folders are made. */
    char deep[1200];
    snprintf(deep, sizeof deep, "%s/t.kd", path);
    CHECK(kd_tree_save(&tree, &origin, deep, &err) != KD_OK);
    CHECK(access(deep, F_OK) != 0);
    snprintf(deep, sizeof deep, "%s/tree_io_made/a/b/t.kd", KD_TEST_TMP_DIR);
    CHECK_MSG(kd_tree_save(&tree, &origin, deep, &err) == KD_OK, "%s", err.message);
    CHECK(access(deep, F_OK) == 0);
    remove(deep);

    /* A structurally broken tree in memory is never written. */
    kd_tree broken = tree;
    kd_node saved = broken.nodes[0];
    broken.nodes[0] = kd_make_interior(0, saved.split, 0);
    CHECK(kd_tree_save(&broken, &origin, path2, &err) == KD_ERR_INVALID);
    broken.nodes[0] = saved;

    remove(path);
    remove(path2);
    free(bad);
    free(good);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    return kd_test_finish("tree_io_roundtrip");
}
