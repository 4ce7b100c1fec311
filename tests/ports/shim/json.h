/* The part of json-c's API the unit tests use, for the Windows port (no
 * json-c for mingw-w64 in Debian): a small parser into a tree, enough for
 * the exports the tests read back (objects, arrays, strings with escapes,
 * integers, doubles, true, false, null). Only for the port: the host builds
 * use json-c itself, an independent parser. */
#ifndef LUDUS_JSON_SHIM_H
#define LUDUS_JSON_SHIM_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum json_type {
    json_type_null,
    json_type_boolean,
    json_type_double,
    json_type_int,
    json_type_object,
    json_type_array,
    json_type_string
} json_type;
enum json_tokener_error { json_tokener_success, json_tokener_error_parse };

typedef struct json_object json_object;
struct json_object {
    json_type type;
    int64_t i;
    uint64_t u; /* an integer written without a sign: its value when above INT64_MAX */
    double d;
    char *s;             /* string; object: keys[n] */
    char **keys;         /* object */
    json_object **items; /* object values, array items */
    size_t n, cap;
};

#define LT_JSON_FN static __attribute__((unused))

LT_JSON_FN void json_object_put(json_object *o) {
    if (!o) return;
    for (size_t i = 0; i < o->n; i++) {
        if (o->keys) free(o->keys[i]);
        json_object_put(o->items[i]);
    }
    free(o->keys);
    free(o->items);
    free(o->s);
    free(o);
}

typedef struct lt_jp {
    const char *p;
    int err;
} lt_jp;

static void lt_jp_ws(lt_jp *j) {
    while (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t') j->p++;
}

static json_object *lt_jp_value(lt_jp *j, int depth);

static int lt_jp_push(json_object *o, char *key, json_object *v) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 8;
        json_object **items = realloc(o->items, cap * sizeof *items);
        if (!items) return -1;
        o->items = items;
        if (o->type == json_type_object) {
            char **keys = realloc(o->keys, cap * sizeof *keys);
            if (!keys) return -1;
            o->keys = keys;
        }
        o->cap = cap;
    }
    if (o->keys) o->keys[o->n] = key;
    o->items[o->n++] = v;
    return 0;
}

static void lt_jp_utf8(char **w, unsigned c) {
    char *o = *w;
    if (c < 0x80) {
        *o++ = (char)c;
    } else if (c < 0x800) {
        *o++ = (char)(0xC0 | (c >> 6));
        *o++ = (char)(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *o++ = (char)(0xE0 | (c >> 12));
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (c >> 18));
        *o++ = (char)(0x80 | ((c >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((c >> 6) & 0x3F));
        *o++ = (char)(0x80 | (c & 0x3F));
    }
    *w = o;
}

static unsigned lt_jp_hex4(lt_jp *j) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *j->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            j->err = 1;
    }
    return v;
}

static char *lt_jp_string(lt_jp *j) {
    if (*j->p != '"') {
        j->err = 1;
        return NULL;
    }
    const char *start = ++j->p;
    size_t n = 0;
    while (start[n] && start[n] != '"') n += start[n] == '\\' && start[n + 1] ? 2 : 1;
    char *out = malloc(n + 1), *w = out;
    if (!out) {
        j->err = 1;
        return NULL;
    }
    while (*j->p && *j->p != '"') {
        char c = *j->p++;
        if (c != '\\') {
            *w++ = c;
            continue;
        }
        c = *j->p++;
        switch (c) {
        case 'n':
            *w++ = '\n';
            break;
        case 't':
            *w++ = '\t';
            break;
        case 'r':
            *w++ = '\r';
            break;
        case 'b':
            *w++ = '\b';
            break;
        case 'f':
            *w++ = '\f';
            break;
        case 'u': {
            unsigned u = lt_jp_hex4(j);
            if (u >= 0xD800 && u < 0xDC00 && j->p[0] == '\\' && j->p[1] == 'u') {
                j->p += 2;
                unsigned lo = lt_jp_hex4(j);
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            }
            lt_jp_utf8(&w, u);
            break;
        }
        default:
            *w++ = c;
            break;
        }
    }
    if (*j->p != '"')
        j->err = 1;
    else
        j->p++;
    *w = 0;
    return out;
}

