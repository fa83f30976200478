/* scankd verify: proves a tree right. (a) exhaustive invariants, (b) ray
 * agreement with brute force, optionally (c) an image regression check; with
 * --device gpu the tree is GPU-built and (d) GPU-cast hits must equal
 * CPU-cast hits pixel for pixel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"
#include "cpu_render.h"
#include "gpu_render.h"
#include "image.h"
#include "kd_parallel.h"
#include "render_images.h"
#include "verify.h"

static const char k_cmd[] = "verify";

enum {
    KD_VERIFY_DEFAULT_SIZE = 256,
    KD_VERIFY_SAMPLE_ABOVE = 100000, /* triangles: beyond this, sample camera rays */
    KD_VERIFY_DEFAULT_SAMPLE = 10000,
    KD_VERIFY_DEFAULT_INTERIOR = 4096,
    KD_COMPARE_PIXEL_K = 8           /* a pixel "differs" past this in some channel */
};
#define KD_VERIFY_DEFAULT_THRESHOLD 0.5

typedef struct verify_args {
    const char *scene, *tree, *output, *json, *compare;
    kd_camera_request camera;
    long rays;            /* sampled camera rays; 0: the default for the scene */
    bool all_pixels;
    long interior_rays;
    uint64_t seed;
    float tolerance;
    double threshold;
    int threads;
    bool quiet;
    kd_cli_device device; /* as asked for; resolved to cpu or gpu in kd_cmd_verify */
} verify_args;

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: scankd verify SCENE.obj [options]\n"
            "\n"
            "Proves a kd-tree right (built with the CPU exact-SAH builder, or on the GPU with\n"
            "--device gpu, or given by --tree):\n"
            " (a) invariants, exhaustively: child indices in range and after their parent,\n"
            "     every node reached once from the root, leaf ranges inside the index array,\n"
            "     triangle indices in range, splits inside their node's box (so children\n"
            "     partition it), leaf depth within the tree's cap, the root box containing every\n"
            "     triangle, and every triangle that truly overlaps a leaf's closed box (exact\n"
            "     triangle-box test) listed in that leaf;\n"
            " (b) ray agreement: for every pixel of the verification image (on scenes over %d\n"
            "     triangles a random sample of %d pixels) plus %d rays from random points inside\n"
            "     the scene in random directions, the tree's closest hit must equal the\n"
            "     brute-force closest hit over all triangles: the same triangle, or a different\n"
            "     one at the same distance within a relative tolerance (coincident triangles).\n"
            " GPU hits (--device gpu): the verification camera is ray-cast on the GPU and on\n"
            "     the CPU through the same tree, and every pixel must hit the same triangle.\n"
            "The checks run on the CPU; only the build and the GPU side of the hit check use\n"
            "the GPU. Any violation or mismatch makes the run fail.\n"
            "\n"
            "options:\n"
            "  --device KIND          gpu, cpu or auto (default auto: the GPU when a CUDA device\n"
            "                         exists, else the CPU with a notice on stderr); where the\n"
            "                         tree is built; gpu also checks GPU hits; gpu without\n"
            "                         a device fails\n"
            "  --tree FILE            verify this saved tree instead of building one\n"
            "  --rays N               check a random sample of N camera rays (pixels)\n"
            "  --all-pixels           check every pixel, whatever the scene size\n"
            "  --interior-rays N      rays from inside the scene (default %d; 0 for none)\n"
            "  --seed S               seed of the random samples (default 1)\n"
            "  --tolerance R          relative distance tolerance for coincident triangles\n"
            "                         (default %g)\n"
            "  -o, --output FILE      write the verification image: the shaded render with\n"
            "                         every mismatched pixel in red\n"
            "  --compare REF.png      also compare the shaded render (same camera; --size\n"
            "                         defaults to REF's size) with REF\n"
            "  --compare-threshold T  fail when the mean absolute difference per channel, in\n"
            "                         0..255 units over all pixels, exceeds T (default %g)\n",
            KD_VERIFY_SAMPLE_ABOVE, KD_VERIFY_DEFAULT_SAMPLE, KD_VERIFY_DEFAULT_INTERIOR,
            KD_VERIFY_DEFAULT_INTERIOR, (double)KD_VERIFY_DEFAULT_TOLERANCE,
            KD_VERIFY_DEFAULT_THRESHOLD);
    kd_camera_print_options(f, 25);
    fprintf(f,
            "                         (default size %dx%d)\n"
            "  --threads N            worker threads (default: all %d cores)\n"
            "  --json FILE|-          also write the results as JSON ('-': stdout, text left out)\n"
            "  --quiet                no progress line and no text report\n"
            "  -h, --help             show this help\n"
            "\n"
            "Exit status: 0 everything checked passed, 1 a violation, a mismatch, an image\n"
            "difference over the threshold, a GPU/CPU hit difference or an error (--device gpu\n"
            "without a CUDA device included), 2 usage error.\n",
            KD_VERIFY_DEFAULT_SIZE, KD_VERIFY_DEFAULT_SIZE, kd_parallel_num_cores());
}

