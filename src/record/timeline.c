/* The timeline's other kinds of event: log messages, async zones and fiber
 * switches (the layouts are the MESSAGE, ASYNC and FIBER rows of the kind
 * table in profiling.h). Nothing here allocates per event; a fiber's name
 * is interned in the running capture's name table (lock-free once known). */
#include <stdio.h>
#include <string.h>

#include "printf_spec.h"
#include "event_kinds.h"
#include "record.h"

/* ---- log messages ---- */

/* The site of ludus_log's messages, one per level (category "log"). */
static const ludus_site log_sites[4] = {
    {"debug", "", "", "log", 0, LUDUS_SITE_TEXT},
    {"info", "", "", "log", 0, LUDUS_SITE_TEXT},
    {"warning", "", "", "log", 0, LUDUS_SITE_TEXT},
    {"error", "", "", "log", 0, LUDUS_SITE_TEXT},
};

const char *ludus_log_level_name(int level) {
    return level >= 0 && level < 4 ? log_sites[level].name : "?";
}

static unsigned clamp_level(int level) {
    return level < 0 ? 0u : level > 3 ? 3u : (unsigned)level;
}

void ludus__rec_log_text(int level, const char *text, size_t len) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    unsigned l = clamp_level(level);
    if (!text) len = 0;
    ludus__emit_ext(&log_sites[l], LUDUS__EXT_MESSAGE, l, text, len);
}

void ludus__rec_vlog(int level, const char *fmt, va_list args) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    char buf[LUDUS_MESSAGE_MAX + 1];
    int n = fmt ? vsnprintf(buf, sizeof buf, fmt, args) : 0;
    if (n < 0) n = 0;
    size_t len = (size_t)n < LUDUS_MESSAGE_MAX ? (size_t)n : LUDUS_MESSAGE_MAX;
    unsigned l = clamp_level(level);
    ludus__emit_ext(&log_sites[l], LUDUS__EXT_MESSAGE, l, buf, len);
}

/* LUDUS_PROFILE_MESSAGE: the site's name is the text (length 0). */
void ludus__message(const ludus_site *site, int level) {
    ludus__emit_ext(site, LUDUS__EXT_MESSAGE, (uint64_t)clamp_level(level), NULL, 0);
}

/* ---- LUDUS_PROFILE_LOG: the arguments packed now, formatted when read ---- */

typedef struct packer {
    unsigned char buf[LUDUS_MESSAGE_MAX];
    size_t n;
    int full;
} packer;

static void put_u64(packer *k, char tag, uint64_t v) {
    if (k->full || k->n + 9 > sizeof k->buf) {
        k->full = 1;
        return;
    }
    k->buf[k->n++] = (unsigned char)tag;
    for (int i = 0; i < 8; i++) k->buf[k->n++] = (unsigned char)(v >> (8 * i)); /* little-endian, as .ludus */
}

static void put_str(packer *k, const char *s) {
    if (!s) s = "(null)";
    if (k->full || k->n + 3 > sizeof k->buf) {
        k->full = 1;
        return;
    }
    size_t len = 0, room = sizeof k->buf - k->n - 3; /* cut to what fits */
    while (len < room && s[len]) len++;
    k->buf[k->n++] = 's';
    k->buf[k->n++] = (unsigned char)(len & 0xff);
    k->buf[k->n++] = (unsigned char)(len >> 8);
    memcpy(k->buf + k->n, s, len);
    k->n += len;
}

