/* Tables, CSV, JSON and the chart of `scankd profile`. */
#include "profile_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "kd_file.h"
#include "kd_json.h"
#include "profile_sizes.h"

/* ---- Result store ---------------------------------------------------------- */

static kd_status grow(void **items, int *capacity, int needed, size_t item_bytes, kd_error *err)
{
    if (needed <= *capacity)
        return KD_OK;
    int cap = *capacity ? *capacity : 64;
    while (cap < needed)
        cap *= 2;
    void *p = realloc(*items, (size_t)cap * item_bytes);
    if (!p)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for profile rows");
    *items = p;
    *capacity = cap;
    return KD_OK;
}

kd_status kd_profile_results_add(kd_profile_results *r, const kd_profile_row *rows, int count,
                                 bool sweep, kd_error *err)
{
    kd_profile_row **items = sweep ? &r->sweep : &r->rows;
    int *num = sweep ? &r->num_sweep : &r->num_rows;
    int *cap = sweep ? &r->sweep_capacity : &r->rows_capacity;
    kd_status s = grow((void **)items, cap, *num + count, sizeof(kd_profile_row), err);
    if (s != KD_OK)
        return s;
    memcpy(*items + *num, rows, (size_t)count * sizeof(kd_profile_row));
    *num += count;
    return KD_OK;
}

kd_status kd_profile_results_skip(kd_profile_results *r, kd_profile_what what, size_t n,
                                  const char *reason, kd_error *err)
{
    kd_status s = grow((void **)&r->skips, &r->skips_capacity, r->num_skips + 1,
                       sizeof(kd_profile_skip), err);
    if (s != KD_OK)
        return s;
    kd_profile_skip *k = &r->skips[r->num_skips++];
    k->what = what;
    k->n = n;
    snprintf(k->reason, sizeof k->reason, "%s", reason);
    return KD_OK;
}

void kd_profile_results_free(kd_profile_results *r)
{
    free(r->rows);
    free(r->sweep);
    free(r->skips);
    memset(r, 0, sizeof *r);
}

/* ---- Text ------------------------------------------------------------------ */

static const char *status_name(kd_profile_status s)
{
    return s == KD_PROFILE_OK ? "ok" : s == KD_PROFILE_FAILED ? "FAILED" : "ERROR";
}

static const char *kind_name(kd_profile_kind k)
{
    return k == KD_PROFILE_OURS ? "ours" : k == KD_PROFILE_CUB ? "cub" : "copy";
}

void kd_profile_title(kd_profile_what what, const kd_profile_options *options, char *out,
                      size_t out_bytes)
{
    switch (what) {
    case KD_PROFILE_REDUCE:
        snprintf(out, out_bytes, "reduce (%s, float)", options->op == KD_REDUCE_MAX ? "max" : "min");
        break;
    case KD_PROFILE_SCAN: snprintf(out, out_bytes, "scan (exclusive, int32)"); break;
    case KD_PROFILE_SPLIT: snprintf(out, out_bytes, "split by side (uint32 payload)"); break;
    case KD_PROFILE_SORT: snprintf(out, out_bytes, "radix sort (uint32 keys, uint32 values)"); break;
    case KD_PROFILE_COMPACT:
        snprintf(out, out_bytes, "stream compaction (4- and 16-byte elements, half selected)");
        break;
    default: snprintf(out, out_bytes, "%s", kd_profile_what_name(what)); break;
    }
}

void kd_profile_print_header(FILE *f, kd_profile_what what, const kd_profile_device *device,
                             const kd_profile_options *options)
{
    char title[96];
    kd_profile_title(what, options, title, sizeof title);
    fprintf(f, "\n== %s on %s (sm_%d%d, %d SMs, %.0f MB L2)\n", title, device->name,
            device->cc_major, device->cc_minor, device->sm_count, device->l2_bytes / 1e6);
    fprintf(f, "median of %d runs after %d warm-up runs (CUDA events); inputs under %.0f MB are "
               "evicted from L2 before each timed run\n",
            options->reps, options->warmup, 2.0 * device->l2_bytes / 1e6);
    fprintf(f, "GB/s counts %s; the copy counts bytes read + written\n",
            kd_profile_bytes_rule(what));
    fprintf(f, "%-10s %-40s %5s %11s %11s %9s %7s %8s %7s  %s\n", "n", "variant", "block",
            "median us", "min us", "GB/s", "% copy", "speedup", "% CUB", "check");
}