/* Parses the value of a numeric option; returns 0, or the usage exit code. */
static int numeric_option(const char *opt, const char *value, verify_args *a, bool *have_threshold)
{
    long n;
    float x;
    if (strcmp(opt, "--rays") == 0) {
        if (!kd_parse_int(value, 1, 100000000, &n))
            return kd_cli_usage_error(k_cmd, "--rays '%s': expected a whole number in 1..10^8", value);
        a->rays = n;
    } else if (strcmp(opt, "--interior-rays") == 0) {
        if (!kd_parse_int(value, 0, 100000000, &n))
            return kd_cli_usage_error(k_cmd, "--interior-rays '%s': expected a whole number in 0..10^8", value);
        a->interior_rays = n;
    } else if (strcmp(opt, "--seed") == 0) {
        if (!kd_parse_int(value, 0, 2147483647L, &n))
            return kd_cli_usage_error(k_cmd, "--seed '%s': expected a whole number in 0..2^31-1", value);
        a->seed = (uint64_t)n;
    } else if (strcmp(opt, "--tolerance") == 0) {
        if (!kd_parse_float(value, &x) || !(x >= 0.0f && x < 1.0f))
            return kd_cli_usage_error(k_cmd, "--tolerance '%s': expected a number in [0, 1)", value);
        a->tolerance = x;
    } else if (strcmp(opt, "--compare-threshold") == 0) {
        if (!kd_parse_float(value, &x) || !(x >= 0.0f && x <= 255.0f))
            return kd_cli_usage_error(k_cmd, "--compare-threshold '%s': expected a number in [0, 255]", value);
        a->threshold = x;
        *have_threshold = true;
    } else { /* --threads */
        if (!kd_parse_int(value, 1, 256, &n))
            return kd_cli_usage_error(k_cmd, "--threads '%s': expected a whole number in 1..256", value);
        a->threads = (int)n;
    }
    return 0;
}

