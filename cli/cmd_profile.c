/* scankd profile: times every variant of the GPU primitives over a list of
 * sizes (powers of two by default) next to CUB's equivalent and a
 * device-to-device copy, each result checked against a CPU reference first;
 * prints tables and writes CSV, JSON and a chart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_profile.h"
#include "cli_options.h"
#include "cli_util.h"
#include "profile_report.h"
#include "profile_sizes.h"
#include "commands.h"


enum { MAX_BLOCK_SIZES = 16, MIN_LOG2 = 0, MAX_LOG2 = KD_PROFILE_MAX_LOG2 };

/* A list of sizes (profile_sizes.h). */
typedef struct size_list {
    size_t n[KD_PROFILE_MAX_SIZES];
    int count;                          /* 0: not given */
} size_list;

typedef struct profile_args {
    bool what[KD_PROFILE_NUM_WHAT];
    int min_log2, max_log2;             /* the powers measured without --sizes */
    size_list sizes, sweep_sizes;       /* --sizes (or the powers), --sweep-sizes */
    kd_profile_options options;
    int seed;                           /* into options.seed */
    int block_sizes[MAX_BLOCK_SIZES];
    int num_block_sizes;
    const char *csv_path, *json_path, *chart_path;
    bool no_chart;
    FILE *text;                         /* the tables, or NULL when stdout carries CSV or JSON */
} profile_args;

/* ---- Options ------------------------------------------------------------------ */

static void print_about(FILE *f)
{
    fprintf(f, "usage: scankd profile [reduce|scan|split|sort|compact|all]... [options]\n"
               "\n"
               "Times every variant of scankd's GPU primitives over a list of sizes, next to\n"
               "CUB's equivalent and a device-to-device copy measured in the same run. Each\n"
               "result is checked against a CPU reference before it is timed; a wrong result is\n"
               "marked FAILED and the command exits 1. Inputs are random and never zero, except\n"
               "compaction's words, half of which are zero.\n"
               "\n"
               "  reduce   the min/max ladder Reduce0..Reduce8 vs CUB DeviceReduce::Min/Max\n"
               "  scan     Hillis-Steele, Blelloch (global, shared), decoupled look-back vs CUB\n"
               "           DeviceScan::ExclusiveSum; segmented scan vs ExclusiveSumByKey\n"
               "  split    split-by-side vs CUB DevicePartition::Flagged\n"
               "  sort     radix sort of key-value pairs vs CUB DeviceRadixSort::SortPairs\n"
               "  compact  stream compaction (flagged, 4- and 16-byte elements; remove the\n"
               "           zeros) vs CUB DeviceSelect::Flagged and DeviceSelect::If, and\n"
               "           split-by-side used as a compaction\n"
               "  all      all five (the default)\n");
}

static void set_defaults(void *args)
{
    profile_args *a = args;
    memset(a, 0, sizeof *a);
    a->min_log2 = 10;
    a->max_log2 = 28;
    a->options.reps = 20;
    a->options.warmup = 3;
    a->options.op = KD_REDUCE_MIN;
    a->seed = 1;
}

/* A primitive's name, or all (dest: the whole profile_args). */
static int parse_what(const char *command, int argc, char **argv, int *i, void *dest)
{
    (void)argc;
    profile_args *a = dest;
    const char *arg = argv[*i];
    const bool all = strcmp(arg, "all") == 0;
    bool known = all;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
        if (all || strcmp(arg, kd_profile_what_name((kd_profile_what)w)) == 0)
            a->what[w] = known = true;
    if (!known)
        return kd_cli_usage_error(command, "unknown primitive '%s' (reduce, scan, split, sort, compact or all)", arg);
    return KD_EXIT_OK;
}

/* A size list (profile_sizes.h) into list; the option's name for errors. */
static int parse_size_list(const char *command, const char *option, const char *text, size_list *list)
{
    kd_error err;
    kd_error_clear(&err);
    if (kd_profile_parse_sizes(text, list->n, KD_PROFILE_MAX_SIZES, &list->count, &err) != KD_OK)
        return kd_cli_usage_error(command, "%s: %s", option, err.message);
    return KD_EXIT_OK;
}

