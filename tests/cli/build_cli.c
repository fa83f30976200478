/* The build and stats commands end to end: outputs, files, exit codes. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

static char g_out[1024], g_err[1024];

/* Runs "scankd ARGS" with stdout and stderr captured; returns the exit code. */
static int run(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", KD_SCANKD_EXE, args, g_out, g_err);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return calloc(1, 1);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = calloc((size_t)n + 1, 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n)
        s[0] = '\0';
    fclose(f);
    return s;
}

static bool file_has(const char *path, const char *needle)
{
    char *s = slurp(path);
    bool found = strstr(s, needle) != NULL;
    if (!found)
        fprintf(stderr, "%s lacks '%s':\n%s\n", path, needle, s);
    free(s);
    return found;
}

/* The same without the complaint: for what must be absent. */
static bool file_has_quiet(const char *path, const char *needle)
{
    char *s = slurp(path);
    bool found = strstr(s, needle) != NULL;
    free(s);
    return found;
}

int main(void)
{
    kd_test_tmp_path("cli_out.txt", g_out, sizeof g_out);
    kd_test_tmp_path("cli_err.txt", g_err, sizeof g_err);
    char scene[1024], other[1024], tree[1024], json[1024], bad[1024], args[8192];
    kd_test_tmp_path("cli_scene.obj", scene, sizeof scene);
    kd_test_tmp_path("cli_other.obj", other, sizeof other);
    kd_test_tmp_path("cli_tree.kd", tree, sizeof tree);
    kd_test_tmp_path("cli_build.json", json, sizeof json);
    kd_test_tmp_path("cli_bad.kd", bad, sizeof bad);
    remove(tree);
    remove(json);

    /* A small scene: a box of 12 triangles and a floating triangle. */
    FILE *f = fopen(scene, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 2 3 4\nf 5 6 7 8\nf 1 2 6 5\nf 4 3 7 8\nf 1 4 8 5\nf 2 3 7 6\n"
          "v 3 3 3\nv 4 3 3\nv 3 4 3.5\nf 9 10 11\n", f);
    fclose(f);
    f = fopen(other, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", f);
    fclose(f);

    /* --help on both commands. */
    CHECK(run("build --help") == 0 && file_has(g_out, "usage: scankd build"));
    CHECK(file_has(g_out, "--empty-bonus") && file_has(g_out, "--sah-constants"));
    CHECK(run("stats --help") == 0 && file_has(g_out, "usage: scankd stats"));

    /* Build: text block, saved tree, JSON file. */
    snprintf(args, sizeof args, "build '%s' --device cpu --save '%s' --json '%s'", scene, tree, json);
    CHECK(run(args) == 0);
    CHECK(file_has(g_out, "SAH cost") && file_has(g_out, "13 triangles"));
    CHECK(file_has(g_out, "references per triangle") && file_has(g_out, "build time"));
    CHECK(access(tree, R_OK) == 0);
    CHECK(file_has(json, "\"sah_cost\"") && file_has(json, "\"load_ms\""));
    CHECK(file_has(json, "\"triangles\": 13") && file_has(json, "\"builder\": \"cpu\""));

    /* --json - prints only JSON; --quiet prints nothing. */
    snprintf(args, sizeof args, "build '%s' --json - --max-depth 3 --empty-bonus 0", scene);
    CHECK(run(args) == 0);
    char *out = slurp(g_out);
    CHECK(out[0] == '{' && strstr(out, "\"max_depth\": 3") && !strstr(out, "build time"));
    free(out);
    snprintf(args, sizeof args, "build '%s' --quiet", scene);
    CHECK(run(args) == 0);
    out = slurp(g_out);
    CHECK(out[0] == '\0');
    free(out);

    /* Stats of the saved tree, with other constants. */
    snprintf(args, sizeof args, "stats '%s' --tree '%s' --sah-constants 1,1,0", scene, tree);
    CHECK(run(args) == 0 && file_has(g_out, "SAH cost") && file_has(g_out, "intersect 1"));
    snprintf(args, sizeof args, "stats '%s' --tree '%s' --json -", scene, tree);
    CHECK(run(args) == 0 && file_has(g_out, "\"leaves\""));

    /* A tree for another scene, a corrupt tree, a missing tree: failures. */
    snprintf(args, sizeof args, "stats '%s' --tree '%s'", other, tree);
    CHECK(run(args) == 1 && file_has(g_err, "13 triangles"));
    f = fopen(bad, "wb");
    fwrite("SCANKDT", 1, 8, f); /* the magic and nothing else */
    fclose(f);
    snprintf(args, sizeof args, "stats '%s' --tree '%s'", scene, bad);
    CHECK(run(args) == 1 && file_has(g_err, "scankd stats:"));
    snprintf(args, sizeof args, "stats '%s' --tree /nonexistent.kd", scene);
    CHECK(run(args) == 1);

    /* Failures to build: a missing scene; a save under a file (where a
     * folder should be) fails at once, before the scene is even read, and
     * leaves no file behind; missing folders are made (a/b/c). */
    CHECK(run("build /nonexistent/scene.obj") == 1 && file_has(g_err, "scankd build:"));
    snprintf(args, sizeof args, "build /nonexistent/scene.obj --save '%s/t.kd'", scene);
    CHECK(run(args) == 1 && file_has(g_err, "is not a directory") && !file_has_quiet(g_err, "nonexistent"));
    snprintf(args, sizeof args, "build '%s' --save '%s/build_cli_made/a/b/t.kd'", scene, KD_TEST_TMP_DIR);
    CHECK(run(args) == 0);
    snprintf(args, sizeof args, "%s/build_cli_made/a/b/t.kd", KD_TEST_TMP_DIR);
    CHECK(access(args, R_OK) == 0);
    remove(args);

    /* Usage errors: exit 2 with a hint. */
    CHECK(run("build") == 2 && file_has(g_err, "try 'scankd build --help'"));
    snprintf(args, sizeof args, "build '%s' --max-depth 65", scene);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --empty-bonus 1.5", scene);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --traversal-cost", scene);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --sah-constants 1,2", scene);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --bogus", scene);
    CHECK(run(args) == 2);
    /* An unknown option is named as one, not taken for an option wanting a value. */
    CHECK(file_has(g_err, "scankd build: unknown option '--bogus'"));
    snprintf(args, sizeof args, "build '%s' --bogus 3", scene);
    CHECK(run(args) == 2 && file_has(g_err, "unknown option '--bogus'"));
    snprintf(args, sizeof args, "stats '%s' --tree '%s' --bogus", scene, tree);
    CHECK(run(args) == 2 && file_has(g_err, "scankd stats: unknown option '--bogus'"));
    snprintf(args, sizeof args, "build '%s' '%s'", scene, other);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "stats '%s'", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--tree"));

    /* --device: cpu works; auto works (a notice without a GPU); gpu fails
     * without a GPU; anything else, and GPU-only options with --device cpu,
     * are usage errors. */
    bool have_gpu = kd_test_cli_have_gpu();
    snprintf(args, sizeof args, "build '%s' --device cpu --json -", scene);
    CHECK(run(args) == 0 && file_has(g_out, "\"builder\": \"cpu\""));
    snprintf(args, sizeof args, "build '%s' --device auto", scene);
    CHECK(run(args) == 0 && file_has(g_out, "SAH cost"));
    if (!have_gpu) {
        CHECK(file_has(g_err, "scankd build: no CUDA device, using the CPU builder"));
        snprintf(args, sizeof args, "build '%s' --device gpu", scene);
        CHECK(run(args) == 1 && file_has(g_err, "scankd build: no CUDA device: --device gpu needs a GPU"));
        snprintf(args, sizeof args, "build '%s' --large-split median --profile", scene);
        CHECK(run(args) == 0 && file_has(g_err, "--large-split ignored"));
    } else {
        snprintf(args, sizeof args, "build '%s' --device gpu --profile --reduce-variant 0 --json -", scene);
        CHECK(run(args) == 0 && file_has(g_out, "\"builder\": \"gpu\"") &&
              file_has(g_out, "\"num_reduce_calls\""));
        snprintf(args, sizeof args, "build '%s' --device gpu --small-threshold 8 --json -", scene);
        CHECK(run(args) == 0 && file_has(g_out, "\"small_node_threshold\": 8") &&
              file_has(g_out, "\"warmup_builds\": 1") && file_has(g_out, "\"timed_builds\": 5") &&
              file_has(g_out, "\"gpu_first_build_ms\""));
        snprintf(args, sizeof args, "build '%s' --device gpu --max-refs-per-triangle 24 --json -", scene);
        CHECK(run(args) == 0 && file_has(g_out, "\"max_refs_per_triangle\": 24"));
        snprintf(args, sizeof args, "build '%s' --device gpu --empty-space 0.25 --json -", scene);
        CHECK(run(args) == 0 && file_has(g_out, "\"empty_space\": 0.25"));
        snprintf(args, sizeof args, "build '%s' --device gpu --min-empty-fraction 0.2", scene);
        CHECK(run(args) == 0 && file_has(g_out, "with empty cuts >= 0.2 of the node"));
        snprintf(args, sizeof args, "build '%s' --device gpu", scene);
        CHECK(run(args) == 0 && file_has(g_out, "times are medians of 5 builds after 1 untimed warm-up build "
                                                "of the same mesh; the first build"));
        snprintf(args, sizeof args, "build '%s' --device gpu --warmup 0 --repeats 1 --profile", scene);
        CHECK(run(args) == 0 && file_has(g_out, "times are medians of 1 build, the first of them the builder's first") &&
              file_has(g_out, "medians over the timed builds"));
    }
    snprintf(args, sizeof args, "build '%s' --device bogus", scene);
    CHECK(run(args) == 2 && file_has(g_err, "expected gpu, cpu or auto"));
    snprintf(args, sizeof args, "build '%s' --device cpu --profile", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--profile applies to the GPU builder only"));
    snprintf(args, sizeof args, "build '%s' --large-split middle", scene);
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --reduce-variant 9", scene); /* rungs are 0..8 */
    CHECK(run(args) == 2);
    snprintf(args, sizeof args, "build '%s' --small-threshold 65", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--small-threshold takes an integer 1..64"));
    snprintf(args, sizeof args, "build '%s' --repeats 0", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--repeats takes an integer 1..100"));
    snprintf(args, sizeof args, "build '%s' --device cpu --repeats 3", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--repeats applies to the GPU builder only"));
    snprintf(args, sizeof args, "build '%s' --empty-space 1.5", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--empty-space takes a number in [0, 1], not '1.5'"));
    snprintf(args, sizeof args, "build '%s' --device cpu --empty-space 0.25", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--empty-space applies to the GPU builder only"));
    snprintf(args, sizeof args, "build '%s' --max-refs-per-triangle 1.5", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--max-refs-per-triangle takes a number in [2, 1024], not '1.5'"));
    snprintf(args, sizeof args, "build '%s' --device cpu --max-refs-per-triangle 16", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--max-refs-per-triangle applies to the GPU builder only"));
    snprintf(args, sizeof args, "build '%s' --device cpu --small-threshold 8", scene);
    CHECK(run(args) == 2 && file_has(g_err, "--small-threshold applies to the GPU builder only"));
    CHECK(run("build --help") == 0 && file_has(g_out, "--device") && file_has(g_out, "--reduce-variant"));

    remove(tree);
    remove(json);
    remove(bad);
    remove(scene);
    remove(other);
    return kd_test_finish("build_cli");
}