static void fmt_or_dash(char *out, size_t bytes, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(out, bytes, fmt, v);
    else
        snprintf(out, bytes, "-");
}

void kd_profile_print_rows(FILE *f, const kd_profile_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        const kd_profile_row *r = &rows[i];
        char n[24], block[12], med[24], mn[24], gbps[24], share[16], speed[16], cub[16];
        kd_profile_size_label(r->n, n, sizeof n);
        if (r->block_size > 0)
            snprintf(block, sizeof block, "%d", r->block_size);
        else
            snprintf(block, sizeof block, "-");
        fmt_or_dash(med, sizeof med, "%.2f", r->median_us);
        fmt_or_dash(mn, sizeof mn, "%.2f", r->min_us);
        fmt_or_dash(gbps, sizeof gbps, "%.1f", r->gbps);
        fmt_or_dash(share, sizeof share, "%.1f%%", 100.0 * r->copy_share);
        fmt_or_dash(speed, sizeof speed, "%.2fx", r->speedup);
        fmt_or_dash(cub, sizeof cub, "%.1f%%", 100.0 * r->vs_cub);
        fprintf(f, "%-10s %-40s %5s %11s %11s %9s %7s %8s %7s  %s%s%s\n", n, r->variant, block, med,
                mn, gbps, share, speed, cub, status_name(r->status), r->note[0] ? ": " : "",
                r->note);
    }
    fflush(f);
}

static const kd_profile_row *find_row(const kd_profile_results *r, kd_profile_what what, size_t n,
                                      kd_profile_kind kind, const char *prefix)
{
    for (int i = 0; i < r->num_rows; i++) {
        const kd_profile_row *row = &r->rows[i];
        if (row->what == what && row->n == n && row->kind == kind &&
            (!prefix || strncmp(row->variant, prefix, strlen(prefix)) == 0))
            return row;
    }
    return NULL;
}

void kd_profile_print_summary(FILE *f, kd_profile_what what, const kd_profile_results *r)
{
    size_t largest = 0;
    for (int i = 0; i < r->num_rows; i++)
        if (r->rows[i].what == what && r->rows[i].n > largest)
            largest = r->rows[i].n;
    if (largest == 0)
        return;
    char n_label[24];
    kd_profile_size_label(largest, n_label, sizeof n_label);
    fprintf(f, "-- at %s:\n", n_label);
    for (int i = 0; i < r->num_rows; i++) {
        const kd_profile_row *row = &r->rows[i];
        if (row->what == what && row->n == largest && row->kind == KD_PROFILE_OURS &&
            isfinite(row->vs_cub))
            fprintf(f, "   %-40s %8.1f GB/s = %5.1f%% of CUB, %5.1f%% of the copy\n", row->variant,
                    row->gbps, 100.0 * row->vs_cub, 100.0 * row->copy_share);
    }
    if (what != KD_PROFILE_REDUCE)
        return;
    /* The ladder rule: at 2^24 and above, Reduce0..Reduce4 never slow down. */
    int checked = 0, broken = 0;
    for (int i = 0; i < r->num_rows; i++) {
        const kd_profile_row *row = &r->rows[i];
        if (row->what != what || row->n < ((size_t)1 << 24) ||
            strncmp(row->variant, "reduce0", 7) != 0)
            continue;
        const kd_profile_row *prev = row;
        for (int rung = 1; rung <= 4; rung++) {
            char prefix[16];
            snprintf(prefix, sizeof prefix, "reduce%d", rung);
            const kd_profile_row *cur = find_row(r, what, row->n, KD_PROFILE_OURS, prefix);
            if (!cur || !prev || cur->status != KD_PROFILE_OK || prev->status != KD_PROFILE_OK)
                break;
            checked++;
            if (cur->median_us > prev->median_us) {
                broken++;
                kd_profile_size_label(row->n, n_label, sizeof n_label);
                fprintf(f, "   ladder broken at %s: %s (%.2f us) slower than %s (%.2f us)\n",
                        n_label, cur->variant, cur->median_us, prev->variant, prev->median_us);
            }
            prev = cur;
        }
    }
    if (checked > 0 && broken == 0)
        fprintf(f, "   ladder holds: at every size >= 2^24 measured, each of Reduce1..Reduce4 is at "
                   "least as fast as the rung before it (%d pairs)\n",
                checked);
}