/* --sizes LIST (dest: the whole profile_args). */
static int parse_sizes(const char *command, int argc, char **argv, int *i, void *dest)
{
    profile_args *a = dest;
    const char *v = kd_cli_option_value(command, argc, argv, i);
    return v ? parse_size_list(command, "--sizes", v, &a->sizes) : KD_EXIT_USAGE;
}

/* --sweep-sizes LIST (dest: the whole profile_args). */
static int parse_sweep_sizes(const char *command, int argc, char **argv, int *i, void *dest)
{
    profile_args *a = dest;
    const char *v = kd_cli_option_value(command, argc, argv, i);
    return v ? parse_size_list(command, "--sweep-sizes", v, &a->sweep_sizes) : KD_EXIT_USAGE;
}

/* --block-sizes LIST: powers of two in [32, 1024] (dest: the whole profile_args). */
static int parse_block_sizes(const char *command, int argc, char **argv, int *i, void *dest)
{
    profile_args *a = dest;
    const char *v = kd_cli_option_value(command, argc, argv, i);
    if (!v)
        return KD_EXIT_USAGE;
    char buf[256];
    bool ok = strlen(v) < sizeof buf;
    a->num_block_sizes = 0;
    if (ok) {
        strcpy(buf, v);
        for (char *tok = strtok(buf, ","); tok && ok; tok = strtok(NULL, ",")) {
            long n;
            ok = a->num_block_sizes < MAX_BLOCK_SIZES && kd_parse_int(tok, 32, 1024, &n) && (n & (n - 1)) == 0;
            if (ok)
                a->block_sizes[a->num_block_sizes++] = (int)n;
        }
    }
    if (!ok || a->num_block_sizes == 0)
        return kd_cli_usage_error(command, "--block-sizes wants powers of two in [32, 1024] separated by commas");
    return KD_EXIT_OK;
}

/* --op min|max into a kd_reduce_op. */
static int parse_op(const char *command, int argc, char **argv, int *i, void *dest)
{
    const char *v = kd_cli_option_value(command, argc, argv, i);
    if (!v)
        return KD_EXIT_USAGE;
    if (strcmp(v, "min") == 0)
        *(kd_reduce_op *)dest = KD_REDUCE_MIN;
    else if (strcmp(v, "max") == 0)
        *(kd_reduce_op *)dest = KD_REDUCE_MAX;
    else
        return kd_cli_usage_error(command, "--op wants min or max, not '%s'", v);
    return KD_EXIT_OK;
}

