#include "cli_progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kd_parse.h"

/* Redraws at most this often, so a fast loop's calls cost nothing to see. */
#define KD_PROGRESS_PERIOD 0.1
/* The ticker wakes this often to move the elapsed time on. */
#define KD_PROGRESS_TICK 0.25
/* Columns the line may take: it must not wrap, or \r cannot redraw it. */
enum { KD_PROGRESS_COLUMNS = 79 };

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kd_cli_progress_default_io(kd_cli_progress_io *io)
{
    io->out = stderr;
    io->terminal = isatty(fileno(stderr)) != 0;
    io->now = monotonic_seconds;
    io->ticker = true;
    io->delay = 1.0;
    float delay;
    const char *env = getenv("SCANKD_PROGRESS_DELAY");
    if (env && kd_parse_float(env, &delay) && delay >= 0.0f)
        io->delay = delay;
}

void kd_cli_progress_init_io(kd_cli_progress *p, const char *command, bool quiet,
                             const kd_cli_progress_io *io)
{
    memset(p, 0, sizeof *p);
    p->io = *io;
    p->command = command;
    p->enabled = !quiet && io->terminal;
}

void kd_cli_progress_init(kd_cli_progress *p, const char *command, bool quiet)
{
    kd_cli_progress_io io;
    kd_cli_progress_default_io(&io);
    kd_cli_progress_init_io(p, command, quiet, &io);
}

void kd_cli_progress_format(const kd_cli_progress *p, double elapsed, char *text, size_t bytes)
{
    char count[64] = "";
    if (p->total > 0 && p->units)
        snprintf(count, sizeof count, " (%zu/%zu %s)", p->done, p->total, p->units);
    char percent[16] = "";
    if (p->total > 0)
        snprintf(percent, sizeof percent, " %.0f%%",
                 100.0 * (double)(p->done < p->total ? p->done : p->total) / (double)p->total);
    char tail[96];
    snprintf(tail, sizeof tail, "%s%s, %.1f s", percent, count, elapsed);
    /* The step's name gives way first, so the figures always show. */
    char head[160];
    int n = snprintf(head, sizeof head, "scankd %s: %s", p->command ? p->command : "", p->what);
    const int room = KD_PROGRESS_COLUMNS - (int)strlen(tail);
    if (n > room && room > 3)
        snprintf(head + room - 3, sizeof head - (size_t)(room - 3), "...");
    snprintf(text, bytes, "%s%s", head, tail);
}

/* Draws the line where the step has run long enough and the last drawing
 * is old enough (or force); under the lock when the ticker runs. */
static void draw(kd_cli_progress *p, bool force)
{
    const double now = p->io.now();
    if (!p->active || now - p->start < p->io.delay)
        return;
    if (!force && p->drawn && now - p->last_draw < KD_PROGRESS_PERIOD)
        return;
    char text[256];
    kd_cli_progress_format(p, now - p->start, text, sizeof text);
    fprintf(p->io.out, "\r%s\033[K", text);
    fflush(p->io.out);
    p->last_draw = now;
    p->drawn = true;
}

static void *ticker_main(void *arg)
{
    kd_cli_progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(KD_PROGRESS_TICK * 1e9);
        until.tv_sec += until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&p->wake, &p->lock, &until);
        if (!p->stop)
            draw(p, true);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void start_ticker(kd_cli_progress *p)
{
    p->stop = false;
    if (pthread_mutex_init(&p->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&p->wake, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        return;
    }
    p->ticking = pthread_create(&p->thread, NULL, ticker_main, p) == 0;
    if (!p->ticking) { /* no ticker: the line moves only with the step's calls */
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->lock);
    }
}

static void stop_ticker(kd_cli_progress *p)
{
    if (!p->ticking)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    p->ticking = false;
}

void kd_cli_progress_begin(kd_cli_progress *p, const char *what, const char *units)
{
    if (!p)
        return;
    kd_cli_progress_end(p);
    snprintf(p->what, sizeof p->what, "%s", what);
    p->units = units;
    p->done = p->total = 0;
    p->start = p->io.now();
    p->last_draw = 0.0;
    p->drawn = false;
    p->active = p->enabled;
    if (p->active && p->io.ticker)
        start_ticker(p);
}

void kd_cli_progress_update(void *ctx, size_t done, size_t total)
{
    kd_cli_progress *p = ctx;
    if (!p || !p->active)
        return;
    if (p->ticking)
        pthread_mutex_lock(&p->lock);
    p->done = done;
    p->total = total;
    draw(p, false);
    if (p->ticking)
        pthread_mutex_unlock(&p->lock);
}

void kd_cli_progress_end(kd_cli_progress *p)
{
    if (!p || !p->active)
        return;
    stop_ticker(p);
    if (p->drawn) {
        fprintf(p->io.out, "\r\033[K");
        fflush(p->io.out);
    }
    p->active = false;
    p->drawn = false;
}
