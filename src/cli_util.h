/* Small helpers every subcommand uses: messages, argument parsing, a JSON
 * writer and output files that appear only when complete. */
#ifndef KD_CLI_UTIL_H
#define KD_CLI_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kd_error.h"

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

/* Strict number parsing: the whole string must be a number in range. */
bool kd_parse_int(const char *text, long min, long max, long *out);
bool kd_parse_float(const char *text, float *out);
/* "a,b,c" into n floats. */
bool kd_parse_float_list(const char *text, float *out, int n);

/* Fetches the value of an option that takes one ("--size" then argv[i+1]);
 * advances *i. Prints a usage error and returns NULL when it is missing. */
const char *kd_cli_option_value(const char *command, int argc, char **argv, int *i);

/* The last branches of an option loop that takes one scene: an unknown
 * option ("-x"; a lone "-" is a name) or a second scene is a usage error
 * (returns KD_EXIT_USAGE, message printed); else sets *scene to arg and
 * returns KD_EXIT_OK. */
int kd_cli_scene_argument(const char *command, const char *arg, const char **scene);

/* True when a CUDA device is usable (queried once). */
bool kd_cli_have_gpu(void);

/* ---- Output files that appear whole or not at all ---------------------- */
/* Writes go to "<path>.tmp-<pid>", renamed over path on commit; "-" means
 * stdout (commit and abort then only flush). */
typedef struct kd_outfile {
    FILE *file;
    char path[1024];
    char tmp_path[1100];
    bool is_stdout;
} kd_outfile;

kd_status kd_outfile_open(kd_outfile *out, const char *path, kd_error *err);
kd_status kd_outfile_commit(kd_outfile *out, kd_error *err);
void kd_outfile_abort(kd_outfile *out);

/* Temporary name next to path for writers that take a file name (PNG). */
void kd_tmp_path_for(const char *path, char *tmp, size_t tmp_bytes);
/* Renames tmp over path; removes tmp on failure. */
kd_status kd_rename_into_place(const char *tmp, const char *path, kd_error *err);
/* Creates the directory part of path if it is missing (one level, like out/). */
kd_status kd_ensure_parent_dir(const char *path, kd_error *err);

/* ---- A minimal streaming JSON writer ----------------------------------- */
enum { KD_JSON_MAX_DEPTH = 32 };

typedef struct kd_json {
    FILE *file;
    int depth;
    bool need_comma[KD_JSON_MAX_DEPTH];
    bool after_key;
} kd_json;

void kd_json_init(kd_json *json, FILE *file);
void kd_json_begin_object(kd_json *json);
void kd_json_end_object(kd_json *json);
void kd_json_begin_array(kd_json *json);
void kd_json_end_array(kd_json *json);
void kd_json_key(kd_json *json, const char *key);
void kd_json_string(kd_json *json, const char *value);
void kd_json_number(kd_json *json, double value); /* NaN/inf written as null */
void kd_json_int(kd_json *json, int64_t value);
void kd_json_bool(kd_json *json, bool value);
void kd_json_null(kd_json *json);
/* key + value shorthands */
void kd_json_kv_string(kd_json *json, const char *key, const char *value);
void kd_json_kv_number(kd_json *json, const char *key, double value);
void kd_json_kv_int(kd_json *json, const char *key, int64_t value);
void kd_json_kv_bool(kd_json *json, const char *key, bool value);

#endif
