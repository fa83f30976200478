/* The progress printer of the CLI (cli/cli_progress.c) on a file posing as
 * a terminal, with a clock of the test's own: no line before the delay, the
 * percentage and counts once past it, at most one drawing per tenth of a
 * second, the line erased at the end of the step; nothing at all without a
 * terminal or when quiet; a long step name cut to fit 79 columns. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_progress.h"
#include "test_support.h"

static double g_now;

static double fake_now(void) { return g_now; }

/* What the printer wrote to f since the last call, as a string. */
static const char *written(FILE *f)
{
    static char text[4096];
    fflush(f);
    long end = ftell(f);
    rewind(f);
    size_t n = fread(text, 1, (size_t)end < sizeof text - 1 ? (size_t)end : sizeof text - 1, f);
    text[n] = '\0';
    rewind(f);
    if (ftruncate(fileno(f), 0) != 0)
        text[0] = '\0';
    return text;
}

static void start(kd_cli_progress *p, FILE *f, bool terminal, bool quiet)
{
    kd_cli_progress_io io = {.out = f, .terminal = terminal, .now = fake_now, .ticker = false, .delay = 1.0};
    kd_cli_progress_init_io(p, "build", quiet, &io);
    g_now = 100.0;
}

static void test_terminal(FILE *f)
{
    kd_cli_progress p;
    start(&p, f, true, false);
    kd_cli_progress_begin(&p, "casting rays", "tiles");
    g_now += 0.5;
    kd_cli_progress_update(&p, 10, 100);
    CHECK_MSG(written(f)[0] == '\0', "a line before the delay");
    g_now += 1.0;
    kd_cli_progress_update(&p, 42, 100);
    const char *line = written(f);
    CHECK_MSG(strcmp(line, "\rscankd build: casting rays 42% (42/100 tiles), 1.5 s\033[K") == 0, "'%s'", line);
    g_now += 0.05;
    kd_cli_progress_update(&p, 43, 100);
    CHECK_MSG(written(f)[0] == '\0', "redrawn within a tenth of a second");
    g_now += 0.1;
    kd_cli_progress_update(&p, 150, 100); /* more than the total: shown as done */
    line = written(f);
    CHECK_MSG(strstr(line, " 100% (150/100 tiles), 1.6 s"), "'%s'", line);
    kd_cli_progress_end(&p);
    CHECK_MSG(strcmp(written(f), "\r\033[K") == 0, "the line is not erased at the end");
    kd_cli_progress_end(&p); /* a second end erases nothing more */
    CHECK(written(f)[0] == '\0');

    /* A step that ends before its delay leaves nothing to erase. */
    kd_cli_progress_begin(&p, "loading", NULL);
    g_now += 0.2;
    kd_cli_progress_update(&p, 1, 2);
    kd_cli_progress_end(&p);
    CHECK(written(f)[0] == '\0');
    /* Without units or a total: the elapsed time only. */
    kd_cli_progress_begin(&p, "building the tree on the GPU", NULL);
    g_now += 2.0;
    kd_cli_progress_update(&p, 0, 0);
    line = written(f);
    CHECK_MSG(strcmp(line, "\rscankd build: building the tree on the GPU, 2.0 s\033[K") == 0, "'%s'", line);
    /* A new step ends the one before: its line is erased first. */
    kd_cli_progress_begin(&p, "next", NULL);
    CHECK_MSG(strcmp(written(f), "\r\033[K") == 0, "begin does not end the step before");
    kd_cli_progress_end(&p);
}

static void test_silent(FILE *f)
{
    kd_cli_progress p;
    for (int quiet = 0; quiet < 2; quiet++) {
        start(&p, f, quiet == 1, quiet == 1); /* not a terminal; then a terminal, but quiet */
        kd_cli_progress_begin(&p, "casting rays", "tiles");
        g_now += 5.0;
        kd_cli_progress_update(&p, 1, 2);
        kd_cli_progress_end(&p);
        CHECK_MSG(written(f)[0] == '\0', "a line with %s", quiet ? "--quiet" : "no terminal");
    }
    /* NULL printers and callbacks with a NULL context do nothing. */
    kd_cli_progress_begin(NULL, "x", NULL);
    kd_cli_progress_update(NULL, 1, 2);
    kd_cli_progress_end(NULL);
}

static void test_long_name(void)
{
    kd_cli_progress p;
    kd_cli_progress_io io = {.out = stderr, .terminal = true, .now = fake_now, .delay = 1.0};
    kd_cli_progress_init_io(&p, "bench", false, &io);
    char what[90];
    memset(what, 'x', sizeof what - 1);
    what[sizeof what - 1] = '\0';
    kd_cli_progress_begin(&p, what, "builds");
    p.done = 7;
    p.total = 11;
    char text[256];
    kd_cli_progress_format(&p, 12.25, text, sizeof text);
    CHECK_MSG(strlen(text) == 79, "%zu columns: '%s'", strlen(text), text);
    CHECK_MSG(strstr(text, "... 64% (7/11 builds), 12.2 s") || strstr(text, "... 64% (7/11 builds), 12.3 s"),
              "'%s'", text);
    kd_cli_progress_end(&p);
}

int main(void)
{
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        test_terminal(f);
        test_silent(f);
        fclose(f);
    }
    test_long_name();
    return kd_test_finish("cli_progress_line");
}
