/* Out-of-line recording: everything the inline fast path of profiling.h
 * hands off (first event of a thread in a capture, chunk handoff, full pool,
 * fence-mode join, monotonic clock) and the events that are not on the
 * hottest path (marks, frames, flows, counters, spans by id).
 *
 * Reservation invariant: cur + room + (scopes open in this capture) = chunk
 * end, so an end whose begin was recorded always has its slot. */
#include "record.h"

__attribute__((aligned(64))) uint32_t ludus__armed_line[16];
int ludus__clock_is_tsc; /* set before arming; read after an acquire of armed */

/* Launch-to-exit capture (src/capture/launch.c) runs from a constructor; this
 * reference makes a static link keep it wherever the recorder is linked. */
void ludus__launch_init(void);
__attribute__((used)) static void (*const keep_launch_init)(void) = ludus__launch_init;

const ludus_site ludus__frame_site = {"Frame", "", "", "frame", 0, 0};

/* Out-of-line events (marks, flows, counters, slow-path scopes) read the TSC
 * ordered: a flow's arrival, stamped here, must not precede its departure on
 * another thread. Inline scopes use a plain rdtsc (see docs/design.md). */
static inline uint64_t now_ticks(void) {
    return ludus__clock_is_tsc ? ludus__read_tsc_ordered() : (uint64_t)ludus__mono_ns();
}

static inline void leave(ludus__thread_hot *t) {
    __atomic_store_n(&t->busy, 0u, __ATOMIC_RELEASE);
}

/* The room the slow path works with. The inline begin checks only
 * ludus__hot.room, not the generation: a room above 0 means "this thread's
 * chunk belongs to the armed capture". So the room is 0 whenever that is not
 * true: on attach, when the controller ends a capture (session.c), on release
 * (threads.c), and always in slow mode, where the real room lives here. */
static inline intptr_t *room_of(ludus__thread_hot *t, ludus__thread_cold *c) {
    return c->slow ? &c->slow_room : &t->room;
}

static void attach(ludus__thread_hot *t, ludus__thread_cold *c, uint32_t gen, int slow) {
    t->gen = gen;
    t->cur = NULL;
    t->room = 0;
    c->slow = (uint32_t)slow;
    c->slow_room = 0;
    c->chunk = NULL;
    c->first_chunk = NULL;
    c->chunk_seq = 0;
    c->dropped = 0;
    c->orphan_ends = 0;
    if (c->carry_gen != gen) c->carry_depth = 0;
}

/* Marks the thread busy and returns the armed capture generation, attaching
 * the thread to it (and registering it) when needed. Returns 0, not busy,
 * when nothing may be recorded. The sequentially consistent store and load
 * are the fence-mode join; membarrier mode only comes here off the fast path. */
static uint32_t enter(ludus__thread_hot *t) {
    ludus__thread_cold *c = &ludus__cold;
    for (;;) {
        __atomic_store_n(&t->busy, 1u, __ATOMIC_SEQ_CST);
        uint32_t g = __atomic_load_n(&ludus__armed, __ATOMIC_SEQ_CST);
        if (g == 0 || c->dead) break;
        uint32_t gen = g & ~LUDUS__ARMED_SLOW;
        if (t->gen == gen) return gen;
        if (c->record >= 0) {
            attach(t, c, gen, (g & LUDUS__ARMED_SLOW) != 0);
            return gen;
        }
        leave(t); /* never hold busy while taking the registry lock */
        if (ludus__register_self(NULL) != 0) {
            __atomic_fetch_add(&ludus__reg.unregistered_drops, 1u, __ATOMIC_RELAXED);
            return 0;
        }
    }
    leave(t);
    return 0;
}

/* Ensures `need` free slots in the current chunk (beyond the reserved ones),
 * moving to a new chunk when the current one is full. 0: pool exhausted. */
static int make_room(ludus__thread_hot *t, ludus__thread_cold *c, uint32_t need) {
    intptr_t *room = room_of(t, c);
    if (c->chunk && *room >= (intptr_t)need) return 1;
    size_t depth;
    if (c->chunk)
        depth = (size_t)(ludus__chunk_end(c->chunk) - t->cur) - (size_t)*room;
    else
        depth = c->carry_gen == t->gen ? c->carry_depth : 0;
    ludus__chunk *n = ludus__pool_take();
    if (!n) return 0;
    n->thread = (uint32_t)c->record;
    n->seq = c->chunk_seq++;
    n->gen = t->gen;
    n->used = 0;
    n->next = NULL;
    if (c->chunk) {
        c->chunk->used = (uint64_t)(t->cur - LUDUS__CHUNK_EVENTS(c->chunk));
        c->chunk->next = n;
    } else {
        c->first_chunk = n;
    }
    c->chunk = n;
    t->cur = LUDUS__CHUNK_EVENTS(n);
    size_t slots = (size_t)(ludus__chunk_end(n) - t->cur);
    *room = slots > depth ? (intptr_t)(slots - depth) : 0;
    return *room >= (intptr_t)need;
}

