/* Output paths are checked before any work, the same way by every command:
 * a file standing where a folder should be, or a folder where the file
 * should be, fails at once (exit 1, "cannot write ..."), before the scene is
 * even read (the scenes named here do not exist, and no message speaks of
 * them); missing folders, however deep, are made (a/b/c). */
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;
static char g_scene[512], g_tree[512];

static void write_scene(void)
{
    kd_test_tmp_path("outputs_scene.obj", g_scene, sizeof g_scene);
    kd_test_tmp_path("outputs_tree.kd", g_tree, sizeof g_tree);
    FILE *f = fopen(g_scene, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n", f);
    fclose(f);
}

/* Fails at once: exit 1, the output named, the missing scene never read. */
static void expect_refused(const char *const *args, const char *output)
{
    cli_run(&g_run, args);
    const char *what = cli_describe(args);
    CHECK_MSG(g_run.exit_code == 1, "%s: exit %d, want 1: %s", what, g_run.exit_code, g_run.err);
    CHECK_MSG(strstr(g_run.err, "cannot write") && strstr(g_run.err, output), "%s: stderr: %s", what, g_run.err);
    CHECK_MSG(!strstr(g_run.err, "missing_scene"), "%s: read the scene first: %s", what, g_run.err);
}

static void expect_made(const char *const *args, const char *path)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == 0, "%s: exit %d: %s", cli_describe(args), g_run.exit_code, g_run.err);
    struct stat sb;
    CHECK_MSG(stat(path, &sb) == 0 && S_ISREG(sb.st_mode), "%s: %s not made", cli_describe(args), path);
}

int main(void)
{
    write_scene();
    char blocker[512], under[600], folder[512], missing[512];
    kd_test_tmp_path("outputs_blocker", blocker, sizeof blocker);
    kd_test_tmp_path("outputs_folder", folder, sizeof folder);
    kd_test_tmp_path("missing_scene.obj", missing, sizeof missing);
    FILE *f = fopen(blocker, "w");
    fputs("a file where a folder is expected\n", f);
    fclose(f);
    mkdir(folder, 0777);
    snprintf(under, sizeof under, "%s/x/out.png", blocker);

    expect_refused((const char *[]){"render", missing, "-o", under, NULL}, under);
    expect_refused((const char *[]){"render", missing, "-o", folder, NULL}, folder);
    expect_refused((const char *[]){"render", missing, "--json", under, NULL}, under);
    expect_refused((const char *[]){"render", missing, "--image", "all", "-o", under, NULL}, blocker);
    expect_refused((const char *[]){"verify", missing, "-o", under, NULL}, under);
    expect_refused((const char *[]){"verify", missing, "--json", folder, NULL}, folder);
    expect_refused((const char *[]){"build", missing, "--save", under, NULL}, under);
    expect_refused((const char *[]){"build", missing, "--json", under, NULL}, under);
    expect_refused((const char *[]){"stats", missing, "--tree", g_tree, "--json", under, NULL}, under);
    expect_refused((const char *[]){"info", missing, "--json", under, NULL}, under);
    expect_refused((const char *[]){"bench", missing, "--json", under, NULL}, under);
    expect_refused((const char *[]){"bench", missing, "--csv", folder, NULL}, folder);
    expect_refused((const char *[]){"profile", "reduce", "--json", under, NULL}, under);
    expect_refused((const char *[]){"profile", "reduce", "--chart", under, NULL}, under);
    /* The demo's folder: refused before anything is rendered. */
    expect_refused((const char *[]){"demo", missing, "--out-dir", blocker, NULL}, blocker);
    CHECK(!strstr(g_run.out, "== scankd render"));
    expect_refused((const char *[]){"demo", "-o", under, NULL}, blocker);

    /* Missing folders are made, three deep, by every writer. */
    char made[700];
    snprintf(made, sizeof made, "%s/outputs_made/a/b/c/shaded.png", KD_TEST_TMP_DIR);
    expect_made((const char *[]){"render", g_scene, "--device", "cpu", "--size", "16x16", "-o", made, "--quiet",
                                 NULL}, made);
    snprintf(made, sizeof made, "%s/outputs_made/d/e/f/t.kd", KD_TEST_TMP_DIR);
    expect_made((const char *[]){"build", g_scene, "--device", "cpu", "--save", made, "--quiet", NULL}, made);
    snprintf(made, sizeof made, "%s/outputs_made/g/h/i/verify.png", KD_TEST_TMP_DIR);
    expect_made((const char *[]){"verify", g_scene, "--device", "cpu", "--size", "16x16", "-o", made, "--quiet",
                                 NULL}, made);
    snprintf(made, sizeof made, "%s/outputs_made/j/k/l/bench.json", KD_TEST_TMP_DIR);
    expect_made((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "8x8", "--json",
                                 made, NULL}, made);
    snprintf(made, sizeof made, "%s/outputs_made/m/n/o/info.json", KD_TEST_TMP_DIR);
    expect_made((const char *[]){"info", g_scene, "--json", made, NULL}, made);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/outputs_made/p/q/r", KD_TEST_TMP_DIR);
    snprintf(made, sizeof made, "%s/demo_verify.png", dir);
    expect_made((const char *[]){"demo", g_scene, "--device", "cpu", "--out-dir", dir, NULL}, made);

    remove(blocker);
    rmdir(folder);
    remove(g_scene);
    return kd_test_finish("cli_outputs");
}