#define ARG(field) offsetof(profile_args, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "primitive", .parse = parse_what},
    {.kind = KD_CLI_CUSTOM, .name = "--sizes", .metavar = "LIST", .parse = parse_sizes,
     .help = "element counts, items separated by commas: A:B the powers 2^A..2^B (default 10:28); "
             "A:B+C or A:B-C each of them plus or minus C; N a count; 2^K, 2^K+C, 2^K-C one size. "
             "E.g. 16:28, 16:28-3 (as the seeds measured), 1000,1000000,3000000, 2^20+3. Up to 2^31, "
             "at most 64 sizes, measured in ascending order; sizes that do not fit in free device "
             "memory are skipped, with a note"},
    {.kind = KD_CLI_INT, .name = "--min-log2", .metavar = "A", .offset = ARG(min_log2), .min = MIN_LOG2,
     .max = MAX_LOG2, .help = "smallest size 2^A (without --sizes)"},
    {.kind = KD_CLI_INT, .name = "--max-log2", .metavar = "B", .offset = ARG(max_log2), .min = MIN_LOG2,
     .max = MAX_LOG2, .help = "largest size 2^B (without --sizes)"},
    {.kind = KD_CLI_INT, .name = "--repeats", .alias = "--reps", .metavar = "N", .offset = ARG(options.reps),
     .min = 1, .max = 10000, .help = "timed runs per measurement, median reported (default %D)"},
    {.kind = KD_CLI_INT, .name = "--warmup", .metavar = "N", .offset = ARG(options.warmup), .min = 0,
     .max = 10000, .help = "untimed runs before them (default %D)"},
    {.kind = KD_CLI_CUSTOM, .name = "--op", .metavar = "min|max", .offset = ARG(options.op), .parse = parse_op,
     .help = "the reduction's operator (default min)"},
    {.kind = KD_CLI_CUSTOM, .name = "--block-sizes", .metavar = "LIST", .parse = parse_block_sizes,
     .help = "also sweep these block sizes, e.g. 128,256,512,1024, for the variants that have one, "
             "and print a table per primitive"},
    {.kind = KD_CLI_CUSTOM, .name = "--sweep-sizes", .metavar = "LIST", .parse = parse_sweep_sizes,
     .help = "sizes of the sweep, as for --sizes (default: the main sizes)"},
    {.kind = KD_CLI_INT, .name = "--seed", .metavar = "N", .offset = ARG(seed), .min = 0, .max = 0x7fffffff,
     .expects = "a non-negative integer", .help = "seed of the random inputs (default %D)"},
    {.kind = KD_CLI_STRING, .name = "--csv", .metavar = "FILE|-", .offset = ARG(csv_path),
     .help = "every row as CSV ('-': stdout, which then carries only the CSV)"},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json_path),
     .help = "every row as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_STRING, .name = "--chart", .metavar = "PATH", .offset = ARG(chart_path),
     .help = "chart of GB/s against n, one line per variant (default out/profile_<what>.png; "
             "'<what>' is replaced by the primitive's name, added before '.png' when absent and "
             "several primitives are profiled)"},
    {.kind = KD_CLI_FLAG, .name = "--no-chart", .offset = ARG(no_chart), .help = "write no chart"},
};

#undef ARG

static const kd_cli_command k_command = {
    .name = "profile",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Timing: CUDA events around each run on one stream; inputs smaller than twice the\n"
              "L2 cache are evicted from it before each timed run. GB/s counts bytes read for\n"
              "reduce, read + written for scan, 2 reads + write for segmented scan, payload read\n"
              "+ side flag + payload written for split, keys and values read and written once\n"
              "for sort, input + flags read and the selected elements written for compact\n"
              "(select-if reads no flags); the copy counts bytes read + written. Sizes are\n"
              "reported as 2^K when a power of two, else as the count itself.\n"
              "\n"
              "Exit status: 0 all verified, 1 a wrong result or a failure (also: no GPU),\n"
              "2 usage error.\n",
    .style = KD_CLI_SAY_WANTS,
    .args_size = sizeof(profile_args),
    .defaults = set_defaults,
};

/* Parses the command line; returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, profile_args *a)
{
    set_defaults(a);
    kd_cli_seen seen;
    const int code = kd_cli_parse(&k_command, argc, argv, a, &seen);
    if (code >= 0)
        return code;
    a->options.seed = (uint64_t)a->seed;
    const bool by_log2 = kd_cli_given(&k_command, &seen, "--min-log2") || kd_cli_given(&k_command, &seen, "--max-log2");
    if (a->sizes.count > 0 && by_log2)
        return kd_cli_usage_error(k_command.name, "--sizes and --min-log2/--max-log2 cannot be combined: "
                                  "give the sizes in one place");
    if (a->min_log2 > a->max_log2)
        return kd_cli_usage_error(k_command.name, "the smallest size 2^%d is above the largest 2^%d",
                                  a->min_log2, a->max_log2);
    if (a->sizes.count == 0)
        a->sizes.count = kd_profile_power_sizes(a->min_log2, a->max_log2, a->sizes.n, KD_PROFILE_MAX_SIZES);
    if (a->sweep_sizes.count == 0)
        a->sweep_sizes = a->sizes;
    bool any_what = false;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
        any_what = any_what || a->what[w];
    for (int w = 0; w < KD_PROFILE_NUM_WHAT && !any_what; w++)
        a->what[w] = true;
    if (kd_cli_is_stdout(a->csv_path) && kd_cli_is_stdout(a->json_path))
        return kd_cli_usage_error(k_command.name, "--csv and --json cannot both write to stdout");
    a->text = kd_cli_is_stdout(a->csv_path) || kd_cli_is_stdout(a->json_path) ? NULL : stdout;
    return -1;
}

/* ---- Steps ---------------------------------------------------------------------- */

