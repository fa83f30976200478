/* The option-table mechanism of the CLI (cli/cli_options.c) on a table of
 * every kind: values land in their fields, bad values and unknown options
 * are usage errors worded by the command's style, and the help lists every
 * option of the table with its range and default filled in, within 80
 * columns. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"
#include "cli_util.h"
#include "test_support.h"

typedef struct args {
    const char *scene, *out;
    bool quiet;
    int count, mode;
    float ratio, open_ratio;
    int pair[2];
    uint64_t limit;
} args;

static const char *const k_modes[] = {"fast", "slow", "exact", NULL};

static void defaults(void *p)
{
    args *a = p;
    memset(a, 0, sizeof *a);
    a->count = 7;
    a->mode = 1;
    a->ratio = 0.25f;
}

static int parse_pair(const char *command, int argc, char **argv, int *i, void *dest)
{
    int *pair = dest;
    if (*i + 2 >= argc)
        return kd_cli_usage_error(command, "--pair takes two words");
    pair[0] = atoi(argv[*i + 1]);
    pair[1] = atoi(argv[*i + 2]);
    *i += 2;
    return KD_EXIT_OK;
}

static void about(FILE *f) { fprintf(f, "usage: scankd test SCENE [options]\n"); }

#define ARG(field) offsetof(args, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = ARG(scene)},
    {.kind = KD_CLI_STRING, .name = "--output", .alias = "-o", .metavar = "FILE", .offset = ARG(out),
     .help = "where to write"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "say nothing"},
    {.kind = KD_CLI_HEADING, .help = "numbers:"},
    {.kind = KD_CLI_INT, .name = "--count", .metavar = "N", .offset = ARG(count), .min = 1, .max = 64,
     .flags = KD_CLI_GPU_ONLY, .help = "how many, %R (default %D)"},
    {.kind = KD_CLI_FLOAT, .name = "--ratio", .metavar = "R", .offset = ARG(ratio), .min = 0, .max = 1,
     .help = "a share, %R (default %D); a long line that must be wrapped before the eightieth column "
             "of the terminal, with its continuation indented under the first"},
    {.kind = KD_CLI_FLOAT, .name = "--open-ratio", .metavar = "R", .offset = ARG(open_ratio), .min = 0,
     .max = INFINITY, .flags = KD_CLI_MIN_OPEN, .help = "above zero: %R"},
    {.kind = KD_CLI_ENUM, .name = "--mode", .metavar = "KIND", .offset = ARG(mode), .names = k_modes,
     .flags = KD_CLI_GPU_ONLY, .help = "fast, slow or exact (default %D)"},
    {.kind = KD_CLI_CUSTOM, .name = "--pair", .metavar = "A B", .offset = ARG(pair), .parse = parse_pair,
     .help = "two numbers"},
    {.kind = KD_CLI_BYTES, .name = "--limit", .metavar = "BYTES", .offset = ARG(limit),
     .help = "memory (default %D)"},
};

static kd_cli_command k_command = {
    .name = "test",
    .about = about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0.\n",
    .style = KD_CLI_SAY_TAKES,
    .args_size = sizeof(args),
    .defaults = defaults,
};

static char g_err[4096];
static kd_cli_seen g_seen;

/* Parses the words (after the command's name) with stderr captured in
 * g_err; returns kd_cli_parse's code. */
static int parse(args *a, const char *const *words)
{
    char *argv[32] = {"test"};
    int argc = 1;
    for (; words[argc - 1]; argc++)
        argv[argc] = (char *)words[argc - 1];
    char path[512];
    kd_test_tmp_path("cli_options_err.txt", path, sizeof path);
    fflush(stderr);
    const int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 2);
    close(fd);
    defaults(a);
    const int code = kd_cli_parse(&k_command, argc, argv, a, &g_seen);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(g_err, 1, sizeof g_err - 1, f) : 0;
    g_err[n] = '\0';
    if (f)
        fclose(f);
    return code;
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void expect_usage(const char *const *words, const char *message)
{
    args a;
    const int code = parse(&a, words);
    CHECK_MSG(code == KD_EXIT_USAGE && strstr(g_err, message) && strstr(g_err, "try 'scankd test --help'"),
              "want usage error '%s', got %d: %s", message, code, g_err);
}

static void test_values(void)
{
    args a;
    CHECK(parse(&a, WORDS("scene.obj")) == -1 && strcmp(a.scene, "scene.obj") == 0);
    CHECK(a.count == 7 && a.mode == 1 && a.ratio == 0.25f && !a.quiet && !g_seen.first_gpu_only);
    CHECK(parse(&a, WORDS("-o", "x.png", "s", "--quiet", "--count", "64", "--ratio", "1", "--mode", "exact",
                          "--pair", "3", "4", "--open-ratio", "1e-3", "--count", "1")) == -1);
    CHECK(strcmp(a.out, "x.png") == 0 && strcmp(a.scene, "s") == 0 && a.quiet);
    CHECK(a.count == 1 && a.ratio == 1.0f && a.mode == 2 && a.pair[0] == 3 && a.pair[1] == 4);
    CHECK(a.open_ratio == 1e-3f);
    CHECK(g_seen.first_gpu_only && strcmp(g_seen.first_gpu_only, "--count") == 0);
    CHECK(kd_cli_given(&k_command, &g_seen, "--pair") && kd_cli_given(&k_command, &g_seen, "--output"));
    CHECK(parse(&a, WORDS("-o", "-", "-")) == -1 && strcmp(a.out, "-") == 0 && strcmp(a.scene, "-") == 0);
    CHECK(kd_cli_given(&k_command, &g_seen, "--output") && !kd_cli_given(&k_command, &g_seen, "--pair"));
    CHECK(g_err[0] == '\0');
}

