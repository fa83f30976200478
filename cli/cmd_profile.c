/* scankd profile: times every variant of the GPU primitives over power-of-two
 * sizes next to CUB's equivalent and a device-to-device copy, each result
 * checked against a CPU reference first; prints tables and writes CSV, JSON
 * and a chart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_profile.h"
#include "cli_util.h"
#include "profile_report.h"
#include "commands.h"

static const char *const k_command = "profile";

enum { MAX_BLOCK_SIZES = 16, MIN_LOG2 = 0, MAX_LOG2 = 31 };

typedef struct profile_args {
    bool what[KD_PROFILE_NUM_WHAT];
    int min_log2, max_log2;
    kd_profile_options options;
    int block_sizes[MAX_BLOCK_SIZES];
    int num_block_sizes;
    int sweep_min_log2, sweep_max_log2; /* -1: the main range */
    const char *csv_path, *json_path, *chart_path;
    bool chart;
} profile_args;

static void print_help(void)
{
    printf("usage: scankd profile [reduce|scan|split|sort|all]... [options]\n"
           "\n"
           "Times every variant of scankd's GPU primitives over power-of-two sizes, next to\n"
           "CUB's equivalent and a device-to-device copy measured in the same run. Each\n"
           "result is checked against a CPU reference before it is timed; a wrong result is\n"
           "marked FAILED and the command exits 1. Inputs are random (never zeros).\n"
           "\n"
           "  reduce   the min/max ladder Reduce0..Reduce6 vs CUB DeviceReduce::Min/Max\n"
           "  scan     Hillis-Steele, Blelloch (global, shared), decoupled look-back vs CUB\n"
           "           DeviceScan::ExclusiveSum; segmented scan vs ExclusiveSumByKey\n"
           "  split    split-by-side vs CUB DevicePartition::Flagged\n"
           "  sort     radix sort of key-value pairs vs CUB DeviceRadixSort::SortPairs\n"
           "  all      all four (the default)\n"
           "\n"
           "options:\n"
           "  --sizes A:B          sizes 2^A..2^B elements (default 10:28)\n"
           "  --min-log2 A         smallest size 2^A\n"
           "  --max-log2 B         largest size 2^B (sizes that do not fit in free device\n"
           "                       memory are skipped, with a note)\n"
           "  --reps N             timed runs per measurement, median reported (default 20)\n"
           "  --warmup N           untimed runs before them (default 3)\n"
           "  --op min|max         the reduction's operator (default min)\n"
           "  --block-sizes LIST   also sweep these block sizes, e.g. 128,256,512,1024, for the\n"
           "                       variants that have one, and print a table per primitive\n"
           "  --sweep-sizes A:B    sizes of the sweep (default: the main sizes)\n"
           "  --seed N             seed of the random inputs (default 1)\n"
           "  --csv FILE|-         every row as CSV\n"
           "  --json FILE|-        every row as JSON\n"
           "  --chart PATH         chart of GB/s against n, one line per variant (default\n"
           "                       out/profile_<what>.png; '<what>' is replaced by the\n"
           "                       primitive's name, added before '.png' when absent and\n"
           "                       several primitives are profiled)\n"
           "  --no-chart           write no chart\n"
           "  -h, --help           this help\n"
           "\n"
           "Timing: CUDA events around each run on one stream; inputs smaller than twice the\n"
           "L2 cache are evicted from it before each timed run. GB/s counts bytes read for\n"
           "reduce, read + written for scan, 2 reads + write for segmented scan, payload read\n"
           "+ side flag + payload written for split, keys and values read and written once\n"
           "for sort; the copy counts bytes read + written.\n"
           "\n"
           "Exit status: 0 all verified, 1 a wrong result or a failure (also: no GPU),\n"
           "2 usage error.\n");
}

static bool parse_range(const char *text, int *a, int *b)
{
    char buf[64];
    if (strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    char *colon = strchr(buf, ':');
    if (!colon)
        return false;
    *colon = '\0';
    long lo, hi;
    if (!kd_parse_int(buf, MIN_LOG2, MAX_LOG2, &lo) || !kd_parse_int(colon + 1, MIN_LOG2, MAX_LOG2, &hi))
        return false;
    *a = (int)lo;
    *b = (int)hi;
    return true;
}

static bool parse_block_sizes(const char *text, profile_args *a)
{
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    a->num_block_sizes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        long v;
        if (a->num_block_sizes >= MAX_BLOCK_SIZES || !kd_parse_int(tok, 32, 1024, &v) ||
            (v & (v - 1)) != 0)
            return false;
        a->block_sizes[a->num_block_sizes++] = (int)v;
    }
    return a->num_block_sizes > 0;
}

