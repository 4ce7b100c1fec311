/* LUDUS_PROFILE_LOG's deferred formatting: the format (the site's name) and
 * the packed arguments (src/record/printf_spec.h) become the message's text
 * when a capture is read. A file's format and arguments may be anything, so
 * nothing here trusts them: every conversion is rebuilt from its parsed
 * parts and given exactly one argument of the type that rebuilt
 * specification takes; %n is never formatted; widths and precisions are
 * bounded; an argument of the wrong kind, or missing, ends the formatting
 * with "<?>" and the rest of the format as written. */
#include <stdio.h>
#include <string.h>

#include "../record/printf_spec.h"
#include "capture_build.h"
#include "nev.h"

typedef struct reader {
    const unsigned char *p, *end;
} reader;

/* The next packed argument if its tag is tag; 0 when it is not there. */
static int get_u64(reader *r, char tag, uint64_t *v) {
    if (r->end - r->p < 9 || r->p[0] != (unsigned char)tag) return 0;
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) x |= (uint64_t)r->p[1 + i] << (8 * i);
    *v = x;
    r->p += 9;
    return 1;
}

static int get_str(reader *r, const char **s, size_t *n) {
    if (r->end - r->p < 3 || r->p[0] != 's') return 0;
    size_t len = (size_t)r->p[1] | (size_t)r->p[2] << 8;
    if ((size_t)(r->end - r->p - 3) < len) return 0;
    *s = (const char *)r->p + 3;
    *n = len;
    r->p += 3 + len;
    return 1;
}

static int clamp_num(int64_t v) {
    return v < -256 ? -256 : v > 256 ? 256 : (int)v; /* a file may ask for anything */
}

size_t ludus__log_format(const char *fmt, const unsigned char *args, size_t nargs, char *out, size_t cap) {
    reader r = {args, args + nargs};
    size_t o = 0;
    if (cap == 0) return 0;
#define PUT(src, len)                                          \
    do {                                                       \
        size_t n_ = (len) < cap - 1 - o ? (len) : cap - 1 - o; \
        memcpy(out + o, (src), n_);                            \
        o += n_;                                               \
    } while (0)
    const char *p = fmt;
    while (*p && o < cap - 1) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            PUT(p, strlen(p));
            break;
        }
        PUT(p, (size_t)(pct - p));
        ludus__pspec s;
        ludus__pspec_parse(pct, &s);
        p = pct + s.len;
        if (s.conv == '%') {
            PUT("%", 1);
            continue;
        }
        uint64_t v = 0, w = 0, pr = 0;
        int ok = s.conv != 0;
        int width = s.width, prec = s.prec;
        if (ok && s.star_width) {
            ok = get_u64(&r, 'i', &w);
            width = clamp_num((int64_t)w);
        }
        if (ok && s.star_prec) {
            ok = get_u64(&r, 'i', &pr);
            prec = clamp_num((int64_t)pr);
        }
        width = width > 256 ? 256 : width;
        prec = prec > 256 ? 256 : prec;
        /* the rebuilt specification: flags, numeric width and precision, the
         * length modifier of the type passed, the conversion */
        char spec[32], buf[600];
        int k = snprintf(spec, sizeof spec, "%%%s", s.flags);
        if (width >= 0) k += snprintf(spec + k, sizeof spec - (size_t)k, "%d", width);
        if (width < 0 && s.star_width) k += snprintf(spec + k, sizeof spec - (size_t)k, "-%d", -width);
        int n = -1;
        const char *str = NULL;
        size_t slen = 0;
        if (ok) switch (s.arg) {
            case LUDUS__PA_INT:
                if ((ok = get_u64(&r, 'i', &v)) != 0) {
                    if (prec >= 0) k += snprintf(spec + k, sizeof spec - (size_t)k, ".%d", prec);
                    snprintf(spec + k, sizeof spec - (size_t)k, s.conv == 'c' ? "c" : "ll%c", s.conv);
                    n = s.conv == 'c' ? snprintf(buf, sizeof buf, spec, (int)(int64_t)v)
                                      : snprintf(buf, sizeof buf, spec, (long long)(int64_t)v);
                }
                break;
            case LUDUS__PA_UINT:
                if ((ok = get_u64(&r, 'u', &v)) != 0) {
                    if (prec >= 0) k += snprintf(spec + k, sizeof spec - (size_t)k, ".%d", prec);
                    snprintf(spec + k, sizeof spec - (size_t)k, "ll%c", s.conv);
                    n = snprintf(buf, sizeof buf, spec, (unsigned long long)v);
                }
                break;
            case LUDUS__PA_DOUBLE:
                if ((ok = get_u64(&r, 'f', &v)) != 0) {
                    double d;
                    memcpy(&d, &v, sizeof d);
                    if (prec >= 0) k += snprintf(spec + k, sizeof spec - (size_t)k, ".%d", prec);
                    snprintf(spec + k, sizeof spec - (size_t)k, "%c", s.conv);
                    n = snprintf(buf, sizeof buf, spec, d);
                }
                break;
            case LUDUS__PA_PTR:
                if ((ok = get_u64(&r, 'p', &v)) != 0) {
                    snprintf(spec + k, sizeof spec - (size_t)k, "p");
                    n = snprintf(buf, sizeof buf, spec, (void *)(uintptr_t)v);
                }
                break;
            case LUDUS__PA_STR:
                if ((ok = get_str(&r, &str, &slen)) != 0) {
                    size_t take = prec >= 0 && (size_t)prec < slen ? (size_t)prec : slen;
                    if (width < 0 || (size_t)width <= take) { /* no padding: the bytes as they are */
                        PUT(str, take);
                        n = 0;
                    } else { /* padded: width <= 256, so take < 256 fits the buffer */
                        snprintf(spec + k, sizeof spec - (size_t)k, ".*s");
                        n = snprintf(buf, sizeof buf, spec, (int)take, str);
                    }
                }
                break;
            default:
                ok = 0;
                break;
            }
        if (!ok) { /* nothing after this can be trusted to match */
            PUT("<?>", 3);
            PUT(pct, strlen(pct));
            break;
        }
        if (n > 0) PUT(buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    }
#undef PUT
    out[o] = 0;
    return o;
}
