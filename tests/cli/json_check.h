/* A strict JSON validity check for the CLI tests (RFC 8259's grammar: one
 * value, objects, arrays, strings with their escapes, numbers, literals), so
 * that "--json -" is proven to print JSON and nothing else. */
#ifndef KD_TEST_JSON_CHECK_H
#define KD_TEST_JSON_CHECK_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct json_cursor {
    const char *p;
    int depth;
} json_cursor;

static inline void json_skip_space(json_cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')
        c->p++;
}

static inline bool json_digits(json_cursor *c)
{
    const char *start = c->p;
    while (*c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > start;
}

static inline bool json_number(json_cursor *c)
{
    if (*c->p == '-')
        c->p++;
    if (*c->p == '0')
        c->p++;
    else if (!json_digits(c))
        return false;
    if (*c->p == '.') {
        c->p++;
        if (!json_digits(c))
            return false;
    }
    if (*c->p == 'e' || *c->p == 'E') {
        c->p++;
        if (*c->p == '+' || *c->p == '-')
            c->p++;
        if (!json_digits(c))
            return false;
    }
    return true;
}

static inline bool json_string(json_cursor *c)
{
    if (*c->p++ != '"')
        return false;
    for (;;) {
        unsigned char ch = (unsigned char)*c->p++;
        if (ch == '"')
            return true;
        if (ch < 0x20)
            return false; /* includes the end of the text */
        if (ch != '\\')
            continue;
        ch = (unsigned char)*c->p++;
        if (ch == 'u') {
            for (int i = 0; i < 4; i++, c->p++)
                if (!*c->p || !strchr("0123456789abcdefABCDEF", *c->p))
                    return false;
        } else if (!ch || !strchr("\"\\/bfnrt", ch)) {
            return false;
        }
    }
}

static inline bool json_value(json_cursor *c);

/* The members of an object or the items of an array, after its opening. */
static inline bool json_members(json_cursor *c, char close, bool keyed)
{
    json_skip_space(c);
    if (*c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        json_skip_space(c);
        if (keyed) {
            if (!json_string(c))
                return false;
            json_skip_space(c);
            if (*c->p++ != ':')
                return false;
        }
        if (!json_value(c))
            return false;
        json_skip_space(c);
        if (*c->p == close) {
            c->p++;
            return true;
        }
        if (*c->p++ != ',')
            return false;
    }
}

static inline bool json_value(json_cursor *c)
{
    json_skip_space(c);
    if (++c->depth > 64)
        return false;
    bool ok;
    const char ch = *c->p;
    if (ch == '{' || ch == '[') {
        c->p++;
        ok = json_members(c, ch == '{' ? '}' : ']', ch == '{');
    } else if (ch == '"') {
        ok = json_string(c);
    } else if (strncmp(c->p, "true", 4) == 0 || strncmp(c->p, "null", 4) == 0) {
        c->p += 4;
        ok = true;
    } else if (strncmp(c->p, "false", 5) == 0) {
        c->p += 5;
        ok = true;
    } else {
        ok = json_number(c);
    }
    c->depth--;
    return ok;
}

/* True when text is exactly one JSON value, surrounded by whitespace only. */
static inline bool json_is_valid(const char *text)
{
    json_cursor c = {text, 0};
    if (!json_value(&c))
        return false;
    json_skip_space(&c);
    return *c.p == '\0';
}

/* The number after "key": at or after from; NAN when there is none. */
static inline double json_number_at(const char *from, const char *key)
{
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\": ", key);
    const char *at = from ? strstr(from, quoted) : NULL;
    double v = NAN;
    if (!at || sscanf(at + strlen(quoted), "%lf", &v) != 1)
        return NAN;
    return v;
}

#endif
