/* Names as text: the string a C token or literal denotes (the macros
 * stringize their argument, so LUDUS_PROFILE_SCOPE("a\"b") arrives as the
 * characters "a\"b" with quotes and escapes), and UTF-8 made valid (invalid
 * bytes become U+FFFD; a cut never splits a character), so strict JSON and
 * protobuf readers accept every name. */
#include "text.h"

#include <ludus/capture_file.h>

#include <string.h>

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

size_t ludus__utf8_next(const char *s, size_t n) {
    return utf8_seq((const unsigned char *)s, n);
}

size_t ludus__utf8_clean(const char *s, size_t n, char *out, size_t cap) {
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        const char *src = s + i;
        size_t len = k;
        if (k == 0) {
            src = "\xef\xbf\xbd";
            len = 3;
            k = 1;
        }
        if (o + len > cap) break; /* never split a character */
        memcpy(out + o, src, len);
        o += len;
        i += k;
    }
    return o;
}

size_t ludus__show_next(const char *s, size_t n, char esc[8], const char **show, size_t *len) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    size_t k = utf8_seq(u, n);
    unsigned cp = 0;
    if (k == 1) {
        cp = u[0];
        if (cp >= 0x20 && cp != 0x7f) {
            *show = s;
            *len = 1;
            return 1;
        }
    } else if (k) {
        cp = u[0] & (0x7f >> k);
        for (size_t i = 1; i < k; i++) cp = (cp << 6) | (u[i] & 0x3f);
        int hidden = (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f ||
                     (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
        if (!hidden) {
            *show = s;
            *len = k;
            return k;
        }
        esc[0] = '\\';
        esc[1] = 'u';
        for (int i = 0; i < 4; i++) esc[2 + i] = hex[(cp >> (12 - 4 * i)) & 15];
        *show = esc;
        *len = 6;
        return k;
    } else {
        cp = u[0]; /* a byte that starts no character: shown as the byte */
        k = 1;
    }
    esc[0] = '\\';
    esc[1] = 'x';
    esc[2] = hex[cp >> 4];
    esc[3] = hex[cp & 15];
    *show = esc;
    *len = 4;
    return k;
}

size_t ludus__text_show(char *out, size_t cap, const char *s, size_t n, size_t width) {
    size_t lim = cap - 1, o = 0, prev = 0;
    if (width && width < lim) lim = width;
    char esc[8];
    for (size_t i = 0; i < n;) {
        const char *show;
        size_t len;
        size_t k = ludus__show_next(s + i, n - i, esc, &show, &len);
        if (o + len > lim) { /* cut: the '~' needs a byte */
            if (o + 1 > lim) o = prev;
            out[o++] = '~';
            break;
        }
        memcpy(out + o, show, len);
        prev = o;
        o += len;
        i += k;
    }
    out[o] = 0;
    return o;
}

const char *ludus__text_name(char *out, size_t cap, const char *s, size_t width) {
    ludus__text_show(out, cap, s, strlen(s), width);
    return out;
}

/* ---- CSV: the one writer (capture_file.h) ---- */

typedef struct csv_out {
    ludus_write_fn write;
    void *ud;
    char b[256];
    size_t n;
    int failed;
} csv_out;

static void csv_put(csv_out *o, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (o->n == sizeof o->b) {
            if (!o->failed && o->write(o->ud, o->b, o->n) != 0) o->failed = 1;
            o->n = 0;
        }
        o->b[o->n++] = p[i];
    }
}

static int csv_starts_formula(char ch, int show) {
    /* shown, a tab or CR is text (\x09), not the cell's first character */
    return ch == '=' || ch == '+' || ch == '-' || ch == '@' || (!show && (ch == '\t' || ch == '\r'));
}

