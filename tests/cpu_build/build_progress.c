/* The CPU builder's progress (kd_build_cpu_progress): told on the calling
 * thread only, non-decreasing, out of KD_BUILD_PROGRESS_TOTAL, reaching
 * (nearly: every thousandth is told) the whole mesh on one thread; the tree
 * is kd_build_cpu's, node for node, whatever the threads. */
#include <pthread.h>
#include <string.h>

#include "build_support.h"
#include "cpu_build.h"
#include "test_support.h"

typedef struct calls {
    int n;
    size_t last_done;
    bool ordered, one_thread;
    pthread_t caller;
} calls;

static void record(void *ctx, size_t done, size_t total)
{
    calls *c = ctx;
    c->ordered = c->ordered && done >= c->last_done && done <= total && total == KD_BUILD_PROGRESS_TOTAL;
    c->one_thread = c->one_thread && pthread_equal(pthread_self(), c->caller);
    c->last_done = done;
    c->n++;
}

static bool same_tree(const kd_tree *a, const kd_tree *b)
{
    return a->num_nodes == b->num_nodes && a->num_leaf_indices == b->num_leaf_indices &&
           memcmp(a->nodes, b->nodes, a->num_nodes * sizeof *a->nodes) == 0 &&
           memcmp(a->leaf_indices, b->leaf_indices, a->num_leaf_indices * sizeof *a->leaf_indices) == 0;
}

int main(void)
{
    kd_mesh mesh;
    bt_random_mesh(&mesh, 11, BT_SCENE_MIXED, 20000);
    kd_build_params p;
    kd_build_params_default(&p);
    kd_error err;
    kd_tree plain;
    CHECK(kd_build_cpu(&mesh, &p, &plain, NULL, &err) == KD_OK);
    for (int threads = 1; threads <= 4; threads += 3) {
        p.num_threads = threads;
        calls c = {0, 0, true, true, pthread_self()};
        kd_tree tree;
        CHECK(kd_build_cpu_progress(&mesh, &p, record, &c, &tree, NULL, &err) == KD_OK);
        CHECK_MSG(c.n > 10 && c.ordered && c.one_thread, "%d threads: %d calls, ordered %d, on the caller %d",
                  threads, c.n, c.ordered, c.one_thread);
        if (threads == 1)
            CHECK_MSG(c.last_done >= KD_BUILD_PROGRESS_TOTAL / 100 * 99, "ended at %zu of %zu", c.last_done,
                      KD_BUILD_PROGRESS_TOTAL);
        CHECK_MSG(same_tree(&tree, &plain), "%d threads: another tree with progress", threads);
        kd_tree_free(&tree);
    }
    kd_tree_free(&plain);
    kd_mesh_free(&mesh);
    return kd_test_finish("build_progress");
}