void kd_profile_print_sweep(FILE *f, kd_profile_what what, const kd_profile_results *r,
                            const int *block_sizes, int num_block_sizes)
{
    bool any = false;
    for (int i = 0; i < r->num_sweep; i++)
        any |= r->sweep[i].what == what;
    if (!any)
        return;
    fprintf(f, "\n-- block-size sweep, %s: GB/s (median) per block size; * = fastest\n",
            kd_profile_what_name(what));
    fprintf(f, "%-10s %-40s", "n", "variant");
    for (int b = 0; b < num_block_sizes; b++)
        fprintf(f, " %10d", block_sizes[b]);
    fputc('\n', f);
    for (int i = 0; i < r->num_sweep; i++) {
        const kd_profile_row *row = &r->sweep[i];
        if (row->what != what)
            continue;
        /* Print one line per (variant, n) at its first row. */
        bool first = true;
        for (int j = 0; j < i && first; j++)
            first = !(r->sweep[j].what == what && r->sweep[j].n == row->n &&
                      strcmp(r->sweep[j].variant, row->variant) == 0);
        if (!first)
            continue;
        double cells[64];
        double best = -1;
        for (int b = 0; b < num_block_sizes && b < 64; b++) {
            cells[b] = NAN;
            for (int j = i; j < r->num_sweep; j++) {
                const kd_profile_row *c = &r->sweep[j];
                if (c->what == what && c->n == row->n && c->block_size == block_sizes[b] &&
                    strcmp(c->variant, row->variant) == 0)
                    cells[b] = c->status == KD_PROFILE_OK ? c->gbps : -1.0;
            }
            if (isfinite(cells[b]) && cells[b] > best)
                best = cells[b];
        }
        char n_label[24];
        kd_profile_size_label(row->n, n_label, sizeof n_label);
        fprintf(f, "%-10s %-40s", n_label, row->variant);
        for (int b = 0; b < num_block_sizes && b < 64; b++) {
            if (!isfinite(cells[b]))
                fprintf(f, " %10s", "-");
            else if (cells[b] < 0)
                fprintf(f, " %10s", "FAILED");
            else
                fprintf(f, " %9.1f%c", cells[b], cells[b] == best ? '*' : ' ');
        }
        fputc('\n', f);
    }
    fflush(f);
}

/* ---- Files ----------------------------------------------------------------- */

/* log2 n for a power of two; NaN (CSV: empty, JSON: null) for any other
 * size, which the n column holds itself. */
static double exact_log2_or_nan(size_t n)
{
    const int l = kd_profile_exact_log2(n);
    return l >= 0 ? (double)l : NAN;
}

static void csv_number(FILE *f, double v, const char *fmt)
{
    if (isfinite(v))
        fprintf(f, fmt, v);
    fputc(',', f);
}

static void csv_rows(FILE *f, const char *table, const kd_profile_row *rows, int count)
{
    for (int i = 0; i < count; i++) {
        const kd_profile_row *r = &rows[i];
        fprintf(f, "%s,%s,\"%s\",%s,%d,%zu,", table, kd_profile_what_name(r->what), r->variant,
                kind_name(r->kind), r->block_size, r->n);
        csv_number(f, exact_log2_or_nan(r->n), "%.0f");
        csv_number(f, r->median_us, "%.3f");
        csv_number(f, r->min_us, "%.3f");
        csv_number(f, r->bytes, "%.0f");
        csv_number(f, r->gbps, "%.2f");
        csv_number(f, r->copy_share, "%.4f");
        csv_number(f, r->speedup, "%.4f");
        csv_number(f, r->vs_cub, "%.4f");
        /* Notes never hold quotes we did not write; double any to stay valid CSV. */
        fprintf(f, "%d,%s,\"", r->flushed ? 1 : 0, status_name(r->status));
        for (const char *c = r->note; *c; c++) {
            if (*c == '"')
                fputc('"', f);
            fputc(*c, f);
        }
        fputs("\"\n", f);
    }
}

