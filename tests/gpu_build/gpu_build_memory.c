/* Where the GPU builder's memory goes: the emulated builder (the same
 * buffers as the device's) over each scene given, its peak in bytes and
 * bytes per triangle, the buffers at that peak, largest first, and a hash
 * of the tree, to compare trees before and after a change in how the
 * builder sizes its buffers. --limit BYTES caps the builder's memory
 * (max_device_bytes; a build over it runs in batches), --batch-refs N
 * runs batches of at most N references of the hand-over level (the test
 * hook), --bound-sizing 1 sizes the large levels' reference sets by their
 * bound under a cap too (the hook; the large stage's peak is printed),
 * --device 1 runs the GPU builder instead of its emulation (for scenes too
 * large to emulate). A build that fails lists the buffers at its peak so
 * far. A program, not a test:
 *   gpu_build_memory [--top N] [--limit BYTES] [--batch-refs N] [--bound-sizing 0|1] [--device 0|1]
 *                    SCENE...   (OBJ or PLY, gzip or not) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_build_internal.h"
#include "mesh_load.h"
#include "tree_stats.h"

/* FNV-1a over bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static uint64_t tree_hash(const kd_tree *t)
{
    uint64_t h = fnv(14695981039346656037ull, t->nodes, (size_t)t->num_nodes * sizeof(kd_node));
    return fnv(h, t->leaf_indices, (size_t)t->num_leaf_indices * sizeof(uint32_t));
}

typedef struct args {
    size_t top, limit;
    uint32_t batch_refs;
    int bound_sizing, device;
} args;

static void print_buffers(const kd_gpu_builder *b, size_t top, double tris)
{
    kd_gb_buffer_bytes bufs[64];
    const size_t n = kd_gb_peak_buffers(b, bufs, sizeof bufs / sizeof bufs[0]);
    for (size_t i = 0; i < n && i < top && bufs[i].bytes > 0; i++)
        printf("  %-12s %10.1f MiB %6.0f B/tri\n", bufs[i].name, (double)bufs[i].bytes / 1048576.0,
               (double)bufs[i].bytes / tris);
}

static void print_build(const char *path, const kd_mesh *mesh, const kd_gpu_build_profile *prof, const kd_tree *tree)
{
    kd_tree_stats stats;
    kd_tree_compute_stats(tree, NULL, &stats);
    const double tris = mesh->num_triangles ? (double)mesh->num_triangles : 1.0;
    printf("%s: %u triangles, peak %.1f MiB (%.0f B/tri), held after %.1f MiB, small roots %u, "
           "retries: small %u, medium %u, batches %u\n",
           path, mesh->num_triangles, (double)prof->peak_device_bytes / 1048576.0,
           (double)prof->peak_device_bytes / tris, (double)prof->device_bytes / 1048576.0, prof->num_small_roots,
           prof->num_small_retries, prof->num_medium_retries, prof->num_batches);
    printf("  large stage: peak %.1f MiB (%.0f B/tri)\n", (double)prof->large_peak_device_bytes / 1048576.0,
           (double)prof->large_peak_device_bytes / tris);
    printf("  tree: %u nodes, %u leaf refs, SAH %.4f, hash %016llx\n", tree->num_nodes, tree->num_leaf_indices,
           stats.sah_cost, (unsigned long long)tree_hash(tree));
}

static int report(const char *path, const args *a)
{
    kd_mesh mesh;
    kd_error err;
    kd_error_clear(&err);
    if (kd_mesh_load_file(path, &mesh, NULL, &err) != KD_OK) {
        fprintf(stderr, "gpu_build_memory: %s: %s\n", path, err.message);
        return 1;
    }
    kd_gpu_build_options o;
    kd_gpu_build_options_default(&o);
    o.max_device_bytes = a->limit;
    o.hooks.batch_refs = a->batch_refs;
    o.hooks.large_bound_sizing = a->bound_sizing;
    kd_gpu_builder *b = NULL;
    kd_gpu_build_profile prof;
    kd_tree tree;
    memset(&tree, 0, sizeof tree);
    const double tris = mesh.num_triangles ? (double)mesh.num_triangles : 1.0;
    kd_status st = kd_gpu_builder_create(&b, !a->device, &err);
    if (st == KD_OK)
        st = kd_gpu_builder_set_mesh(b, &mesh, &err);
    if (st == KD_OK && (st = kd_gpu_builder_build(b, &o, &prof, &err)) != KD_OK) {
        printf("%s: failed; the buffers at the peak so far:\n", path);
        print_buffers(b, a->top, tris);
    }
    if (st == KD_OK)
        st = kd_gpu_builder_download(b, &tree, &err);
    if (st == KD_OK) {
        print_build(path, &mesh, &prof, &tree);
        print_buffers(b, a->top, tris);
    } else {
        fprintf(stderr, "gpu_build_memory: %s: %s\n", path, err.message);
    }
    kd_tree_free(&tree);
    kd_gpu_builder_destroy(b);
    kd_mesh_free(&mesh);
    return st != KD_OK;
}

int main(int argc, char **argv)
{
    args a = {12, 0, 0, 0, 0};
    int failed = 0, i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--top") == 0)
            a.top = (size_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--limit") == 0)
            a.limit = (size_t)strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--batch-refs") == 0)
            a.batch_refs = (uint32_t)strtoul(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--bound-sizing") == 0)
            a.bound_sizing = atoi(argv[i + 1]) != 0;
        else if (strcmp(argv[i], "--device") == 0)
            a.device = atoi(argv[i + 1]) != 0;
        else
            break;
    }
    if (i >= argc || strncmp(argv[i], "--", 2) == 0) {
        fprintf(stderr, "usage: gpu_build_memory [--top N] [--limit BYTES] [--batch-refs N] [--bound-sizing 0|1] "
                        "[--device 0|1] SCENE...\n");
        return 2;
    }
    for (; i < argc; i++)
        failed |= report(argv[i], &a);
    return failed;
}
