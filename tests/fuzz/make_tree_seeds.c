/* Writes the seed corpus of the tree fuzz target: trees the CPU builder makes over
 * fuzz_tree_mesh() of several sizes, each file (version 2, with the mesh's
 * fingerprint) after the mode byte 1 (checksums recomputed). Usage:
 * fuzz_tree_seeds OUT_FOLDER */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_build.h"
#include "fuzz_tree_mesh.h"
#include "tree_io.h"

static int write_seed(const char *folder, uint32_t n, int max_depth)
{
    float *tri_verts = fuzz_tree_mesh(n);
    kd_mesh mesh = fuzz_tree_as_mesh(tri_verts, n);
    kd_build_params params;
    kd_build_params_default(&params);
    params.num_threads = 1;
    if (max_depth >= 0)
        params.max_depth = max_depth;
    kd_tree tree;
    kd_error err;
    char kd_path[1024], seed_path[1024];
    snprintf(kd_path, sizeof kd_path, "%s/.tmp.kd", folder);
    if (max_depth < 0)
        snprintf(seed_path, sizeof seed_path, "%s/tree_%u", folder, n);
    else
        snprintf(seed_path, sizeof seed_path, "%s/tree_%u_depth%d", folder, n, max_depth);
    int rc = 1;
    kd_tree_origin origin;
    kd_tree_origin_init(&origin, &mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(&params));
    if (kd_build_cpu(&mesh, &params, &tree, NULL, &err) == KD_OK &&
        kd_tree_save(&tree, &origin, kd_path, &err) == KD_OK) {
        FILE *in = fopen(kd_path, "rb"), *out = fopen(seed_path, "wb");
        int c;
        if (in && out) {
            fputc(1, out);
            while ((c = fgetc(in)) != EOF)
                fputc(c, out);
            rc = 0;
        }
        if (in)
            fclose(in);
        if (out)
            fclose(out);
        remove(kd_path);
        kd_tree_free(&tree);
    } else {
        fprintf(stderr, "fuzz_tree_seeds: %s\n", err.message);
    }
    free(mesh.indices);
    free(tri_verts);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_tree_seeds OUT_FOLDER\n");
        return 2;
    }
    static const uint32_t sizes[] = {1, 2, 5, 16, 40, 100};
    int failures = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        failures += write_seed(argv[1], sizes[i], -1);
    failures += write_seed(argv[1], 40, 3);
    failures += write_seed(argv[1], 100, 1);
    return failures ? 1 : 0;
}