kd_status kd_profile_write_csv(const char *path, const kd_profile_results *r, kd_error *err)
{
    kd_outfile out;
    kd_status s = kd_outfile_open(&out, path, err);
    if (s != KD_OK)
        return s;
    fprintf(out.file, "table,what,variant,kind,block_size,n,log2_n,median_us,min_us,bytes,"
                      "gb_per_s,copy_share,speedup,vs_cub,l2_flushed,status,note\n");
    csv_rows(out.file, "main", r->rows, r->num_rows);
    csv_rows(out.file, "sweep", r->sweep, r->num_sweep);
    return kd_outfile_commit(&out, err);
}

static void json_rows(kd_json *j, const kd_profile_row *rows, int count, kd_profile_what what)
{
    kd_json_begin_array(j);
    for (int i = 0; i < count; i++) {
        const kd_profile_row *r = &rows[i];
        if (r->what != what)
            continue;
        kd_json_begin_object(j);
        kd_json_kv_string(j, "variant", r->variant);
        kd_json_kv_string(j, "kind", kind_name(r->kind));
        kd_json_kv_int(j, "block_size", r->block_size);
        kd_json_kv_int(j, "n", (int64_t)r->n);
        kd_json_kv_number(j, "log2_n", exact_log2_or_nan(r->n));
        kd_json_kv_number(j, "median_us", r->median_us);
        kd_json_kv_number(j, "min_us", r->min_us);
        kd_json_kv_number(j, "bytes", r->bytes);
        kd_json_kv_number(j, "gb_per_s", r->gbps);
        kd_json_kv_number(j, "copy_share", r->copy_share);
        kd_json_kv_number(j, "speedup", r->speedup);
        kd_json_kv_number(j, "vs_cub", r->vs_cub);
        kd_json_kv_bool(j, "l2_flushed", r->flushed);
        kd_json_kv_string(j, "status", status_name(r->status));
        kd_json_kv_string(j, "note", r->note);
        kd_json_end_object(j);
    }
    kd_json_end_array(j);
}

kd_status kd_profile_write_json(const char *path, const kd_profile_device *device,
                                const kd_profile_options *options, const kd_profile_results *r,
                                kd_error *err)
{
    kd_outfile out;
    kd_status s = kd_outfile_open(&out, path, err);
    if (s != KD_OK)
        return s;
    kd_json j;
    kd_json_init(&j, out.file);
    kd_json_begin_object(&j);
    kd_json_kv_string(&j, "command", "profile");
    kd_json_key(&j, "device");
    kd_json_begin_object(&j);
    kd_json_kv_string(&j, "name", device->name);
    kd_json_kv_int(&j, "sm_count", device->sm_count);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", device->cc_major, device->cc_minor);
    kd_json_kv_string(&j, "compute_capability", cc);
    kd_json_kv_int(&j, "l2_bytes", (int64_t)device->l2_bytes);
    kd_json_kv_int(&j, "total_bytes", (int64_t)device->total_bytes);
    kd_json_end_object(&j);
    kd_json_key(&j, "settings");
    kd_json_begin_object(&j);
    kd_json_kv_int(&j, "reps", options->reps);
    kd_json_kv_int(&j, "warmup", options->warmup);
    kd_json_kv_string(&j, "reduce_op", options->op == KD_REDUCE_MAX ? "max" : "min");
    kd_json_kv_int(&j, "seed", (int64_t)options->seed);
    kd_json_kv_int(&j, "l2_flush_below_bytes", (int64_t)(2 * device->l2_bytes));
    kd_json_kv_string(&j, "timing", "median of reps, CUDA events around each run");
    kd_json_end_object(&j);
    bool ok = true;
    for (int i = 0; i < r->num_rows; i++)
        ok &= r->rows[i].status == KD_PROFILE_OK;
    for (int i = 0; i < r->num_sweep; i++)
        ok &= r->sweep[i].status == KD_PROFILE_OK;
    kd_json_key(&j, "profiles");
    kd_json_begin_array(&j);
    for (int w = 0; w < KD_PROFILE_NUM_WHAT; w++) {
        bool present = false;
        for (int i = 0; i < r->num_rows; i++)
            present |= r->rows[i].what == (kd_profile_what)w;
        for (int i = 0; i < r->num_skips; i++)
            present |= r->skips[i].what == (kd_profile_what)w;
        if (!present)
            continue;
        kd_json_begin_object(&j);
        kd_json_kv_string(&j, "what", kd_profile_what_name((kd_profile_what)w));
        kd_json_kv_string(&j, "bytes_counted", kd_profile_bytes_rule((kd_profile_what)w));
        kd_json_key(&j, "skipped");
        kd_json_begin_array(&j);
        for (int i = 0; i < r->num_skips; i++) {
            if (r->skips[i].what != (kd_profile_what)w)
                continue;
            kd_json_begin_object(&j);
            kd_json_kv_int(&j, "n", (int64_t)r->skips[i].n);
            kd_json_kv_string(&j, "reason", r->skips[i].reason);
            kd_json_end_object(&j);
        }
        kd_json_end_array(&j);
        kd_json_key(&j, "rows");
        json_rows(&j, r->rows, r->num_rows, (kd_profile_what)w);
        kd_json_key(&j, "sweep");
        json_rows(&j, r->sweep, r->num_sweep, (kd_profile_what)w);
        kd_json_end_object(&j);
    }
    kd_json_end_array(&j);
    kd_json_kv_bool(&j, "ok", ok);
    kd_json_end_object(&j);
    fputc('\n', out.file);
    return kd_outfile_commit(&out, err);
}

