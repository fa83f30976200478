/* scankd bench: its results as a table, as CSV and as JSON. Every build time
 * comes with its rate in millions of triangles per second; the first build
 * of a process (on the GPU it sizes the buffers, the kernels mostly loaded
 * while the scene loaded) is given beside the warm median, and GPU rows give
 * the builder's peak device memory, in bytes and per triangle. */
#include <string.h>

#include "cmd_bench.h"

double kd_bench_mtris_per_second(uint32_t triangles, double ms)
{
    return ms > 0.0 ? (double)triangles / (ms * 1e3) : 0.0;
}

static double bytes_per_triangle(const bench_row *r)
{
    return r->num_triangles ? (double)r->peak_device_bytes / (double)r->num_triangles : 0.0;
}

void kd_bench_print_table(FILE *f, const bench_row *rows, int n)
{
    fprintf(f, "%-28s %-4s %9s %8s %9s %7s %9s %7s %9s %7s %9s %7s %8s %6s %9s %9s %5s %8s %8s %8s %8s\n",
            "scene", "dev", "triangles", "load ms", "build ms", "Mtri/s", "min ms", "Mtri/s", "first ms", "Mtri/s",
            "peak MiB", "B/tri", "SAH", "ratio", "nodes", "leaves", "depth", "refs/tri", "Mrays/s", "diffuse",
            "cpu tree");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char cpu_tree[32] = "-", peak[32] = "-", per_tri[32] = "-";
        if (r->cpu_tree_rays_per_second > 0)
            snprintf(cpu_tree, sizeof cpu_tree, "%.1f", r->cpu_tree_rays_per_second / 1e6);
        if (r->peak_device_bytes > 0) {
            snprintf(peak, sizeof peak, "%.1f", (double)r->peak_device_bytes / (1024.0 * 1024.0));
            snprintf(per_tri, sizeof per_tri, "%.0f", bytes_per_triangle(r));
        }
        fprintf(f, "%-28s %-4s %9u %8.1f %9.2f %7.2f %9.2f %7.2f %9.2f %7.2f %9s %7s %8.2f %6.3f %9u %9u %5u %8.2f "
                   "%8.1f %8.1f %8s\n",
                r->scene, r->device, r->num_triangles, r->load_ms, r->build_median_ms,
                kd_bench_mtris_per_second(r->num_triangles, r->build_median_ms), r->build_min_ms,
                kd_bench_mtris_per_second(r->num_triangles, r->build_min_ms), r->first_build_ms,
                kd_bench_mtris_per_second(r->num_triangles, r->first_build_ms), peak, per_tri, r->stats.sah_cost,
                r->sah_ratio, r->stats.num_nodes, r->stats.num_leaves, r->stats.max_leaf_depth,
                r->stats.refs_per_triangle, r->rays_per_second / 1e6, r->diffuse_rays_per_second / 1e6, cpu_tree);
    }
}

/* A CSV field, quoted (quotes doubled) when it holds a comma, a quote or a
 * line break: a scene's name is the user's. */
static void write_csv_field(FILE *f, const char *text)
{
    if (!strpbrk(text, ",\"\r\n")) {
        fputs(text, f);
        return;
    }
    fputc('"', f);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', f);
        fputc(*text, f);
    }
    fputc('"', f);
}

static void write_csv_row(FILE *f, const bench_row *r)
{
    write_csv_field(f, r->scene);
    const uint32_t t = r->num_triangles;
    fprintf(f, ",%s,%u,%.3f,%.4f,%.3f,%.4f,%.3f,%.4f,%.3f,", r->device, t, r->load_ms, r->build_median_ms,
            kd_bench_mtris_per_second(t, r->build_median_ms), r->build_min_ms,
            kd_bench_mtris_per_second(t, r->build_min_ms), r->first_build_ms,
            kd_bench_mtris_per_second(t, r->first_build_ms));
    if (r->peak_device_bytes > 0) /* empty on CPU rows */
        fprintf(f, "%llu,%.1f", (unsigned long long)r->peak_device_bytes, bytes_per_triangle(r));
    else
        fputc(',', f);
    fprintf(f, ",%.4f,%.4f,%u,%u,%u,%u,%.4f,%d,%d,%.0f,%.0f,%.0f,", r->stats.sah_cost, r->sah_ratio,
            r->stats.num_nodes, r->stats.num_leaves, r->stats.num_empty_leaves, r->stats.max_leaf_depth,
            r->stats.refs_per_triangle, r->width, r->height, r->rays_per_second, r->cpu_tree_rays_per_second,
            r->diffuse_rays_per_second);
    write_csv_field(f, r->view);
    fputc('\n', f);
}

