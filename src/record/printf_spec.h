/* printf conversion specifications, as LUDUS_PROFILE_LOG's deferred
 * formatting reads them twice: the recorder, to know each argument's type
 * when it packs the arguments (src/record/timeline.c), and the reader, to
 * format them when a capture is read (src/capture/log_format.c). One parser,
 * so both sides agree on every argument.
 *
 * Packed arguments, in the format's order (a '*' width or precision first):
 *   'i' int64, 'u' uint64, 'f' double, 'p' pointer as uint64: 8 bytes each,
 *   little-endian as the machine stores them (the file is this machine's);
 *   's' u16 length, then the bytes (cut to fit the message). */
#ifndef LUDUS_PRINTF_SPEC_H
#define LUDUS_PRINTF_SPEC_H

#include <stddef.h>

enum { LUDUS__PA_NONE, LUDUS__PA_INT, LUDUS__PA_UINT, LUDUS__PA_DOUBLE, LUDUS__PA_STR, LUDUS__PA_PTR };

/* Length modifiers. */
enum {
    LUDUS__LM_NONE,
    LUDUS__LM_HH,
    LUDUS__LM_H,
    LUDUS__LM_L,
    LUDUS__LM_LL,
    LUDUS__LM_J,
    LUDUS__LM_Z,
    LUDUS__LM_T,
    LUDUS__LM_LD
};

typedef struct ludus__pspec {
    size_t len;      /* bytes from the '%' to the conversion, included */
    char conv;       /* the conversion; 0: not one this library formats (%n, %ls, ...) */
    char flags[6];   /* "-+ #0" as written, NUL-terminated */
    int width, prec; /* -1: none; given as '*': star_* set and the value is an argument */
    int star_width, star_prec;
    int lenmod; /* LUDUS__LM_* */
    int arg;    /* LUDUS__PA_*: what the conversion takes (NONE for %%) */
} ludus__pspec;

/* Parses the specification at p (*p == '%'). Always sets len (at least 1,
 * up to the NUL), so a caller can skip what it cannot format. */
static inline void ludus__pspec_parse(const char *p, ludus__pspec *s) {
    const char *q = p + 1;
    size_t nf = 0;
    s->conv = 0;
    s->width = s->prec = -1;
    s->star_width = s->star_prec = 0;
    s->lenmod = LUDUS__LM_NONE;
    s->arg = LUDUS__PA_NONE;
    while (*q && (*q == '-' || *q == '+' || *q == ' ' || *q == '#' || *q == '0')) {
        if (nf < sizeof s->flags - 1) s->flags[nf++] = *q;
        q++;
    }
    s->flags[nf] = 0;
    if (*q == '*') {
        s->star_width = 1;
        q++;
    } else {
        for (; *q >= '0' && *q <= '9'; q++) s->width = (s->width < 0 ? 0 : s->width) * 10 % 100000 + (*q - '0');
    }
    if (*q == '.') {
        q++;
        s->prec = 0;
        if (*q == '*') {
            s->star_prec = 1;
            q++;
        } else {
            for (; *q >= '0' && *q <= '9'; q++) s->prec = s->prec * 10 % 100000 + (*q - '0');
        }
    }
    if (q[0] == 'h' && q[1] == 'h')
        s->lenmod = LUDUS__LM_HH, q += 2;
    else if (q[0] == 'l' && q[1] == 'l')
        s->lenmod = LUDUS__LM_LL, q += 2;
    else if (*q == 'h')
        s->lenmod = LUDUS__LM_H, q++;
    else if (*q == 'l')
        s->lenmod = LUDUS__LM_L, q++;
    else if (*q == 'j')
        s->lenmod = LUDUS__LM_J, q++;
    else if (*q == 'z')
        s->lenmod = LUDUS__LM_Z, q++;
    else if (*q == 't')
        s->lenmod = LUDUS__LM_T, q++;
    else if (*q == 'L')
        s->lenmod = LUDUS__LM_LD, q++;
    char c = *q;
    s->len = (size_t)(q - p) + (c != 0);
    switch (c) {
    case 'd':
    case 'i':
        s->arg = LUDUS__PA_INT;
        break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
        s->arg = LUDUS__PA_UINT;
        break;
    case 'c':
        if (s->lenmod != LUDUS__LM_NONE) return; /* %lc: wide */
        s->arg = LUDUS__PA_INT;
        break;
    case 's':
        if (s->lenmod != LUDUS__LM_NONE) return; /* %ls: wide */
        s->arg = LUDUS__PA_STR;
        break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        s->arg = LUDUS__PA_DOUBLE;
        break;
    case 'p':
        s->arg = LUDUS__PA_PTR;
        break;
    case '%':
        break;
    default:
        return; /* %n, an unknown conversion or the end of the string: not formatted */
    }
    s->conv = c;
}

#endif
