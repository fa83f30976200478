/* Fuzz target: a tree file read as a command reads one (kd_tree_check_file, then
 * kd_tree_load: header, sizes, checksums, structure), then what the commands do
 * with a tree before and while using it: whether it fits the mesh and carries its
 * fingerprint (a command goes on with --force-tree), statistics, the exhaustive
 * invariants against the mesh, and traced rays. Where the tree fits and the
 * invariants find nothing wrong, every traced ray must agree with brute force: a
 * tree the verifier passes must not lose a hit.
 *
 * Input: a mode byte, then the file. Mode bit 0 recomputes the checksums (the
 * header's of a version-2 file, then the file's), so that mutations get past them
 * to the fields and the structure; bit 1 first writes the mesh's fingerprint and
 * vertex count into a version-2 header, so that mutations reach the code behind
 * the fingerprint check. The mesh is fuzz_tree_mesh() of the triangle count in the
 * file (when it is small enough to trace). */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_render.h"
#include "fuzz_common.h"
#include "fuzz_tree_mesh.h"
#include "kd_hash.h"
#include "tree_format.h"
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

/* The input's file as mode asks (tree_format.h has the layout). */
static void prepare_file(uint8_t *file, size_t size, uint8_t mode)
{
    bool v2 = size >= KD_TREE_V2_HEADER_BYTES && kd_tree_get_u32(file + KD_TREE_OFF_VERSION) == 2;
    uint32_t n = size >= KD_TREE_OFF_TRIANGLES + 4 ? kd_tree_get_u32(file + KD_TREE_OFF_TRIANGLES) : 0;
    if ((mode & 2) && v2 && n <= FUZZ_TREE_MAX_TRIANGLES) {
        float *tri_verts = fuzz_tree_mesh(n);
        kd_mesh mesh = fuzz_tree_as_mesh(tri_verts, n);
        uint64_t fingerprint = kd_mesh_fingerprint(&mesh);
        for (int i = 0; i < 8; i++)
            file[KD_TREE_OFF_FINGERPRINT + i] = (uint8_t)(fingerprint >> (8 * i));
        kd_tree_put_u32(file + KD_TREE_OFF_VERTICES, mesh.num_vertices);
        free(mesh.indices);
        free(tri_verts);
    }
    if (!(mode & 1) || size < KD_TREE_CHECKSUM_BYTES)
        return;
    uint64_t h;
    if (v2) {
        h = kd_tree_fnv1a64(file, KD_TREE_OFF_HEADER_SUM);
        for (int i = 0; i < 8; i++)
            file[KD_TREE_OFF_HEADER_SUM + i] = (uint8_t)(h >> (8 * i));
    }
    h = kd_tree_fnv1a64(file, size - KD_TREE_CHECKSUM_BYTES);
    for (int i = 0; i < 8; i++)
        file[size - KD_TREE_CHECKSUM_BYTES + i] = (uint8_t)(h >> (8 * i));
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

/* What verify and render do with a loaded tree over the mesh. */
static void use_tree(const kd_tree *tree, const kd_tree_origin *origin)
{
    kd_tree_stats stats;
    kd_tree_compute_stats(tree, NULL, &stats);
    FUZZ_ASSERT(stats.num_nodes == tree->num_nodes, "statistics count %u nodes of %u", stats.num_nodes,
                tree->num_nodes);
    if (tree->num_triangles > FUZZ_TREE_MAX_TRIANGLES || tree->num_leaf_indices > 64 * FUZZ_TREE_MAX_TRIANGLES)
        return;
    float *tri_verts = fuzz_tree_mesh(tree->num_triangles);
    kd_mesh mesh = fuzz_tree_as_mesh(tri_verts, tree->num_triangles);
    kd_error err;
    bool fits = kd_tree_check_fits(tree, &mesh, "f.kd", "mesh", &err) == KD_OK;
    if (fits) {
        /* A fingerprint that does not match is a refusal a command can override. */
        if (kd_tree_check_origin(origin, &mesh, "f.kd", "mesh", &err) != KD_OK)
            FUZZ_ASSERT(err.message[0] != '\0', "a refusal without a message");
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
        bool checked = inv.structure_ok && kd_invariant_report_total(&inv) == 0;
        FUZZ_ASSERT(!checked || rep.num_mismatches == 0,
                    "the invariants pass but %llu of %d rays disagree with brute force",
                    (unsigned long long)rep.num_mismatches, RAYS);
    }
    free(mesh.indices);
    free(tri_verts);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    uint8_t *file = malloc(size);
    memcpy(file, data + 1, size - 1);
    prepare_file(file, size - 1, data[0]);
    const char *path = write_input(file, size - 1);
    free(file);
    kd_error header_err, err;
    kd_status header_st = kd_tree_check_file(path, &header_err);
    kd_tree tree;
    kd_tree_origin origin;
    kd_status st = kd_tree_load(&tree, &origin, path, &err);
    /* A header the quick check refuses is refused by the full read, in the same words. */
    FUZZ_ASSERT(header_st == KD_OK || (st == header_st && strcmp(err.message, header_err.message) == 0),
                "check_file: '%s'; load: %d '%s'", header_err.message, (int)st, st ? err.message : "");
    if (st == KD_OK) {
        use_tree(&tree, &origin);
        kd_tree_free(&tree);
    } else {
        FUZZ_ASSERT(err.message[0] != '\0', "an error without a message");
    }
    return 0;
}
