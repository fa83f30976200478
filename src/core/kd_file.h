/* Output files that appear whole or not at all: every writer of scankd
 * (trees, images, tables) writes under a temporary name and renames it into
 * place only once complete. */
#ifndef KD_FILE_H
#define KD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kd_error.h"

/* Writes go to "<path>.tmp-<pid>", renamed over path on commit; "-" means
 * stdout (commit and abort then only flush). */
typedef struct kd_outfile {
    FILE *file;
    char path[1024];
    char tmp_path[1100];
    bool is_stdout;
} kd_outfile;

kd_status kd_outfile_open(kd_outfile *out, const char *path, kd_error *err);
kd_status kd_outfile_commit(kd_outfile *out, kd_error *err);
void kd_outfile_abort(kd_outfile *out);

/* Temporary name next to path for writers that take a file name (PNG). */
void kd_tmp_path_for(const char *path, char *tmp, size_t tmp_bytes);
/* Renames tmp over path; removes tmp on failure. */
kd_status kd_rename_into_place(const char *tmp, const char *path, kd_error *err);
/* Creates the directory part of path if it is missing (one level, like out/). */
kd_status kd_ensure_parent_dir(const char *path, kd_error *err);

#endif
