/* Scope annotations (LUDUS_PROFILE_ANNOTATE): each an extension event of
 * its own sub-kind (event_kinds.h) whose site is the annotation's key; the
 * reader attaches it to the scope open on the thread. */
#include <string.h>

#include "event_kinds.h"
#include "record.h"

void ludus__annotate_i64(const ludus_site *site, int64_t value) {
    ludus__emit_ext(site, LUDUS__EXT_ARG_I64, (uint64_t)value, NULL, 0);
}

void ludus__annotate_u64(const ludus_site *site, uint64_t value) {
    ludus__emit_ext(site, LUDUS__EXT_ARG_U64, value, NULL, 0);
}

void ludus__annotate_f64(const ludus_site *site, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    ludus__emit_ext(site, LUDUS__EXT_ARG_F64, bits, NULL, 0);
}

void ludus__annotate_text(const ludus_site *site, const char *text) {
    size_t n = 0; /* strnlen is not C11; a signal handler may call this */
    uint64_t cut = 0;
    if (text) {
        while (n < LUDUS_ANNOTATION_TEXT_MAX && text[n]) n++;
        /* cut: at a character's first byte, never inside a UTF-8 character
         * (at most 3 continuation bytes back); the event says so (its value,
         * unused by a text), and the capture counts it (prepare.c) */
        if (n == LUDUS_ANNOTATION_TEXT_MAX && text[n]) {
            cut = LUDUS__ARG_TEXT_CUT;
            for (int back = 0; back < 4 && n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80; back++) n--;
        }
    }
    ludus__emit_ext(site, LUDUS__EXT_ARG_TEXT, cut, text, n);
}
