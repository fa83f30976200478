/* One convention per kind of option, old spellings kept: --size WxH (and
 * the older W H) on render, verify and bench; --repeats for repeat counts
 * (--builds and --reps still read); -o by its extension (.png, .jpg for
 * JPEG, another refused, '-' for stdout); "--" ends the options; bench
 * takes --threads. */
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;
static char g_scene[512];

static void expect(const char *const *args, int want_code, const char *want_out, const char *want_err)
{
    cli_run(&g_run, args);
    const char *what = cli_describe(args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d: %s", what, g_run.exit_code, want_code,
              g_run.err);
    CHECK_MSG(!want_out || strstr(g_run.out, want_out), "%s: stdout lacks '%s': %s", what, want_out, g_run.out);
    CHECK_MSG(!want_err || strstr(g_run.err, want_err), "%s: stderr lacks '%s': %s", what, want_err, g_run.err);
}

static void test_sizes(void)
{
    expect((const char *[]){"render", g_scene, "--device", "cpu", "--size", "24x10", "-o", "/dev/null", "--json",
                            "-", NULL}, 0, "\"width\": 24", NULL);
    CHECK(strstr(g_run.out, "\"height\": 10"));
    expect((const char *[]){"render", g_scene, "--device", "cpu", "--size", "24", "10", "-o", "/dev/null",
                            "--json", "-", NULL}, 0, "\"height\": 10", NULL);
    expect((const char *[]){"verify", g_scene, "--device", "cpu", "--size", "12X9", "--json", "-", NULL}, 0,
           "\"width\": 12", NULL);
    expect((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "20x8", "--json", "-",
                            NULL}, 0, "\"width\": 20", NULL);
    expect((const char *[]){"bench", g_scene, "--repeats", "1", "--size", "20", "8", "--json", "-", NULL}, 0,
           "\"height\": 8", NULL);
    static const char *const bad[] = {"0x5", "10x", "x10", "10", "10x20000", "10,10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        expect((const char *[]){"render", g_scene, "--size", bad[i], NULL}, 2, NULL, "--size");
        expect((const char *[]){"bench", g_scene, "--size", bad[i], NULL}, 2, NULL, "--size");
    }
}

static void test_repeats(void)
{
    expect((const char *[]){"bench", g_scene, "--repeats", "2", "--json", "-", "--size", "8x8", NULL}, 0,
           "\"builds\": 2", NULL);
    expect((const char *[]){"bench", g_scene, "--builds", "3", "--json", "-", "--size", "8x8", NULL}, 0,
           "\"builds\": 3", NULL);
    expect((const char *[]){"bench", g_scene, "--builds", "0", NULL}, 2, NULL, "--repeats");
    expect((const char *[]){"bench", "--help", NULL}, 0, "--repeats, --builds N", NULL);
    expect((const char *[]){"profile", "--reps", "0", NULL}, 2, NULL, "--repeats");
    expect((const char *[]){"profile", "--repeats", "0", NULL}, 2, NULL, "--repeats");
    expect((const char *[]){"profile", "--help", NULL}, 0, "--repeats, --reps N", NULL);
    expect((const char *[]){"bench", g_scene, "--threads", "1", "--repeats", "1", "--size", "8x8", "--json", "-",
                            NULL}, 0, "\"builds\": 1", NULL);
    expect((const char *[]){"bench", g_scene, "--threads", "0", NULL}, 2, NULL, "--threads");
}

static bool starts_with(const char *path, const unsigned char *magic, size_t n)
{
    unsigned char head[8] = {0};
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t got = fread(head, 1, n, f);
    fclose(f);
    return got == n && memcmp(head, magic, n) == 0;
}

/* Runs command on the scene with -o path (and extra, may be NULL); the file
 * must start with magic. */
static void expect_image(const char *command, const char *name, const char *extra, const char *written,
                         const unsigned char *magic, size_t n)
{
    char path[512], file[512];
    kd_test_tmp_path(name, path, sizeof path);
    kd_test_tmp_path(written ? written : name, file, sizeof file);
    expect((const char *[]){command, g_scene, "--device", "cpu", "--size", "16x16", "-o", path, "--quiet",
                            extra ? "--image" : NULL, extra, NULL}, 0, NULL, NULL);
    CHECK_MSG(starts_with(file, magic, n), "%s: %s is not what its name says", command, file);
    remove(file);
}

static void test_image_names(void)
{
    static const unsigned char jpeg[] = {0xff, 0xd8, 0xff}, png[] = {0x89, 'P', 'N', 'G'};
    expect_image("render", "flags_image.jpg", NULL, NULL, jpeg, 3);
    expect_image("verify", "flags_verify.JPEG", NULL, NULL, jpeg, 3);
    expect_image("render", "flags_several.jpg", "all", "flags_several_steps.jpg", jpeg, 3);
    expect_image("render", "flags_plain", NULL, NULL, png, 4);
    char path[512];
    kd_test_tmp_path("flags_image.bmp", path, sizeof path);
    expect((const char *[]){"render", g_scene, "-o", path, NULL}, 2, NULL, "not .bmp");
    expect((const char *[]){"verify", g_scene, "-o", path, NULL}, 2, NULL, "not .bmp");
    struct stat sb;
    CHECK(stat(path, &sb) != 0);
}

/* "--" ends the options: a scene whose name starts with '-' is a scene. */
static void test_double_dash(void)
{
    char cwd[1024];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(chdir(KD_TEST_TMP_DIR) == 0);
    FILE *in = fopen(g_scene, "rb"), *out = fopen("-dash.obj", "wb");
    int ch;
    while (in && out && (ch = fgetc(in)) != EOF)
        fputc(ch, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    expect((const char *[]){"render", "--size", "8x8", "--device", "cpu", "-o", "-", "--", "-dash.obj", NULL}, 0,
           NULL, NULL);
    expect((const char *[]){"render", "--size", "8x8", "-o", "-", "-dash.obj", NULL}, 2, NULL,
           "unknown option '-dash.obj'");
    expect((const char *[]){"info", "--", "-dash.obj", NULL}, 0, "triangles", NULL);
    expect((const char *[]){"stats", "--tree", "x.kd", "--", "-dash.obj", "--help", NULL}, 2, NULL,
           "more than one scene");
    remove("-dash.obj");
    CHECK(chdir(cwd) == 0);
}

int main(void)
{
    kd_test_tmp_path("flags_scene.obj", g_scene, sizeof g_scene);
    FILE *f = fopen(g_scene, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 2 3 4\nf 5 6 7 8\nf 1 2 6 5\nf 4 3 7 8\nf 1 4 8 5\nf 2 3 7 6\n", f);
    fclose(f);
    test_sizes();
    test_repeats();
    test_image_names();
    test_double_dash();
    remove(g_scene);
    return kd_test_finish("cli_flags");
}
