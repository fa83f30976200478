#include "kd_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

kd_status kd_outfile_open(kd_outfile *out, const char *path, kd_error *err)
{
    memset(out, 0, sizeof *out);
    if (strcmp(path, "-") == 0) {
        out->file = stdout;
        out->is_stdout = true;
        return KD_OK;
    }
    if (strlen(path) >= sizeof out->path)
        return kd_error_set(err, KD_ERR_INVALID, "%s: path too long", path);
    kd_status st = kd_ensure_parent_dir(path, err);
    if (st)
        return st;
    strcpy(out->path, path);
    kd_tmp_path_for(path, out->tmp_path, sizeof out->tmp_path);
    out->file = fopen(out->tmp_path, "wb");
    if (!out->file)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return KD_OK;
}

kd_status kd_outfile_commit(kd_outfile *out, kd_error *err)
{
    if (out->is_stdout) {
        fflush(stdout);
        return KD_OK;
    }
    int bad = ferror(out->file);
    if (fclose(out->file) != 0)
        bad = 1;
    out->file = NULL;
    if (bad) {
        remove(out->tmp_path);
        return kd_error_set(err, KD_ERR_IO, "%s: write failed", out->path);
    }
    return kd_rename_into_place(out->tmp_path, out->path, err);
}

void kd_outfile_abort(kd_outfile *out)
{
    if (out->is_stdout || !out->file)
        return;
    fclose(out->file);
    out->file = NULL;
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

kd_status kd_ensure_parent_dir(const char *path, kd_error *err)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path)
        return KD_OK;
    char dir[1024];
    size_t len = (size_t)(slash - path);
    if (len >= sizeof dir)
        return kd_error_set(err, KD_ERR_INVALID, "%s: path too long", path);
    memcpy(dir, path, len);
    dir[len] = '\0';
    struct stat sb;
    if (stat(dir, &sb) == 0)
        return S_ISDIR(sb.st_mode) ? KD_OK
                                   : kd_error_set(err, KD_ERR_IO, "%s: not a directory", dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return kd_error_set(err, KD_ERR_IO, "%s: cannot create directory: %s", dir, strerror(errno));
    return KD_OK;
}
