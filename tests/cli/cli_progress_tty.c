/* The progress line end to end: with SCANKD_PROGRESS_DELAY=0 every step
 * would show its line at once, yet where stderr is a file (the normal case
 * of scripts and of these tests) the commands write none of it: no carriage
 * return and no erase sequence in stderr. On a pseudo-terminal the line does
 * show, and is erased when its step ends; --quiet turns it off there too. */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600 /* posix_openpt */
#endif
#include <errno.h>
#include <sys/stat.h>

#include "cli_run.h"

static cli_result g_run;
static char g_scene[512], g_tree[512], g_png[512];

static void write_scene(void)
{
    kd_test_tmp_path("progress_scene.obj", g_scene, sizeof g_scene);
    kd_test_tmp_path("progress_tree.kd", g_tree, sizeof g_tree);
    kd_test_tmp_path("progress_image.png", g_png, sizeof g_png);
    FILE *f = fopen(g_scene, "w");
    if (!f)
        return;
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
          "f 1 2 3 4\nf 5 6 7 8\nf 1 2 6 5\nf 4 3 7 8\nf 1 4 8 5\nf 2 3 7 6\n", f);
    fclose(f);
}

static bool has_progress(const char *text) { return strchr(text, '\r') || strstr(text, "\033[K"); }

static void expect_no_line(const char *const *args)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == 0, "%s: exit %d: %s", cli_describe(args), g_run.exit_code, g_run.err);
    CHECK_MSG(!has_progress(g_run.err), "%s: a progress line in a file:\n%s", cli_describe(args), g_run.err);
}

/* Runs scankd with stderr on a new pseudo-terminal (stdout to /dev/null);
 * what it wrote there into text. Returns the exit code, -1 on failure. */
static int run_on_tty(const char *const *args, char *text, size_t bytes)
{
    text[0] = '\0';
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0)
        return -1;
    const char *slave_name = ptsname(master);
    const char *argv[32] = {KD_SCANKD_EXE};
    for (int i = 0; args[i] && i < 30; i++)
        argv[i + 1] = args[i];
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        setsid();
        int slave = open(slave_name, O_RDWR);
        int null = open("/dev/null", O_WRONLY);
        if (slave < 0 || null < 0)
            _exit(126);
        dup2(null, 1);
        dup2(slave, 2);
        execv(KD_SCANKD_EXE, (char *const *)argv);
        _exit(127);
    }
    size_t used = 0;
    for (;;) { /* until the child's end closes the terminal (EIO) */
        ssize_t got = read(master, text + used, bytes - 1 - used);
        if (got > 0)
            used += (size_t)got;
        else if (got < 0 && errno == EINTR)
            continue;
        else
            break;
        if (used == bytes - 1)
            used = 0; /* keep reading: only the end matters then */
    }
    text[used] = '\0';
    close(master);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* The last occurrence of what in text, or NULL. */
static const char *last(const char *text, const char *what)
{
    const char *found = NULL;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        found = p;
    return found;
}

static void test_terminal(void)
{
    static char text[65536];
    const char *build[] = {"build", g_scene, "--device", "cpu", NULL};
    int code = run_on_tty(build, text, sizeof text);
    CHECK_MSG(code == 0, "build on a terminal: exit %d: %s", code, text);
    CHECK_MSG(strstr(text, "\rscankd build: loading progress_scene") &&
                  strstr(text, "\rscankd build: building the tree"),
              "no progress line on a terminal: '%s'", text);
    const char *line = last(text, "\rscankd build: building"), *erase = last(text, "\r\033[K");
    CHECK_MSG(line && erase > line, "the line is not erased: '%s'", text);

    const char *quiet[] = {"build", g_scene, "--device", "cpu", "--quiet", NULL};
    code = run_on_tty(quiet, text, sizeof text);
    CHECK_MSG(code == 0 && !has_progress(text), "build --quiet on a terminal: exit %d, '%s'", code, text);
}

int main(void)
{
    write_scene();
    setenv("SCANKD_PROGRESS_DELAY", "0", 1);
    expect_no_line((const char *[]){"info", g_scene, NULL});
    expect_no_line((const char *[]){"build", g_scene, "--device", "cpu", "--save", g_tree, NULL});
    expect_no_line((const char *[]){"stats", g_scene, "--tree", g_tree, NULL});
    expect_no_line((const char *[]){"render", g_scene, "--device", "cpu", "--size", "16x16", "-o", g_png, NULL});
    expect_no_line((const char *[]){"verify", g_scene, "--device", "cpu", "--size", "16x16", "--interior-rays",
                                    "20", NULL});
    expect_no_line((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "16x16",
                                    NULL});
    test_terminal();
    remove(g_scene);
    remove(g_tree);
    remove(g_png);
    return kd_test_finish("cli_progress_tty");
}
