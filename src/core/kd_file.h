/* Output files that appear whole or not at all: every writer of scankd
 * (trees, images, tables) writes under a temporary name and renames it into
 * place only once complete. */
#ifndef KD_FILE_H
#define KD_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "kd_error.h"

/* Writes go to "<path>.tmp-<pid>", renamed over path on commit. "-" means
 * stdout, and an existing path that is no regular file (/dev/null, a pipe)
 * is written in place: commit and abort then only flush or close, since
 * renaming over such a file would replace it. Missing folders above path
 * are created (kd_ensure_parent_dir). */
typedef struct kd_outfile {
    FILE *file;
    char path[1024];
    char tmp_path[1100];
    bool is_stdout;
    bool in_place;         /* a special file, written directly */
} kd_outfile;

kd_status kd_outfile_open(kd_outfile *out, const char *path, kd_error *err);
kd_status kd_outfile_commit(kd_outfile *out, kd_error *err);
void kd_outfile_abort(kd_outfile *out);

/* Checks, before any work is done, that path can be written: "-" always
 * can; otherwise path is not a folder, and its folder exists or can be
 * created: the nearest folder above it that exists is one we may write
 * into, and nothing on the way is a file. Creates nothing. */
kd_status kd_check_output_path(const char *path, kd_error *err);
/* The same for a folder to write files into (demo's images). */
kd_status kd_check_output_dir(const char *dir, kd_error *err);

/* Temporary name next to path for writers that take a file name. */
void kd_tmp_path_for(const char *path, char *tmp, size_t tmp_bytes);
/* Renames tmp over path; removes tmp on failure. */
kd_status kd_rename_into_place(const char *tmp, const char *path, kd_error *err);
/* Creates the folder part of path and every missing folder above it, as
 * mkdir -p does (out/a/b/x.png makes out, out/a and out/a/b). */
kd_status kd_ensure_parent_dir(const char *path, kd_error *err);

#endif