static int parse_args(int argc, char **argv, verify_args *a)
{
    static const char *const numeric[] = {"--rays", "--interior-rays", "--seed", "--tolerance",
                                          "--compare-threshold", "--threads"};
    memset(a, 0, sizeof *a);
    a->interior_rays = KD_VERIFY_DEFAULT_INTERIOR;
    a->seed = 1;
    a->tolerance = KD_VERIFY_DEFAULT_TOLERANCE;
    a->threshold = KD_VERIFY_DEFAULT_THRESHOLD;
    bool have_threshold = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        kd_error err;
        int camera = kd_camera_parse_option(argc, argv, &i, &a->camera, &err);
        if (camera < 0)
            return kd_cli_usage_error(k_cmd, "%s", err.message);
        if (camera > 0)
            continue;
        const char **text = NULL;
        bool is_numeric = false;
        for (size_t k = 0; k < sizeof numeric / sizeof numeric[0]; k++)
            is_numeric = is_numeric || strcmp(arg, numeric[k]) == 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return -1;
        } else if (strcmp(arg, "--tree") == 0) {
            text = &a->tree;
        } else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            text = &a->output;
        } else if (strcmp(arg, "--json") == 0) {
            text = &a->json;
        } else if (strcmp(arg, "--compare") == 0) {
            text = &a->compare;
        } else if (strcmp(arg, "--device") == 0) {
            const char *name = kd_cli_option_value(k_cmd, argc, argv, &i);
            if (!name)
                return KD_EXIT_USAGE;
            int device = kd_cli_device_parse(name);
            if (device < 0)
                return kd_cli_usage_error(k_cmd, "--device '%s': expected gpu, cpu or auto", name);
            a->device = (kd_cli_device)device;
        } else if (strcmp(arg, "--all-pixels") == 0) {
            a->all_pixels = true;
        } else if (strcmp(arg, "--quiet") == 0) {
            a->quiet = true;
        } else if (is_numeric) {
            const char *value = kd_cli_option_value(k_cmd, argc, argv, &i);
            if (!value)
                return KD_EXIT_USAGE;
            int bad = numeric_option(arg, value, a, &have_threshold);
            if (bad)
                return bad;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return kd_cli_usage_error(k_cmd, "unknown option '%s'", arg);
        } else if (a->scene) {
            return kd_cli_usage_error(k_cmd, "more than one scene given ('%s' and '%s')", a->scene, arg);
        } else {
            a->scene = arg;
        }
        if (text && !(*text = kd_cli_option_value(k_cmd, argc, argv, &i)))
            return KD_EXIT_USAGE;
    }
    if (!a->scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd verify SCENE.obj [options])");
    if (have_threshold && !a->compare)
        return kd_cli_usage_error(k_cmd, "--compare-threshold needs --compare REF.png");
    if (a->rays && a->all_pixels)
        return kd_cli_usage_error(k_cmd, "--rays and --all-pixels exclude each other");
    return KD_EXIT_OK;
}

/* ---- Rays ----------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float uniform(uint64_t *state) { return (float)(splitmix(state) >> 40) / 16777216.0f; }

typedef struct ray_set {
    kd_ray *rays;
    uint32_t *pixel;          /* pixel of each camera ray */
    size_t num_camera, num_interior;
    bool every_pixel;
} ray_set;

/* Camera rays through every pixel or a sample of distinct pixels (partial
 * Fisher-Yates shuffle), then interior rays: origins uniform in the scene
 * box, directions uniform on the sphere. */
static kd_status make_rays(const kd_camera *cam, kd_aabb bounds, size_t sample, size_t interior,
                           uint64_t seed, ray_set *set, kd_error *err)
{
    memset(set, 0, sizeof *set);
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    set->every_pixel = sample == 0 || sample >= pixels;
    set->num_camera = set->every_pixel ? pixels : sample;
    set->num_interior = interior;
    set->rays = malloc((set->num_camera + interior + 1) * sizeof *set->rays);
    set->pixel = malloc((set->every_pixel ? 1 : pixels) * sizeof *set->pixel);
    if (!set->rays || !set->pixel) {
        free(set->rays);
        free(set->pixel);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for %zu rays", set->num_camera + interior);
    }
    uint64_t state = seed;
    if (!set->every_pixel) {
        for (size_t i = 0; i < pixels; i++)
            set->pixel[i] = (uint32_t)i;
        for (size_t i = 0; i < sample; i++) {
            size_t j = i + (size_t)(splitmix(&state) % (pixels - i));
            uint32_t tmp = set->pixel[i];
            set->pixel[i] = set->pixel[j];
            set->pixel[j] = tmp;
        }
    }
    for (size_t i = 0; i < set->num_camera; i++) {
        size_t p = set->every_pixel ? i : set->pixel[i];
        set->rays[i] = kd_camera_ray(cam, (int)(p % (size_t)cam->width), (int)(p / (size_t)cam->width));
    }
    for (size_t i = 0; i < interior; i++) {
        kd_ray *r = &set->rays[set->num_camera + i];
        for (int a = 0; a < 3; a++)
            r->org[a] = bounds.lo[a] + (bounds.hi[a] - bounds.lo[a]) * uniform(&state);
        float z = 2.0f * uniform(&state) - 1.0f, phi = 6.28318530718f * uniform(&state);
        float s = sqrtf(fmaxf(0.0f, 1.0f - z * z));
        r->dir[0] = s * cosf(phi);
        r->dir[1] = s * sinf(phi);
        r->dir[2] = z;
        r->t_max = INFINITY;
    }
    return KD_OK;
}