kd_status kd_profile_write_chart(const char *path, kd_profile_what what,
                                 const kd_profile_device *device,
                                 const kd_profile_options *options, const kd_profile_results *r,
                                 kd_error *err)
{
    /* Sizes and series names, in order of first appearance. */
    enum { MAX_SIZES = KD_PROFILE_MAX_SIZES, MAX_SERIES = 24 };
    size_t sizes[MAX_SIZES];
    int num_sizes = 0;
    const char *names[MAX_SERIES];
    int num_series = 0;
    for (int i = 0; i < r->num_rows; i++) {
        const kd_profile_row *row = &r->rows[i];
        if (row->what != what)
            continue;
        bool seen = false;
        for (int k = 0; k < num_sizes; k++)
            seen |= sizes[k] == row->n;
        if (!seen && num_sizes < MAX_SIZES)
            sizes[num_sizes++] = row->n;
        seen = false;
        for (int k = 0; k < num_series; k++)
            seen |= strcmp(names[k], row->variant) == 0;
        if (!seen && num_series < MAX_SERIES)
            names[num_series++] = row->variant;
    }
    if (num_series == 0)
        return kd_error_set(err, KD_ERR_INVALID, "nothing was measured for '%s'",
                            kd_profile_what_name(what));
    char title[512], what_title[96];
    kd_profile_title(what, options, what_title, sizeof what_title);
    snprintf(title, sizeof title, "scankd profile: %s, %s", what_title, device->name);
    kd_chart *chart = NULL;
    kd_status s = kd_chart_create(&chart, title, "elements (n)", "GB/s (counted bytes / median time)", err);
    if (s != KD_OK)
        return s;
    kd_chart_set_size(chart, 1280, 720, NULL);
    for (int k = 0; k < num_series && s == KD_OK; k++) {
        double x[MAX_SIZES], y[MAX_SIZES];
        for (int i = 0; i < num_sizes; i++) {
            x[i] = (double)sizes[i];
            y[i] = NAN;
            for (int j = 0; j < r->num_rows; j++) {
                const kd_profile_row *row = &r->rows[j];
                if (row->what == what && row->n == sizes[i] && strcmp(row->variant, names[k]) == 0 &&
                    row->status == KD_PROFILE_OK)
                    y[i] = row->gbps;
            }
        }
        s = kd_chart_add_series(chart, names[k], x, y, num_sizes, err);
    }
    if (s == KD_OK)
        s = kd_ensure_parent_dir(path, err);
    if (s == KD_OK)
        s = kd_chart_write_png(chart, path, err);
    kd_chart_free(chart);
    return s;
}
