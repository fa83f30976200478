/* The scankd CLI's generic contract: --help on the tool and on every subcommand
 * exits 0 with a usage text on stdout; no command, or an unknown one, is a usage
 * error (exit 2) explained on stderr. */
#include "cli_run.h"

static cli_result g_run;

static void expect(const char *const *args, int want_code, const char *want_out, const char *want_err)
{
    cli_run(&g_run, args);
    const char *what = cli_describe(args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d (stderr: %s)", what, g_run.exit_code,
              want_code, g_run.err);
    if (want_out)
        CHECK_MSG(strstr(g_run.out, want_out) != NULL, "%s: stdout lacks '%s': %s", what, want_out, g_run.out);
    if (want_err)
        CHECK_MSG(strstr(g_run.err, want_err) != NULL, "%s: stderr lacks '%s': %s", what, want_err, g_run.err);
}

/* --device-memory-limit BYTES on every command that builds on the GPU: a
 * size with a suffix, listed in the help; refused with --device cpu where
 * the command refuses GPU-only options. With a GPU, a build that does not
 * fit the limit fails, saying what it needs. */
static void test_memory_limit(void)
{
    static const char *const commands[] = {"build", "bench", "render", "verify"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        expect((const char *[]){commands[i], "--help", NULL}, 0, "--device-memory-limit BYTES", NULL);
        expect((const char *[]){commands[i], "scene.obj", "--device-memory-limit", "80Q", NULL}, 2, NULL,
               "a size in bytes, such as 512M or 80G");
        expect((const char *[]){commands[i], "scene.obj", "--device-memory-limit", NULL}, 2, NULL,
               "option --device-memory-limit needs a value");
    }
    expect((const char *[]){"build", "scene.obj", "--device", "cpu", "--device-memory-limit", "80G", NULL}, 2, NULL,
           "--device-memory-limit applies to the GPU builder only");
    if (!kd_test_cli_have_gpu())
        return;
    char scene[512];
    kd_test_project_scene("cornell_box.obj", scene, sizeof scene);
    expect((const char *[]){"build", scene, "--device", "gpu", "--device-memory-limit", "1K", NULL}, 1, NULL,
           "GPU build needs");
    expect((const char *[]){"render", scene, "--device", "gpu", "--device-memory-limit", "1K", "-o", "-", NULL}, 1,
           NULL, "GPU build needs");
    expect((const char *[]){"build", scene, "--device", "gpu", "--device-memory-limit", "1G", "--profile", NULL},
           0, "peak device memory", NULL);
}

int main(void)
{
    expect((const char *[]){"--help", NULL}, 0, "usage: scankd", NULL);
    CHECK_MSG(g_run.err[0] == '\0', "--help wrote to stderr: %s", g_run.err);
    expect((const char *[]){"-h", NULL}, 0, "usage: scankd", NULL);
    expect((const char *[]){NULL}, 2, NULL, "scankd: no command given");
    CHECK_MSG(g_run.out[0] == '\0', "usage error wrote to stdout: %s", g_run.out);
    expect((const char *[]){"frobnicate", NULL}, 2, NULL, "unknown command 'frobnicate'");
    expect((const char *[]){"--bogus", NULL}, 2, NULL, "'--bogus'");

    static const char *const commands[] = {"build", "render", "verify", "stats", "bench", "profile", "demo", "info"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "scankd %s", commands[i]);
        expect((const char *[]){commands[i], "--help", NULL}, 0, want, NULL);
        /* The tool's own help lists every subcommand. */
        cli_result help;
        cli_run(&help, (const char *[]){"--help", NULL});
        char listed[64];
        snprintf(listed, sizeof listed, "  %s ", commands[i]);
        CHECK_MSG(strstr(help.out, listed) != NULL, "scankd --help does not list %s", commands[i]);
    }
    /* The GPU builder's small-stage size: 1..64, else a usage error. */
    expect((const char *[]){"bench", "scene.obj", "--small-threshold", "65", NULL}, 2, NULL,
           "--small-threshold '65': expected a whole number in 1..64");
    expect((const char *[]){"bench", "--help", NULL}, 0, "--small-threshold", NULL);
    expect((const char *[]){"bench", "scene.obj", "--empty-space", "-1", NULL}, 2, NULL,
           "--empty-space '-1': expected a number in [0, 1]");
    expect((const char *[]){"bench", "--help", NULL}, 0, "--empty-space", NULL);
    /* Warm-up builds: 0..100, GPU only. */
    expect((const char *[]){"build", "scene.obj", "--warmup", "101", NULL}, 2, NULL,
           "--warmup takes an integer 0..100, not '101'");
    expect((const char *[]){"build", "scene.obj", "--device", "cpu", "--warmup", "1", NULL}, 2, NULL,
           "--warmup applies to the GPU builder only");
    test_memory_limit();
    return kd_test_finish("cli_exit_codes");
}
