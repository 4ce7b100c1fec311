/* What the live side's files share (overlay.c, live.c): the names and rows
 * of the live tables' items, read under ludus__live_lock. */
#ifndef LUDUS_LIVE_INTERNAL_H
#define LUDUS_LIVE_INTERNAL_H

#include <stddef.h>

#include "../record/counters.h"

/* The name an item shows: its site's literal text, or "Memory/<domain>". */
LUDUS_HIDDEN void ludus__live_item_name(const ludus__live_item *it, char *out, size_t cap);
/* 1 when row holds the item (it was registered before the row closed). */
LUDUS_HIDDEN int ludus__live_item_in_row(const ludus__live_item *it, const ludus__ring_row *row);

#endif