static size_t ray_pixel(const ray_set *set, size_t ray)
{
    return set->every_pixel ? ray : set->pixel[ray];
}

/* ---- Report ---------------------------------------------------------------- */

typedef struct verify_result {
    kd_invariant_report inv;
    bool rays_run;
    char rays_skipped[KD_ERROR_MESSAGE_BYTES];
    kd_ray_report rays;
    bool compared;
    double mean_abs_diff, fraction_over;
    int max_diff;
    bool gpu_compared;        /* (d) ran: GPU hits against CPU hits */
    size_t gpu_pixels, gpu_differ;
    size_t gpu_first_differ;  /* pixel index of the first difference */
    uint32_t gpu_first_tri, cpu_first_tri;
    bool invariants_pass, rays_pass, compare_pass, gpu_pass;
} verify_result;

static void describe_hit(uint32_t tri, char *text, size_t bytes)
{
    if (tri == KD_TRACE_NO_HIT)
        snprintf(text, bytes, "nothing");
    else
        snprintf(text, bytes, "triangle %u", tri);
}

static void print_report(FILE *f, const verify_args *a, const ray_set *set, const kd_camera *cam,
                         const verify_result *r)
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
    if (!r->rays_run) {
        fprintf(f, "rays        FAIL  not traced: %s\n", r->rays_skipped);
    } else {
        const kd_ray_report *rr = &r->rays;
        fprintf(f, "rays        %s  %zu camera rays (%s %dx%d)", r->rays_pass ? "PASS" : "FAIL",
                set->num_camera, set->every_pixel ? "every pixel of" : "random pixels of", cam->width,
                cam->height);
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
        for (int e = 0; e < rr->num_examples; e++) {
            const kd_ray_mismatch *m = &rr->examples[e];
            char where[64];
            if (m->ray < set->num_camera) {
                size_t p = ray_pixel(set, m->ray);
                snprintf(where, sizeof where, "pixel (%zu, %zu)", p % (size_t)cam->width,
                         p / (size_t)cam->width);
            } else {
                snprintf(where, sizeof where, "interior ray %zu", (size_t)m->ray - set->num_camera);
            }
            char tree_hit[64], ref_hit[64];
            if (m->tree_tri == KD_TRACE_NO_HIT)
                snprintf(tree_hit, sizeof tree_hit, "nothing");
            else
                snprintf(tree_hit, sizeof tree_hit, "triangle %u at t=%.9g", m->tree_tri, (double)m->tree_t);
            if (m->ref_tri == KD_TRACE_NO_HIT)
                snprintf(ref_hit, sizeof ref_hit, "nothing");
            else
                snprintf(ref_hit, sizeof ref_hit, "triangle %u at t=%.9g", m->ref_tri, (double)m->ref_t);
            fprintf(f, "            - %s: tree hits %s, brute force hits %s\n", where, tree_hit, ref_hit);
        }
    }
    if (r->gpu_compared) {
        fprintf(f, "gpu hits    %s  %zu pixels (%dx%d) cast on the GPU and on the CPU through the same "
                   "tree: %zu hit a different triangle\n",
                r->gpu_pass ? "PASS" : "FAIL", r->gpu_pixels, cam->width, cam->height, r->gpu_differ);
        if (r->gpu_differ) {
            char gpu_hit[32], cpu_hit[32];
            describe_hit(r->gpu_first_tri, gpu_hit, sizeof gpu_hit);
            describe_hit(r->cpu_first_tri, cpu_hit, sizeof cpu_hit);
            fprintf(f, "            - first at pixel (%zu, %zu): GPU hits %s, CPU hits %s\n",
                    r->gpu_first_differ % (size_t)cam->width, r->gpu_first_differ / (size_t)cam->width,
                    gpu_hit, cpu_hit);
        }
    }
    if (r->compared)
        fprintf(f,
                "compare     %s  against %s: mean |difference| %.3f per channel (0..255) %s "
                "threshold %g; largest %d; %.3f%% of pixels differ by more than %d\n",
                r->compare_pass ? "PASS" : "FAIL", a->compare, r->mean_abs_diff,
                r->compare_pass ? "<=" : ">", a->threshold, r->max_diff, 100.0 * r->fraction_over,
                KD_COMPARE_PIXEL_K);
}

