#include "kd_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { PATH_BYTES = 1024 };

/* True when path exists and is no regular file or folder (a device, a pipe). */
static bool is_special_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode);
}

kd_status kd_outfile_open(kd_outfile *out, const char *path, kd_error *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(path, "-") == 0) {
        out->file = stdout;
        out->is_stdout = true;
        return KD_OK;
    }
    KD_TRY(kd_check_output_path(path, err));
    strcpy(out->path, path); /* fits: checked above */
    if (is_special_file(path)) {
        out->in_place = true;
        out->file = fopen(path, "wb");
        if (!out->file)
            return kd_error_set(err, KD_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        return KD_OK;
    }
    KD_TRY(kd_ensure_parent_dir(path, err));
    kd_tmp_path_for(path, out->tmp_path, sizeof out->tmp_path);
    out->file = fopen(out->tmp_path, "wb");
    if (!out->file)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return KD_OK;
}

kd_status kd_outfile_commit(kd_outfile *out, kd_error *err)
{
    if (out->is_stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            return kd_error_set(err, KD_ERR_IO, "stdout: write failed: %s", strerror(errno));
        return KD_OK;
    }
    int bad = ferror(out->file);
    if (fclose(out->file) != 0)
        bad = 1;
    out->file = NULL;
    if (bad && !out->in_place)
        remove(out->tmp_path);
    if (bad)
        return kd_error_set(err, KD_ERR_IO, "%s: write failed", out->path);
    return out->in_place ? KD_OK : kd_rename_into_place(out->tmp_path, out->path, err);
}

void kd_outfile_abort(kd_outfile *out)
{
    if (out->is_stdout || !out->file)
        return;
    fclose(out->file);
    out->file = NULL;
    if (!out->in_place)
        remove(out->tmp_path);
}

void kd_tmp_path_for(const char *path, char *tmp, size_t tmp_bytes)
{
    snprintf(tmp, tmp_bytes, "%s.tmp-%ld", path, (long)getpid());
}

kd_status kd_rename_into_place(const char *tmp, const char *path, kd_error *err)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return kd_error_set(err, KD_ERR_IO, "%s: cannot rename into place: %s", path, strerror(e));
    }
    return KD_OK;
}

/* The folder part of path ("." when it has none; "/" for "/x"). */
static void parent_of(const char *path, char *dir)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == path)
        strcpy(dir, "/");
    else
        snprintf(dir, PATH_BYTES, "%.*s", (int)(slash - path), path);
}

/* Walks up from dir to the nearest folder that exists and checks that files
 * can be made in it; a file met on the way is an error. what is the path
 * the messages name. */
static kd_status check_folder_chain(const char *what, const char *dir, kd_error *err)
{
    char at[PATH_BYTES];
    snprintf(at, sizeof at, "%s", dir);
    for (;;) {
        struct stat sb;
        if (stat(at, &sb) == 0) {
            if (!S_ISDIR(sb.st_mode))
                return kd_error_set(err, KD_ERR_IO, "cannot write %s: %s is not a directory", what, at);
            if (access(at, W_OK | X_OK) != 0)
                return kd_error_set(err, KD_ERR_IO, "cannot write %s: cannot make files in %s: %s", what, at,
                                    strerror(errno));
            return KD_OK;
        }
        if (errno != ENOENT && errno != ENOTDIR)
            return kd_error_set(err, KD_ERR_IO, "cannot write %s: %s: %s", what, at, strerror(errno));
        char up[PATH_BYTES];
        parent_of(at, up);
        if (strcmp(up, at) == 0)
            return kd_error_set(err, KD_ERR_IO, "cannot write %s: %s: %s", what, at, strerror(errno));
        strcpy(at, up);
    }
}

kd_status kd_check_output_path(const char *path, kd_error *err)
{
    if (strcmp(path, "-") == 0)
        return KD_OK;
    if (path[0] == '\0')
        return kd_error_set(err, KD_ERR_INVALID, "an empty output path");
    if (strlen(path) >= PATH_BYTES)
        return kd_error_set(err, KD_ERR_INVALID, "cannot write %s: path too long", path);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return kd_error_set(err, KD_ERR_IO, "cannot write %s: it is a directory", path);
    if (path[strlen(path) - 1] == '/')
        return kd_error_set(err, KD_ERR_INVALID, "cannot write %s: it names a folder, not a file", path);
    char dir[PATH_BYTES];
    parent_of(path, dir);
    return check_folder_chain(path, dir, err);
}

kd_status kd_check_output_dir(const char *dir, kd_error *err)
{
    if (dir[0] == '\0')
        return kd_error_set(err, KD_ERR_INVALID, "an empty output folder");
    if (strlen(dir) >= PATH_BYTES)
        return kd_error_set(err, KD_ERR_INVALID, "cannot write into %s: path too long", dir);
    return check_folder_chain(dir, dir, err);
}

kd_status kd_ensure_parent_dir(const char *path, kd_error *err)
{
    char dir[PATH_BYTES];
    if (strlen(path) >= sizeof dir)
        return kd_error_set(err, KD_ERR_INVALID, "%s: path too long", path);
    parent_of(path, dir);
    /* Each prefix ending before a '/', then the whole folder. */
    for (char *p = dir + 1;; p++) {
        const bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        struct stat sb;
        if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode))
            return kd_error_set(err, KD_ERR_IO, "cannot write %s: %s is not a directory", path, dir);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return kd_error_set(err, KD_ERR_IO, "cannot write %s: cannot create directory %s: %s", path, dir,
                                strerror(errno));
        if (end)
            return KD_OK;
        *p = '/';
    }
}
