/* The scene_variants program end to end: bad arguments fail with a message
 * and exit 2, a missing input exits 1 and writes nothing, the same arguments
 * write the same bytes, grids, merges and transforms give the triangle
 * counts and bounds they should, and an output named .ply (binary) loads to
 * the mesh its OBJ loads to. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mesh_load.h"
#include "obj_loader.h"
#include "test_support.h"

static char g_err[8192];

static void tmp_file(const char *name, char *path, size_t bytes)
{
    char file[128];
    snprintf(file, sizeof file, "variants_cli_%ld_%s", (long)getpid(), name);
    kd_test_tmp_path(file, path, bytes);
}

/* Runs scene_variants with args (NULL-terminated); stderr into g_err. */
static int run(const char *const *args)
{
    char err_path[512];
    tmp_file("stderr.txt", err_path, sizeof err_path);
    const char *argv[64];
    int n = 0;
    argv[n++] = KD_SCENE_VARIANTS_EXE;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(err_path, "w", stderr) || !freopen("/dev/null", "w", stdout))
            _exit(126);
        execv(KD_SCENE_VARIANTS_EXE, (char *const *)argv);
        _exit(127);
    }
    int status = 0, code = -1;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
        code = WEXITSTATUS(status);
    g_err[0] = '\0';
    FILE *f = fopen(err_path, "r");
    if (f) {
        size_t got = fread(g_err, 1, sizeof g_err - 1, f);
        g_err[got] = '\0';
        fclose(f);
    }
    remove(err_path);
    return code;
}

static void expect_usage_error(const char *const *args, const char *want)
{
    int code = run(args);
    CHECK_MSG(code == 2, "exit %d, want 2 (stderr: %s)", code, g_err);
    CHECK_MSG(strstr(g_err, want) != NULL, "stderr lacks '%s': %s", want, g_err);
}

/* A small scene of its own: two unit squares (four triangles) in z = 0 and x = 2. */
static void write_scene(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
          "v 2 0 0\nv 2 1 0\nv 2 1 1\nv 2 0 1\n"
          "f 1 2 3 4\nf 5 6 7 8\n",
          f);
    fclose(f);
}

static void skip_line(FILE *f)
{
    int c;
    do
        c = fgetc(f);
    while (c != EOF && c != '\n');
}

/* Whether two files hold the same bytes after their first lines. */
static int same_after_first_line(const char *path_a, const char *path_b)
{
    FILE *a = fopen(path_a, "rb"), *b = fopen(path_b, "rb");
    int same = a && b;
    if (same) {
        skip_line(a);
        skip_line(b);
    }
    long bytes = 0;
    for (int ca = 0, cb = 0; same && ca != EOF; bytes++) {
        ca = fgetc(a);
        cb = fgetc(b);
        same = ca == cb;
    }
    if (a)
        fclose(a);
    if (b)
        fclose(b);
    return same && bytes > 100;
}

static void test_bad_arguments(const char *scene, const char *out)
{
    expect_usage_error((const char *[]){NULL}, "no input given");
    expect_usage_error((const char *[]){scene, NULL}, "no output given");
    expect_usage_error((const char *[]){"--scale", "2", scene, "-o", out, NULL},
                       "before any input");
    expect_usage_error((const char *[]){scene, "--scale", "0", "-o", out, NULL}, "must be > 0");
    expect_usage_error((const char *[]){scene, "--scale", "abc", "-o", out, NULL},
                       "'abc' is not a finite number");
    expect_usage_error((const char *[]){scene, "--translate", "1", "2", NULL}, "needs more numbers");
    expect_usage_error((const char *[]){scene, "--rotate", "-1", "-o", out, NULL}, "needs a seed");
    expect_usage_error((const char *[]){scene, "--rotate-axis", "0", "0", "0", "30", "-o", out, NULL},
                       "axis must not be zero");
    expect_usage_error((const char *[]){scene, "--grid", "2", "0", "1", "-o", out, NULL},
                       "not a count in 1..100000");
    expect_usage_error((const char *[]){scene, "--grid", "2", "1", "1", "--scale", "2", "-o", out, NULL},
                       "must be its input's last operation");
    expect_usage_error((const char *[]){scene, "--frobnicate", "-o", out, NULL},
                       "unknown argument '--frobnicate'");
    expect_usage_error((const char *[]){scene, "--layout", "diagonal", "-o", out, NULL},
                       "--layout takes overlap or row");
    expect_usage_error((const char *[]){scene, "--gap", "-1", "-o", out, NULL}, "must be >= 0");
    CHECK(access(out, F_OK) != 0);
    int code = run((const char *[]){"--help", NULL});
    CHECK(code == 0);
}