int ludus_text_csv(const char *s, size_t n, unsigned flags, ludus_write_fn write, void *user_data) {
    if (!write || (!s && n)) return LUDUS_EINVAL;
    int show = (flags & LUDUS_CSV_SHOW) != 0;
    size_t i = 0;
    while (i < n && s[i] == '\'') i++;
    int formula = i < n && csv_starts_formula(s[i], show);
    int quote = formula || (n == 0 && (flags & LUDUS_CSV_QUOTE_EMPTY)) || (n && (s[0] == ' ' || s[n - 1] == ' '));
    for (i = 0; i < n && !quote; i++) quote = s[i] == ',' || s[i] == '"' || (!show && (s[i] == '\n' || s[i] == '\r'));
    csv_out o = {write, user_data, {0}, 0, 0};
    if (quote) csv_put(&o, "\"", 1);
    if (formula) csv_put(&o, "'", 1);
    char esc[8];
    for (i = 0; i < n;) {
        const char *p = s + i;
        size_t len = 1;
        if (show)
            i += ludus__show_next(s + i, n - i, esc, &p, &len);
        else
            i++;
        if (quote && len == 1 && *p == '"') csv_put(&o, "\"", 1);
        csv_put(&o, p, len);
    }
    if (quote) csv_put(&o, "\"", 1);
    if (o.n && !o.failed && write(user_data, o.b, o.n) != 0) o.failed = 1;
    return o.failed ? LUDUS_EIO : 0;
}

const char *ludus_text_show(char *out, size_t cap, const char *text, size_t width) {
    if (!out || cap < 2 || !text) return out && cap ? (*out = 0, out) : "";
    return ludus__text_name(out, cap, text, width);
}

int ludus__utf8_valid(const char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq((const unsigned char *)s + i, n - i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}

static size_t put_cp(char *out, unsigned cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    if (cp > 0x10ffff) return put_cp(out, 0xfffd);
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* One escape sequence at s[i] == '\\' inside a literal; appends its bytes. */
static size_t escape(const char *s, size_t n, size_t i, char *out, size_t *o) {
    if (i + 1 >= n) return n;
    char e = s[i + 1];
    static const char simple_in[] = "abfnrtv\\'\"?";
    static const char simple_out[] = "\a\b\f\n\r\t\v\\'\"?";
    const char *p = strchr(simple_in, e);
    if (p && e) {
        out[(*o)++] = simple_out[p - simple_in];
        return i + 2;
    }
    if (e >= '0' && e <= '7') { /* up to three octal digits: one byte */
        unsigned v = 0;
        size_t j = i + 1;
        for (int k = 0; k < 3 && j < n && s[j] >= '0' && s[j] <= '7'; k++, j++) v = v * 8 + (unsigned)(s[j] - '0');
        out[(*o)++] = (char)(v & 0xff);
        return j;
    }
    if (e == 'x') { /* any number of hex digits: one byte */
        unsigned v = 0;
        size_t j = i + 2;
        while (j < n && hexval(s[j]) >= 0) v = (v << 4) | (unsigned)hexval(s[j++]);
        out[(*o)++] = (char)(v & 0xff);
        return j;
    }
    if (e == 'u' || e == 'U') { /* a code point: UTF-8 */
        size_t digits = e == 'u' ? 4 : 8, j = i + 2;
        unsigned v = 0;
        for (size_t k = 0; k < digits && j < n && hexval(s[j]) >= 0; k++) v = (v << 4) | (unsigned)hexval(s[j++]);
        *o += put_cp(out + *o, v);
        return j;
    }
    out[(*o)++] = e; /* unknown escape: the character itself */
    return i + 2;
}

size_t ludus__c_literal_text(const char *tok, size_t n, char *out) {
    size_t i = 0, o = 0;
    /* A token that is not a string literal (Name) stands for itself. */
    size_t q = 0;
    while (q < n && (tok[q] == 'u' || tok[q] == 'U' || tok[q] == 'L' || tok[q] == '8')) q++;
    if (q >= n || tok[q] != '"') {
        memcpy(out, tok, n);
        return n;
    }
    while (i < n) {
        while (i < n && (tok[i] == ' ' || tok[i] == '\t' || tok[i] == '\n')) i++;
        while (i < n && (tok[i] == 'u' || tok[i] == 'U' || tok[i] == 'L' || tok[i] == '8')) i++;
        if (i >= n || tok[i] != '"') break; /* not literals after all: what was read stays */
        i++;
        while (i < n && tok[i] != '"') {
            if (tok[i] == '\\')
                i = escape(tok, n, i, out, &o);
            else
                out[o++] = tok[i++];
        }
        i++; /* the closing quote */
    }
    return o;
}
