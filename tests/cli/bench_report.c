/* What scankd bench and build report of a build: every build time with its
 * rate in millions of triangles per second (table, CSV and JSON), the first
 * build of the process apart from the warm median and minimum, and on the
 * GPU the builder's peak device memory in bytes and per triangle (absent on
 * CPU rows); --quiet leaves stderr empty. */
#include <math.h>

#include "cli_run.h"
#include "json_check.h"

static cli_result g_run;
static char g_scene[512];

static void run(const char *const *args)
{
    cli_run(&g_run, args);
    CHECK_MSG(g_run.exit_code == 0, "%s: exit %d: %s", cli_describe(args), g_run.exit_code, g_run.err);
}

/* A rate must be the triangles over the time. */
static void check_rate(const char *row, const char *ms_key, const char *rate_key)
{
    const double triangles = json_number_at(row, "triangles"), ms = json_number_at(row, ms_key);
    const double rate = json_number_at(row, rate_key);
    CHECK_MSG(ms > 0 && fabs(rate - triangles / (ms * 1e3)) <= 1e-6 * rate, "%s %g ms, %s %g for %g triangles",
              ms_key, ms, rate_key, rate, triangles);
}

static void check_json_row(const char *row, bool gpu)
{
    check_rate(row, "build_median_ms", "build_median_mtris_per_second");
    check_rate(row, "build_min_ms", "build_min_mtris_per_second");
    check_rate(row, "first_build_ms", "first_build_mtris_per_second");
    CHECK(json_number_at(row, "build_min_ms") <= json_number_at(row, "build_median_ms"));
    const char *next = strstr(row + 1, "\"scene\"");
    const char *peak = strstr(row, "\"peak_device_bytes\"");
    const bool has_peak = peak && (!next || peak < next);
    CHECK_MSG(has_peak == gpu, "a %s row %s a peak", gpu ? "GPU" : "CPU", has_peak ? "with" : "without");
    if (gpu)
        CHECK(json_number_at(row, "peak_device_bytes") > 0 && json_number_at(row, "peak_device_bytes_per_triangle") > 0);
}

static void test_bench(bool gpu)
{
    const char *device = gpu ? "both" : "cpu";
    run((const char *[]){"bench", g_scene, "--device", device, "--repeats", "3", "--size", "8x8", NULL});
    static const char *const columns[] = {"build ms", "Mtri/s", "min ms", "first ms", "peak MiB", "B/tri"};
    for (size_t i = 0; i < sizeof columns / sizeof columns[0]; i++)
        CHECK_MSG(strstr(g_run.out, columns[i]), "the table lacks '%s':\n%s", columns[i], g_run.out);

    run((const char *[]){"bench", g_scene, "--device", device, "--repeats", "3", "--size", "8x8", "--json", "-",
                         NULL});
    CHECK(json_is_valid(g_run.out));
    const char *cpu_row = strstr(g_run.out, "\"device\": \"cpu\"");
    const char *gpu_row = strstr(g_run.out, "\"device\": \"gpu\"");
    CHECK(cpu_row != NULL && (gpu_row != NULL) == gpu);
    if (cpu_row)
        check_json_row(cpu_row, false);
    if (gpu_row)
        check_json_row(gpu_row, true);

    run((const char *[]){"bench", g_scene, "--device", device, "--repeats", "1", "--size", "8x8", "--csv", "-",
                         NULL});
    CHECK_MSG(strstr(g_run.out, "build_median_ms,build_median_mtris_per_second,build_min_ms,"
                                "build_min_mtris_per_second,first_build_ms,first_build_mtris_per_second,"
                                "peak_device_bytes,peak_device_bytes_per_triangle,sah_cost"),
              "CSV header: %s", g_run.out);
    /* A CPU row leaves the peak empty. */
    const char *cpu_csv = strstr(g_run.out, ",cpu,");
    int empty_fields = 0;
    for (const char *p = cpu_csv; p && *p && *p != '\n'; p++)
        empty_fields += p[0] == ',' && p[1] == ',';
    CHECK_MSG(cpu_csv && empty_fields == 2, "CPU CSV row: %s", g_run.out);
}

static void test_quiet(void)
{
    run((const char *[]){"bench", g_scene, "--device", "cpu", "--repeats", "1", "--size", "8x8", "--quiet",
                         NULL});
    CHECK_MSG(g_run.err[0] == '\0', "bench --quiet wrote to stderr: %s", g_run.err);
    CHECK(strstr(g_run.out, "cornell_box") != NULL);
}

static void test_build_profile(void)
{
    run((const char *[]){"build", g_scene, "--device", "gpu", "--profile", "--repeats", "2", NULL});
    CHECK_MSG(strstr(g_run.out, "  first build ") && strstr(g_run.out, "  peak device memory ") &&
                  strstr(g_run.out, "M triangles/s"),
              "build --profile: %s", g_run.out);
    run((const char *[]){"build", g_scene, "--device", "gpu", "--profile", "--repeats", "2", "--json", "-", NULL});
    const char *profile = strstr(g_run.out, "\"gpu_profile\"");
    CHECK(profile && json_number_at(profile, "first_build_ms") > 0 && json_number_at(profile, "peak_device_bytes") > 0 &&
          json_number_at(profile, "peak_device_bytes_per_triangle") > 0);
}

int main(void)
{
    kd_test_project_scene("cornell_box.obj", g_scene, sizeof g_scene);
    const bool gpu = kd_test_cli_have_gpu();
    test_bench(false);
    if (gpu) {
        test_bench(true);
        test_build_profile();
    }
    test_quiet();
    return kd_test_finish("bench_report");
}