static kd_status write_csv(const char *path, const bench_row *rows, int n, kd_error *err)
{
    kd_outfile out;
    KD_TRY(kd_outfile_open(&out, path, err));
    fprintf(out.file, "scene,device,triangles,load_ms,build_median_ms,build_median_mtris_per_second,"
                      "build_min_ms,build_min_mtris_per_second,first_build_ms,first_build_mtris_per_second,"
                      "peak_device_bytes,peak_device_bytes_per_triangle,sah_cost,sah_ratio_to_cpu,nodes,"
                      "leaves,empty_leaves,max_depth,refs_per_triangle,width,height,rays_per_second,"
                      "cpu_tree_rays_per_second,diffuse_rays_per_second,view\n");
    for (int i = 0; i < n; i++)
        write_csv_row(out.file, &rows[i]);
    return kd_outfile_commit(&out, err);
}

/* A build time and its rate, as two members. */
static void json_build_time(kd_json *json, const char *key, const char *rate_key, uint32_t triangles, double ms)
{
    kd_json_kv_number(json, key, ms);
    kd_json_kv_number(json, rate_key, kd_bench_mtris_per_second(triangles, ms));
}

static void write_json_row(kd_json *json, const bench_row *r)
{
    kd_json_begin_object(json);
    kd_json_kv_string(json, "scene", r->scene);
    kd_json_kv_string(json, "device", r->device);
    kd_json_kv_int(json, "triangles", r->num_triangles);
    kd_json_kv_number(json, "load_ms", r->load_ms);
    json_build_time(json, "build_median_ms", "build_median_mtris_per_second", r->num_triangles,
                    r->build_median_ms);
    json_build_time(json, "build_min_ms", "build_min_mtris_per_second", r->num_triangles, r->build_min_ms);
    json_build_time(json, "first_build_ms", "first_build_mtris_per_second", r->num_triangles, r->first_build_ms);
    if (r->peak_device_bytes > 0) {
        kd_json_kv_int(json, "peak_device_bytes", (int64_t)r->peak_device_bytes);
        kd_json_kv_number(json, "peak_device_bytes_per_triangle", bytes_per_triangle(r));
    }
    kd_json_kv_number(json, "sah_ratio_to_cpu", r->sah_ratio);
    kd_json_kv_int(json, "width", r->width);
    kd_json_kv_int(json, "height", r->height);
    kd_json_kv_string(json, "view", r->view);
    kd_json_kv_number(json, "rays_per_second", r->rays_per_second);
    kd_json_kv_number(json, "diffuse_rays_per_second", r->diffuse_rays_per_second);
    if (r->cpu_tree_rays_per_second > 0)
        kd_json_kv_number(json, "cpu_tree_rays_per_second", r->cpu_tree_rays_per_second);
    kd_json_key(json, "tree");
    kd_json_begin_object(json);
    kd_tree_stats_json(json, &r->stats, NULL);
    kd_json_end_object(json);
    kd_json_end_object(json);
}

static kd_status write_json(const bench_args *a, const bench_row *rows, int n, kd_error *err)
{
    kd_outfile out;
    KD_TRY(kd_outfile_open(&out, a->json_path, err));
    kd_json json;
    kd_json_init(&json, out.file);
    kd_json_begin_object(&json);
    kd_json_kv_int(&json, "builds", a->builds);
    if (a->device_memory_limit)
        kd_json_kv_int(&json, "device_memory_limit", (int64_t)a->device_memory_limit);
    kd_json_key(&json, "results");
    kd_json_begin_array(&json);
    for (int i = 0; i < n; i++)
        write_json_row(&json, &rows[i]);
    kd_json_end_array(&json);
    kd_json_end_object(&json);
    return kd_outfile_commit(&out, err);
}

kd_status kd_bench_write_outputs(const bench_args *a, const bench_row *rows, int n, kd_error *err)
{
    if (a->csv_path)
        KD_TRY(write_csv(a->csv_path, rows, n, err));
    if (a->json_path)
        KD_TRY(write_json(a, rows, n, err));
    return KD_OK;
}
