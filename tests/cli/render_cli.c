/* The render and verify commands end to end: images written whole, no file
 * left behind on failure, usage errors (exit 2) for bad camera flags and
 * options, verify passing a good tree file and failing a corrupted one, the
 * --compare regression check, and --device on both commands. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu_build.h"
#include "cpu_render.h"
#include "image.h"
#include "obj_loader.h"
#include "render_test_util.h"
#include "test_support.h"
#include "tree_io.h"
#include "tribox.h"

static char scene_path[512], log_path[512];

/* Runs scankd with the arguments; stdout and stderr go to log_path. Returns the exit code. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>&1", KD_SCANKD_EXE, args, log_path);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool log_contains(const char *text)
{
    FILE *f = fopen(log_path, "rb");
    if (!f)
        return false;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

static bool exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* No "<name>.tmp-*" file left in the scratch folder. */
static bool no_temporaries(void)
{
    char cmd[1024], dir[512];
    kd_test_tmp_path("", dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '\\.tmp-'", dir);
    return system(cmd) != 0;
}

static void expect_usage(const char *args)
{
    int code = run(args);
    CHECK_MSG(code == 2, "'%s' gave %d, expected 2", args, code);
}

static void write_scene(void)
{
    kd_test_rng rng = {5};
    uint32_t n;
    float *v = kd_test_grid_city(&rng, 4, &n);
    kd_test_tmp_path("cli_city.obj", scene_path, sizeof scene_path);
    FILE *f = fopen(scene_path, "w");
    for (uint32_t i = 0; i < 3 * n; i++)
        fprintf(f, "v %g %g %g\n", (double)v[3 * i], (double)v[3 * i + 1], (double)v[3 * i + 2]);
    for (uint32_t t = 0; t < n; t++)
        fprintf(f, "f %u %u %u\n", 3 * t + 1, 3 * t + 2, 3 * t + 3);
    fclose(f);
    free(v);
}

static void render_tests(void)
{
    char out[512], args[2048];
    kd_test_tmp_path("cli_shaded.png", out, sizeof out);
    remove(out);
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 64 48 --quiet", scene_path, out);
    CHECK(run(args) == 0);
    kd_image img = {0};
    kd_error err;
    CHECK(kd_image_read_png(&img, out, &err) == KD_OK && img.width == 64 && img.height == 48);
    kd_image_free(&img);

    /* every image kind, names derived from -o */
    char all[512];
    kd_test_tmp_path("cli_all.png", all, sizeof all);
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 40 30 --image all --eye 9,7,11 --look 2,1,2 --fov 50",
             scene_path, all);
    CHECK(run(args) == 0);
    CHECK(log_contains("Mrays/s"));
    static const char *const kinds[] = {"shaded", "depth", "steps", "tests"};
    for (int k = 0; k < 4; k++) {
        char path[512], name[64];
        snprintf(name, sizeof name, "cli_all_%s.png", kinds[k]);
        kd_test_tmp_path(name, path, sizeof path);
        CHECK_MSG(kd_image_read_png(&img, path, &err) == KD_OK, "%s", path);
        CHECK(img.width == 40 && img.height == 30); /* legends are drawn inside: exactly --size */
        kd_image_free(&img);
    }

    /* JSON on stdout */
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 16 16 --json -", scene_path, out);
    CHECK(run(args) == 0);
    CHECK(log_contains("\"rays_per_second\"") && log_contains("\"width\": 16"));

    /* Unwritable destinations: exit 1, nothing left behind. */
    char blocker[512], bad[600];
    kd_test_tmp_path("cli_blocker.txt", blocker, sizeof blocker);
    FILE *f = fopen(blocker, "w");
    fputs("a file where a folder is expected\n", f);
    fclose(f);
    snprintf(bad, sizeof bad, "%s/out.png", blocker);
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 16 16", scene_path, bad);
    CHECK(run(args) == 1);
    CHECK(log_contains("scankd render:"));
    char dir[512];
    kd_test_tmp_path("cli_dir.png", dir, sizeof dir);
    mkdir(dir, 0777);
    snprintf(args, sizeof args, "render '%s' -o '%s' --size 16 16", scene_path, dir);
    CHECK(run(args) == 1);
    struct stat sb;
    CHECK(stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode));
    CHECK(no_temporaries());

    /* Usage errors. */
    static const char *const bad_options[] = {
        "--eye 1,2", "--fov 200", "--size 0 10", "--size 10", "--up 0,0,0 --size 8 8",
        "--eye 1,1,1 --look 1,1,1 --size 8 8", "--up 0,1,0 --eye 0,5,0 --look 0,0,0 --size 8 8",
        "--image sepia", "--threads 0", "--bogus",
    };
    for (size_t i = 0; i < sizeof bad_options / sizeof bad_options[0]; i++) {
        snprintf(args, sizeof args, "render '%s' %s", scene_path, bad_options[i]);
        expect_usage(args);
    }
    expect_usage("render");
    CHECK(run("render --help") == 0 && log_contains("--eye"));
    CHECK(run("render /nonexistent/scene.obj") == 1);
}

