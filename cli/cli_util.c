#include "cli_util.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void kd_cli_error(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, command ? "scankd %s: " : "scankd: ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

int kd_cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, command ? "scankd %s: " : "scankd: ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    if (command)
        fprintf(stderr, "try 'scankd %s --help'\n", command);
    else
        fprintf(stderr, "try 'scankd --help'\n");
    return KD_EXIT_USAGE;
}

const char *kd_cli_option_value(const char *command, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        kd_cli_usage_error(command, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

int kd_cli_scene_argument(const char *command, const char *arg, const char **scene)
{
    if (arg[0] == '-' && arg[1] != '\0')
        return kd_cli_usage_error(command, "unknown option '%s'", arg);
    if (*scene)
        return kd_cli_usage_error(command, "more than one scene given ('%s' and '%s')", *scene, arg);
    *scene = arg;
    return KD_EXIT_OK;
}

bool kd_cli_is_stdout(const char *path) { return path && strcmp(path, "-") == 0; }

bool kd_cli_check_outputs(const char *command, const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        kd_error err;
        if (paths[i] && kd_check_output_path(paths[i], &err) != KD_OK) {
            kd_cli_error(command, "%s", err.message);
            return false;
        }
    }
    return true;
}

/* The power of 1024 a size suffix stands for (K 1, M 2, G 3, T 4); 0 for
 * anything else. */
static int suffix_power(char c)
{
    static const char k_suffixes[] = "KMGT";
    const char *at = c ? strchr(k_suffixes, toupper((unsigned char)c)) : NULL;
    return at ? (int)(at - k_suffixes) + 1 : 0;
}

bool kd_cli_parse_bytes(const char *text, uint64_t *out)
{
    const char *p = text;
    double whole = 0.0, frac = 0.0, scale = 1.0;
    if (!isdigit((unsigned char)*p))
        return false;
    for (; isdigit((unsigned char)*p); p++)
        whole = 10.0 * whole + (*p - '0');
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p))
            return false;
        for (; isdigit((unsigned char)*p); p++)
            frac += (*p - '0') * (scale /= 10.0);
    }
    const int power = suffix_power(*p);
    if (power == 0 && frac > 0.0)
        return false; /* bytes are whole: a fraction needs a suffix */
    if (power > 0)
        p++;
    if (strcmp(p, "") != 0 && strcmp(p, "B") != 0 && strcmp(p, "b") != 0 &&
        !(power > 0 && (strcmp(p, "iB") == 0 || strcmp(p, "ib") == 0)))
        return false;
    const double bytes = floor((whole + frac) * ldexp(1.0, 10 * power));
    if (!(bytes >= 1.0 && bytes <= 0x1p62))
        return false;
    *out = (uint64_t)bytes;
    return true;
}