void ludus__log_deferred(const ludus_site *site, int level, const char *fmt, ...) {
    packer k;
    k.n = 0;
    k.full = 0;
    va_list ap;
    va_start(ap, fmt);
    for (const char *p = fmt; *p && !k.full;) {
        if (*p != '%') {
            p++;
            continue;
        }
        ludus__pspec s;
        ludus__pspec_parse(p, &s);
        p += s.len;
        if (!s.conv) break; /* the arguments after it cannot be known: the reader stops there too */
        if (s.star_width) put_u64(&k, 'i', (uint64_t)(int64_t)va_arg(ap, int));
        if (s.star_prec) put_u64(&k, 'i', (uint64_t)(int64_t)va_arg(ap, int));
        switch (s.arg) {
        case LUDUS__PA_INT: {
            int64_t v;
            switch (s.lenmod) {
            case LUDUS__LM_L:
                v = va_arg(ap, long);
                break;
            case LUDUS__LM_LL:
                v = va_arg(ap, long long);
                break;
            case LUDUS__LM_J:
                v = va_arg(ap, intmax_t);
                break;
            case LUDUS__LM_Z:
            case LUDUS__LM_T:
                v = va_arg(ap, ptrdiff_t);
                break;
            default:
                v = va_arg(ap, int);
                break;
            }
            put_u64(&k, 'i', (uint64_t)v);
            break;
        }
        case LUDUS__PA_UINT: {
            uint64_t v;
            switch (s.lenmod) {
            case LUDUS__LM_L:
                v = va_arg(ap, unsigned long);
                break;
            case LUDUS__LM_LL:
                v = va_arg(ap, unsigned long long);
                break;
            case LUDUS__LM_J:
                v = va_arg(ap, uintmax_t);
                break;
            case LUDUS__LM_Z:
                v = va_arg(ap, size_t);
                break;
            case LUDUS__LM_T:
                v = (uint64_t)va_arg(ap, ptrdiff_t);
                break;
            default:
                v = va_arg(ap, unsigned);
                break;
            }
            put_u64(&k, 'u', v);
            break;
        }
        case LUDUS__PA_DOUBLE: {
            double d = s.lenmod == LUDUS__LM_LD ? (double)va_arg(ap, long double) : va_arg(ap, double);
            uint64_t bits;
            memcpy(&bits, &d, sizeof bits);
            put_u64(&k, 'f', bits);
            break;
        }
        case LUDUS__PA_STR:
            put_str(&k, va_arg(ap, const char *));
            break;
        case LUDUS__PA_PTR:
            put_u64(&k, 'p', (uint64_t)(uintptr_t)va_arg(ap, void *));
            break;
        default:
            break; /* %% */
        }
    }
    va_end(ap);
    ludus__emit_ext(site, LUDUS__EXT_MESSAGE_DEFERRED, (uint64_t)clamp_level(level), k.buf, k.n);
}

/* ---- async zones ---- */

uint32_t ludus_async_track(const char *name) {
    ludus_site_desc d = {name, NULL, NULL, 0};
    return ludus_site_register(&d);
}

void ludus__async(const ludus_site *site, const ludus_site *track, uint64_t id) {
    ludus__emit_value((uintptr_t)site | LUDUS__KIND_ASYNC, id, (uintptr_t)track);
}

void ludus__rec_async_begin(uint32_t track, uint64_t id, uint32_t site_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *t = ludus__site_by_id(track), *s = ludus__site_by_id(site_id);
    ludus__async(s ? s : &ludus__invalid_site, t ? t : &ludus__invalid_site, id);
}

void ludus__rec_async_end(uint32_t track, uint64_t id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *t = ludus__site_by_id(track);
    ludus__async(NULL, t ? t : &ludus__invalid_site, id);
}

/* ---- fibers ---- */

/* The fiber this thread runs, as recorded (NULL: its own work), and the
 * capture that recorded its enter. */
static __thread struct {
    const ludus_site *fiber;
    uint32_t gen;
} timeline_thread;

static uint32_t armed_gen(void) {
    return ludus__armed_gen(ludus__load_armed());
}

void ludus__rec_fiber_enter(const char *name) {
    if (timeline_thread.fiber) ludus__rec_fiber_leave();
    if (LUDUS__LIKELY(ludus__load_armed() == 0) || !name || !*name) return;
    const ludus_site *s = ludus__emit_fiber_enter(name);
    if (s) {
        timeline_thread.fiber = s;
        timeline_thread.gen = armed_gen();
    }
}

void ludus__rec_fiber_leave(void) {
    const ludus_site *s = timeline_thread.fiber;
    timeline_thread.fiber = NULL;
    if (s && timeline_thread.gen == armed_gen()) ludus__emit_fiber_leave(s); /* its site is that capture's */
}
