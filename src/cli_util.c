#include "cli_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kernels/kd_primitives.h"

void kd_cli_error(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, command ? "scankd %s: " : "scankd: ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
}

int kd_cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    fprintf(stderr, command ? "scankd %s: " : "scankd: ", command);
    vfprintf(stderr, fmt, args);
    fputc('\n', stderr);
    va_end(args);
    if (command)
        fprintf(stderr, "try 'scankd %s --help'\n", command);
    else
        fprintf(stderr, "try 'scankd --help'\n");
    return KD_EXIT_USAGE;
}

bool kd_parse_int(const char *text, long min, long max, long *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool kd_parse_float(const char *text, float *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    float v = strtof(text, &end);
    if (errno || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool kd_parse_float_list(const char *text, float *out, int n)
{
    char buf[256];
    if (!text || strlen(text) >= sizeof buf)
        return false;
    strcpy(buf, text);
    char *p = buf;
    for (int i = 0; i < n; i++) {
        char *comma = strchr(p, ',');
        if ((comma != NULL) != (i < n - 1))
            return false;
        if (comma)
            *comma = '\0';
        if (!kd_parse_float(p, &out[i]))
            return false;
        p = comma + 1;
    }
    return true;
}

const char *kd_cli_option_value(const char *command, int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        kd_cli_usage_error(command, "option %s needs a value", argv[*i]);
        return NULL;
    }
    *i += 1;
    return argv[*i];
}

int kd_cli_scene_argument(const char *command, const char *arg, const char **scene)
{
    if (arg[0] == '-' && arg[1] != '\0')
        return kd_cli_usage_error(command, "unknown option '%s'", arg);
    if (*scene)
        return kd_cli_usage_error(command, "more than one scene given ('%s' and '%s')", *scene, arg);
    *scene = arg;
    return KD_EXIT_OK;
}

bool kd_cli_have_gpu(void)
{
    static int cached = -1;
    if (cached < 0)
        cached = kd_cuda_device_count() > 0;
    return cached != 0;
}

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

/* ---- JSON ---------------------------------------------------------------- */

void kd_json_init(kd_json *json, FILE *file)
{
    memset(json, 0, sizeof *json);
    json->file = file;
}

static void json_before_value(kd_json *json)
{
    if (json->after_key) {
        json->after_key = false;
        return;
    }
    if (json->depth > 0 && json->need_comma[json->depth])
        fputc(',', json->file);
    if (json->depth > 0) {
        fputc('\n', json->file);
        for (int i = 0; i < json->depth; i++)
            fputs("  ", json->file);
    }
    json->need_comma[json->depth] = true;
}

static void json_open(kd_json *json, char c)
{
    json_before_value(json);
    fputc(c, json->file);
    if (json->depth + 1 < KD_JSON_MAX_DEPTH)
        json->depth++;
    json->need_comma[json->depth] = false;
}

static void json_close(kd_json *json, char c)
{
    bool had_items = json->need_comma[json->depth];
    if (json->depth > 0)
        json->depth--;
    if (had_items) {
        fputc('\n', json->file);
        for (int i = 0; i < json->depth; i++)
            fputs("  ", json->file);
    }
    fputc(c, json->file);
    if (json->depth == 0)
        fputc('\n', json->file);
}

void kd_json_begin_object(kd_json *json) { json_open(json, '{'); }
void kd_json_end_object(kd_json *json) { json_close(json, '}'); }
void kd_json_begin_array(kd_json *json) { json_open(json, '['); }
void kd_json_end_array(kd_json *json) { json_close(json, ']'); }

static void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void kd_json_key(kd_json *json, const char *key)
{
    json_before_value(json);
    json_write_string(json->file, key);
    fputs(": ", json->file);
    json->after_key = true;
}

void kd_json_string(kd_json *json, const char *value)
{
    json_before_value(json);
    json_write_string(json->file, value);
}

void kd_json_number(kd_json *json, double value)
{
    json_before_value(json);
    if (isfinite(value))
        fprintf(json->file, "%.9g", value);
    else
        fputs("null", json->file);
}

void kd_json_int(kd_json *json, int64_t value)
{
    json_before_value(json);
    fprintf(json->file, "%lld", (long long)value);
}

void kd_json_bool(kd_json *json, bool value)
{
    json_before_value(json);
    fputs(value ? "true" : "false", json->file);
}

void kd_json_null(kd_json *json)
{
    json_before_value(json);
    fputs("null", json->file);
}

void kd_json_kv_string(kd_json *json, const char *key, const char *value) { kd_json_key(json, key); kd_json_string(json, value); }
void kd_json_kv_number(kd_json *json, const char *key, double value) { kd_json_key(json, key); kd_json_number(json, value); }
void kd_json_kv_int(kd_json *json, const char *key, int64_t value) { kd_json_key(json, key); kd_json_int(json, value); }
void kd_json_kv_bool(kd_json *json, const char *key, bool value) { kd_json_key(json, key); kd_json_bool(json, value); }