static void test_missing_input(const char *out)
{
    int code = run((const char *[]){"/nonexistent/scene.obj", "-o", out, NULL});
    CHECK_MSG(code == 1, "exit %d (stderr: %s)", code, g_err);
    CHECK_MSG(strstr(g_err, "scene_variants: ") != NULL && strstr(g_err, "scene.obj"), "%s", g_err);
    CHECK(access(out, F_OK) != 0);
}

static void test_deterministic(const char *scene, const char *out, const char *out2)
{
    const char *args[] = {scene, "--rotate", "42", "--scale", "0.001", "--translate", "100", "0", "0",
                          "-o", out, NULL};
    CHECK(run(args) == 0);
    args[10] = out2;
    CHECK(run(args) == 0);
    /* The header records the command line, which names the output: compare what follows it. */
    CHECK(same_after_first_line(out, out2));
    remove(out2);
}

static void test_counts_and_bounds(const char *scene, const char *out)
{
    /* A grid of 2 x 3 x 1 of the scene, merged with the scene moved 1e4 sizes away. */
    const char *args[] = {scene, "--grid", "2", "3", "1", scene, "--translate-sizes", "1e4", "0", "0",
                          "--gap", "0", "-o", out, NULL};
    CHECK_MSG(run(args) == 0, "%s", g_err);
    kd_mesh mesh = {0};
    kd_error err = {0};
    if (kd_obj_load_file(out, &mesh, &err) == KD_OK) {
        CHECK_MSG(mesh.num_triangles == 6 * 4 + 4, "%u triangles", mesh.num_triangles);
        kd_aabb box = kd_mesh_bounds(&mesh);
        /* The scene spans 2 x 1 x 1: the grid reaches y = 3; the far copy starts at 2e4. */
        CHECK_MSG(box.hi[1] == 3.0f && box.lo[0] == 0.0f && box.hi[0] == 20002.0f,
                  "bounds %g..%g, %g", (double)box.lo[0], (double)box.hi[0], (double)box.hi[1]);
    } else {
        CHECK_MSG(0, "%s", err.message);
    }
    kd_mesh_free(&mesh);
    /* Row layout: the second input sits beside the first with a gap of 0.5 x its width. */
    const char *row[] = {scene, scene, "--layout", "row", "--gap", "0.5", "-o", out, NULL};
    CHECK(run(row) == 0);
    if (kd_obj_load_file(out, &mesh, &err) == KD_OK) {
        kd_aabb box = kd_mesh_bounds(&mesh);
        CHECK(mesh.num_triangles == 8);
        CHECK_MSG(box.lo[0] == 0.0f && box.hi[0] == 5.0f, "x %g..%g", (double)box.lo[0],
                  (double)box.hi[0]);
    }
    kd_mesh_free(&mesh);
}

/* The same scene written as OBJ and as PLY loads to the same mesh. */
static void test_ply(const char *scene, const char *out)
{
    char ply[512];
    tmp_file("out.ply", ply, sizeof ply);
    const char *args[] = {scene, "--rotate", "7", "--grid", "3", "1", "2", "-o", out, NULL};
    CHECK_MSG(run(args) == 0, "%s", g_err);
    args[8] = ply;
    CHECK_MSG(run(args) == 0, "%s", g_err);
    kd_mesh a = {0}, b = {0};
    kd_error err = {0};
    CHECK_MSG(kd_mesh_load_file(out, &a, NULL, &err) == KD_OK, "%s", err.message);
    CHECK_MSG(kd_mesh_load_file(ply, &b, NULL, &err) == KD_OK, "%s", err.message);
    CHECK_MSG(a.num_triangles == 6 * 4 && a.num_triangles == b.num_triangles && a.num_vertices == b.num_vertices,
              "%u and %u triangles", a.num_triangles, b.num_triangles);
    if (a.num_vertices == b.num_vertices && a.num_triangles == b.num_triangles) {
        CHECK(memcmp(a.positions, b.positions, 12 * (size_t)a.num_vertices) == 0);
        CHECK(memcmp(a.indices, b.indices, 12 * (size_t)a.num_triangles) == 0);
    }
    kd_mesh_free(&a);
    kd_mesh_free(&b);
    remove(ply);
}

int main(void)
{
    char scene[512], out[512], out2[512];
    tmp_file("scene.obj", scene, sizeof scene);
    tmp_file("out.obj", out, sizeof out);
    tmp_file("out2.obj", out2, sizeof out2);
    write_scene(scene);
    remove(out);
    test_bad_arguments(scene, out);
    test_missing_input(out);
    test_deterministic(scene, out, out2);
    test_counts_and_bounds(scene, out);
    test_ply(scene, out);
    remove(out);
    remove(scene);
    return kd_test_finish("scene_variants_cli");
}
