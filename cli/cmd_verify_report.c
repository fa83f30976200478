/* scankd verify: its report, as text and as JSON. */
#include <stdio.h>

#include "cmd_verify.h"

/* ---- Text ------------------------------------------------------------------ */

static void print_invariants(FILE *f, const verify_result *r)
{
    const kd_invariant_report *inv = &r->inv;
    fprintf(f,
            "invariants  %s  %u nodes (%u leaves, deepest at %u, cap %u), %llu leaf entries, %u "
            "triangles; %llu listed (triangle, leaf) pairs checked, %llu unlisted pairs whose "
            "bounds touch a leaf tested exactly; %.2f s\n",
            r->invariants_pass ? "PASS" : "FAIL", inv->num_nodes, inv->num_leaves,
            inv->max_leaf_depth, inv->depth_cap, (unsigned long long)inv->num_references,
            inv->num_triangles, (unsigned long long)inv->num_pairs_listed,
            (unsigned long long)inv->num_pairs_tested, inv->seconds);
    fprintf(f, "            violations: %llu", (unsigned long long)kd_invariant_report_total(inv));
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        fprintf(f, "%s%s %llu", k == 0 ? " (" : ", ", kd_violation_kind_name((kd_violation_kind)k),
                (unsigned long long)inv->count[k]);
    fprintf(f, ")\n");
    if (inv->count[KD_VIOLATION_MISSING])
        fprintf(f, "            of the missing pairs, %llu only touch the leaf box's boundary\n",
                (unsigned long long)inv->missing_touch_only);
    fprintf(f, "            not errors: %llu listed triangles do not overlap their leaf, %llu listed twice\n",
            (unsigned long long)inv->extra_references, (unsigned long long)inv->duplicate_references);
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        for (int e = 0; e < inv->num_examples[k]; e++) {
            char text[512];
            kd_verify_describe(&inv->examples[k][e], text, sizeof text);
            fprintf(f, "            - %s\n", text);
        }
}

static void describe_hit(uint32_t tri, float t, char *text, size_t bytes)
{
    if (tri == KD_TRACE_NO_HIT)
        snprintf(text, bytes, "nothing");
    else
        snprintf(text, bytes, "triangle %u at t=%.9g", tri, (double)t);
}

/* "- pixel (x, y): tree hits ..., brute force hits ..." */
static void print_mismatch(FILE *f, const ray_set *set, const kd_camera *cam, const kd_ray_mismatch *m)
{
    char where[64], tree_hit[64], ref_hit[64];
    if (m->ray < set->num_camera) {
        size_t p = kd_verify_ray_pixel(set, m->ray);
        snprintf(where, sizeof where, "pixel (%zu, %zu)", p % (size_t)cam->width, p / (size_t)cam->width);
    } else {
        snprintf(where, sizeof where, "interior ray %zu", (size_t)m->ray - set->num_camera);
    }
    describe_hit(m->tree_tri, m->tree_t, tree_hit, sizeof tree_hit);
    describe_hit(m->ref_tri, m->ref_t, ref_hit, sizeof ref_hit);
    fprintf(f, "            - %s: tree hits %s, brute force hits %s\n", where, tree_hit, ref_hit);
}

static void print_rays(FILE *f, const verify_args *a, const ray_set *set, const kd_camera *cam,
                       const verify_result *r)
{
    if (!r->rays_run) {
        fprintf(f, "rays        FAIL  not traced: %s\n", r->rays_skipped);
        return;
    }
    const kd_ray_report *rr = &r->rays;
    fprintf(f, "rays        %s  %zu camera rays (%s %dx%d)", r->rays_pass ? "PASS" : "FAIL", set->num_camera,
            set->every_pixel ? "every pixel of" : "random pixels of", cam->width, cam->height);
    if (set->num_interior)
        fprintf(f, " + %zu interior rays", set->num_interior);
    if (!set->every_pixel || set->num_interior)
        fprintf(f, " (seed %llu)", (unsigned long long)a->seed);
    fprintf(f, ": %llu hit; %llu same triangle, %llu coincident (another triangle at the same "
               "distance within %g relative), %llu mismatches; %.3g brute-force triangle tests "
               "in %.2f s\n",
            (unsigned long long)rr->num_ref_hits, (unsigned long long)rr->num_same,
            (unsigned long long)rr->num_coincident, (double)rr->tolerance,
            (unsigned long long)rr->num_mismatches, (double)rr->num_triangle_tests, rr->seconds);
    for (int e = 0; e < rr->num_examples; e++)
        print_mismatch(f, set, cam, &rr->examples[e]);
    if (r->nothing_hit)
        fprintf(f, "            nothing verified: none of the %zu rays hit the scene (out of view, or "
                   "coordinates too large for single-precision ray tests)\n",
                set->num_camera + set->num_interior);
}

