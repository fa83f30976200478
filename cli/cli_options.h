/* One option table per command. kd_cli_parse reads the command line from the
 * table and kd_cli_print_help prints the option list from the same table, so
 * what a command accepts and what its --help lists cannot drift apart.
 *
 * A table row names an option (and one other spelling), says what kind of
 * value it takes and where in the command's argument struct the value goes
 * (offsetof), and carries its help line. Rows without a name are headings of
 * the help list or the command's positional arguments. -h and --help are
 * every command's and need no row. */
#ifndef KD_CLI_OPTIONS_H
#define KD_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum kd_cli_kind {
    KD_CLI_HEADING = 0, /* no option: a heading of the help list (help: its text) */
    KD_CLI_FLAG,        /* no value: sets a bool */
    KD_CLI_INT,         /* an integer in [min, max] into an int */
    KD_CLI_FLOAT,       /* a number in [min, max] into a float (max INFINITY: none) */
    KD_CLI_STRING,      /* the value itself into a const char * */
    KD_CLI_ENUM,        /* one of names into an int: its index */
    KD_CLI_BYTES,       /* a size in bytes (kd_cli_parse_bytes: 80G) into a uint64_t */
    KD_CLI_CUSTOM,      /* parse reads the option and its values */
    KD_CLI_POSITIONAL   /* not an option: with parse, each goes to it; else at most
                           one, into a const char * (metavar: what it is) */
} kd_cli_kind;

enum {
    KD_CLI_MIN_OPEN = 1u << 0, /* FLOAT: min itself is out of range */
    KD_CLI_MAX_OPEN = 1u << 1, /* FLOAT: max itself is out of range */
    KD_CLI_GPU_ONLY = 1u << 2  /* the first one given is kept in kd_cli_seen */
};

/* Reads the option or argument at argv[*i] (and any values after it) into
 * dest, the field at the row's offset, leaving *i on the last word it used.
 * A parser that fills several fields leaves offset 0 and takes dest as the
 * whole argument struct. Returns KD_EXIT_OK, or KD_EXIT_USAGE with the
 * message printed (kd_cli_usage_error). */
typedef int (*kd_cli_parse_fn)(const char *command, int argc, char **argv, int *i, void *dest);

typedef struct kd_cli_option {
    kd_cli_kind kind;
    const char *name;         /* "--threads"; NULL for headings and positionals */
    const char *alias;        /* another spelling ("-o"; or an older long one, "--builds"), or NULL */
    const char *metavar;      /* the value in the help list: "N", "FILE", "W H" */
    size_t offset;            /* of the value in the command's argument struct */
    double min, max;          /* INT and FLOAT: the accepted range */
    unsigned flags;           /* KD_CLI_MIN_OPEN, ... */
    const char *const *names; /* ENUM: the accepted values, NULL-terminated */
    kd_cli_parse_fn parse;    /* CUSTOM, and POSITIONAL when it takes several */
    const char *expects;      /* what a value must be, for errors; NULL: from the
                                 kind, the range or the names */
    const char *help;         /* the help text, wrapped at 80 columns; '\n'
                                 breaks a line; "%R" is replaced by the range,
                                 "%D" by the default value */
} kd_cli_option;

/* How a command words a bad value (each is what its tests and users know):
 * "--warmup takes an integer 0..100, not '101'", "--threads '0': expected a
 * whole number in 1..256", "--reps wants an integer in [1, 10000]". A bad
 * ENUM value is always worded the second way. */
typedef enum kd_cli_style { KD_CLI_SAY_EXPECTED = 0, KD_CLI_SAY_TAKES, KD_CLI_SAY_WANTS } kd_cli_style;

typedef struct kd_cli_command {
    const char *name;              /* "build": messages read "scankd build: ..." */
    void (*about)(FILE *f);        /* prints the usage line and what the command does */
    const kd_cli_option *options;
    size_t num_options;
    const char *epilog;            /* printed after the option list, or NULL */
    kd_cli_style style;
    size_t args_size;              /* the argument struct, and its defaults, for */
    void (*defaults)(void *args);  /* the "%D" of help texts */
} kd_cli_command;

/* The number of rows of a static table. */
#define KD_CLI_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* Rows of a table at most (kd_cli_parse refuses a longer one). */
enum { KD_CLI_MAX_OPTIONS = 48 };

/* What kd_cli_parse saw besides the values. */
typedef struct kd_cli_seen {
    bool given[KD_CLI_MAX_OPTIONS]; /* by table row */
    const char *first_gpu_only;     /* the first KD_CLI_GPU_ONLY option given, or NULL */
} kd_cli_seen;

/* Parses argv[1..argc) into args (already holding the defaults): -1 to go
 * on, KD_EXIT_OK after -h or --help (help printed on stdout), or
 * KD_EXIT_USAGE (message printed). An unknown option ("-x"; a lone "-" is
 * an argument) is a usage error, whatever follows it; "--" ends the options
 * (every word after it is an argument). seen may be NULL. */
int kd_cli_parse(const kd_cli_command *cmd, int argc, char **argv, void *args, kd_cli_seen *seen);

/* True when the option of that name was given. */
bool kd_cli_given(const kd_cli_command *cmd, const kd_cli_seen *seen, const char *name);

/* The command's help: about, the option list from the table, the epilog. */
void kd_cli_print_help(const kd_cli_command *cmd, FILE *f);

/* True when an argument is -h or --help. */
bool kd_cli_is_help(const char *arg);

#endif
