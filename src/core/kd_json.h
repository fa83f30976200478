/* A minimal streaming JSON writer (figures, statistics, profiles). */
#ifndef KD_JSON_H
#define KD_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { KD_JSON_MAX_DEPTH = 32 };

typedef struct kd_json {
    FILE *file;
    int depth;
    bool need_comma[KD_JSON_MAX_DEPTH];
    bool after_key;
} kd_json;

void kd_json_init(kd_json *json, FILE *file);
void kd_json_begin_object(kd_json *json);
void kd_json_end_object(kd_json *json);
void kd_json_begin_array(kd_json *json);
void kd_json_end_array(kd_json *json);
void kd_json_key(kd_json *json, const char *key);
void kd_json_string(kd_json *json, const char *value);
void kd_json_number(kd_json *json, double value); /* NaN/inf written as null */
void kd_json_int(kd_json *json, int64_t value);
void kd_json_bool(kd_json *json, bool value);
void kd_json_null(kd_json *json);
/* key + value shorthands */
void kd_json_kv_string(kd_json *json, const char *key, const char *value);
void kd_json_kv_number(kd_json *json, const char *key, double value);
void kd_json_kv_int(kd_json *json, const char *key, int64_t value);
void kd_json_kv_bool(kd_json *json, const char *key, bool value);

#endif