static void test_errors(void)
{
    /* An unknown option is named as such, even with a word after it. */
    expect_usage(WORDS("s", "--bogus", "value"), "scankd test: unknown option '--bogus'");
    expect_usage(WORDS("-x"), "unknown option '-x'");
    expect_usage(WORDS("s", "--count"), "option --count needs a value");
    expect_usage(WORDS("s", "-o"), "option -o needs a value");
    expect_usage(WORDS("a", "b"), "more than one scene given ('a' and 'b')");
    expect_usage(WORDS("s", "--pair", "1"), "--pair takes two words");
    /* The command's wording, from the range. */
    expect_usage(WORDS("s", "--count", "65"), "--count takes an integer 1..64, not '65'");
    expect_usage(WORDS("s", "--count", "2x"), "--count takes an integer 1..64, not '2x'");
    expect_usage(WORDS("s", "--ratio", "1.5"), "--ratio takes a number in [0, 1], not '1.5'");
    expect_usage(WORDS("s", "--open-ratio", "0"), "--open-ratio takes a number > 0, not '0'");
    expect_usage(WORDS("s", "--mode", "quick"), "--mode 'quick': expected fast, slow or exact");
    k_command.style = KD_CLI_SAY_EXPECTED;
    expect_usage(WORDS("s", "--count", "0"), "--count '0': expected a whole number in 1..64");
    k_command.style = KD_CLI_SAY_WANTS;
    expect_usage(WORDS("s", "--count", "0"), "--count wants an integer in [1, 64]");
    k_command.style = KD_CLI_SAY_TAKES;
    /* A table too long to keep track of is refused, whatever the words. */
    static kd_cli_option rows[KD_CLI_MAX_OPTIONS + 1];
    const kd_cli_option *options = k_command.options;
    k_command.options = rows;
    k_command.num_options = KD_CLI_COUNT(rows);
    expect_usage(WORDS("--help"), "option rows, more than");
    k_command.options = options;
    k_command.num_options = KD_CLI_COUNT(k_options);
}

/* The help: every named row listed once with its range and default, the
 * heading, -h, no line past 80 columns. */
static void test_help(void)
{
    char path[512];
    kd_test_tmp_path("cli_options_help.txt", path, sizeof path);
    FILE *f = fopen(path, "w+");
    CHECK(f != NULL);
    if (!f)
        return;
    kd_cli_print_help(&k_command, f);
    rewind(f);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    static const char *const want[] = {
        "usage: scankd test SCENE", "\noptions:\n", "  -h, --help ", "  -o, --output FILE ", "  --quiet ",
        "\nnumbers:\n", "  --count N ", "how many, 1..64 (default 7)", "a share, [0, 1] (default 0.25)",
        "above zero: > 0", "(default slow)", "  --pair A B ", "  --limit BYTES ", "memory (default none)",
        "Exit status: 0.\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK_MSG(strstr(text, want[i]) != NULL, "help lacks '%s':\n%s", want[i], text);
    CHECK_MSG(strstr(text, "scene") == NULL, "the positional row is listed:\n%s", text);
    int width = 0, longest = 0;
    for (const char *s = text; *s; s++) {
        width = *s == '\n' ? 0 : width + 1;
        longest = width > longest ? width : longest;
    }
    CHECK_MSG(longest <= 80, "a help line of %d columns:\n%s", longest, text);
    /* The wrapped line continues under the help column. */
    const char *line = strstr(text, "  --ratio R"), *help = strstr(text, "a share");
    const char *next = line ? strchr(line, '\n') : NULL;
    const size_t column = line && help ? (size_t)(help - line) : 0;
    CHECK_MSG(next && column > 11 && strspn(next + 1, " ") == column, "%s", text);
}

/* Sizes in bytes: kd_cli_parse_bytes, and the BYTES row that reads them. */
static void test_bytes(void)
{
    static const struct {
        const char *text;
        uint64_t want;
    } good[] = {{"7", 7},
                {"80G", 80ull << 30},
                {"80g", 80ull << 30},
                {"1.5K", 1536},
                {"512MiB", 512ull << 20},
                {"512MB", 512ull << 20},
                {"2T", 2ull << 40},
                {"100B", 100},
                {"0.5k", 512}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t got = 0;
        CHECK_MSG(kd_cli_parse_bytes(good[i].text, &got) && got == good[i].want, "'%s': %llu", good[i].text,
                  (unsigned long long)got);
    }
    static const char *const bad[] = {"", "0", "0G", "1.5", "80X", "-1", "G", "1e9", "80GB2", "1.", ".5G",
                                      "1 G", "80Gi", "99999999999T", "1iB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t got = 0;
        CHECK_MSG(!kd_cli_parse_bytes(bad[i], &got), "'%s' read as %llu", bad[i], (unsigned long long)got);
    }
    args a;
    CHECK(parse(&a, WORDS("s")) == -1 && a.limit == 0);
    CHECK(parse(&a, WORDS("s", "--limit", "80G")) == -1 && a.limit == 80ull << 30);
    expect_usage(WORDS("s", "--limit", "80X"), "--limit takes a size in bytes, such as 512M or 80G");
    expect_usage(WORDS("s", "--limit", "0"), "not '0'");
}

int main(void)
{
    test_values();
    test_bytes();
    test_errors();
    test_help();
    return kd_test_finish("cli_options_table");
}
