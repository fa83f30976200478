/* Small helpers every subcommand uses: messages and argument parsing (the
 * option tables are cli_options.h's; the JSON writer, number parsing and
 * whole-or-nothing output files are the core library's, included here for
 * the commands). */
#ifndef KD_CLI_UTIL_H
#define KD_CLI_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kd_error.h"
#include "kd_file.h"
#include "kd_json.h"
#include "kd_parse.h"

/* A macro's value as a string literal, for help texts. */
#define KD_CLI_STR_(x) #x
#define KD_CLI_STR(x) KD_CLI_STR_(x)

/* Exit codes of the CLI. */
enum { KD_EXIT_OK = 0, KD_EXIT_FAILURE = 1, KD_EXIT_USAGE = 2 };

/* "scankd <command>: <message>" on stderr. */
void kd_cli_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Usage error: prints the message and "try 'scankd <command> --help'"; returns KD_EXIT_USAGE. */
int kd_cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Fetches the value of an option that takes one ("--size" then argv[i+1]);
 * advances *i. Prints a usage error and returns NULL when it is missing. */
const char *kd_cli_option_value(const char *command, int argc, char **argv, int *i);

/* The last branches of an option loop that takes one scene: an unknown
 * option ("-x"; a lone "-" is a name) or a second scene is a usage error
 * (returns KD_EXIT_USAGE, message printed); else sets *scene to arg and
 * returns KD_EXIT_OK. */
int kd_cli_scene_argument(const char *command, const char *arg, const char **scene);

/* Checks that each of the n output paths (NULL entries skipped) can be
 * written, before any work: prints "scankd <command>: cannot write ..." and
 * returns false at the first that cannot. */
bool kd_cli_check_outputs(const char *command, const char *const *paths, int n);

/* True when path is "-": the output goes to stdout, which then carries it
 * alone (the text report is left out). */
bool kd_cli_is_stdout(const char *path);

/* A size in bytes: a whole number, or a number with a suffix K, M, G or T
 * (powers of 1024, either case, optionally followed by B or iB: 80G, 1.5GiB,
 * 512MB); at least 1 byte. */
bool kd_cli_parse_bytes(const char *text, uint64_t *out);

/* True when a CUDA device is usable (queried once; in cmd_render_common.c,
 * with the --device choice, so that this file needs no CUDA). */
bool kd_cli_have_gpu(void);

#endif
