#include "cli_options.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"

enum { HELP_WIDTH = 80, HELP_MAX_COLUMN = 26 };

bool kd_cli_is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

static bool is_option(const char *arg) { return arg[0] == '-' && arg[1] != '\0'; }

/* The row of an option spelling, or of the positional arguments when arg is
 * NULL; -1 when there is none. */
static int find_row(const kd_cli_command *cmd, const char *arg)
{
    for (size_t r = 0; r < cmd->num_options; r++) {
        const kd_cli_option *o = &cmd->options[r];
        if (!arg && o->kind == KD_CLI_POSITIONAL)
            return (int)r;
        if (arg && o->name && (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0)))
            return (int)r;
    }
    return -1;
}

/* ---- Ranges and what a value must be --------------------------------------- */

/* An INT row's upper bound: its field is an int. */
static long int_max(const kd_cli_option *o) { return o->max > (double)INT_MAX ? INT_MAX : (long)o->max; }

/* The range as help texts show it: "1..64", "[0, 1)", ">= 0", "> 0". */
static void format_range(const kd_cli_option *o, char *out, size_t bytes)
{
    if (o->kind == KD_CLI_INT) {
        snprintf(out, bytes, "%ld..%ld", (long)o->min, int_max(o));
        return;
    }
    const bool min_open = o->flags & KD_CLI_MIN_OPEN, max_open = o->flags & KD_CLI_MAX_OPEN;
    if (isinf(o->max))
        snprintf(out, bytes, "%s %g", min_open ? ">" : ">=", o->min);
    else
        snprintf(out, bytes, "%c%g, %g%c", min_open ? '(' : '[', o->min, o->max, max_open ? ')' : ']');
}

/* "median or sah", "cpu, gpu, both or auto". */
static void format_names(const char *const *names, char *out, size_t bytes)
{
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; names[k] && used < bytes; k++) {
        const char *sep = k == 0 ? "" : names[k + 1] ? ", " : " or ";
        used += (size_t)snprintf(out + used, bytes - used, "%s%s", sep, names[k]);
    }
}

static void format_expects(kd_cli_style style, const kd_cli_option *o, char *out, size_t bytes)
{
    char range[64];
    if (o->expects) {
        snprintf(out, bytes, "%s", o->expects);
    } else if (o->kind == KD_CLI_ENUM) {
        format_names(o->names, out, bytes);
    } else if (o->kind == KD_CLI_BYTES) {
        snprintf(out, bytes, "a size in bytes, such as 512M or 80G (K, M, G, T: powers of 1024)");
    } else if (o->kind == KD_CLI_FLOAT) {
        format_range(o, range, sizeof range);
        snprintf(out, bytes, "a number %s%s", isinf(o->max) ? "" : "in ", range);
    } else if (style == KD_CLI_SAY_WANTS) {
        snprintf(out, bytes, "an integer in [%ld, %ld]", (long)o->min, int_max(o));
    } else {
        format_range(o, range, sizeof range);
        snprintf(out, bytes, "%s %s", style == KD_CLI_SAY_TAKES ? "an integer" : "a whole number in", range);
    }
}

static int bad_value(const kd_cli_command *cmd, const kd_cli_option *o, const char *value)
{
    char expects[256];
    format_expects(cmd->style, o, expects, sizeof expects);
    if (o->kind == KD_CLI_ENUM || cmd->style == KD_CLI_SAY_EXPECTED)
        return kd_cli_usage_error(cmd->name, "%s '%s': expected %s", o->name, value, expects);
    if (cmd->style == KD_CLI_SAY_TAKES)
        return kd_cli_usage_error(cmd->name, "%s takes %s, not '%s'", o->name, expects, value);
    return kd_cli_usage_error(cmd->name, "%s wants %s", o->name, expects);
}

/* ---- Parsing ----------------------------------------------------------------- */

static bool float_in_range(const kd_cli_option *o, float f)
{
    const double x = f;
    bool above = o->flags & KD_CLI_MIN_OPEN ? x > o->min : x >= o->min;
    bool below = o->flags & KD_CLI_MAX_OPEN ? x < o->max : x <= o->max;
    return above && below;
}

