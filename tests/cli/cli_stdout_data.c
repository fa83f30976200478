/* "-" as an output means pure data on stdout: every subcommand that writes
 * JSON or CSV is run with "-" and its stdout must parse as JSON (a strict
 * check, json_check.h) or as CSV (a header and rows of as many fields), with
 * the text report left out; "render -o -" and "verify -o -" put one PNG on
 * stdout and nothing else. */
#include <sys/stat.h>

#include "cli_run.h"
#include "json_check.h"

static cli_result g_run;
static char g_scene[512], g_tree[512], g_png[512];

static void run(const char *const *args, int want_code)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d: %s", cli_describe(args), g_run.exit_code,
              want_code, g_run.err);
}

static void expect_json(const char *const *args)
{
    run(args, 0);
    CHECK_MSG(json_is_valid(g_run.out), "%s: stdout is not JSON alone:\n%s", cli_describe(args), g_run.out);
}

/* A header line, then rows with as many commas; every line ended. */
static bool is_csv(const char *text, int *rows)
{
    int fields = -1, line = 0;
    *rows = 0;
    for (const char *p = text; *p; line++) {
        const char *end = strchr(p, '\n');
        if (!end)
            return false;
        int commas = 0;
        for (const char *q = p; q < end; q++)
            commas += *q == ',';
        if (fields < 0)
            fields = commas;
        else if (commas != fields)
            return false;
        p = end + 1;
    }
    *rows = line - 1;
    return line >= 2 && fields > 0;
}

static void expect_csv(const char *const *args)
{
    run(args, 0);
    int rows = 0;
    CHECK_MSG(is_csv(g_run.out, &rows) && rows >= 1, "%s: stdout is not CSV alone:\n%s", cli_describe(args),
              g_run.out);
}

/* stdout holds exactly one PNG: its signature first, its IEND chunk last. */
static void expect_png(const char *const *args)
{
    run(args, 0);
    static const char signature[] = "\x89PNG\r\n\x1a\n";
    static const char iend[] = "IEND\xae\x42\x60\x82";
    const size_t n = g_run.out_bytes;
    CHECK_MSG(n > 16 && memcmp(g_run.out, signature, 8) == 0, "%s: stdout does not start a PNG",
              cli_describe(args));
    CHECK_MSG(n > 16 && memcmp(g_run.out + n - 8, iend, 8) == 0, "%s: stdout does not end with the PNG",
              cli_describe(args));
}

static void write_scene(void)
{
    kd_test_tmp_path("stdout_scene.obj", g_scene, sizeof g_scene);
    kd_test_tmp_path("stdout_tree.kd", g_tree, sizeof g_tree);
    kd_test_tmp_path("stdout_image.png", g_png, sizeof g_png);
    FILE *f = fopen(g_scene, "w");
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 2 3 4\nf 5 6 7 8\nf 1 2 6 5\nf 4 3 7 8\nf 1 4 8 5\nf 2 3 7 6\n", f);
    fclose(f);
}

int main(void)
{
    write_scene();
    expect_json((const char *[]){"info", g_scene, "--json", "-", NULL});
    expect_json((const char *[]){"build", g_scene, "--device", "cpu", "--save", g_tree, "--json", "-", NULL});
    expect_json((const char *[]){"stats", g_scene, "--tree", g_tree, "--json", "-", NULL});
    expect_json((const char *[]){"render", g_scene, "--device", "cpu", "--size", "16x16", "-o", g_png, "--json",
                                 "-", NULL});
    expect_json((const char *[]){"render", g_scene, "--tree", g_tree, "--size", "16x16", "-o", g_png, "--json",
                                 "-", NULL});
    expect_json((const char *[]){"verify", g_scene, "--device", "cpu", "--size", "16x16", "--interior-rays",
                                 "20", "--json", "-", NULL});
    expect_json((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "16x16",
                                 "--json", "-", NULL});
    expect_csv((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "16x16",
                                "--csv", "-", NULL});
    /* The other output still goes to its file. */
    char csv[512];
    kd_test_tmp_path("stdout_bench.csv", csv, sizeof csv);
    remove(csv);
    expect_json((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "16x16",
                                 "--json", "-", "--csv", csv, NULL});
    struct stat sb;
    CHECK(stat(csv, &sb) == 0 && sb.st_size > 0);
    remove(csv);
    run((const char *[]){"bench", g_scene, "--json", "-", "--csv", "-", NULL}, 2);

    expect_png((const char *[]){"render", g_scene, "--device", "cpu", "--size", "16x16", "-o", "-", NULL});
    expect_png((const char *[]){"verify", g_scene, "--device", "cpu", "--size", "16x16", "-o", "-", NULL});
    run((const char *[]){"render", g_scene, "-o", "-", "--json", "-", NULL}, 2);
    run((const char *[]){"render", g_scene, "-o", "-", "--image", "all", NULL}, 2);

    /* The profiler needs a GPU; without one it fails with stdout empty. */
    if (kd_test_cli_have_gpu()) {
        expect_json((const char *[]){"profile", "reduce", "--sizes", "10:10", "--repeats", "1", "--warmup", "0",
                                     "--no-chart", "--json", "-", NULL});
        expect_csv((const char *[]){"profile", "reduce", "--sizes", "10:10", "--repeats", "1", "--warmup", "0",
                                    "--no-chart", "--csv", "-", NULL});
    } else {
        run((const char *[]){"profile", "reduce", "--json", "-", NULL}, 1);
        CHECK_MSG(g_run.out_bytes == 0, "profile without a GPU wrote to stdout: %s", g_run.out);
    }
    /* The checker itself tells JSON from text around it. */
    CHECK(json_is_valid("{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\"]}\n"));
    CHECK(!json_is_valid("table\n{\"a\": 1}"));
    CHECK(!json_is_valid("{\"a\": 1,}"));
    CHECK(!json_is_valid("{\"a\": 01}"));
    remove(g_scene);
    remove(g_tree);
    remove(g_png);
    return kd_test_finish("cli_stdout_data");
}
