/* The verifier passes correct trees and fails corrupted ones: a triangle
 * removed from a leaf, a split moved inside and outside its node, an index
 * out of range, a child index out of range, a depth cap exceeded, a root box
 * too small, and a triangle removed from every leaf (caught by rays too). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_render.h"
#include "render_test_util.h"
#include "test_support.h"
#include "tribox.h"
#include "verify.h"

static kd_tree copy_tree(const kd_tree *t)
{
    kd_tree c = *t;
    c.nodes = malloc(t->num_nodes * sizeof *c.nodes);
    c.leaf_indices = malloc((t->num_leaf_indices + 1) * sizeof *c.leaf_indices);
    memcpy(c.nodes, t->nodes, t->num_nodes * sizeof *c.nodes);
    memcpy(c.leaf_indices, t->leaf_indices, t->num_leaf_indices * sizeof *c.leaf_indices);
    return c;
}

static kd_invariant_report check(const kd_tree *tree, const float *verts, uint32_t n)
{
    kd_invariant_report rep;
    kd_error err;
    CHECK(kd_verify_invariants(tree, verts, n, 2, &rep, &err) == KD_OK);
    return rep;
}

static void print_examples(const char *what, const kd_invariant_report *rep)
{
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        if (rep->num_examples[k] > 0) {
            char text[400];
            kd_verify_describe(&rep->examples[k][0], text, sizeof text);
            printf("    %s: %llu x %s, e.g. %s\n", what, (unsigned long long)rep->count[k],
                   kd_violation_kind_name((kd_violation_kind)k), text);
        }
}

static void corruptions(const char *name, const float *verts, uint32_t n, const kd_tree *good,
                        bool unique_triangles)
{
    kd_invariant_report rep = check(good, verts, n);
    printf("%s: %u nodes, %u leaves, %llu refs, %llu pairs tested exactly, %llu extra refs: %llu violations\n",
           name, rep.num_nodes, rep.num_leaves, (unsigned long long)rep.num_references,
           (unsigned long long)rep.num_pairs_tested, (unsigned long long)rep.extra_references,
           (unsigned long long)kd_invariant_report_total(&rep));
    CHECK_MSG(kd_invariant_report_total(&rep) == 0, "%s: correct tree flagged", name);
    print_examples("unexpected", &rep);
    CHECK(rep.structure_ok);
    CHECK(rep.num_leaves > 1);

    /* 1. A triangle removed from a leaf it overlaps. */
    {
        kd_tree t = copy_tree(good);
        bool done = false;
        for (uint32_t i = 0; i < t.num_nodes && !done; i++) {
            kd_node node = t.nodes[i];
            kd_aabb box;
            if (!kd_node_is_leaf(node) || kd_node_num_prims(node) == 0 ||
                !kd_test_node_box(&t, i, &box))
                continue;
            for (uint32_t j = 0; j < kd_node_num_prims(node) && !done; j++) {
                uint32_t *list = t.leaf_indices + node.leaf_offset;
                const float *v = verts + 9 * (size_t)list[j];
                if (!kd_tribox_overlap(v, v + 3, v + 6, &box))
                    continue;
                uint32_t removed = list[j];
                uint32_t count = kd_node_num_prims(node);
                list[j] = list[count - 1];
                t.nodes[i] = kd_make_leaf(node.leaf_offset, count - 1);
                /* the same triangle may be listed twice; remove every copy */
                for (uint32_t k = 0; k + 1 < count; k++)
                    CHECK(list[k] != removed || k == j);
                done = true;
            }
        }
        CHECK(done);
        kd_invariant_report r = check(&t, verts, n);
        print_examples("triangle removed", &r);
        CHECK(r.count[KD_VIOLATION_MISSING] >= 1);
        CHECK(r.num_examples[KD_VIOLATION_MISSING] >= 1);
        kd_tree_free(&t);
    }
    /* 2a. The root's split moved inside its box: triangles near it go missing. */
    {
        kd_tree t = copy_tree(good);
        CHECK(!kd_node_is_leaf(t.nodes[0]));
        int axis = kd_node_axis(t.nodes[0]);
        float split = t.nodes[0].split;
        t.nodes[0].split = split + 0.25f * (t.bounds.hi[axis] - split);
        kd_invariant_report r = check(&t, verts, n);
        print_examples("split moved inside", &r);
        CHECK(r.count[KD_VIOLATION_MISSING] >= 1);
        /* the root's own split is fine; descendants' may now lie outside their boxes */
        CHECK(r.num_examples[KD_VIOLATION_SPLIT] == 0 || r.examples[KD_VIOLATION_SPLIT][0].node != 0);
        kd_tree_free(&t);
    }
    /* 2b. A split moved outside its node's box. */
    {
        kd_tree t = copy_tree(good);
        int axis = kd_node_axis(t.nodes[0]);
        t.nodes[0].split = t.bounds.hi[axis] + 1.0f;
        kd_invariant_report r = check(&t, verts, n);
        print_examples("split moved outside", &r);
        CHECK(r.count[KD_VIOLATION_SPLIT] >= 1);
        CHECK(r.num_examples[KD_VIOLATION_SPLIT] >= 1 && r.examples[KD_VIOLATION_SPLIT][0].node == 0);
        kd_tree_free(&t);
    }
    /* 3. A triangle index out of range. */
    {
        kd_tree t = copy_tree(good);
        CHECK(t.num_leaf_indices > 0);
        t.leaf_indices[t.num_leaf_indices / 2] = n + 5;
        kd_invariant_report r = check(&t, verts, n);
        print_examples("index out of range", &r);
        CHECK(r.count[KD_VIOLATION_INDEX] == 1);
        CHECK(!r.structure_ok);
        kd_tree_free(&t);
    }
    /* 4. A child index out of range. */
    {
        kd_tree t = copy_tree(good);
        t.nodes[0] = kd_make_interior(kd_node_axis(t.nodes[0]), t.nodes[0].split, t.num_nodes + 3);
        kd_invariant_report r = check(&t, verts, n);
        print_examples("child out of range", &r);
        CHECK(r.count[KD_VIOLATION_STRUCTURE] >= 1);
        CHECK(!r.structure_ok);
        kd_trace_scene scene;
        kd_error err;
        CHECK(kd_trace_scene_init(&scene, &t, verts, n, &err) != KD_OK);
        kd_tree_free(&t);
    }
    /* 5. Leaves deeper than the cap the tree claims. */
    {
        kd_tree t = copy_tree(good);
        t.max_depth = 1;
        kd_invariant_report r = check(&t, verts, n);
        CHECK(r.count[KD_VIOLATION_DEPTH] >= 1);
        kd_tree_free(&t);
    }
    /* 6. A root box that leaves triangles out. */
    {
        kd_tree t = copy_tree(good);
        t.bounds.hi[1] -= 0.1f * (t.bounds.hi[1] - t.bounds.lo[1]);
        kd_invariant_report r = check(&t, verts, n);
        CHECK(r.count[KD_VIOLATION_ROOT] >= 1);
        kd_tree_free(&t);
    }
    /* 7. A triangle removed from every leaf: rays aimed at it disagree
     * (where no coincident copy of it could answer instead). */
    if (unique_triangles) {
        kd_tree t = copy_tree(good);
        uint32_t victim = n / 3;
        for (uint32_t i = 0; i < t.num_nodes; i++) {
            kd_node node = t.nodes[i];
            if (!kd_node_is_leaf(node))
                continue;
            uint32_t *list = t.leaf_indices + node.leaf_offset, count = kd_node_num_prims(node);
            for (uint32_t j = 0; j < count;)
                if (list[j] == victim)
                    list[j] = list[--count];
                else
                    j++;
            t.nodes[i] = kd_make_leaf(node.leaf_offset, count);
        }
        kd_invariant_report r = check(&t, verts, n);
        CHECK(r.count[KD_VIOLATION_MISSING] >= 1);
        const float *v = verts + 9 * (size_t)victim;
        float c[3], e1[3], e2[3], nrm[3];
        for (int a = 0; a < 3; a++) {
            c[a] = (v[a] + v[3 + a] + v[6 + a]) / 3.0f;
            e1[a] = v[3 + a] - v[a];
            e2[a] = v[6 + a] - v[a];
        }
        nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
        float len = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        kd_ray rays[2];
        for (int s = 0; s < 2; s++) {
            float sign = s ? 1.0f : -1.0f;
            for (int a = 0; a < 3; a++) {
                rays[s].org[a] = c[a] + sign * 1e-4f * nrm[a] / len;
                rays[s].dir[a] = -sign * nrm[a] / len;
            }
            rays[s].t_max = INFINITY;
        }
        kd_trace_scene scene;
        kd_error err;
        CHECK(kd_trace_scene_init(&scene, &t, verts, n, &err) == KD_OK);
        kd_ray_report rr;
        uint8_t flags[2] = {0, 0};
        CHECK(kd_verify_rays(&scene, rays, 2, KD_VERIFY_DEFAULT_TOLERANCE, 1, NULL, NULL, flags, NULL,
                             &rr, &err) == KD_OK);
        printf("    triangle %u removed everywhere: %llu missing pairs, %llu of 2 rays mismatch\n",
               victim, (unsigned long long)r.count[KD_VIOLATION_MISSING],
               (unsigned long long)rr.num_mismatches);
        CHECK(rr.num_mismatches == 2 && flags[0] == 1 && flags[1] == 1);
        CHECK(rr.num_examples == 2 && rr.examples[0].ref_tri == victim);
        /* and the intact tree agrees on the same rays */
        CHECK(kd_trace_scene_init(&scene, good, verts, n, &err) == KD_OK);
        CHECK(kd_verify_rays(&scene, rays, 2, KD_VERIFY_DEFAULT_TOLERANCE, 1, NULL, NULL, flags, NULL,
                             &rr, &err) == KD_OK);
        CHECK(rr.num_mismatches == 0 && rr.num_same == 2 && rr.num_ref_hits == 2);
        kd_tree_free(&t);
    }
}

static void run_scene(const char *name, float *verts, uint32_t n, bool unique_triangles)
{
    char label[96];
    kd_tree tree;
    kd_test_build_median(verts, n, 20, 3, &tree);
    snprintf(label, sizeof label, "%s, median tree", name);
    corruptions(label, verts, n, &tree, unique_triangles);
    kd_tree_free(&tree);

    bool built = kd_test_build_sah(verts, n, &tree);
    CHECK(built);
    if (built) {
        snprintf(label, sizeof label, "%s, SAH tree", name);
        corruptions(label, verts, n, &tree, unique_triangles);
    }
    kd_tree_free(&tree);
}

int main(void)
{
    kd_test_rng rng = {777};
    uint32_t n = 3000;
    float *soup = kd_test_random_soup(&rng, n, 0.08f);
    run_scene("random soup", soup, n, true);
    free(soup);
    float *city = kd_test_grid_city(&rng, 5, &n);
    run_scene("grid city", city, n, false);
    free(city);
    return kd_test_finish("verify_corrupt");
}
