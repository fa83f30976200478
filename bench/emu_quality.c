/* Tree quality of the GPU builder on a machine without a GPU (a program, not
 * a test): for each scene, the GPU builder's tree by its host emulation
 * (byte-identical to the device's) next to the CPU exact-SAH tree: SAH cost,
 * their ratio, nodes, references per triangle, and the build times (the
 * emulation's time says nothing of the device's).
 *
 *   emu_quality [--no-cpu] [--verify] [--threads N] [--max-refs R] [--bins B]
 *               [--small-threshold N] SCENE...
 *
 * --verify also checks the GPU tree's invariants (exact triangle-box
 * overlap, scankd verify's first half) and prints the violations.
 *
 * One line per scene: name, triangles, CPU SAH, GPU SAH, GPU/CPU, CPU nodes,
 * GPU nodes, CPU refs/tri, GPU refs/tri, each tree's expected traversal steps
 * and triangle tests per ray (the SAH's two terms), CPU ms, emulation ms, and
 * the peak device memory the builder would hold (MiB). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "gpu_build.h"
#include "mesh_load.h"
#include "cpu_render.h"
#include "tree_stats.h"
#include "verify.h"

typedef struct quality_row {
    kd_tree_stats stats;
    double ms;
    uint64_t peak_bytes; /* the GPU builder's peak device memory */
    long long violations; /* of the GPU tree's invariants (--verify), -1: not checked */
    int ok;
} quality_row;

/* The row of a build that took t0 until now: its tree's statistics, or why not. */
static void finish_row(kd_status st, double t0, kd_tree *tree, const kd_error *err, const char *who,
                       quality_row *row)
{
    row->ms = kd_build_now_ms() - t0;
    row->ok = st == KD_OK;
    if (!row->ok) {
        fprintf(stderr, "emu_quality: %s build: %s\n", who, err->message);
        return;
    }
    kd_tree_compute_stats(tree, NULL, &row->stats);
    kd_tree_free(tree);
}

static void build_cpu(const kd_mesh *mesh, int threads, quality_row *row)
{
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = threads;
    kd_tree tree;
    kd_error err;
    double t0 = kd_build_now_ms();
    kd_status st = kd_build_cpu(mesh, &params, &tree, NULL, &err);
    finish_row(st, t0, &tree, &err, "CPU", row);
}

/* The invariant violations of tree over mesh, or -1 where the check failed. */
static long long violations(const kd_mesh *mesh, const kd_tree *tree, int threads)
{
    float *tri_verts = NULL;
    kd_invariant_report rep;
    kd_error err;
    kd_status st = kd_trace_gather_vertices(mesh, &tri_verts, &err);
    if (st == KD_OK)
        st = kd_verify_invariants(tree, tri_verts, mesh->num_triangles, threads, &rep, &err);
    free(tri_verts);
    if (st != KD_OK) {
        fprintf(stderr, "emu_quality: verify: %s\n", err.message);
        return -1;
    }
    return (long long)kd_invariant_report_total(&rep);
}

static void build_emulated(const kd_mesh *mesh, const kd_gpu_build_options *opts, int verify, int threads,
                           quality_row *row)
{
    kd_tree tree;
    kd_error err;
    double t0 = kd_build_now_ms();
    kd_gpu_build_profile profile;
    kd_status st = kd_build_gpu_emulated(mesh, opts, &tree, &profile, &err);
    row->violations = st == KD_OK && verify ? violations(mesh, &tree, threads) : 0;
    finish_row(st, t0, &tree, &err, "emulated GPU", row);
    row->peak_bytes = st == KD_OK ? profile.peak_device_bytes : 0;
}

/* The file's name without folders and extensions. */
static void scene_name(const char *path, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    snprintf(out, size, "%s", base ? base + 1 : path);
    char *dot = strchr(out, '.');
    if (dot)
        *dot = '\0';
}

static int run_scene(const char *path, int cpu, int verify, int threads, const kd_gpu_build_options *opts)
{
    kd_mesh mesh;
    kd_error err;
    if (kd_mesh_load_file(path, &mesh, NULL, &err) != KD_OK) {
        fprintf(stderr, "emu_quality: %s\n", err.message);
        return 1;
    }
    quality_row c = {0}, g = {0};
    if (cpu)
        build_cpu(&mesh, threads, &c);
    build_emulated(&mesh, opts, verify, threads, &g);
    char name[256];
    scene_name(path, name, sizeof name);
    printf("%-22s %9u", name, mesh.num_triangles);
    if (c.ok)
        printf(" %9.2f", c.stats.sah_cost);
    else
        printf(" %9s", "-");
    if (g.ok)
        printf(" %9.2f", g.stats.sah_cost);
    else
        printf(" %9s", "-");
    if (c.ok && g.ok)
        printf(" %7.3f", g.stats.sah_cost / c.stats.sah_cost);
    else
        printf(" %7s", "-");
    printf(" %10u %10u %6.2f %6.2f %6.2f %6.2f %6.2f %6.2f %9.0f %9.0f %8.1f\n", c.stats.num_nodes,
           g.stats.num_nodes, c.stats.refs_per_triangle, g.stats.refs_per_triangle,
           c.stats.expected_traversal_steps, g.stats.expected_traversal_steps,
           c.stats.expected_triangle_tests, g.stats.expected_triangle_tests, c.ms, g.ms,
           (double)g.peak_bytes / (1024.0 * 1024.0));
    if (verify && g.ok)
        printf("%-22s GPU tree: %lld invariant violations\n", name, g.violations);
    fflush(stdout);
    kd_mesh_free(&mesh);
    return c.ok == cpu && g.ok && g.violations == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int cpu = 1, verify = 0, threads = 0, first = 1;
    kd_gpu_build_options opts;
    kd_gpu_build_options_default(&opts);
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        const char *opt = argv[first], *val = first + 1 < argc ? argv[first + 1] : NULL;
        if (strcmp(opt, "--no-cpu") == 0)
            cpu = 0;
        else if (strcmp(opt, "--verify") == 0)
            verify = 1;
        else if (val && strcmp(opt, "--threads") == 0)
            threads = atoi(val);
        else if (val && strcmp(opt, "--max-refs") == 0)
            opts.max_refs_per_triangle = (float)atof(val);
        else if (val && strcmp(opt, "--bins") == 0)
            opts.sah_bins = atoi(val);
        else if (val && strcmp(opt, "--small-threshold") == 0)
            opts.small_node_threshold = atoi(val);
        else
            break;
        first += strcmp(opt, "--no-cpu") != 0 && strcmp(opt, "--verify") != 0;
    }
    if (first >= argc || strncmp(argv[first], "--", 2) == 0) {
        fprintf(stderr, "usage: emu_quality [--no-cpu] [--verify] [--threads N] [--max-refs R] [--bins B] "
                        "[--small-threshold N] SCENE...\n");
        return 2;
    }
    printf("%-22s %9s %9s %9s %7s %10s %10s %6s %6s %6s %6s %6s %6s %9s %9s %8s\n", "scene", "triangles",
           "CPU SAH", "GPU SAH", "GPU/CPU", "CPU nodes", "GPU nodes", "CPUr/t", "GPUr/t", "CPUstp",
           "GPUstp", "CPUtst", "GPUtst", "CPU ms", "emu ms", "peak MiB");
    int failed = 0;
    for (int i = first; i < argc; i++)
        failed |= run_scene(argv[i], cpu, verify, threads, &opts);
    return failed;
}
