/* ludus-trace's inputs and outputs (verbs.h): a capture file, or "-"
 * (standard input) or a pipe, FIFO or character device named by path
 * (<(cat x.ludus)), read whole into memory, an output file written whole or
 * not at all or "-" (standard output), the output's format from --format or
 * the extension, and -o. Uses the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifndef _WIN32
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#endif
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#endif

#include "verbs.h"

/* The bytes a capture was read from when it came from standard input or a
 * pipe (a FIFO, <(cat x.ludus), a character device): they must live as long
 * as the capture (ludus_capture_open_memory). */
#define MAX_STREAMS 256
static struct {
    void *data;
    ludus_capture *c;
} streams[MAX_STREAMS];
static int stdin_used; /* "-" names one input only */

/* Reads fd to its end into memory (*data: malloc'd). */
static int read_stream(const char *verb, int fd, const char *name, void **data, size_t *size) {
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    char shown[512];
    while (buf) {
        ssize_t k = read(fd, buf + n, cap - n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            fprintf(stderr, "ludus-trace %s: reading %s failed: %s\n", verb,
                    ludus_text_show(shown, sizeof shown, name, 0), strerror(errno));
            free(buf);
            return LT_IO;
        }
        if (k == 0) break;
        n += (size_t)k;
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
        fprintf(stderr, "ludus-trace %s: %s: out of memory\n", verb, ludus_text_show(shown, sizeof shown, name, 0));
        return LT_IO;
    }
    *data = buf;
    *size = n;
    return LT_OK;
}

/* A capture from bytes read whole (standard input or a pipe). */
static int open_stream(const char *verb, int fd, const char *name, ludus_capture **out) {
    int slot = 0;
    while (slot < MAX_STREAMS && streams[slot].data) slot++;
    if (slot == MAX_STREAMS) {
        fprintf(stderr, "ludus-trace %s: more than %d pipes as inputs\n", verb, MAX_STREAMS);
        return LT_USAGE;
    }
    void *data;
    size_t size;
    int rc = read_stream(verb, fd, name, &data, &size);
    if (rc) return rc;
    rc = ludus_capture_open_memory(data, size, out);
    if (rc) {
        free(data);
        return rc;
    }
    streams[slot].data = data;
    streams[slot].c = *out;
    return 0;
}

#ifndef _WIN32
/* path opened without waiting (O_NONBLOCK: a FIFO with no writer does not
 * block the open) and its type checked before anything is read: -1 and
 * *is_stream 0 for a regular file (read by path: ludus_capture_open), the
 * descriptor (blocking again) and *is_stream 1 for a FIFO, a pipe or a
 * character device (read whole, as "-" is), -1 and errno otherwise. */
static int open_input(const char *path, int *is_stream) {
    *is_stream = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode)) {
        /* A FIFO whose writer has not opened it yet reads as empty: wait
         * for its first bytes, or for a writer that closes it (poll: on
         * Linux a FIFO opened without a writer reports neither until one
         * came). Found on a busy machine: the writer came after the read. */
        struct pollfd pf = {fd, POLLIN, 0};
        if (S_ISFIFO(st.st_mode))
            while (poll(&pf, 1, -1) < 0 && errno == EINTR) {
            }
        int fl = fcntl(fd, F_GETFL);
        if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        *is_stream = 1;
        return fd;
    }
    close(fd);
    errno = S_ISDIR(st.st_mode) ? EISDIR : 0;
    return -1;
}
#endif

static int open_capture(const char *verb, const char *path, int index, ludus_capture **out) {
    *out = NULL;
    int rc;
    lt_busy_begin(verb, "reading", strcmp(path, "-") ? path : "standard input");
    if (!strcmp(path, "-")) {
        if (stdin_used) {
            lt_busy_end();
            fprintf(stderr, "ludus-trace %s: \"-\" (standard input) names one input only\n", verb);
            return LT_USAGE;
        }
        stdin_used = 1;
#ifdef _WIN32
        _setmode(_fileno(stdin), _O_BINARY);
#endif
        rc = open_stream(verb, 0, "standard input", out);
        if (rc > 0) { /* said */
            lt_busy_end();
            return rc;
        }
    } else {
        int is_stream = 0, fd = -1;
#ifndef _WIN32
        fd = open_input(path, &is_stream);
#endif
        if (is_stream) {
            rc = open_stream(verb, fd, path, out);
            close(fd);
            if (rc > 0) { /* said */
                lt_busy_end();
                return rc;
            }
        } else {
            rc = index ? ludus_capture_open_index(path, out) : ludus_capture_open(path, out);
        }
    }
    lt_busy_end();
    if (rc) {
        lt_error(verb, strcmp(path, "-") ? path : "standard input", rc);
        return rc == LUDUS_EIO ? LT_IO : rc == LUDUS_EINVAL ? LT_USAGE : LT_BAD_INPUT;
    }
    return LT_OK;
}

int lt_capture_open(const char *verb, const char *path, ludus_capture **out) {
    return open_capture(verb, path, 0, out);
}

int lt_capture_open_index(const char *verb, const char *path, ludus_capture **out) {
    return open_capture(verb, path, 1, out);
}

void lt_capture_release(ludus_capture *c) {
    ludus_capture_release(c);
    for (int i = 0; c && i < MAX_STREAMS; i++)
        if (streams[i].c == c) { /* no cut of it outlives it in the tool */
            free(streams[i].data);
            streams[i].data = NULL;
            streams[i].c = NULL;
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
