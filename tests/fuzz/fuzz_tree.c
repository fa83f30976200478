/* Fuzz target: a tree file read as a command reads one (kd_tree_load: header,
 * sizes, checksum, structure), then what the commands do with a tree before and
 * while using it: statistics, the exhaustive invariants against a mesh, and traced
 * rays. Where the invariants find nothing wrong and the root box holds the mesh
 * (the commands' own check), every traced ray must agree with brute force: a tree
 * the verifier passes must not lose a hit.
 *
 * Input: a mode byte, then the file. Mode bit 0 recomputes the checksum, so that
 * mutations get past it to the structure checks. The mesh is fuzz_tree_mesh() of
 * the triangle count in the file (when it is small enough to trace). */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_render.h"
#include "fuzz_common.h"
#include "fuzz_tree_mesh.h"
#include "tree_io.h"
#include "tree_stats.h"
#include "verify.h"

/* The file, written where kd_tree_load can open it by name. */
static const char *write_input(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz_tree", 0);
        FUZZ_ASSERT(fd >= 0, "memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_ASSERT(ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size, "cannot write the file");
    return path;
}

/* The FNV-1a 64 checksum a tree file ends with (tree_io.c), recomputed. */
static void fix_checksum(uint8_t *file, size_t size)
{
    if (size < 8)
        return;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < size - 8; i++) {
        h ^= file[i];
        h *= 1099511628211ull;
    }
    for (int i = 0; i < 8; i++)
        file[size - 8 + i] = (uint8_t)(h >> (8 * i));
}

/* Rays from around the root box towards points inside it. */
static void make_rays(const kd_aabb *box, kd_ray *rays, int n)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int r = 0; r < n; r++) {
        for (int a = 0; a < 3; a++) {
            float lo = box->lo[a], hi = box->hi[a], ext = hi - lo;
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float u = (float)(s >> 40) / (float)(1u << 24);
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            float w = (float)(s >> 40) / (float)(1u << 24);
            rays[r].org[a] = lo - ext + 3.0f * ext * u;
            rays[r].dir[a] = (lo + ext * w) - rays[r].org[a];
        }
        if (rays[r].dir[0] == 0 && rays[r].dir[1] == 0 && rays[r].dir[2] == 0)
            rays[r].dir[0] = 1;
        rays[r].t_max = INFINITY;
    }
}

/* Whether the root box holds every triangle, as render and verify check before
 * they use a loaded tree (cli/render_scene.c): rays outside the box are the
 * tree's to miss. */
static bool box_holds_mesh(const kd_aabb *box, const float *tri_verts, uint32_t n)
{
    for (uint32_t i = 0; i < 3 * n; i++)
        for (int a = 0; a < 3; a++)
            if (!(tri_verts[3 * i + a] >= box->lo[a] && tri_verts[3 * i + a] <= box->hi[a]))
                return false;
    return true;
}

/* What verify and render do with a loaded tree over the mesh. */
static void use_tree(const kd_tree *tree)
{
    kd_tree_stats stats;
    kd_tree_compute_stats(tree, NULL, &stats);
    FUZZ_ASSERT(stats.num_nodes == tree->num_nodes, "statistics count %u nodes of %u", stats.num_nodes,
                tree->num_nodes);
    if (tree->num_triangles > FUZZ_TREE_MAX_TRIANGLES || tree->num_leaf_indices > 64 * FUZZ_TREE_MAX_TRIANGLES)
        return;
    float *tri_verts = fuzz_tree_mesh(tree->num_triangles);
    kd_error err;
    kd_invariant_report inv;
    kd_status st = kd_verify_invariants(tree, tri_verts, tree->num_triangles, 1, &inv, &err);
    FUZZ_ASSERT(st == KD_OK, "invariants: %s", err.message);
    kd_trace_scene scene;
    st = kd_trace_scene_init(&scene, tree, tri_verts, tree->num_triangles, &err);
    FUZZ_ASSERT(st == KD_OK, "a loaded tree refused by the tracer: %s", err.message);
    enum { RAYS = 24 };
    kd_ray rays[RAYS];
    make_rays(&tree->bounds, rays, RAYS);
    kd_ray_report rep;
    st = kd_verify_rays(&scene, rays, RAYS, KD_VERIFY_DEFAULT_TOLERANCE, 1, NULL, NULL, NULL, NULL, &rep, &err);
    FUZZ_ASSERT(st == KD_OK, "rays: %s", err.message);
    bool checked = inv.structure_ok && kd_invariant_report_total(&inv) == 0 &&
                   box_holds_mesh(&tree->bounds, tri_verts, tree->num_triangles);
    FUZZ_ASSERT(!checked || rep.num_mismatches == 0,
                "the invariants pass but %llu of %d rays disagree with brute force",
                (unsigned long long)rep.num_mismatches, RAYS);
    free(tri_verts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    uint8_t *file = malloc(size);
    memcpy(file, data + 1, size - 1);
    if (data[0] & 1)
        fix_checksum(file, size - 1);
    const char *path = write_input(file, size - 1);
    free(file);
    kd_tree tree;
    kd_error err;
    if (kd_tree_load(&tree, path, &err) == KD_OK) {
        use_tree(&tree);
        kd_tree_free(&tree);
    } else {
        FUZZ_ASSERT(err.message[0] != '\0', "an error without a message");
    }
    return 0;
}
