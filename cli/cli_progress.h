/* The progress line of the CLI's long steps (loading a scene, building a
 * tree, casting rays, checking a tree). The library never prints: its long
 * loops call back with (done, total) counts, and this printer decides what
 * a user sees.
 *
 * A step's line shows only where stderr is a terminal and the command is not
 * --quiet, and only once the step has run for a second: it reads
 * "scankd build: building the tree 42% (3.1 s)", is redrawn in place (\r) at
 * most ten times a second, and is erased when the step ends, so nothing of it
 * is left in a log, a pipe or the lines printed after it. Steps that make no
 * calls back (a GPU build) still show their elapsed time: a ticker thread
 * redraws the line between calls. */
#ifndef KD_CLI_PROGRESS_H
#define KD_CLI_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Where a line goes and how time is told; tests give a file posing as a
 * terminal and a clock of their own. */
typedef struct kd_cli_progress_io {
    FILE *out;           /* stderr */
    bool terminal;       /* out is a terminal: without one no line is drawn */
    double (*now)(void); /* monotonic seconds */
    bool ticker;         /* redraw the elapsed time from a thread between calls */
    double delay;        /* seconds a step runs before its line shows */
} kd_cli_progress_io;

typedef struct kd_cli_progress {
    kd_cli_progress_io io;
    const char *command;
    bool enabled;         /* a terminal, and not quiet */
    /* The step under way. */
    char what[96];
    const char *units;    /* "tiles": counts shown beside the percentage; NULL: none */
    size_t done, total;   /* total 0: no fraction known yet */
    double start, last_draw;
    bool active, drawn;
    /* The ticker. */
    bool ticking, stop;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
} kd_cli_progress;

/* The io of a real run: stderr, whether it is a terminal, the monotonic
 * clock, a ticker, and a delay of a second (SCANKD_PROGRESS_DELAY=SECONDS
 * sets another, so that tests can make a short step show its line). */
void kd_cli_progress_default_io(kd_cli_progress_io *io);

/* A printer for command (messages read "scankd <command>: ..."); quiet: no
 * line ever. The _io form takes the io to use. */
void kd_cli_progress_init(kd_cli_progress *p, const char *command, bool quiet);
void kd_cli_progress_init_io(kd_cli_progress *p, const char *command, bool quiet,
                             const kd_cli_progress_io *io);

/* Starts a step: what it does ("loading bunny.obj"), and the units of its
 * counts, shown beside the percentage ("tiles"), or NULL to show only the
 * percentage. A step under way is ended first. p may be NULL (no line). */
void kd_cli_progress_begin(kd_cli_progress *p, const char *what, const char *units);

/* The step's progress: done of total (total 0: unknown). Its signature is
 * the library's progress callbacks' (kd_render_progress_fn,
 * kd_verify_progress_fn, kd_build_progress_fn, kd_mesh_progress_fn), ctx
 * the printer; ctx may be NULL. */
void kd_cli_progress_update(void *ctx, size_t done, size_t total);

/* Ends the step: its line, if drawn, is erased. p may be NULL. */
void kd_cli_progress_end(kd_cli_progress *p);

/* The text of the line for a step at `elapsed` seconds, cut to fit 79
 * columns (without the \r and the erase-to-end sequence around it). */
void kd_cli_progress_format(const kd_cli_progress *p, double elapsed, char *text, size_t bytes);

#endif
