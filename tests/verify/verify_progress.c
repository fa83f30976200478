/* The verifier's progress and counts: kd_verify_invariants_progress tells
 * its progress on the calling thread (triangles, then leaves: non-decreasing,
 * within a constant total, all of it on one thread) and reports what
 * kd_verify_invariants does; kd_verify_rays refuses, before any work, more
 * rays than a mismatch can number in 32 bits. */
#include <stdlib.h>
#include <string.h>

#include "render_test_util.h"
#include "test_support.h"
#include "verify.h"

typedef struct calls {
    int n;
    size_t last_done, total;
    bool ordered, same_total;
} calls;

static void record(void *ctx, size_t done, size_t total)
{
    calls *c = ctx;
    if (c->n == 0)
        c->total = total;
    c->ordered = c->ordered && done >= c->last_done && done <= total;
    c->same_total = c->same_total && total == c->total;
    c->last_done = done;
    c->n++;
}

static void test_invariants(void)
{
    kd_test_rng rng = {7};
    uint32_t n = 0;
    float *verts = kd_test_grid_city(&rng, 6, &n);
    kd_tree tree;
    CHECK(kd_test_build_sah(verts, n, &tree));
    kd_error err;
    kd_invariant_report plain, told;
    CHECK(kd_verify_invariants(&tree, verts, n, 2, &plain, &err) == KD_OK);
    for (int threads = 1; threads <= 3; threads += 2) {
        calls c = {0, 0, 0, true, true};
        CHECK(kd_verify_invariants_progress(&tree, verts, n, threads, record, &c, &told, &err) == KD_OK);
        CHECK_MSG(c.n > 0 && c.ordered && c.same_total, "%d calls, ordered %d, same total %d", c.n, c.ordered,
                  c.same_total);
        CHECK_MSG(c.total == (size_t)n + told.num_leaves, "total %zu for %u triangles and %u leaves", c.total, n,
                  told.num_leaves);
        if (threads == 1)
            CHECK_MSG(c.last_done == c.total, "one thread ended at %zu of %zu", c.last_done, c.total);
        CHECK(told.num_leaves == plain.num_leaves && told.num_pairs_listed == plain.num_pairs_listed &&
              told.num_pairs_tested == plain.num_pairs_tested && kd_invariant_report_total(&told) == 0 &&
              told.extra_references == plain.extra_references);
    }
    kd_tree_free(&tree);
    free(verts);
}

static void test_ray_count(void)
{
    kd_ray ray = {{0, 0, 0}, {1, 0, 0}, 1.0f};
    kd_trace_scene scene;
    memset(&scene, 0, sizeof scene);
    kd_ray_report rep;
    kd_error err;
    const size_t too_many = (size_t)1 << 32;
    kd_status st = kd_verify_rays(&scene, &ray, too_many, KD_VERIFY_DEFAULT_TOLERANCE, 1, NULL, NULL, NULL, NULL,
                                  &rep, &err);
    CHECK_MSG(st == KD_ERR_INVALID && strstr(err.message, "4294967296 rays: more than the 2^32 - 1"), "%d: %s",
              (int)st, err.message);
    CHECK(rep.num_rays == 0);
}

int main(void)
{
    test_invariants();
    test_ray_count();
    return kd_test_finish("verify_progress");
}