/* The chart path for one primitive: '<what>' replaced, or the name added
 * before the extension when several primitives share one path. */
static void chart_path_for(const profile_args *a, kd_profile_what what, int num_what, char *out,
                           size_t bytes)
{
    const char *name = kd_profile_what_name(what);
    const char *pattern = a->chart_path ? a->chart_path : "out/profile_<what>.png";
    const char *mark = strstr(pattern, "<what>");
    if (mark) {
        snprintf(out, bytes, "%.*s%s%s", (int)(mark - pattern), pattern, name, mark + 6);
        return;
    }
    const char *dot = strrchr(pattern, '.');
    if (num_what > 1 && dot)
        snprintf(out, bytes, "%.*s_%s%s", (int)(dot - pattern), pattern, name, dot);
    else if (num_what > 1)
        snprintf(out, bytes, "%s_%s", pattern, name);
    else
        snprintf(out, bytes, "%s", pattern);
}

/* Every file the run will write, checked before any GPU work. */
static bool check_outputs(const profile_args *a)
{
    const char *files[] = {a->csv_path, a->json_path};
    if (!kd_cli_check_outputs(k_command.name, files, 2))
        return false;
    int num_what = 0;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
        num_what += a->what[w];
    for (int w = 0; w < KD_PROFILE_NUM_WHAT && !a->no_chart; w++) {
        char path[1024];
        const char *chart = path;
        if (!a->what[w])
            continue;
        chart_path_for(a, (kd_profile_what)w, num_what, path, sizeof path);
        if (!kd_cli_check_outputs(k_command.name, &chart, 1))
            return false;
    }
    return true;
}

static bool any_failed(const kd_profile_row *rows, int count)
{
    for (int i = 0; i < count; i++)
        if (rows[i].status != KD_PROFILE_OK)
            return true;
    return false;
}

/* Runs the main table (or the sweep) of one primitive over its sizes. */
static kd_status profile_sizes(kd_profile_context *ctx, const profile_args *a, kd_profile_what what,
                               bool sweep, kd_profile_results *results, kd_error *err)
{
    const size_list *sizes = sweep ? &a->sweep_sizes : &a->sizes;
    kd_profile_row rows[KD_PROFILE_MAX_SWEEP_ROWS];
    for (int k = 0; k < sizes->count; k++) {
        const size_t n = sizes->n[k];
        const size_t need = kd_profile_device_bytes(what, n);
        const size_t free_bytes = kd_profile_free_bytes(ctx);
        if (need > free_bytes / 10 * 9) {
            char reason[160];
            snprintf(reason, sizeof reason, "needs %.2f GiB of device memory, %.2f GiB free",
                     need / 1073741824.0, free_bytes / 1073741824.0);
            if (a->text)
                fflush(a->text); /* keep the message next to the table it interrupts */
            char label[32];
            kd_profile_size_label(n, label, sizeof label);
            kd_cli_error(k_command.name, "%s at %s skipped: %s", kd_profile_what_name(what), label, reason);
            if (!sweep) {
                kd_status s = kd_profile_results_skip(results, what, n, reason, err);
                if (s != KD_OK)
                    return s;
            }
            continue;
        }
        int count = 0;
        kd_status s = sweep ? kd_profile_sweep(ctx, what, n, a->block_sizes, a->num_block_sizes,
                                               rows, KD_PROFILE_MAX_SWEEP_ROWS, &count, err)
                            : kd_profile_run(ctx, what, n, rows, KD_PROFILE_MAX_SWEEP_ROWS, &count,
                                             err);
        if (s != KD_OK)
            return s;
        if (!sweep && a->text)
            kd_profile_print_rows(a->text, rows, count);
        s = kd_profile_results_add(results, rows, count, sweep, err);
        if (s != KD_OK)
            return s;
    }
    return KD_OK;
}

