/* What the commands say: render --tree builds nothing and never says it
 * builds; the demo labels its messages "scankd demo:" and lists every image
 * it wrote; bounds never print "-0"; verify fails, saying so, when it
 * verified nothing (a scene too large to frame, or no ray hitting it), and
 * a scene the automatic camera cannot frame is a failure, not a usage error. */
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;

static void write_text(const char *name, const char *text, char *path, size_t bytes)
{
    kd_test_tmp_path(name, path, bytes);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void expect(const char *const *args, int want_code)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d: %s", cli_describe(args), g_run.exit_code,
              want_code, g_run.err);
}

static void test_render_tree_notice(const char *scene)
{
    char tree[512];
    kd_test_tmp_path("messages.kd", tree, sizeof tree);
    expect((const char *[]){"build", scene, "--device", "cpu", "--save", tree, "--quiet", NULL}, 0);
    expect((const char *[]){"render", scene, "--tree", tree, "--size", "8x8", "-o", "-", NULL}, 0);
    CHECK_MSG(!strstr(g_run.err, "builder"), "render --tree speaks of a builder: %s", g_run.err);
    if (!kd_test_cli_have_gpu())
        CHECK_MSG(strstr(g_run.err, "scankd render: no CUDA device, using the CPU ray caster"), "%s", g_run.err);
    remove(tree);
}

static void test_demo(const char *scene)
{
    char missing[512], dir[512];
    kd_test_tmp_path("messages_missing.obj", missing, sizeof missing);
    kd_test_tmp_path("messages_demo", dir, sizeof dir);
    expect((const char *[]){"demo", missing, "--out-dir", dir, NULL}, 1);
    CHECK_MSG(strstr(g_run.err, "scankd demo: ") && !strstr(g_run.err, "scankd render"), "%s", g_run.err);
    expect((const char *[]){"demo", scene, "--device", "cpu", "--out-dir", dir, NULL}, 0);
    const char *listed = strstr(g_run.out, "demo: wrote 3 images");
    CHECK_MSG(listed, "%s", g_run.out);
    static const char *const names[] = {"demo_shaded.png", "demo_steps.png", "demo_verify.png"};
    for (int i = 0; listed && i < 3; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        CHECK_MSG(strstr(listed, path), "the demo's list lacks %s: %s", path, listed);
        CHECK(access(path, R_OK) == 0);
        remove(path);
    }
    rmdir(dir);
}

static void test_negative_zero(void)
{
    char scene[512];
    write_text("messages_zero.obj", "v -0 -0 -0\nv -0 1 -0\nv 1 -0 -0\nf 1 2 3\n", scene, sizeof scene);
    expect((const char *[]){"info", scene, NULL}, 0);
    CHECK_MSG(strstr(g_run.out, "[0, 0, 0] .. [1, 1, 0]") && !strstr(g_run.out, "-0"), "%s", g_run.out);
    expect((const char *[]){"info", scene, "--json", "-", NULL}, 0);
    CHECK_MSG(!strstr(g_run.out, " -0,") && !strstr(g_run.out, " -0\n"), "%s", g_run.out);
    char png[512];
    kd_test_tmp_path("messages_zero.png", png, sizeof png);
    expect((const char *[]){"render", scene, "--device", "cpu", "--size", "8x8", "-o", png, "--up", "-0,1,-0",
                            NULL}, 0);
    CHECK_MSG(strstr(g_run.out, " up 0,1,0 ") && !strstr(g_run.out, ",-0") && !strstr(g_run.out, " -0,"), "%s",
              g_run.out);
    /* A special file is written in place, never replaced by a rename. */
    expect((const char *[]){"render", scene, "--device", "cpu", "--size", "8x8", "-o", png, "--json", "/dev/null",
                            NULL}, 0);
    struct stat sb;
    CHECK(stat("/dev/null", &sb) == 0 && S_ISCHR(sb.st_mode));
    remove(png);
    remove(scene);
}

static void test_nothing_verified(void)
{
    char huge[512], big[512];
    write_text("messages_huge.obj", "v 3e38 3e38 3e38\nv -3e38 3e38 -3e38\nv 3e38 -3e38 -3e38\nf 1 2 3\n", huge,
               sizeof huge);
    write_text("messages_big.obj", "v 1e30 1e30 1e30\nv -1e30 1e30 -1e30\nv 1e30 -1e30 -1e30\nf 1 2 3\n", big,
               sizeof big);
    /* Too large to frame: a failure with its reason, not a usage error. */
    expect((const char *[]){"verify", huge, "--device", "cpu", NULL}, 1);
    CHECK_MSG(strstr(g_run.err, "too large to frame"), "%s", g_run.err);
    expect((const char *[]){"render", huge, "--device", "cpu", "-o", "-", NULL}, 1);
    /* Framed, but no ray test can hit it in single precision. */
    expect((const char *[]){"verify", big, "--device", "cpu", "--size", "32x32", NULL}, 1);
    CHECK_MSG(strstr(g_run.out, "nothing verified: none of the") && strstr(g_run.out, "verify      FAIL"), "%s",
              g_run.out);
    expect((const char *[]){"verify", big, "--device", "cpu", "--size", "32x32", "--json", "-", NULL}, 1);
    CHECK(strstr(g_run.out, "\"nothing_verified\": true") && strstr(g_run.out, "\"pass\": false"));
    remove(huge);
    remove(big);
}

int main(void)
{
    char scene[512];
    write_text("messages_scene.obj",
               "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
               "f 1 2 3 4\nf 5 6 7 8\nf 1 2 6 5\nf 4 3 7 8\nf 1 4 8 5\nf 2 3 7 6\n",
               scene, sizeof scene);
    test_render_tree_notice(scene);
    test_demo(scene);
    test_negative_zero();
    test_nothing_verified();
    /* A good scene still verifies, hits and all. */
    expect((const char *[]){"verify", scene, "--device", "cpu", "--size", "16x16", NULL}, 0);
    CHECK(!strstr(g_run.out, "nothing verified"));
    remove(scene);
    return kd_test_finish("cli_messages");
}