/* An option that takes one value: the value into dest. */
static int read_value(const kd_cli_command *cmd, const kd_cli_option *o, const char *value, void *dest)
{
    long n;
    float f;
    uint64_t size;
    switch (o->kind) {
    case KD_CLI_STRING:
        *(const char **)dest = value;
        return KD_EXIT_OK;
    case KD_CLI_INT:
        if (!kd_parse_int(value, (long)o->min, int_max(o), &n))
            return bad_value(cmd, o, value);
        *(int *)dest = (int)n;
        return KD_EXIT_OK;
    case KD_CLI_FLOAT:
        if (!kd_parse_float(value, &f) || !float_in_range(o, f))
            return bad_value(cmd, o, value);
        *(float *)dest = f;
        return KD_EXIT_OK;
    case KD_CLI_BYTES:
        if (!kd_cli_parse_bytes(value, &size))
            return bad_value(cmd, o, value);
        *(uint64_t *)dest = size;
        return KD_EXIT_OK;
    case KD_CLI_ENUM:
        for (int k = 0; o->names[k]; k++)
            if (strcmp(value, o->names[k]) == 0) {
                *(int *)dest = k;
                return KD_EXIT_OK;
            }
        return bad_value(cmd, o, value);
    default:
        return kd_cli_usage_error(cmd->name, "%s: no value to read", o->name);
    }
}

/* The row's option (or positional argument) at argv[*i] into dest. */
static int read_row(const kd_cli_command *cmd, const kd_cli_option *o, int argc, char **argv, int *i,
                    void *dest)
{
    if (o->parse)
        return o->parse(cmd->name, argc, argv, i, dest);
    if (o->kind == KD_CLI_FLAG) {
        *(bool *)dest = true;
        return KD_EXIT_OK;
    }
    if (o->kind == KD_CLI_POSITIONAL) {
        const char **slot = dest;
        if (*slot)
            return kd_cli_usage_error(cmd->name, "more than one %s given ('%s' and '%s')", o->metavar,
                                      *slot, argv[*i]);
        *slot = argv[*i];
        return KD_EXIT_OK;
    }
    const char *value = kd_cli_option_value(cmd->name, argc, argv, i);
    return value ? read_value(cmd, o, value, dest) : KD_EXIT_USAGE;
}

int kd_cli_parse(const kd_cli_command *cmd, int argc, char **argv, void *args, kd_cli_seen *seen)
{
    kd_cli_seen unused;
    if (!seen)
        seen = &unused;
    memset(seen, 0, sizeof *seen);
    if (cmd->num_options > KD_CLI_MAX_OPTIONS) /* a table to split, caught by any run */
        return kd_cli_usage_error(cmd->name, "%zu option rows, more than %d", cmd->num_options,
                                  (int)KD_CLI_MAX_OPTIONS);
    bool options_ended = false; /* after "--" every word is an argument */
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_ended && strcmp(arg, "--") == 0) {
            options_ended = true;
            continue;
        }
        if (!options_ended && kd_cli_is_help(arg)) {
            kd_cli_print_help(cmd, stdout);
            return KD_EXIT_OK;
        }
        const bool option = !options_ended && is_option(arg);
        const int row = find_row(cmd, option ? arg : NULL);
        if (row < 0 && option)
            return kd_cli_usage_error(cmd->name, "unknown option '%s'", arg);
        if (row < 0)
            return kd_cli_usage_error(cmd->name, "unexpected argument '%s'", arg);
        const kd_cli_option *o = &cmd->options[row];
        const int code = read_row(cmd, o, argc, argv, &i, (char *)args + o->offset);
        if (code != KD_EXIT_OK)
            return code;
        seen->given[row] = true;
        if ((o->flags & KD_CLI_GPU_ONLY) && !seen->first_gpu_only)
            seen->first_gpu_only = o->name;
    }
    return -1;
}

bool kd_cli_given(const kd_cli_command *cmd, const kd_cli_seen *seen, const char *name)
{
    const int row = find_row(cmd, name);
    return row >= 0 && seen->given[row];
}

/* ---- Help ---------------------------------------------------------------------- */

/* The default of a row, read from an argument struct holding the defaults. */
static void format_default(const kd_cli_option *o, const void *defaults, char *out, size_t bytes)
{
    if (!defaults) {
        snprintf(out, bytes, "?");
        return;
    }
    const void *p = (const char *)defaults + o->offset;
    const char *s;
    switch (o->kind) {
    case KD_CLI_INT:
        snprintf(out, bytes, "%d", *(const int *)p);
        break;
    case KD_CLI_FLOAT:
        snprintf(out, bytes, "%g", (double)*(const float *)p);
        break;
    case KD_CLI_ENUM:
        snprintf(out, bytes, "%s", *(const int *)p >= 0 ? o->names[*(const int *)p] : "none");
        break;
    case KD_CLI_STRING:
        s = *(const char *const *)p;
        snprintf(out, bytes, "%s", s ? s : "none");
        break;
    case KD_CLI_BYTES:
        if (*(const uint64_t *)p)
            snprintf(out, bytes, "%llu", (unsigned long long)*(const uint64_t *)p);
        else
            snprintf(out, bytes, "none");
        break;
    default:
        snprintf(out, bytes, "?");
    }
}