static void write_json(FILE *file, const verify_args *a, const kd_scene *scene, const kd_camera *cam,
                       const ray_set *set, const verify_result *r, bool pass)
{
    kd_json json;
    kd_json_init(&json, file);
    kd_json_begin_object(&json);
    kd_cli_json_scene(&json, a->scene, a->tree, scene);
    kd_cli_json_camera(&json, cam);
    const kd_invariant_report *inv = &r->inv;
    kd_json_key(&json, "invariants");
    kd_json_begin_object(&json);
    kd_json_kv_bool(&json, "pass", r->invariants_pass);
    kd_json_kv_int(&json, "nodes", inv->num_nodes);
    kd_json_kv_int(&json, "leaves", inv->num_leaves);
    kd_json_kv_int(&json, "leaf_entries", (int64_t)inv->num_references);
    kd_json_kv_int(&json, "depth_cap", inv->depth_cap);
    kd_json_kv_int(&json, "max_leaf_depth", inv->max_leaf_depth);
    kd_json_kv_int(&json, "pairs_listed_checked", (int64_t)inv->num_pairs_listed);
    kd_json_kv_int(&json, "pairs_tested_exactly", (int64_t)inv->num_pairs_tested);
    kd_json_key(&json, "violations");
    kd_json_begin_object(&json);
    static const char *const keys[KD_VIOLATION_NUM_KINDS] = {"structure", "triangle_index", "split",
                                                             "depth", "root_box", "missing"};
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        kd_json_kv_int(&json, keys[k], (int64_t)inv->count[k]);
    kd_json_kv_int(&json, "missing_touching_only", (int64_t)inv->missing_touch_only);
    kd_json_end_object(&json);
    kd_json_key(&json, "examples");
    kd_json_begin_array(&json);
    for (int k = 0; k < KD_VIOLATION_NUM_KINDS; k++)
        for (int e = 0; e < inv->num_examples[k]; e++) {
            char text[512];
            kd_verify_describe(&inv->examples[k][e], text, sizeof text);
            kd_json_string(&json, text);
        }
    kd_json_end_array(&json);
    kd_json_kv_int(&json, "extra_references", (int64_t)inv->extra_references);
    kd_json_kv_int(&json, "duplicate_references", (int64_t)inv->duplicate_references);
    kd_json_kv_number(&json, "seconds", inv->seconds);
    kd_json_end_object(&json);

    kd_json_key(&json, "rays");
    kd_json_begin_object(&json);
    kd_json_kv_bool(&json, "pass", r->rays_pass);
    kd_json_kv_bool(&json, "traced", r->rays_run);
    if (!r->rays_run)
        kd_json_kv_string(&json, "not_traced_because", r->rays_skipped);
    kd_json_kv_string(&json, "camera_rays_mode", set->every_pixel ? "every_pixel" : "random_pixels");
    kd_json_kv_int(&json, "camera_rays", (int64_t)set->num_camera);
    kd_json_kv_int(&json, "interior_rays", (int64_t)set->num_interior);
    kd_json_kv_int(&json, "seed", (int64_t)a->seed);
    kd_json_kv_number(&json, "tolerance", r->rays.tolerance);
    kd_json_kv_int(&json, "hits", (int64_t)r->rays.num_ref_hits);
    kd_json_kv_int(&json, "same", (int64_t)r->rays.num_same);
    kd_json_kv_int(&json, "coincident", (int64_t)r->rays.num_coincident);
    kd_json_kv_int(&json, "mismatches", (int64_t)r->rays.num_mismatches);
    kd_json_kv_int(&json, "brute_force_triangle_tests", (int64_t)r->rays.num_triangle_tests);
    kd_json_kv_number(&json, "seconds", r->rays.seconds);
    kd_json_end_object(&json);
    if (r->compared) {
        kd_json_key(&json, "compare");
        kd_json_begin_object(&json);
        kd_json_kv_bool(&json, "pass", r->compare_pass);
        kd_json_kv_string(&json, "reference", a->compare);
        kd_json_kv_string(&json, "metric", "mean absolute difference per channel, 0..255");
        kd_json_kv_number(&json, "threshold", a->threshold);
        kd_json_kv_number(&json, "mean_abs_diff", r->mean_abs_diff);
        kd_json_kv_int(&json, "max_diff", r->max_diff);
        kd_json_kv_number(&json, "fraction_pixels_over_8", r->fraction_over);
        kd_json_end_object(&json);
    }
    kd_json_kv_string(&json, "device", a->device == KD_CLI_DEVICE_GPU ? "gpu" : "cpu");
    if (r->gpu_compared) {
        kd_json_key(&json, "gpu_hits");
        kd_json_begin_object(&json);
        kd_json_kv_bool(&json, "pass", r->gpu_pass);
        kd_json_kv_int(&json, "pixels", (int64_t)r->gpu_pixels);
        kd_json_kv_int(&json, "differing_pixels", (int64_t)r->gpu_differ);
        kd_json_end_object(&json);
    }
    if (a->output)
        kd_json_kv_string(&json, "image", a->output);
    kd_json_kv_bool(&json, "pass", pass);
    kd_json_end_object(&json);
}