static int parse_args(int argc, char **argv, profile_args *a)
{
    memset(a, 0, sizeof *a);
    a->min_log2 = 10;
    a->max_log2 = 28;
    a->options.reps = 20;
    a->options.warmup = 3;
    a->options.op = KD_REDUCE_MIN;
    a->options.seed = 1;
    a->sweep_min_log2 = a->sweep_max_log2 = -1;
    a->chart = true;
    bool any_what = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        long num;
        if (arg[0] != '-') {
            bool known = false;
            for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
                if (strcmp(arg, kd_profile_what_name((kd_profile_what)w)) == 0) {
                    a->what[w] = known = true;
                }
            if (strcmp(arg, "all") == 0) {
                for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
                    a->what[w] = true;
                known = true;
            }
            if (!known)
                return kd_cli_usage_error(k_command, "unknown primitive '%s' (reduce, scan, "
                                                     "split, sort or all)", arg);
            any_what = true;
        } else if (strcmp(arg, "--sizes") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (!parse_range(v, &a->min_log2, &a->max_log2) || a->min_log2 > a->max_log2)
                return kd_cli_usage_error(k_command, "--sizes wants A:B with %d <= A <= B <= %d",
                                          MIN_LOG2, MAX_LOG2);
        } else if (strcmp(arg, "--sweep-sizes") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (!parse_range(v, &a->sweep_min_log2, &a->sweep_max_log2) ||
                a->sweep_min_log2 > a->sweep_max_log2)
                return kd_cli_usage_error(k_command, "--sweep-sizes wants A:B with A <= B");
        } else if (strcmp(arg, "--min-log2") == 0 || strcmp(arg, "--max-log2") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (!kd_parse_int(v, MIN_LOG2, MAX_LOG2, &num))
                return kd_cli_usage_error(k_command, "%s wants an integer in [%d, %d]", arg,
                                          MIN_LOG2, MAX_LOG2);
            *(strcmp(arg, "--min-log2") == 0 ? &a->min_log2 : &a->max_log2) = (int)num;
        } else if (strcmp(arg, "--reps") == 0 || strcmp(arg, "--warmup") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            const bool reps = strcmp(arg, "--reps") == 0;
            if (!kd_parse_int(v, reps ? 1 : 0, 10000, &num))
                return kd_cli_usage_error(k_command, "%s wants an integer in [%d, 10000]", arg,
                                          reps ? 1 : 0);
            *(reps ? &a->options.reps : &a->options.warmup) = (int)num;
        } else if (strcmp(arg, "--op") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (strcmp(v, "min") == 0)
                a->options.op = KD_REDUCE_MIN;
            else if (strcmp(v, "max") == 0)
                a->options.op = KD_REDUCE_MAX;
            else
                return kd_cli_usage_error(k_command, "--op wants min or max, not '%s'", v);
        } else if (strcmp(arg, "--block-sizes") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (!parse_block_sizes(v, a))
                return kd_cli_usage_error(k_command, "--block-sizes wants powers of two in "
                                                     "[32, 1024] separated by commas");
        } else if (strcmp(arg, "--seed") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (!kd_parse_int(v, 0, 0x7fffffffL, &num))
                return kd_cli_usage_error(k_command, "--seed wants a non-negative integer");
            a->options.seed = (uint64_t)num;
        } else if (strcmp(arg, "--csv") == 0 || strcmp(arg, "--json") == 0 ||
                   strcmp(arg, "--chart") == 0) {
            if (!(v = kd_cli_option_value(k_command, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (strcmp(arg, "--csv") == 0)
                a->csv_path = v;
            else if (strcmp(arg, "--json") == 0)
                a->json_path = v;
            else
                a->chart_path = v;
        } else if (strcmp(arg, "--no-chart") == 0) {
            a->chart = false;
        } else {
            return kd_cli_usage_error(k_command, "unknown option '%s'", arg);
        }
    }
    if (a->min_log2 > a->max_log2)
        return kd_cli_usage_error(k_command, "the smallest size 2^%d is above the largest 2^%d",
                                  a->min_log2, a->max_log2);
    if (!any_what)
        for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
            a->what[w] = true;
    if (a->csv_path && a->json_path && strcmp(a->csv_path, "-") == 0 &&
        strcmp(a->json_path, "-") == 0)
        return kd_cli_usage_error(k_command, "--csv and --json cannot both write to stdout");
    return KD_EXIT_OK;
}

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

static bool any_failed(const kd_profile_row *rows, int count)
{
    for (int i = 0; i < count; i++)
        if (rows[i].status != KD_PROFILE_OK)
            return true;
    return false;
}

/* Runs the main table (or the sweep) of one primitive over a size range. */
static kd_status profile_sizes(kd_profile_context *ctx, const profile_args *a, kd_profile_what what,
                               bool sweep, kd_profile_results *results, kd_error *err)
{
    const int lo = sweep && a->sweep_min_log2 >= 0 ? a->sweep_min_log2 : a->min_log2;
    const int hi = sweep && a->sweep_max_log2 >= 0 ? a->sweep_max_log2 : a->max_log2;
    kd_profile_row rows[KD_PROFILE_MAX_SWEEP_ROWS];
    for (int l = lo; l <= hi; l++) {
        const size_t n = (size_t)1 << l;
        const size_t need = kd_profile_device_bytes(what, n);
        const size_t free_bytes = kd_profile_free_bytes(ctx);
        if (need > free_bytes / 10 * 9) {
            char reason[160];
            snprintf(reason, sizeof reason, "needs %.2f GiB of device memory, %.2f GiB free",
                     need / 1073741824.0, free_bytes / 1073741824.0);
            fflush(stdout); /* keep the message next to the table it interrupts */
            kd_cli_error(k_command, "%s at 2^%d skipped: %s", kd_profile_what_name(what), l, reason);
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
        if (!sweep)
            kd_profile_print_rows(stdout, rows, count);
        s = kd_profile_results_add(results, rows, count, sweep, err);
        if (s != KD_OK)
            return s;
    }
    return KD_OK;
}

int kd_cmd_profile(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_help();
            return KD_EXIT_OK;
        }
    profile_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != KD_EXIT_OK)
        return rc;
    if (!kd_cli_have_gpu()) {
        kd_cli_error(k_command, "no CUDA device: the profiler needs a GPU");
        return KD_EXIT_FAILURE;
    }

    kd_error err;
    kd_error_clear(&err);
    kd_profile_context *ctx = NULL;
    if (kd_profile_context_create(&ctx, &a.options, &err) != KD_OK) {
        kd_cli_error(k_command, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    const kd_profile_device *device = kd_profile_context_device(ctx);
    kd_profile_results results;
    memset(&results, 0, sizeof results);
    kd_status s = KD_OK;
    int num_what = 0;
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++)
        num_what += a.what[w];

    for (int w = 0; w < KD_PROFILE_NUM_WHAT && s == KD_OK; w++) {
        if (!a.what[w])
            continue;
        const kd_profile_what what = (kd_profile_what)w;
        kd_profile_print_header(stdout, what, device, &a.options);
        s = profile_sizes(ctx, &a, what, false, &results, &err);
        if (s == KD_OK)
            kd_profile_print_summary(stdout, what, &results);
        if (s == KD_OK && a.num_block_sizes > 0) {
            s = profile_sizes(ctx, &a, what, true, &results, &err);
            if (s == KD_ERR_UNSUPPORTED) {
                /* No variant of this primitive has a block size to choose. */
                printf("\n-- block-size sweep, %s: %s\n", kd_profile_what_name(what), err.message);
                kd_error_clear(&err);
                s = KD_OK;
            } else if (s == KD_OK) {
                kd_profile_print_sweep(stdout, what, &results, a.block_sizes, a.num_block_sizes);
            }
        }
        if (s == KD_OK && a.chart) {
            char path[1024];
            chart_path_for(&a, what, num_what, path, sizeof path);
            s = kd_profile_write_chart(path, what, device, &a.options, &results, &err);
            if (s == KD_OK)
                printf("chart: %s\n", path);
            else if (s == KD_ERR_INVALID) {
                kd_cli_error(k_command, "no chart for %s: %s", kd_profile_what_name(what),
                             err.message);
                kd_error_clear(&err);
                s = KD_OK;
            }
        }
    }
    if (s == KD_OK && a.csv_path)
        s = kd_profile_write_csv(a.csv_path, &results, &err);
    if (s == KD_OK && a.json_path)
        s = kd_profile_write_json(a.json_path, device, &a.options, &results, &err);

    const bool failed = any_failed(results.rows, results.num_rows) ||
                        any_failed(results.sweep, results.num_sweep);
    fflush(stdout);
    if (s != KD_OK)
        kd_cli_error(k_command, "%s", err.message);
    else if (failed)
        kd_cli_error(k_command, "a variant gave a wrong result or failed to run (marked in the "
                                "table)");
    kd_profile_results_free(&results);
    kd_profile_context_free(ctx);
    return s != KD_OK || failed ? KD_EXIT_FAILURE : KD_EXIT_OK;
}