/* --device on render or verify: cpu works; auto works, on a machine without
 * a GPU with a one-line notice; gpu fails (exit 1) without a GPU and works
 * with one; anything else is a usage error. */
static void device_tests(const char *command, const char *extra)
{
    bool have_gpu = kd_test_cli_have_gpu();
    char args[2048], want[128];
    snprintf(args, sizeof args, "%s '%s' %s --device cpu", command, scene_path, extra);
    CHECK_MSG(run(args) == 0, "%s", args);
    CHECK(!log_contains("no CUDA device"));
    snprintf(args, sizeof args, "%s '%s' %s --device auto", command, scene_path, extra);
    CHECK_MSG(run(args) == 0, "%s", args);
    snprintf(want, sizeof want, "scankd %s: no CUDA device, ", command);
    CHECK_MSG(log_contains(want) == !have_gpu, "%s: notice %s", args, have_gpu ? "printed" : "missing");
    snprintf(args, sizeof args, "%s '%s' %s --device auto --quiet", command, scene_path, extra);
    CHECK(run(args) == 0 && !log_contains("no CUDA device"));
    snprintf(args, sizeof args, "%s '%s' %s --device gpu", command, scene_path, extra);
    if (have_gpu) {
        CHECK_MSG(run(args) == 0, "%s", args);
    } else {
        CHECK_MSG(run(args) == 1, "%s", args);
        snprintf(want, sizeof want, "scankd %s: no CUDA device: --device gpu needs a GPU", command);
        CHECK(log_contains(want));
    }
    snprintf(args, sizeof args, "%s '%s' %s --device bogus", command, scene_path, extra);
    expect_usage(args);
    CHECK(log_contains("expected gpu, cpu or auto"));
    snprintf(args, sizeof args, "%s '%s' --device", command, scene_path);
    expect_usage(args);
}