/* The help text with "%R" and "%D" replaced. */
static void expand_help(const kd_cli_option *o, const void *defaults, char *out, size_t bytes)
{
    size_t used = 0;
    for (const char *s = o->help ? o->help : ""; *s && used + 1 < bytes; s++) {
        char field[64];
        if (s[0] == '%' && (s[1] == 'R' || s[1] == 'D')) {
            if (s[1] == 'R')
                format_range(o, field, sizeof field);
            else
                format_default(o, defaults, field, sizeof field);
            used += (size_t)snprintf(out + used, bytes - used, "%s", field);
            s++;
        } else {
            out[used++] = *s;
        }
    }
    out[used < bytes ? used : bytes - 1] = '\0';
}

/* Prints text from the cursor at column indent, words wrapped at HELP_WIDTH
 * onto lines starting at indent; a '\n' starts a new line, whose leading
 * spaces also indent its wrapped continuation. */
static void print_wrapped(FILE *f, const char *text, int indent)
{
    int col = indent, hang = indent;
    const char *s = text;
    while (*s) {
        if (*s == '\n') {
            s++;
            const int lead = (int)strspn(s, " ");
            fprintf(f, "\n%*s", indent + lead, "");
            col = hang = indent + lead;
            s += lead;
            continue;
        }
        const int gap = (int)strspn(s, " ");
        const int word = (int)strcspn(s + gap, " \n");
        if (word > 0 && col > hang && col + gap + word > HELP_WIDTH) {
            fprintf(f, "\n%*s", hang, "");
            col = hang;
        } else if (word > 0) {
            fprintf(f, "%*s", gap, "");
            col += gap;
        }
        fwrite(s + gap, 1, (size_t)word, f);
        col += word;
        s += gap + word;
    }
    fputc('\n', f);
}

/* "  -o, --output FILE"; a long alias, an older spelling, comes after the
 * name: "  --repeats, --builds N". */
static void format_label(const kd_cli_option *o, char *out, size_t bytes)
{
    const char *meta_gap = o->metavar ? " " : "", *meta = o->metavar ? o->metavar : "";
    if (o->alias && o->alias[1] == '-')
        snprintf(out, bytes, "  %s, %s%s%s", o->name, o->alias, meta_gap, meta);
    else
        snprintf(out, bytes, "  %s%s%s%s%s", o->alias ? o->alias : "", o->alias ? ", " : "", o->name,
                 meta_gap, meta);
}

/* The help column: after the longest label that fits before HELP_MAX_COLUMN. */
static int help_column(const kd_cli_command *cmd)
{
    int column = (int)strlen("  -h, --help") + 2;
    for (size_t r = 0; r < cmd->num_options; r++) {
        const kd_cli_option *o = &cmd->options[r];
        if (!o->name)
            continue;
        char label[128];
        format_label(o, label, sizeof label);
        const int want = (int)strlen(label) + 2;
        if (want > column && want <= HELP_MAX_COLUMN)
            column = want;
    }
    return column;
}

static void print_option(FILE *f, const kd_cli_option *o, const void *defaults, int column)
{
    char label[128], text[2048];
    format_label(o, label, sizeof label);
    expand_help(o, defaults, text, sizeof text);
    if ((int)strlen(label) + 2 > column)
        fprintf(f, "%s\n%*s", label, column, "");
    else
        fprintf(f, "%-*s", column, label);
    print_wrapped(f, text, column);
}

void kd_cli_print_help(const kd_cli_command *cmd, FILE *f)
{
    void *defaults = calloc(1, cmd->args_size ? cmd->args_size : 1);
    if (defaults && cmd->defaults)
        cmd->defaults(defaults);
    cmd->about(f);
    const int column = help_column(cmd);
    fprintf(f, "\noptions:\n");
    print_option(f, &(kd_cli_option){.name = "--help", .alias = "-h", .help = "show this help"}, defaults,
                 column);
    for (size_t r = 0; r < cmd->num_options; r++) {
        const kd_cli_option *o = &cmd->options[r];
        if (o->kind == KD_CLI_HEADING) {
            fputc('\n', f);
            print_wrapped(f, o->help, 0);
        } else if (o->name) {
            print_option(f, o, defaults, column);
        }
    }
    if (cmd->epilog)
        fprintf(f, "\n%s", cmd->epilog);
    free(defaults);
}