static json_object *lt_jp_value(lt_jp *j, int depth) {
    lt_jp_ws(j);
    json_object *o = calloc(1, sizeof *o);
    if (!o || depth > 200) {
        j->err = 1;
        free(o);
        return NULL;
    }
    char c = *j->p;
    if (c == '{' || c == '[') {
        o->type = c == '{' ? json_type_object : json_type_array;
        j->p++;
        lt_jp_ws(j);
        char close = c == '{' ? '}' : ']';
        if (*j->p == close) {
            j->p++;
            return o;
        }
        for (;;) {
            char *key = NULL;
            if (o->type == json_type_object) {
                lt_jp_ws(j);
                key = lt_jp_string(j);
                lt_jp_ws(j);
                if (j->err || *j->p != ':') break;
                j->p++;
            }
            json_object *v = lt_jp_value(j, depth + 1);
            if (j->err || lt_jp_push(o, key, v) != 0) {
                free(key);
                json_object_put(v);
                break;
            }
            lt_jp_ws(j);
            if (*j->p == ',') {
                j->p++;
                continue;
            }
            if (*j->p == close) {
                j->p++;
                return o;
            }
            break;
        }
        j->err = 1;
        return o;
    }
    if (c == '"') {
        o->type = json_type_string;
        o->s = lt_jp_string(j);
        return o;
    }
    if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "false", 5)) {
        o->type = json_type_boolean;
        o->i = *j->p == 't';
        j->p += o->i ? 4 : 5;
        return o;
    }
    if (!strncmp(j->p, "null", 4)) {
        o->type = json_type_null;
        j->p += 4;
        return o;
    }
    char *end;
    double d = strtod(j->p, &end);
    if (end == j->p) {
        j->err = 1;
        return o;
    }
    int integral = 1;
    for (const char *q = j->p; q < end; q++)
        if (*q == '.' || *q == 'e' || *q == 'E') integral = 0;
    o->type = integral ? json_type_int : json_type_double;
    o->d = d;
    o->i = integral ? strtoll(j->p, NULL, 10) : (int64_t)d; /* saturates at INT64_MIN/MAX, as json-c's */
    o->u = integral && *j->p != '-' ? strtoull(j->p, NULL, 10) : 0;
    j->p = end;
    return o;
}

LT_JSON_FN json_object *json_tokener_parse_verbose(const char *s, enum json_tokener_error *err) {
    lt_jp j = {s, 0};
    json_object *o = lt_jp_value(&j, 0);
    lt_jp_ws(&j);
    if (j.err || *j.p) {
        json_object_put(o);
        if (err) *err = json_tokener_error_parse;
        return NULL;
    }
    if (err) *err = json_tokener_success;
    return o;
}
LT_JSON_FN json_object *json_tokener_parse(const char *s) {
    return json_tokener_parse_verbose(s, NULL);
}
LT_JSON_FN const char *json_tokener_error_desc(enum json_tokener_error e) {
    return e == json_tokener_success ? "success" : "parse error";
}

LT_JSON_FN int json_object_object_get_ex(const json_object *o, const char *key, json_object **out) {
    if (o && o->type == json_type_object)
        for (size_t i = 0; i < o->n; i++)
            if (!strcmp(o->keys[i], key)) {
                if (out) *out = o->items[i];
                return 1;
            }
    if (out) *out = NULL;
    return 0;
}
LT_JSON_FN int json_object_is_type(const json_object *o, json_type t) {
    return o ? o->type == t : t == json_type_null;
}
LT_JSON_FN const char *json_object_get_string(const json_object *o) {
    return o && o->type == json_type_string ? o->s : NULL;
}
LT_JSON_FN int64_t json_object_get_int64(const json_object *o) {
    if (!o) return 0;
    if (o->type == json_type_string) return strtoll(o->s, NULL, 10);
    return o->type == json_type_double ? (int64_t)o->d : o->i;
}
/* json-c's rules: an int64 clamped to the int's range; a negative to 0 as unsigned */
LT_JSON_FN int json_object_get_int(const json_object *o) {
    int64_t v = json_object_get_int64(o);
    return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int)v;
}
LT_JSON_FN uint64_t json_object_get_uint64(const json_object *o) {
    if (!o) return 0;
    if (o->type == json_type_string) return strtoull(o->s, NULL, 10);
    if (o->type == json_type_int) return o->i < 0 ? 0 : o->u;
    if (o->type == json_type_double)
        return o->d <= 0 ? 0 : o->d >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)o->d;
    return (uint64_t)o->i;
}
LT_JSON_FN double json_object_get_double(const json_object *o) {
    if (!o) return 0;
    if (o->type == json_type_string) return strtod(o->s, NULL);
    return o->type == json_type_int || o->type == json_type_boolean ? (double)o->i : o->d;
}
LT_JSON_FN int json_object_get_boolean(const json_object *o) {
    return o && (o->type == json_type_boolean || o->type == json_type_int) ? o->i != 0 : 0;
}
LT_JSON_FN size_t json_object_array_length(const json_object *o) {
    return o && o->type == json_type_array ? o->n : 0;
}
LT_JSON_FN json_object *json_object_array_get_idx(const json_object *o, size_t i) {
    return o && o->type == json_type_array && i < o->n ? o->items[i] : NULL;
}
LT_JSON_FN int json_object_object_length(const json_object *o) {
    return o && o->type == json_type_object ? (int)o->n : 0;
}
#define json_object_object_foreach(obj, key, val)                                                                 \
    char *key = NULL;                                                                                             \
    json_object *val = NULL;                                                                                      \
    for (size_t lt_i = 0; (obj) && lt_i < (obj)->n && ((key = (obj)->keys[lt_i]), (val = (obj)->items[lt_i]), 1); \
         lt_i++)

#endif
