/* The tree format's 32-bit counts, at their limits, without trees that
 * large: kd_tree_check_counts on counts alone (2^30 nodes, 2^32 - 1 leaf
 * references), and trees whose counts say more than they hold, which the
 * structure check, the writer and the statistics' caller refuse with a clean
 * error before touching what the counts would size. */
#include <stdio.h>
#include <string.h>

#include "test_support.h"
#include "tree_io.h"

static kd_error g_err;

static void expect_refused(kd_status st, const char *message)
{
    CHECK_MSG(st == KD_ERR_INVALID && strstr(g_err.message, message), "status %d: '%s', want '%s'", (int)st,
              g_err.message, message);
}

static void test_counts(void)
{
    CHECK(kd_tree_check_counts(1, 0, &g_err) == KD_OK);
    CHECK(kd_tree_check_counts(1u << 30, 0xffffffffull, &g_err) == KD_OK);
    expect_refused(kd_tree_check_counts((1u << 30) + 1, 0, &g_err),
                   "1073741825 nodes: more than the tree format's 2^30");
    expect_refused(kd_tree_check_counts(1, 1ull << 32, &g_err),
                   "4294967296 leaf references: more than the tree format's 2^32 - 1");
    expect_refused(kd_tree_check_counts(1ull << 40, 1ull << 40, &g_err), "1099511627776 nodes");
}

/* One leaf over one triangle, its counts then made to say more. */
static void one_leaf(kd_tree *t, kd_node *node, uint32_t *index)
{
    memset(t, 0, sizeof *t);
    *node = kd_make_leaf(0, 1);
    *index = 0;
    t->nodes = node;
    t->num_nodes = 1;
    t->leaf_indices = index;
    t->num_leaf_indices = 1;
    t->num_triangles = 1;
    t->max_depth = 8;
    t->bounds = (kd_aabb){{0, 0, 0}, {1, 1, 1}};
}

static void test_structure(void)
{
    kd_tree t;
    kd_node node;
    uint32_t index;
    one_leaf(&t, &node, &index);
    CHECK(kd_tree_check_structure(&t, &g_err) == KD_OK);
    /* More nodes than child indices can name: refused before any is read. */
    t.num_nodes = (1u << 30) + 1;
    expect_refused(kd_tree_check_structure(&t, &g_err), "nodes: more than the tree format's 2^30");
    kd_tree_origin origin = {.has_fingerprint = true, .builder = KD_TREE_BUILDER_CPU};
    char path[512];
    kd_test_tmp_path("tree_counts.kd", path, sizeof path);
    remove(path);
    expect_refused(kd_tree_save(&t, &origin, path, &g_err), "more than the tree format's 2^30");
    CHECK(fopen(path, "rb") == NULL); /* nothing written */
}

/* Five leaves listing the same 2^30 - 1 references: 5 x (2^30 - 1) in all,
 * past what a ray's 32-bit count of tests can hold; refused before the
 * index array, which holds one entry here, is read. */
static void test_listed(void)
{
    /* A spine: interior nodes 0, 2, 4, 6, each with a leaf below (1, 3, 5,
     * 7) and the rest above; node 8 the last leaf. */
    kd_node nodes[9];
    for (uint32_t i = 0; i < 8; i += 2) {
        nodes[i] = kd_make_interior(0, 0.5f, i + 2);
        nodes[i + 1] = kd_make_leaf(0, KD_NODE_MAX_COUNT);
    }
    nodes[8] = kd_make_leaf(0, KD_NODE_MAX_COUNT);
    uint32_t index = 0;
    kd_tree t = {.nodes = nodes, .num_nodes = 9, .leaf_indices = &index, .num_leaf_indices = KD_NODE_MAX_COUNT,
                 .num_triangles = 1, .max_depth = 8, .bounds = {{0, 0, 0}, {1, 1, 1}}};
    expect_refused(kd_tree_check_structure(&t, &g_err),
                   "the leaves list 5368709115 references in all: more than the tree format's 2^32 - 1");
    /* Four such leaves are within the sum (and refused for their ranges,
     * past the one index there is). */
    t.num_nodes = 7;
    nodes[6] = kd_make_leaf(0, KD_NODE_MAX_COUNT);
    t.num_leaf_indices = 1;
    kd_status st = kd_tree_check_structure(&t, &g_err);
    CHECK_MSG(st == KD_ERR_INVALID && strstr(g_err.message, "beyond the 1 leaf indices"), "four leaves: %s",
              g_err.message);
}

int main(void)
{
    test_counts();
    test_structure();
    test_listed();
    return kd_test_finish("tree_counts");
}
