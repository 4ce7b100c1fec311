/* A capture's async zones (async.c; ludus_capture.async): the read side
 * of LUDUS_ASYNC_BEGIN/END, zones placed on the lanes of their track. */
#ifndef LUDUS_ASYNC_ZONES_H
#define LUDUS_ASYNC_ZONES_H

#include "capture_model.h"

/* An async zone: [begin_ns, end_ns] on a lane of its track. Zones of one
 * track and id nest (depth); a zone and the zones inside it share a lane,
 * and zones on one lane never overlap unless nested. */
typedef struct ludus__async_zone {
    uint32_t track;                    /* index in c->async_tracks */
    uint32_t site;                     /* the zone's site (UINT32_MAX: not known, its begin was cut away) */
    uint32_t lane, depth;              /* lane of the track; open zones of its id around it */
    uint32_t begin_thread, end_thread; /* thread indexes; UINT32_MAX where it was not seen */
    uint16_t flags;                    /* LUDUS_NEV_INCOMPLETE (never ended), LUDUS_NEV_CLIPPED (begin cut),
                                          LUDUS__ASYNC_END_CLIPPED (end cut) */
    uint64_t id;
    int64_t begin_ns, end_ns;
} ludus__async_zone;

#define LUDUS__ASYNC_END_CLIPPED 0x100u

typedef struct ludus__async_track {
    uint32_t site;  /* a site with the track's name */
    uint32_t lanes; /* lanes used */
} ludus__async_track;

typedef struct ludus__async_raw {
    int64_t ts;
    uint32_t thread, track_site, site, end; /* track_site: the track's site, then its track index */
    uint64_t id, seq;
} ludus__async_raw;

/* The zones ready to use (0), or why not: what exporters and the analysis
 * call first (a capture file finds its zones on first use). */
LUDUS__SIBLING int ludus__async_ensure(ludus_capture *c);

#endif
