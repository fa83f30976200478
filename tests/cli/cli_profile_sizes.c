/* CPU test of `profile --sizes`: the size list's grammar (profile_sizes.c,
 * compiled in: ranges of powers, offsets, plain counts, 2^K+C, sorted and
 * each once, every malformed or out-of-range text refused with its reason),
 * the labels the reports print, and the command line: a list is accepted
 * (without a GPU the command then exits 1 for want of one, not 2), a bad
 * one is a usage error naming the text, --sizes with --min-log2 is refused. */
#include "cli_run.h"
#include "profile_sizes.h"

static cli_result g_run;

/* Parses text and compares with want (count entries). */
static void expect_sizes(const char *text, const size_t *want, int count)
{
    size_t got[KD_PROFILE_MAX_SIZES];
    int got_count = -1;
    kd_error err;
    kd_error_clear(&err);
    const kd_status s = kd_profile_parse_sizes(text, got, KD_PROFILE_MAX_SIZES, &got_count, &err);
    CHECK_MSG(s == KD_OK, "'%s' refused: %s", text, err.message);
    if (s != KD_OK)
        return;
    CHECK_MSG(got_count == count, "'%s': %d sizes, want %d", text, got_count, count);
    for (int i = 0; i < count && i < got_count; i++)
        CHECK_MSG(got[i] == want[i], "'%s': size %d is %zu, want %zu", text, i, got[i], want[i]);
}

/* The text is refused, and the reason mentions `mention`. */
static void expect_refused(const char *text, const char *mention)
{
    size_t got[KD_PROFILE_MAX_SIZES];
    int count = 0;
    kd_error err;
    kd_error_clear(&err);
    CHECK_MSG(kd_profile_parse_sizes(text, got, KD_PROFILE_MAX_SIZES, &count, &err) == KD_ERR_INVALID,
              "'%s' accepted", text);
    CHECK_MSG(strstr(err.message, mention) != NULL, "'%s': reason '%s' lacks '%s'", text, err.message, mention);
}

static void test_grammar(void)
{
    const size_t p16_28[] = {1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22,
                             1u << 23, 1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28};
    expect_sizes("16:28", p16_28, 13);
    expect_sizes("1000,1000000,3000000", (const size_t[]){1000, 1000000, 3000000}, 3);
    expect_sizes("2^20+3", (const size_t[]){1048579}, 1);
    expect_sizes("2^7-3,2^7", (const size_t[]){125, 128}, 2);
    expect_sizes("16:18-3", (const size_t[]){65533, 131069, 262141}, 3);
    expect_sizes("4:5+1", (const size_t[]){17, 33}, 2);
    /* Ascending, each once, however given. */
    expect_sizes("3000000,1000,2^10,1000,10:10", (const size_t[]){1000, 1024, 3000000}, 3);
    /* The ends of the range. */
    expect_sizes("0:0", (const size_t[]){1}, 1);
    expect_sizes("2^31,2147483647", (const size_t[]){2147483647u, (size_t)1 << 31}, 2);
    expect_sizes("1", (const size_t[]){1}, 1);

    expect_refused("12:10", "12:10");
    expect_refused("10:32", "10:32");
    expect_refused("0", "outside");
    expect_refused("2147483649", "outside");
    expect_refused("2^31+1", "outside");
    expect_refused("2^0-1", "outside");
    expect_refused("2^32", "2^32");
    expect_refused("2^", "2^");
    expect_refused("2^5+", "2^5+");
    expect_refused("", "want");
    expect_refused("1,,2", "want");
    expect_refused("10,", "want");
    expect_refused("-5", "-5");
    expect_refused("1;2", "';'");
    expect_refused("10:20x", "'x'");
    expect_refused("1 000", "' '");
    expect_refused("0:31,2:31-1,5,6,7", "more than 64");
}

static void test_labels(void)
{
    char label[32];
    kd_profile_size_label((size_t)1 << 20, label, sizeof label);
    CHECK(strcmp(label, "2^20") == 0);
    kd_profile_size_label(1048579, label, sizeof label);
    CHECK(strcmp(label, "1048579") == 0);
    kd_profile_size_label(1, label, sizeof label);
    CHECK(strcmp(label, "2^0") == 0);
    CHECK(kd_profile_exact_log2(3) == -1 && kd_profile_exact_log2(0) == -1);
    CHECK(kd_profile_exact_log2((size_t)1 << 31) == 31);
    size_t powers[4];
    CHECK(kd_profile_power_sizes(10, 12, powers, 4) == 3 && powers[0] == 1024 && powers[2] == 4096);
    CHECK(kd_profile_power_sizes(0, 31, powers, 4) == 4);
}

static void expect(const char *const *args, int want_code, const char *want_err)
{
    cli_run(&g_run, args);
    const char *what = cli_describe(args);
    CHECK_MSG(g_run.exit_code == want_code, "%s: exit %d, want %d: %s", what, g_run.exit_code, want_code,
              g_run.err);
    CHECK_MSG(!want_err || strstr(g_run.err, want_err), "%s: stderr lacks '%s': %s", what, want_err, g_run.err);
}

static void test_command_line(void)
{
    cli_run(&g_run, (const char *[]){"profile", "--help", NULL});
    CHECK(g_run.exit_code == 0 && strstr(g_run.out, "2^K+C") && strstr(g_run.out, "compact"));
    expect((const char *[]){"profile", "--sizes", "12:10", NULL}, 2, "12:10");
    expect((const char *[]){"profile", "compact", "--sizes", "2^32", NULL}, 2, "--sizes");
    expect((const char *[]){"profile", "--sizes", "1,,2", NULL}, 2, "--sizes");
    expect((const char *[]){"profile", "--sweep-sizes", "0", "--block-sizes", "256", NULL}, 2, "--sweep-sizes");
    expect((const char *[]){"profile", "--sizes", "10:12", "--max-log2", "14", NULL}, 2, "cannot be combined");
    expect((const char *[]){"profile", "--min-log2", "14", "--max-log2", "12", NULL}, 2, "2^14");
    if (kd_test_cli_have_gpu())
        return; /* the accepted lists would run the profile */
    static const char *const good[] = {"2^20+3", "1000,1000000,3000000", "16:28-3", "16:28,2^20+3"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        expect((const char *[]){"profile", "compact", "--sizes", good[i], "--no-chart", NULL}, 1,
               "no CUDA device");
    expect((const char *[]){"profile", "--min-log2", "12", "--max-log2", "14", NULL}, 1, "no CUDA device");
}

int main(void)
{
    test_grammar();
    test_labels();
    test_command_line();
    return kd_test_finish("cli_profile_sizes");
}
