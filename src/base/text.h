/* Names as text (text.c): C literals resolved, UTF-8 made valid, and names
 * shown to a person (a terminal, a page) with their control characters
 * escaped instead of sent. */
#ifndef LUDUS_TEXT_H
#define LUDUS_TEXT_H

#include <stddef.h>

#include "../platform/platform.h"

/* Copies s[0, n) to out (at most cap bytes), each invalid byte replaced by
 * U+FFFD and never a character split at the end; returns the bytes written. */
LUDUS_HIDDEN size_t ludus__utf8_clean(const char *s, size_t n, char *out, size_t cap);
/* 1 when s[0, n) is valid UTF-8. */
LUDUS_HIDDEN int ludus__utf8_valid(const char *s, size_t n);
/* Length of the valid character at s (1..4), 0 when the byte starts none. */
LUDUS_HIDDEN size_t ludus__utf8_next(const char *s, size_t n);
/* The next character of s[0, n) (n >= 1) as a person should see it: returns
 * the bytes it takes (>= 1) and points *show at *len bytes to write: the
 * character itself when it is printable, else its escape in esc: \xHH for a
 * control byte (C0, DEL) or a byte that starts no valid UTF-8 character,
 * \uHHHH for the C1 controls, U+2028/U+2029 and the bidirectional controls
 * (U+061C, U+200E/F, U+202A-E, U+2066-9). */
LUDUS_HIDDEN size_t ludus__show_next(const char *s, size_t n, char esc[8], const char **show, size_t *len);
/* The one way a name reaches terminal text: s[0, n) shown as above into out
 * (cap >= 2 bytes, always NUL-terminated), at most `width` bytes (0: only cap
 * bounds it); a longer name is cut between two characters or escapes and the
 * cut marked with '~'. Returns the length written. */
LUDUS_HIDDEN size_t ludus__text_show(char *out, size_t cap, const char *s, size_t n, size_t width);
/* The same for a NUL-terminated name; returns out (for a printf argument). */
LUDUS_HIDDEN const char *ludus__text_name(char *out, size_t cap, const char *s, size_t width);
/* The text a stringized macro argument denotes: a token as is, or one or
 * more adjacent string literals (prefixes u8, u, U, L allowed) with their
 * escapes resolved (\n, \", \\, octal and hex bytes, \u and \U as UTF-8).
 * out needs n bytes; returns the length (the result may hold any byte). */
LUDUS_HIDDEN size_t ludus__c_literal_text(const char *tok, size_t n, char *out);

#endif
