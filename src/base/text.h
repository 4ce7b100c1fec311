/* Names as text (text.c): C literals resolved, UTF-8 made valid. */
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
/* The text a stringized macro argument denotes: a token as is, or one or
 * more adjacent string literals (prefixes u8, u, U, L allowed) with their
 * escapes resolved (\n, \", \\, octal and hex bytes, \u and \U as UTF-8).
 * out needs n bytes; returns the length (the result may hold any byte). */
LUDUS_HIDDEN size_t ludus__c_literal_text(const char *tok, size_t n, char *out);

#endif
