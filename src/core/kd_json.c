#include "kd_json.h"

#include <math.h>
#include <string.h>

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
        fprintf(json->file, "%.9g", value + 0.0); /* + 0.0: -0 reads as 0 */
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