/* ---- The command ------------------------------------------------------------ */

/* Shaded render of the tree at the camera, with mismatched pixels in red. */
static kd_status verification_image(const kd_trace_scene *trace, const kd_camera *cam,
                                    const ray_set *set, const uint8_t *mismatch, int threads,
                                    kd_image *shaded, kd_image *marked, kd_error *err)
{
    kd_render_buffers buf;
    kd_status st = kd_render_buffers_alloc(&buf, cam->width, cam->height, err);
    if (st)
        return st;
    kd_render_options options = {threads, NULL, NULL};
    kd_render_stats stats;
    st = kd_render_cpu(trace, cam, &options, &buf, &stats, err);
    if (!st)
        st = kd_render_make_image(&buf, KD_RENDER_SHADED, shaded, err);
    if (!st)
        st = kd_render_make_image(&buf, KD_RENDER_SHADED, marked, err);
    kd_render_buffers_free(&buf);
    if (st)
        return st;
    size_t pixels = (size_t)cam->width * (size_t)cam->height;
    uint8_t *mask = calloc(pixels, 1);
    if (!mask)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for the mismatch mask");
    for (size_t i = 0; mismatch && i < set->num_camera; i++)
        if (mismatch[i])
            mask[ray_pixel(set, i)] = 1;
    kd_image_overlay_mask(marked, mask);
    free(mask);
    return KD_OK;
}

/* (d): the verification camera cast on the GPU and on the CPU through the
 * same tree; counts pixels whose hit triangle differs. */
