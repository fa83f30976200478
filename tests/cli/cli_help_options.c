/* Help and parsing agree: every option that 'scankd <command> --help' lists
 * is one the command accepts (the option tables print the lists they parse
 * from; this holds the commands to it from outside). Each listed option is
 * given with three unknown options after it, so that the command stops at a
 * usage error and never runs: the error must not be about the listed one. */
#include "cli_run.h"

static cli_result g_run, g_help;

/* The options named at the start of a help line: "  -o, --output FILE ..." */
static int line_options(const char *line, char names[][64], int max)
{
    int count = 0;
    const char *s = line + 2;
    while (*s == '-' && count < max) {
        size_t len = strcspn(s, " ,\n");
        if (len >= 64)
            break;
        memcpy(names[count], s, len);
        names[count++][len] = '\0';
        s += len;
        if (s[0] != ',')
            break;
        s += 2;
    }
    return count;
}

static void check_command(const char *command)
{
    cli_run(&g_help, (const char *[]){command, "--help", NULL});
    CHECK_MSG(g_help.exit_code == 0, "%s --help: exit %d", command, g_help.exit_code);
    int listed = 0;
    for (const char *line = g_help.out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, "  -", 3) != 0)
            continue;
        char names[4][64];
        const int n = line_options(line, names, 4);
        for (int k = 0; k < n; k++) {
            if (strcmp(names[k], "-h") == 0 || strcmp(names[k], "--help") == 0)
                continue;
            listed++;
            cli_run(&g_run, (const char *[]){command, names[k], "--zz1", "--zz2", "--zz3", NULL});
            char unknown[320];
            snprintf(unknown, sizeof unknown, "unknown option '%s'", names[k]);
            CHECK_MSG(g_run.exit_code == 2 && !strstr(g_run.err, unknown), "scankd %s %s: exit %d, %s", command,
                      names[k], g_run.exit_code, g_run.err);
        }
    }
    CHECK_MSG(listed > 0, "scankd %s --help lists no option", command);
}

int main(void)
{
    static const char *const commands[] = {"build", "render", "verify", "stats", "bench", "profile", "demo", "info"};
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        check_command(commands[i]);
    return kd_test_finish("cli_help_options");
}
