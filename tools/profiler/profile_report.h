/* Output of `scankd profile`: the aligned tables on stdout, CSV, JSON and
 * the chart image. CLI-only (linked into the scankd executable). */
#ifndef KD_CMD_PROFILE_REPORT_H
#define KD_CMD_PROFILE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "kd_profile.h"
#include "kd_error.h"

/* A size left out, and why. */
typedef struct kd_profile_skip {
    kd_profile_what what;
    size_t n;
    char reason[160];
} kd_profile_skip;

/* Everything one invocation measured. */
typedef struct kd_profile_results {
    kd_profile_row *rows; /* main tables, in order */
    int num_rows, rows_capacity;
    kd_profile_row *sweep; /* block-size sweeps */
    int num_sweep, sweep_capacity;
    kd_profile_skip *skips;
    int num_skips, skips_capacity;
} kd_profile_results;

kd_status kd_profile_results_add(kd_profile_results *r, const kd_profile_row *rows, int count,
                                 bool sweep, kd_error *err);
kd_status kd_profile_results_skip(kd_profile_results *r, kd_profile_what what, size_t n,
                                  const char *reason, kd_error *err);
void kd_profile_results_free(kd_profile_results *r);

/* Title line of a primitive's table ("reduce (min, float)"). */
void kd_profile_title(kd_profile_what what, const kd_profile_options *options, char *out,
                      size_t out_bytes);

void kd_profile_print_header(FILE *f, kd_profile_what what, const kd_profile_device *device,
                             const kd_profile_options *options);
void kd_profile_print_rows(FILE *f, const kd_profile_row *rows, int count);
/* Targets and the ladder rule, read off the main rows of one primitive. */
void kd_profile_print_summary(FILE *f, kd_profile_what what, const kd_profile_results *r);
/* Sweep: one line per variant and size, one column of GB/s per block size. */
void kd_profile_print_sweep(FILE *f, kd_profile_what what, const kd_profile_results *r,
                            const int *block_sizes, int num_block_sizes);

kd_status kd_profile_write_csv(const char *path, const kd_profile_results *r, kd_error *err);
kd_status kd_profile_write_json(const char *path, const kd_profile_device *device,
                                const kd_profile_options *options, const kd_profile_results *r,
                                kd_error *err);
/* GB/s against n, one line per variant of `what`. */
kd_status kd_profile_write_chart(const char *path, kd_profile_what what,
                                 const kd_profile_device *device,
                                 const kd_profile_options *options, const kd_profile_results *r,
                                 kd_error *err);

#endif
