/* ludus-trace's inputs and outputs (verbs.h): a capture file or "-"
 * (standard input, read whole into memory), an output file written whole or
 * not at all or "-" (standard output), the output's format from --format or
 * the extension, and -o. Uses the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif

#include "verbs.h"

/* The bytes of standard input a capture was opened from: they must live as
 * long as the capture (ludus_capture_open_memory). One per command. */
static struct {
    void *data;
    ludus_capture *c;
    int used;
} stdin_capture;

static int read_stdin(const char *verb, void **data, size_t *size) {
#ifdef _WIN32
    _setmode(_fileno(stdin), _O_BINARY);
#endif
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t k = fread(buf + n, 1, cap - n, stdin);
        n += k;
        if (k == 0) break;
        if (n == cap) {
            char *b = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    if (!buf) {
        fprintf(stderr, "ludus-trace %s: standard input: out of memory\n", verb);
        return LT_IO;
    }
    if (ferror(stdin)) {
        fprintf(stderr, "ludus-trace %s: reading standard input failed: %s\n", verb, strerror(errno));
        free(buf);
        return LT_IO;
    }
    *data = buf;
    *size = n;
    return LT_OK;
}

int lt_capture_open(const char *verb, const char *path, ludus_capture **out) {
    *out = NULL;
    int rc;
    lt_busy_begin(verb, "reading", strcmp(path, "-") ? path : "standard input");
    if (!strcmp(path, "-")) {
        if (stdin_capture.used) {
            lt_busy_end();
            fprintf(stderr, "ludus-trace %s: \"-\" (standard input) names one input only\n", verb);
            return LT_USAGE;
        }
        void *data;
        size_t size;
        rc = read_stdin(verb, &data, &size);
        if (rc) {
            lt_busy_end();
            return rc;
        }
        stdin_capture.used = 1;
        rc = ludus_capture_open_memory(data, size, out);
        if (rc) {
            free(data);
        } else {
            stdin_capture.data = data;
            stdin_capture.c = *out;
        }
    } else {
        rc = ludus_capture_open(path, out);
    }
    lt_busy_end();
    if (rc) {
        lt_error(verb, strcmp(path, "-") ? path : "standard input", rc);
        return rc == LUDUS_EIO ? LT_IO : rc == LUDUS_EINVAL ? LT_USAGE : LT_BAD_INPUT;
    }
    return LT_OK;
}

void lt_capture_release(ludus_capture *c) {
    ludus_capture_release(c);
    if (c && c == stdin_capture.c) { /* no cut of it outlives it in the tool */
        free(stdin_capture.data);
        stdin_capture.data = NULL;
        stdin_capture.c = NULL;
    }
}

int lt_output_format(const lt_verb *v, const char *path, const char *format_word, int *format) {
    *format = 0;
    if (format_word) {
        if (!strcmp(format_word, "json"))
            *format = LUDUS_FORMAT_JSON;
        else if (!strcmp(format_word, "pftrace"))
            *format = LUDUS_FORMAT_PFTRACE;
        else if (!strcmp(format_word, "ludus"))
            *format = LUDUS_FORMAT_LUDUS;
        else {
            char shown[256];
            fprintf(stderr, /* constant text */
                    "ludus-trace %s: --format %s: the formats are json, pftrace and ludus\n", v->name,
                    ludus_text_show(shown, sizeof shown, format_word, 0));
            return LT_USAGE;
        }
    } else {
        *format = ludus_format_from_path(path);
        if (!*format) {
            const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
            if (!strcmp(path, "-") || !strchr(base, '.')) {
                *format = LUDUS_FORMAT_JSON; /* "-", /dev/stdout, a FIFO: JSON unless --format says */
            } else {
                char shown[256];
                fprintf(stderr, /* constant text */
                        "ludus-trace %s: %s: the extension picks the format: .json, .pftrace or .ludus (or give "
                        "--format json|pftrace|ludus)\n",
                        v->name, ludus_text_show(shown, sizeof shown, path, 0));
                return LT_USAGE;
            }
        }
    }
    if (*format != LUDUS_FORMAT_JSON && (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) && isatty(1)) {
        fprintf(stderr, /* constant text */
                "ludus-trace %s: %s is binary and standard output is a terminal; redirect it\n", v->name,
                *format == LUDUS_FORMAT_PFTRACE ? ".pftrace" : ".ludus");
        return LT_USAGE;
    }
    return LT_OK;
}

int lt_out_open(const char *verb, const char *path, lt_out *o) {
    o->file = NULL;
    o->path = path;
    if (!strcmp(path, "-")) {
#ifdef _WIN32
        _setmode(_fileno(stdout), _O_BINARY);
#endif
        return LT_OK;
    }
    int rc = ludus_output_open(path, &o->file);
    if (rc) {
        lt_error(verb, path, rc);
        return rc == LUDUS_EINVAL ? LT_USAGE : LT_IO;
    }
    return LT_OK;
}

int lt_out_write(void *ud, const void *data, size_t n) {
    lt_out *o = ud;
    if (o->file) return ludus_output_write(o->file, data, n);
    return fwrite(data, 1, n, stdout) == n ? 0 : -1;
}

int lt_out_close(const char *verb, lt_out *o, int failed) {
    if (!o->file) {
        if (fflush(stdout) == 0 && !ferror(stdout)) return failed ? LT_IO : LT_OK;
        fprintf(stderr, "ludus-trace %s: writing to standard output failed: %s\n", verb, strerror(errno));
        return LT_IO;
    }
    if (failed) {
        ludus_output_abort(o->file);
        o->file = NULL;
        return LT_IO;
    }
    int rc = ludus_output_commit(o->file);
    o->file = NULL;
    if (rc) {
        lt_error(verb, o->path, rc);
        return LT_IO;
    }
    return LT_OK;
}

int lt_output_option(const lt_verb *v, int argc, char **argv, int *i, const char **out, int *rc) {
    const char *a = argv[*i];
    *rc = LT_OK;
    if (strncmp(a, "-o", 2) != 0 && strcmp(a, "--output") != 0) return 0;
    const char *val;
    if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
        if (*i + 1 >= argc) {
            *rc = lt_missing_value(v, a);
            return 1;
        }
        val = argv[++*i];
    } else {
        val = a + 2; /* -oFILE */
    }
    if (*out) {
        char a[256], b[256];
        fprintf(stderr, "ludus-trace %s: one OUT only (-o %s, and %s before)\n", v->name, /* constant text */
                ludus_text_show(a, sizeof a, val, 0), ludus_text_show(b, sizeof b, *out, 0));
        *rc = LT_USAGE;
        return 1;
    }
    *out = val;
    return 1;
}
