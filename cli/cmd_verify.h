/* What the parts of scankd verify share: its options, the rays and results
 * of its checks, the GPU-against-CPU hit check (d) that runs with --device
 * gpu, and the report. */
#ifndef KD_CMD_VERIFY_H
#define KD_CMD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "camera.h"
#include "cli_util.h"
#include "cmd_render_common.h"
#include "render_scene.h"
#include "verify.h"

#define KD_VERIFY_DEFAULT_SIZE 256 /* a macro: help texts spell it */
enum {
    KD_VERIFY_SAMPLE_ABOVE = 100000, /* triangles: beyond this, sample camera rays */
    KD_VERIFY_DEFAULT_SAMPLE = 10000,
    KD_VERIFY_DEFAULT_INTERIOR = 4096,
    KD_COMPARE_PIXEL_K = 8           /* a pixel "differs" past this in some channel */
};
#define KD_VERIFY_DEFAULT_THRESHOLD 0.5

typedef struct verify_args {
    const char *label;    /* messages read "scankd <label>:": verify, or demo */
    const char *scene, *tree, *output, *json, *compare;
    bool force_tree;
    kd_camera_request camera;
    int rays;             /* sampled camera rays; 0: the default for the scene */
    bool all_pixels;
    int interior_rays;
    int seed;             /* of the random samples, 0..2^31-1 */
    float tolerance;
    float threshold;
    int threads;
    bool quiet;
    int device;           /* kd_cli_device as asked for; resolved to cpu or gpu */
    uint64_t device_memory_limit; /* the GPU builder's memory cap; 0: none */
    const char *view;     /* --view NAME, or NULL */
} verify_args;

/* The rays checked: camera rays (through every pixel, or through sampled
 * pixels), then interior rays. */
typedef struct ray_set {
    kd_ray *rays;
    uint32_t *pixel;          /* pixel of each camera ray */
    size_t num_camera, num_interior;
    bool every_pixel;
} ray_set;

/* The pixel of a camera ray. */
static inline size_t kd_verify_ray_pixel(const ray_set *set, size_t ray)
{
    return set->every_pixel ? ray : set->pixel[ray];
}

/* Parses the command line (cmd_verify_args.c): -1 to go on, KD_EXIT_OK
 * after --help (usage printed), or KD_EXIT_USAGE (message printed). */
int kd_verify_parse_args(int argc, char **argv, verify_args *a);

/* (d), in cmd_verify_gpu.c: GPU-cast hits against CPU-cast hits. */
typedef struct kd_gpu_hit_check {
    bool compared;            /* (d) ran */
    size_t pixels, differ;    /* differ: pixels whose primary or bounce hit differs */
    size_t bounce_rays;       /* bounce rays cast on the CPU */
    size_t first_differ;      /* pixel index of the first difference */
    bool first_is_bounce;     /* the first difference is in the bounce hit */
    uint32_t gpu_first_tri, cpu_first_tri;
    bool pass;
} kd_gpu_hit_check;

/* The camera's primary rays and their diffuse bounces (seed) cast on the
 * GPU and on the CPU (trace, threads workers) through the scene's tree;
 * counts pixels whose primary or bounce hit triangle differs. */
kd_status kd_verify_gpu_hits(const kd_scene *scene, const kd_trace_scene *trace,
                             const kd_camera *cam, int threads, uint32_t seed, kd_gpu_hit_check *check,
                             kd_error *err);
/* The "gpu hits" lines of the text report, and its JSON member; nothing
 * when the check did not run. */
void kd_verify_print_gpu_hits(FILE *f, const kd_camera *cam, const kd_gpu_hit_check *check);
void kd_verify_json_gpu_hits(kd_json *json, const kd_gpu_hit_check *check);

/* What the checks found. */
typedef struct verify_result {
    kd_invariant_report inv;  /* (a) */
    bool rays_run;            /* (b) traced; else rays_skipped says why not */
    bool nothing_hit;         /* (b) traced, but no ray hit the scene: nothing was verified */
    char rays_skipped[KD_ERROR_MESSAGE_BYTES];
    kd_ray_report rays;
    kd_ray_report bounces;    /* (b) for the camera rays' diffuse bounces */
    bool compared;            /* (c) ran */
    double mean_abs_diff, fraction_over;
    int max_diff;
    kd_gpu_hit_check gpu;     /* (d), with --device gpu */
    bool invariants_pass, rays_pass, bounces_pass, compare_pass;
} verify_result;

/* The text report and the JSON (cmd_verify_report.c). */
void kd_verify_print_report(FILE *f, const verify_args *a, const ray_set *set, const kd_camera *cam,
                            const verify_result *r);
void kd_verify_write_json(FILE *file, const verify_args *a, const kd_scene *scene, const kd_camera *cam,
                          const ray_set *set, const verify_result *r, bool pass);

#endif