static kd_status compare_gpu_hits(const kd_scene *scene, const kd_trace_scene *trace,
                                  const kd_camera *cam, int threads, verify_result *r, kd_error *err)
{
    kd_render_buffers gpu_buf, cpu_buf;
    kd_status st = kd_render_buffers_alloc(&gpu_buf, cam->width, cam->height, err);
    if (st)
        return st;
    st = kd_render_buffers_alloc(&cpu_buf, cam->width, cam->height, err);
    if (st) {
        kd_render_buffers_free(&gpu_buf);
        return st;
    }
    kd_gpu_scene *gpu_scene = NULL;
    st = kd_gpu_scene_upload(&gpu_scene, &scene->tree, scene->tri_verts, scene->mesh.num_triangles, err);
    if (!st) {
        kd_gpu_render_stats gpu_stats;
        st = kd_gpu_render(gpu_scene, cam, 1, &gpu_buf, &gpu_stats, err);
        kd_gpu_scene_destroy(gpu_scene);
    }
    if (!st) {
        kd_render_options options = {threads, NULL, NULL};
        kd_render_stats cpu_stats;
        st = kd_render_cpu(trace, cam, &options, &cpu_buf, &cpu_stats, err);
    }
    if (!st) {
        r->gpu_compared = true;
        r->gpu_pixels = (size_t)cam->width * (size_t)cam->height;
        for (size_t p = 0; p < r->gpu_pixels; p++) {
            if (gpu_buf.tri[p] == cpu_buf.tri[p])
                continue;
            if (r->gpu_differ++ == 0) {
                r->gpu_first_differ = p;
                r->gpu_first_tri = gpu_buf.tri[p];
                r->cpu_first_tri = cpu_buf.tri[p];
            }
        }
        r->gpu_pass = r->gpu_differ == 0;
    }
    kd_render_buffers_free(&gpu_buf);
    kd_render_buffers_free(&cpu_buf);
    return st;
}