/* The camera rays' diffuse bounces; their mismatches are named by the pixel
 * they bounced from. */
static void print_bounces(FILE *f, const ray_set *set, const kd_camera *cam, const verify_result *r)
{
    if (!r->rays_run)
        return;
    const kd_ray_report *b = &r->bounces;
    fprintf(f, "bounces     %s  %llu diffuse bounce rays, one from each camera ray's hit: %llu hit; %llu same "
               "triangle, %llu coincident, %llu mismatches; %.2f s\n",
            r->bounces_pass ? "PASS" : "FAIL", (unsigned long long)b->num_rays, (unsigned long long)b->num_ref_hits,
            (unsigned long long)b->num_same, (unsigned long long)b->num_coincident,
            (unsigned long long)b->num_mismatches, b->seconds);
    for (int e = 0; e < b->num_examples; e++)
        print_mismatch(f, set, cam, &b->examples[e]);
}

void kd_verify_print_report(FILE *f, const verify_args *a, const ray_set *set, const kd_camera *cam,
                            const verify_result *r)
{
    print_invariants(f, r);
    print_rays(f, a, set, cam, r);
    print_bounces(f, set, cam, r);
    kd_verify_print_gpu_hits(f, cam, &r->gpu);
    if (r->compared)
        fprintf(f,
                "compare     %s  against %s: mean |difference| %.3f per channel (0..255) %s "
                "threshold %g; largest %d; %.3f%% of pixels differ by more than %d\n",
                r->compare_pass ? "PASS" : "FAIL", a->compare, r->mean_abs_diff,
                r->compare_pass ? "<=" : ">", a->threshold, r->max_diff, 100.0 * r->fraction_over,
                KD_COMPARE_PIXEL_K);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_invariants(kd_json *json, const verify_result *r)
{
    const kd_invariant_report *inv = &r->inv;
    kd_json_key(json, "invariants");
    kd_json_begin_object(json);
    kd_json_kv_bool(json, "pass", r->invariants_pass);
    kd_json_kv_int(json, "nodes", inv->num_nodes);
    kd_json_kv_int(json, "leaves", inv->num_leaves);
    kd_json_kv_int(json, "leaf_entries", (int64_t)inv->num_references);
    kd_json_kv_int(json, "depth_cap", inv->depth_cap);
    kd_json_kv_int(json, "max_leaf_depth", inv->max_leaf_depth);
    kd_json_kv_int(json, "pairs_listed_checked", (int64_t)inv->num_pairs_listed);
    kd_json_kv_int(json, "pairs_tested_exactly", (int64_t)inv->num_pairs_tested);
    kd_json_key(json, "violations");
    kd_json_begin_object(json);
    static const char *const keys[KD_VIOLATION_NUM_KINDS] = {"structure", "triangle_index", "split",
                                                             "depth", "root_box", "missing"};
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        kd_json_kv_int(json, keys[k], (int64_t)inv->count[k]);
    kd_json_kv_int(json, "missing_touching_only", (int64_t)inv->missing_touch_only);
    kd_json_end_object(json);
    kd_json_key(json, "examples");
    kd_json_begin_array(json);
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        for (int e = 0; e < inv->num_examples[k]; e++) {
            char text[512];
            kd_verify_describe(&inv->examples[k][e], text, sizeof text);
            kd_json_string(json, text);
        }
    kd_json_end_array(json);
    kd_json_kv_int(json, "extra_references", (int64_t)inv->extra_references);
    kd_json_kv_int(json, "duplicate_references", (int64_t)inv->duplicate_references);
    kd_json_kv_number(json, "seconds", inv->seconds);
    kd_json_end_object(json);
}

/* A ray check's counts, the same keys for camera and bounce rays. */
static void json_ray_counts(kd_json *json, const kd_ray_report *rep)
{
    kd_json_kv_int(json, "hits", (int64_t)rep->num_ref_hits);
    kd_json_kv_int(json, "same", (int64_t)rep->num_same);
    kd_json_kv_int(json, "coincident", (int64_t)rep->num_coincident);
    kd_json_kv_int(json, "mismatches", (int64_t)rep->num_mismatches);
}

static void json_rays(kd_json *json, const verify_args *a, const ray_set *set, const verify_result *r)
{
    kd_json_key(json, "rays");
    kd_json_begin_object(json);
    kd_json_kv_bool(json, "pass", r->rays_pass);
    kd_json_kv_bool(json, "traced", r->rays_run);
    kd_json_kv_bool(json, "nothing_verified", r->rays_run && r->nothing_hit);
    if (!r->rays_run)
        kd_json_kv_string(json, "not_traced_because", r->rays_skipped);
    kd_json_kv_string(json, "camera_rays_mode", set->every_pixel ? "every_pixel" : "random_pixels");
    kd_json_kv_int(json, "camera_rays", (int64_t)set->num_camera);
    kd_json_kv_int(json, "interior_rays", (int64_t)set->num_interior);
    kd_json_kv_int(json, "seed", (int64_t)a->seed);
    kd_json_kv_number(json, "tolerance", r->rays.tolerance);
    json_ray_counts(json, &r->rays);
    kd_json_kv_int(json, "brute_force_triangle_tests", (int64_t)r->rays.num_triangle_tests);
    kd_json_kv_number(json, "seconds", r->rays.seconds);
    kd_json_end_object(json);
    if (!r->rays_run)
        return;
    kd_json_key(json, "bounce_rays");
    kd_json_begin_object(json);
    kd_json_kv_bool(json, "pass", r->bounces_pass);
    kd_json_kv_int(json, "rays", (int64_t)r->bounces.num_rays);
    json_ray_counts(json, &r->bounces);
    kd_json_kv_number(json, "seconds", r->bounces.seconds);
    kd_json_end_object(json);
}

static void json_compare(kd_json *json, const verify_args *a, const verify_result *r)
{
    if (!r->compared)
        return;
    kd_json_key(json, "compare");
    kd_json_begin_object(json);
    kd_json_kv_bool(json, "pass", r->compare_pass);
    kd_json_kv_string(json, "reference", a->compare);
    kd_json_kv_string(json, "metric", "mean absolute difference per channel, 0..255");
    kd_json_kv_number(json, "threshold", a->threshold);
    kd_json_kv_number(json, "mean_abs_diff", r->mean_abs_diff);
    kd_json_kv_int(json, "max_diff", r->max_diff);
    kd_json_kv_number(json, "fraction_pixels_over_8", r->fraction_over);
    kd_json_end_object(json);
}

void kd_verify_write_json(FILE *file, const verify_args *a, const kd_scene *scene, const kd_camera *cam,
                          const ray_set *set, const verify_result *r, bool pass)
{
    kd_json json;
    kd_json_init(&json, file);
    kd_json_begin_object(&json);
    kd_cli_json_scene(&json, a->scene, a->tree, scene);
    kd_cli_json_camera(&json, cam);
    if (a->view)
        kd_json_kv_string(&json, "view", a->view);
    json_invariants(&json, r);
    json_rays(&json, a, set, r);
    json_compare(&json, a, r);
    kd_json_kv_string(&json, "device", a->device == KD_CLI_DEVICE_GPU ? "gpu" : "cpu");
    kd_verify_json_gpu_hits(&json, &r->gpu);
    if (a->output)
        kd_json_kv_string(&json, "image", a->output);
    kd_json_kv_bool(&json, "pass", pass);
    kd_json_end_object(&json);
}