/* One primitive: its table and summary, the block-size sweep when asked
 * for, and its chart. */
static kd_status profile_one(kd_profile_context *ctx, const profile_args *a, kd_profile_what what, int num_what,
                             kd_profile_results *results, kd_error *err)
{
    const kd_profile_device *device = kd_profile_context_device(ctx);
    if (a->text)
        kd_profile_print_header(a->text, what, device, &a->options);
    kd_status s = profile_sizes(ctx, a, what, false, results, err);
    if (s != KD_OK)
        return s;
    if (a->text)
        kd_profile_print_summary(a->text, what, results);
    if (a->num_block_sizes > 0) {
        s = profile_sizes(ctx, a, what, true, results, err);
        if (s == KD_ERR_UNSUPPORTED) {
            /* No variant of this primitive has a block size to choose. */
            if (a->text)
                fprintf(a->text, "\n-- block-size sweep, %s: %s\n", kd_profile_what_name(what), err->message);
            kd_error_clear(err);
        } else if (s == KD_OK && a->text) {
            kd_profile_print_sweep(a->text, what, results, a->block_sizes, a->num_block_sizes);
        } else {
            return s;
        }
    }
    if (a->no_chart)
        return KD_OK;
    char path[1024];
    chart_path_for(a, what, num_what, path, sizeof path);
    s = kd_profile_write_chart(path, what, device, &a->options, results, err);
    if (s == KD_OK) {
        if (a->text)
            fprintf(a->text, "chart: %s\n", path);
    } else if (s == KD_ERR_INVALID) {
        kd_cli_error(k_command.name, "no chart for %s: %s", kd_profile_what_name(what), err->message);
        kd_error_clear(err);
        s = KD_OK;
    }
    return s;
}

/* Every primitive asked for, then the CSV and the JSON. */
static kd_status profile_all(kd_profile_context *ctx, const profile_args *a, kd_profile_results *results,
                             kd_error *err)
{
    int num_what = 0;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
        num_what += a->what[w];
    kd_status s = KD_OK;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT && s == KD_OK; w++)
        if (a->what[w])
            s = profile_one(ctx, a, (kd_profile_what)w, num_what, results, err);
    if (s == KD_OK && a->csv_path)
        s = kd_profile_write_csv(a->csv_path, results, err);
    if (s == KD_OK && a->json_path)
        s = kd_profile_write_json(a->json_path, kd_profile_context_device(ctx), &a->options, results, err);
    return s;
}

int kd_cmd_profile(int argc, char **argv)
{
    /* --help anywhere shows the help, even after a primitive it cannot parse. */
    for (int i = 1; i < argc; i++)
        if (kd_cli_is_help(argv[i])) {
            kd_cli_print_help(&k_command, stdout);
            return KD_EXIT_OK;
        }
    profile_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if (!check_outputs(&a))
        return KD_EXIT_FAILURE;
    if (!kd_cli_have_gpu()) {
        kd_cli_error(k_command.name, "no CUDA device: the profiler needs a GPU");
        return KD_EXIT_FAILURE;
    }
    kd_error err;
    kd_error_clear(&err);
    kd_profile_context *ctx = NULL;
    if (kd_profile_context_create(&ctx, &a.options, &err) != KD_OK) {
        kd_cli_error(k_command.name, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    kd_profile_results results;
    memset(&results, 0, sizeof results);
    const kd_status s = profile_all(ctx, &a, &results, &err);
    const bool failed = any_failed(results.rows, results.num_rows) || any_failed(results.sweep, results.num_sweep);
    fflush(stdout);
    if (s != KD_OK)
        kd_cli_error(k_command.name, "%s", err.message);
    else if (failed)
        kd_cli_error(k_command.name, "a variant gave a wrong result or failed to run (marked in the table)");
    kd_profile_results_free(&results);
    kd_profile_context_free(ctx);
    return s != KD_OK || failed ? KD_EXIT_FAILURE : KD_EXIT_OK;
}