int kd_cmd_verify(int argc, char **argv)
{
    verify_args a;
    int code = parse_args(argc, argv, &a);
    if (code < 0)
        return KD_EXIT_OK; /* --help */
    if (code != KD_EXIT_OK)
        return code;
    bool json_on_stdout = a.json && strcmp(a.json, "-") == 0;
    FILE *report = a.quiet || json_on_stdout ? NULL : stdout;
    code = kd_cli_device_resolve(k_cmd, a.device, a.quiet, "building the tree on the CPU", &a.device);
    if (code >= 0)
        return code;
    bool gpu = a.device == KD_CLI_DEVICE_GPU;
    kd_error err;

    kd_image reference = {0};
    if (a.compare) {
        if (kd_image_read_png(&reference, a.compare, &err)) {
            kd_cli_error(k_cmd, "%s", err.message);
            return KD_EXIT_FAILURE;
        }
        if (a.camera.width == 0) {
            a.camera.width = reference.width;
            a.camera.height = reference.height;
        }
    }
    kd_scene scene;
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = a.threads;
    if (kd_scene_prepare_on(&scene, a.scene, a.tree, &params,
                            gpu ? KD_SCENE_BUILD_GPU : KD_SCENE_BUILD_CPU, &err)) {
        kd_cli_error(k_cmd, "%s", err.message);
        kd_image_free(&reference);
        return KD_EXIT_FAILURE;
    }
    kd_camera cam;
    if (kd_camera_setup(&cam, &a.camera, scene.mesh_bounds, KD_VERIFY_DEFAULT_SIZE,
                        KD_VERIFY_DEFAULT_SIZE, &err)) {
        kd_scene_free(&scene);
        kd_image_free(&reference);
        return kd_cli_usage_error(k_cmd, "camera: %s", err.message);
    }
    if (report) {
        kd_cli_print_scene(report, a.scene, a.tree, &scene);
        kd_cli_print_camera(report, &cam);
        fflush(report);
    }

    verify_result r;
    memset(&r, 0, sizeof r);
    ray_set set;
    memset(&set, 0, sizeof set);
    uint8_t *mismatch = NULL;
    kd_image shaded = {0}, marked = {0};
    code = KD_EXIT_FAILURE;
    uint32_t n = scene.mesh.num_triangles;
    if (kd_verify_invariants(&scene.tree, scene.tri_verts, n, a.threads, &r.inv, &err))
        goto fail;
    r.invariants_pass = kd_invariant_report_total(&r.inv) == 0;

    size_t sample = a.all_pixels ? 0 : (size_t)a.rays;
    if (!a.all_pixels && !a.rays && n > KD_VERIFY_SAMPLE_ABOVE)
        sample = KD_VERIFY_DEFAULT_SAMPLE;
    if (make_rays(&cam, scene.mesh_bounds, sample, (size_t)a.interior_rays, a.seed, &set, &err))
        goto fail;
    size_t num_rays = set.num_camera + set.num_interior;
    kd_trace_scene trace;
    kd_error why;
    if (!r.inv.structure_ok) {
        snprintf(r.rays_skipped, sizeof r.rays_skipped, "the tree's structure is broken (see above)");
    } else if (kd_trace_scene_init(&trace, &scene.tree, scene.tri_verts, n, &why)) {
        snprintf(r.rays_skipped, sizeof r.rays_skipped, "%s", why.message);
    } else {
        mismatch = calloc(num_rays + 1, 1);
        if (!mismatch) {
            kd_error_set(&err, KD_ERR_NOMEM, "out of memory for %zu rays", num_rays);
            goto fail;
        }
        kd_cli_progress progress;
        kd_cli_progress_start(&progress, k_cmd, "checking rays", a.quiet);
        kd_status st = kd_verify_rays(&trace, set.rays, num_rays, a.tolerance, a.threads,
                                      kd_cli_progress_update, &progress, mismatch, NULL, &r.rays, &err);
        kd_cli_progress_end(&progress);
        if (st)
            goto fail;
        r.rays_run = true;
        r.rays_pass = r.rays.num_mismatches == 0;
        if (gpu && compare_gpu_hits(&scene, &trace, &cam, a.threads, &r, &err))
            goto fail;
        if (a.output || a.compare) {
            if (verification_image(&trace, &cam, &set, mismatch, a.threads, &shaded, &marked, &err))
                goto fail;
        }
    }
    r.rays.tolerance = a.tolerance;
    r.compare_pass = true;
    if (a.compare) {
        if (!r.rays_run) {
            r.compare_pass = false; /* nothing was rendered to compare */
        } else {
            if (kd_image_compare(&shaded, &reference, KD_COMPARE_PIXEL_K, &r.mean_abs_diff,
                                 &r.max_diff, &r.fraction_over, &err))
                goto fail;
            r.compared = true;
            r.compare_pass = r.mean_abs_diff <= a.threshold;
        }
    }
    /* On the GPU, (d) must have run and found no difference. */
    bool pass = r.invariants_pass && r.rays_pass && r.compare_pass && (!gpu || r.gpu_pass);
    if (report) {
        print_report(report, &a, &set, &cam, &r);
        if (a.compare && !r.compared)
            fprintf(report, "compare     FAIL  nothing rendered to compare\n");
    }
    if (a.output && !r.rays_run && report)
        fprintf(report, "wrote       nothing: no image without traced rays\n");
    if (a.output && r.rays_run) {
        if (kd_image_write_png(&marked, a.output, &err))
            goto fail;
        size_t marked_pixels = 0;
        for (size_t i = 0; i < set.num_camera; i++)
            marked_pixels += mismatch[i] != 0;
        if (report)
            fprintf(report, "wrote       %s (%zu mismatched pixels in red)\n", a.output, marked_pixels);
    }
    if (a.json) {
        kd_outfile out;
        if (kd_outfile_open(&out, a.json, &err))
            goto fail;
        write_json(out.file, &a, &scene, &cam, &set, &r, pass);
        if (kd_outfile_commit(&out, &err))
            goto fail;
    }
    if (report)
        fprintf(report, "verify      %s\n", pass ? "PASS" : "FAIL");
    code = pass ? KD_EXIT_OK : KD_EXIT_FAILURE;
    goto done;
fail:
    kd_cli_error(k_cmd, "%s", err.message);
done:
    free(mismatch);
    free(set.rays);
    free(set.pixel);
    kd_image_free(&shaded);
    kd_image_free(&marked);
    kd_image_free(&reference);
    kd_scene_free(&scene);
    return code;
}