uint32_t ludus__begin_slow(const ludus_site *site) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    uint32_t gen = enter(t);
    if (!gen) return 0;
    if (!make_room(t, c, 2)) { /* the begin and its end's reserved slot */
        c->dropped++;
        leave(t);
        return gen | LUDUS__TOKEN_DROPPED;
    }
    ludus__event *e = t->cur;
    e->ticks = now_ticks();
    e->word = (uintptr_t)site + LUDUS__K_BEGIN;
    t->cur = e + 1;
    *room_of(t, c) -= 2;
    leave(t);
    return gen;
}

void ludus__end_slow(uint32_t token, const ludus_site *site) {
    (void)site;
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    uint32_t gen = enter(t);
    if (!gen) return;
    if (token & LUDUS__TOKEN_DROPPED) {
        /* The begin was dropped: drop (and count) the end as well. */
        if ((token & ~LUDUS__TOKEN_DROPPED) == gen) c->dropped++;
    } else if (token == gen && make_room(t, c, 0)) {
        ludus__event *e = t->cur;
        e->ticks = now_ticks();
        e->word = LUDUS__K_END; /* ends name no site: they close the innermost scope */
        t->cur = e + 1;
    } else if (token != gen)
        c->orphan_ends++; /* begun in an earlier capture: dropped and counted */
    leave(t);
}

/* One event of one or two slots; returns 0 when it was dropped or idle. */
static int emit_slots(uintptr_t word, uint64_t p0, uintptr_t p1, uint32_t nslots, uint64_t *flow) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    uint32_t gen = enter(t);
    if (!gen) return 0;
    if (!make_room(t, c, nslots)) {
        c->dropped++;
        leave(t);
        return 0;
    }
    if (flow) p0 = *flow = ((uint64_t)c->serial << 32) | ++c->flow_seq;
    ludus__event *e = t->cur;
    e[0].ticks = now_ticks();
    e[0].word = word;
    if (nslots == 2) {
        e[1].ticks = p0;
        e[1].word = p1;
    }
    t->cur = e + nslots;
    *room_of(t, c) -= (intptr_t)nslots;
    leave(t);
    return 1;
}

void ludus__emit(const ludus_site *site, unsigned kind) {
    emit_slots((uintptr_t)site | kind, 0, 0, 1, NULL);
}

void ludus__frame(void) {
    emit_slots((uintptr_t)&ludus__frame_site | LUDUS__K_FRAME, 0, 0, 1, NULL);
}

uint64_t ludus__flow_out(const char *name) {
    uint64_t id = 0;
    if (!emit_slots(LUDUS__K_FLOW_OUT, 0, (uintptr_t)name, 2, &id)) return 0;
    return id;
}

void ludus__flow_in(uint64_t flow_id) {
    if (flow_id == 0) return;
    emit_slots(LUDUS__K_FLOW_IN, flow_id, 0, 2, NULL);
}

/* ---- spans by id and BEGIN/END: a per-thread stack of begin tokens ---- */

static void count_drop(void) {
    ludus__thread_hot *t = &ludus__hot;
    if (enter(t)) {
        ludus__cold.dropped++;
        leave(t);
    }
}

void ludus__span_begin(const ludus_site *site) {
    ludus__thread_cold *c = &ludus__cold;
    if (c->span_depth >= LUDUS__SPAN_DEPTH) {
        c->span_overflow++;
        count_drop();
        return;
    }
    c->span_tok[c->span_depth++] = ludus__scope_begin(site);
}

void ludus_end_site(void) {
    ludus__thread_cold *c = &ludus__cold;
    if (c->span_overflow) {
        c->span_overflow--;
        if (ludus__load_armed()) count_drop();
        return;
    }
    if (c->span_depth == 0) return;
    ludus__scope_end(c->span_tok[--c->span_depth], NULL);
}

void ludus_begin_site(uint32_t site_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (site) ludus__span_begin(site);
}

uint32_t ludus__dyn_begin(const char *name) {
    const ludus_site *site = ludus__site_by_id(ludus_intern_name(name));
    return site ? ludus__scope_begin(site) : 0;
}

void ludus_start_flow(uint32_t site_id, uint64_t flow_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (!site || !(flow_id & LUDUS_CALLER_FLOW_ID_BIT)) return;
    emit_slots(LUDUS__K_FLOW_OUT, flow_id, (uintptr_t)site->name, 2, NULL);
}

void ludus_finish_flow(uint64_t flow_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    if (!(flow_id & LUDUS_CALLER_FLOW_ID_BIT)) return;
    emit_slots(LUDUS__K_FLOW_IN, flow_id, 0, 2, NULL);
}

void ludus_sample_counter(uint32_t site_id, int64_t value) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (site) emit_slots((uintptr_t)site | LUDUS__K_COUNTER, (uint64_t)value, 0, 2, NULL);
}

void ludus_sample_counter_f64(uint32_t site_id, double value) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    uint64_t bits;
    __builtin_memcpy(&bits, &value, sizeof bits);
    if (site) emit_slots((uintptr_t)site | LUDUS__K_COUNTER_F64, bits, 0, 2, NULL);
}