static void verify_tests(void)
{
    char args[2048], good[512], bad[512], diff[512], ref[512];
    kd_test_tmp_path("cli_good.kd", good, sizeof good);
    kd_test_tmp_path("cli_bad.kd", bad, sizeof bad);
    kd_test_tmp_path("cli_diff.png", diff, sizeof diff);
    kd_test_tmp_path("cli_ref.png", ref, sizeof ref);

    snprintf(args, sizeof args, "verify '%s' --size 48 32 --interior-rays 500 -o '%s'", scene_path, diff);
    CHECK(run(args) == 0);
    CHECK(log_contains("verify      PASS") && log_contains("0 mismatches"));
    CHECK(exists(diff));

    /* Trees saved to files: the intact one passes, one with a triangle taken
     * out of a leaf fails. */
    kd_mesh mesh;
    kd_error err;
    CHECK(kd_obj_load_file(scene_path, &mesh, &err) == KD_OK);
    kd_build_params params;
    kd_build_params_default(&params);
    kd_tree tree;
    CHECK(kd_build_cpu(&mesh, &params, &tree, NULL, &err) == KD_OK);
    kd_tree_origin origin;
    kd_tree_origin_init(&origin, &mesh, KD_TREE_BUILDER_CPU, kd_tree_rules_hash_cpu(&params));
    CHECK(kd_tree_save(&tree, &origin, good, &err) == KD_OK);
    float *verts = NULL;
    CHECK(kd_trace_gather_vertices(&mesh, &verts, &err) == KD_OK);
    bool dropped = false;
    for (uint32_t i = 0; i < tree.num_nodes && !dropped; i++) {
        kd_node node = tree.nodes[i];
        kd_aabb box;
        if (!kd_node_is_leaf(node) || kd_node_num_prims(node) == 0 || !kd_test_node_box(&tree, i, &box))
            continue;
        uint32_t last = tree.leaf_indices[node.leaf_offset + kd_node_num_prims(node) - 1];
        const float *v = verts + 9 * (size_t)last;
        if (kd_tribox_overlap(v, v + 3, v + 6, &box)) {
            /* drop the leaf's last entry; the index array keeps its size */
            tree.nodes[i] = kd_make_leaf(node.leaf_offset, kd_node_num_prims(node) - 1);
            dropped = true;
        }
    }
    CHECK(dropped);
    free(verts);
    CHECK(kd_tree_save(&tree, &origin, bad, &err) == KD_OK);
    /* A worse tree: every even-numbered triangle taken out of every leaf, so
     * rays hitting those triangles disagree with brute force. */
    char holes[512];
    kd_test_tmp_path("cli_holes.kd", holes, sizeof holes);
    for (uint32_t i = 0; i < tree.num_nodes; i++) {
        kd_node node = tree.nodes[i];
        if (!kd_node_is_leaf(node))
            continue;
        uint32_t *list = tree.leaf_indices + node.leaf_offset, kept = 0;
        for (uint32_t j = 0; j < kd_node_num_prims(node); j++)
            if (list[j] % 2)
                list[kept++] = list[j];
        tree.nodes[i] = kd_make_leaf(node.leaf_offset, kept);
    }
    CHECK(kd_tree_save(&tree, &origin, holes, &err) == KD_OK);
    kd_tree_free(&tree);
    kd_mesh_free(&mesh);
    snprintf(args, sizeof args, "verify '%s' --tree '%s' --size 32 32", scene_path, good);
    CHECK(run(args) == 0);
    snprintf(args, sizeof args, "verify '%s' --tree '%s' --size 32 32 --json -", scene_path, bad);
    CHECK(run(args) == 1);
    CHECK(log_contains("\"missing\": 1") && log_contains("\"pass\": false"));
    remove(diff);
    snprintf(args, sizeof args, "verify '%s' --tree '%s' --size 48 32 -o '%s'", scene_path, holes, diff);
    CHECK(run(args) == 1);
    CHECK(log_contains("rays        FAIL") && log_contains("brute force hits triangle"));
    kd_image marked = {0};
    CHECK(kd_image_read_png(&marked, diff, &err) == KD_OK);
    size_t red = 0;
    for (size_t p = 0; p < (size_t)marked.width * (size_t)marked.height; p++)
        red += marked.rgb[3 * p] == 255 && marked.rgb[3 * p + 1] == 0 && marked.rgb[3 * p + 2] == 0;
    CHECK(red > 0 && marked.width == 48 && marked.height == 32);
    kd_image_free(&marked);
    snprintf(args, sizeof args, "render '%s' --tree '%s' --size 32 32 -o '%s'", scene_path, good, ref);
    CHECK(run(args) == 0);

    /* --compare: the same camera matches, another one does not. */
    snprintf(args, sizeof args, "verify '%s' --compare '%s' --interior-rays 0", scene_path, ref);
    CHECK(run(args) == 0);
    CHECK(log_contains("compare     PASS"));
    snprintf(args, sizeof args, "verify '%s' --compare '%s' --fov 30 --interior-rays 0", scene_path, ref);
    CHECK(run(args) == 1);
    CHECK(log_contains("compare     FAIL"));
    snprintf(args, sizeof args, "verify '%s' --compare '%s' --fov 30 --compare-threshold 255 --interior-rays 0",
             scene_path, ref);
    CHECK(run(args) == 0);

    static const char *const bad_verify[] = {"--compare-threshold 1", "--rays 0",
                                             "--rays 10 --all-pixels", "--size 5"};
    for (size_t i = 0; i < sizeof bad_verify / sizeof bad_verify[0]; i++) {
        snprintf(args, sizeof args, "verify '%s' %s", scene_path, bad_verify[i]);
        expect_usage(args);
    }
    CHECK(run("verify --help") == 0 && log_contains("--compare-threshold"));
}

int main(void)
{
    kd_test_tmp_path("cli_log.txt", log_path, sizeof log_path);
    write_scene();
    render_tests();
    char out[512], extra[600];
    kd_test_tmp_path("cli_device.png", out, sizeof out);
    snprintf(extra, sizeof extra, "--size 24 16 -o '%s'", out);
    device_tests("render", extra);
    CHECK(run("render --help") == 0 && log_contains("--device"));
    verify_tests();
    device_tests("verify", "--size 24 16 --interior-rays 100");
    CHECK(run("verify --help") == 0 && log_contains("--device"));
    return kd_test_finish("render_cli");
}
