/* Ludus Profiling: instrumentation macros and the inline recording hot path.
 *
 * This is the only header instrumented code needs. It includes freestanding
 * headers only (<stdint.h>, <stddef.h>) and compiles as C11 and C++11.
 * Control calls (begin/end a capture, export) live in <ludus/capture.h>.
 *
 * LUDUS_PROFILE_LEVEL: 0 = every macro compiles to nothing and evaluates no
 * argument; 1 (default) = scopes, frames, marks, flows; 2 = also
 * LUDUS_PROFILE_SCOPE_FINE. */
#ifndef LUDUS_PROFILING_H
#define LUDUS_PROFILING_H

#include <stddef.h>
#include <stdint.h>

#ifndef LUDUS_PROFILE_LEVEL
#define LUDUS_PROFILE_LEVEL 1
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Sites. One static descriptor per instrumentation site; events carry its
 * address. Aligned to 16 bytes so an event can keep its kind in the low bits
 * of the address. The stable numeric id (FNV-1a of name, file and line) is
 * computed off the hot path, when a capture is exported. */
typedef struct __attribute__((aligned(16))) ludus_site {
    const char *name;     /* token or string literal as written; NULL: use function */
    const char *function; /* __func__ of the enclosing function */
    const char *file;     /* __FILE__ */
    const char *category; /* NULL when the site has none */
    uint32_t line;        /* __LINE__ */
    uint32_t flags;       /* LUDUS_SITE_* */
} ludus_site;

#define LUDUS_SITE_DYNAMIC 1u /* registered at run time (ludus_register_site) */

/* ---------------------------------------------------------------------------
 * Integration API: for code that names its work at run time (job systems,
 * scripting). Register a site once, then begin/end/sample by its id. None of
 * these calls allocates; each is a relaxed load and a branch when no capture
 * runs. Spans begun here must end on the same thread (flows link threads). */
typedef struct ludus_site_desc {
    const char *name;     /* required; copied into the library's bounded table */
    const char *category; /* optional; copied */
    const char *file;     /* optional; copied */
    uint32_t line;        /* optional */
} ludus_site_desc;

/* Registers (or finds) a run-time site; thread-safe. Returns its id (> 0), or
 * 0 when the table is full or desc is invalid (the miss is counted and
 * written into every export as "interner_drops"). Same name, category, file
 * and line give the same id. */
uint32_t ludus_register_site(const ludus_site_desc *desc);
/* Site for a run-time name with no file or line; same contract as above. */
uint32_t ludus_intern_name(const char *name);

void ludus_begin_site(uint32_t site_id);
void ludus_end_site(void); /* closes the innermost span begun by id or BEGIN */
/* Caller-owned flow ids must have this bit set so they never collide with
 * the ids LUDUS_PROFILE_FLOW_OUT hands out. */
#define LUDUS_CALLER_FLOW_ID_BIT (UINT64_C(1) << 63)
void ludus_start_flow(uint32_t site_id, uint64_t flow_id);
void ludus_finish_flow(uint64_t flow_id);
void ludus_sample_counter(uint32_t site_id, int64_t value);
void ludus_sample_counter_f64(uint32_t site_id, double value);

/* ---------------------------------------------------------------------------
 * Control calls, declared here so instrumented code can drive a capture with
 * one include; documented in <ludus/capture.h>. They stay declared at every
 * profile level. */
typedef struct ludus_capture_desc ludus_capture_desc;
int ludus_begin_capture(const ludus_capture_desc *desc);
int ludus_end_capture(void);
int ludus_export_perfetto_trace(const char *path);
int ludus_register_thread_for_trace(const char *name);
int ludus_unregister_thread_for_trace(void);
const char *ludus_error_string(int code);

/* ---------------------------------------------------------------------------
 * Internals used by the inline hot path. Not API: names may change. */
typedef struct ludus__event {
    union {
        uint64_t ticks;      /* raw clock ticks (TSC or monotonic ns), converted at export */
        uint32_t ticks32[2]; /* the halves rdtsc returns, stored without combining */
    };
    uintptr_t word; /* site address | kind, or a payload word */
} ludus__event;

enum {
    LUDUS__K_END = 0, /* 0: the pool is zeroed at capture start, so an end
                         stores its timestamp only (each slot is written once) */
    LUDUS__K_BEGIN = 1,
    LUDUS__K_UNUSED = 2,
    LUDUS__K_INSTANT = 3,
    LUDUS__K_FRAME = 4,
    LUDUS__K_FLOW_OUT = 5,    /* + payload slot {flow id, name} */
    LUDUS__K_FLOW_IN = 6,     /* + payload slot {flow id, 0} */
    LUDUS__K_COUNTER = 7,     /* + payload slot {int64 value, 0} */
    LUDUS__K_COUNTER_F64 = 8, /* + payload slot {double bits, 0} */
    LUDUS__K_MASK = 15
};

/* The thread's recording state. Written by its own thread; read by the
 * capture controller only after the producer join (see src/record/join.c). */
typedef struct ludus__thread_hot {
    ludus__event *cur; /* next free slot of the current chunk */
    intptr_t room;     /* free slots after cur, not counting one slot reserved
                          for the end of each open scope: cur + room + open
                          scopes == chunk end. An end only advances cur. */
    uint32_t gen;      /* capture generation the chunk belongs to; 0 = none */
    uint32_t busy;     /* 1 while an event is being written (producer join) */
} ludus__thread_hot;

/* armed: 0 = no capture; otherwise the capture generation, with
 * LUDUS__ARMED_SLOW set when every event must take the out-of-line path
 * (fence join, monotonic clock, or no inline clock on this CPU). */
#define LUDUS__ARMED_SLOW 0x40000000u
#define LUDUS__TOKEN_DROPPED 0x80000000u

/* armed has a cache line of its own ([0]; the rest is padding): every event
 * of every thread reads it, so nothing that is written may share its line. */
extern uint32_t ludus__armed_line[16];
#define ludus__armed (ludus__armed_line[0])
#if defined(__GNUC__) || defined(__clang__)
extern __thread ludus__thread_hot ludus__hot __attribute__((tls_model("initial-exec")));
#else
#error "Ludus Profiling needs GCC or Clang (thread-local storage, atomics builtins)"
#endif

uint32_t ludus__begin_slow(const ludus_site *site);
void ludus__end_slow(uint32_t token, const ludus_site *site);
void ludus__emit(const ludus_site *site, unsigned kind);
uint64_t ludus__flow_out(const char *name);
void ludus__flow_in(uint64_t flow_id);
void ludus__frame(void);
void ludus__span_begin(const ludus_site *site);
uint32_t ludus__dyn_begin(const char *name);

#if defined(__x86_64__) && !defined(LUDUS_NO_INLINE_TSC)
#define LUDUS__INLINE_CLOCK 1
#else
#define LUDUS__INLINE_CLOCK 0
#endif

/* Inline helpers are always inlined (GCC stops inlining plain "static
 * inline" in large files, which would turn the hot path into a call) and not
 * themselves instrumented by -finstrument-functions. */
#define LUDUS__INLINE static inline __attribute__((always_inline, no_instrument_function))

#define LUDUS__LIKELY(x) __builtin_expect(!!(x), 1)
#define LUDUS__UNLIKELY(x) __builtin_expect(!!(x), 0)

#if LUDUS__INLINE_CLOCK
/* Stores the TSC into e as rdtsc returns it (EDX:EAX), saving the shift and
 * or that combining would cost (x86-64 is little-endian). */
LUDUS__INLINE void ludus__stamp(ludus__event *e) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    e->ticks32[0] = lo;
    e->ticks32[1] = hi;
}

#endif

LUDUS__INLINE uint32_t ludus__load_armed(void) {
    return __atomic_load_n(&ludus__armed, __ATOMIC_RELAXED);
}

/* Begin a scope: returns a token for ludus__scope_end (0 when nothing was
 * recorded). The join protocol: mark busy, then re-read armed; the
 * controller disarms, runs an asymmetric barrier (membarrier) and waits for
 * busy to clear, so no per-event fence is needed here. */
LUDUS__INLINE uint32_t ludus__scope_begin(const ludus_site *site) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return 0;
#if LUDUS__INLINE_CLOCK
    ludus__thread_hot *t = &ludus__hot;
    __atomic_store_n(&t->busy, 1u, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* Acquire: the room read next is the one the controller left (0) when it
     * ended the previous capture. room > 0 means the thread's chunk belongs
     * to the armed capture, so the generation needs no check here. */
    uint32_t g = __atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE);
    if (LUDUS__UNLIKELY(t->room < 2)) return ludus__begin_slow(site);
    /* Take this slot and the one reserved for the end, in memory ("subq $2,
     * %fs:..."): written in C, compilers load, subtract and store. */
    __asm__("subq $2, %0" : "+m"(t->room));
    ludus__event *e = t->cur;
    ludus__stamp(e);
    e->word = (uintptr_t)site + LUDUS__K_BEGIN; /* site is 16-aligned: + is | */
    t->cur = e + 1;
    __atomic_store_n(&t->busy, 0u, __ATOMIC_RELEASE);
    return g;
#else
    return ludus__begin_slow(site);
#endif
}

LUDUS__INLINE void ludus__scope_end(uint32_t token, const ludus_site *site) {
    if (token == 0) return;
#if LUDUS__INLINE_CLOCK
    ludus__thread_hot *t = &ludus__hot;
    __atomic_store_n(&t->busy, 1u, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    /* armed != token, compared in memory ("cmpl mem, reg"): compilers do not
     * fold an atomic load into the compare. The read is a plain 32-bit load,
     * as the relaxed atomic load is on x86-64. */
    int other_capture;
    __asm__ volatile("cmpl %1, %2" : "=@ccne"(other_capture) : "m"(ludus__armed), "r"(token));
    if (LUDUS__UNLIKELY(other_capture)) {
        ludus__end_slow(token, site);
        return;
    }
    /* g == token: the begin was recorded in this capture, so its end slot is
     * reserved and no bounds check is needed. */
    ludus__event *e = t->cur;
    ludus__stamp(e); /* the word is already 0 = END (zeroed pool) */
    t->cur = e + 1;
    (void)site;
    __atomic_store_n(&t->busy, 0u, __ATOMIC_RELEASE);
#else
    ludus__end_slow(token, site);
#endif
}

LUDUS__INLINE void ludus__instant(const ludus_site *site, unsigned kind) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    ludus__emit(site, kind);
}

LUDUS__INLINE uint64_t ludus__flow_out_check(const char *name) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return 0;
    return ludus__flow_out(name);
}

LUDUS__INLINE void ludus__flow_in_check(uint64_t id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    ludus__flow_in(id);
}

LUDUS__INLINE void ludus__frame_check(void) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    ludus__frame();
}

LUDUS__INLINE void ludus__span_begin_check(const ludus_site *site) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    ludus__span_begin(site);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---------------------------------------------------------------------------
 * Macros. Name and Category are tokens or string literals (a literal keeps
 * its text: LUDUS_PROFILE_SCOPE("Render scene")). */
#define LUDUS__CAT2(a, b) a##b
#define LUDUS__CAT(a, b) LUDUS__CAT2(a, b)
#define LUDUS__VAR(base) LUDUS__CAT(base, __LINE__)

#define LUDUS__SITE(var, name_str, cat_str) \
    static const ludus_site var = {name_str, __func__, __FILE__, cat_str, (uint32_t)__LINE__, 0u}

/* Picks the one- or two-argument form of LUDUS_PROFILE_SCOPE (ISO C11: no
 * GNU comma swallowing). */
#define LUDUS__ARG3(a, b, c, ...) c
#define LUDUS__PICK2(impl2, impl1, ...) LUDUS__ARG3(__VA_ARGS__, impl2, impl1, unused)

#if LUDUS_PROFILE_LEVEL > 0

#ifdef __cplusplus
namespace ludus {
struct scope {
    const ludus_site *site;
    uint32_t token;
    explicit scope(const ludus_site *s) : site(s), token(ludus__scope_begin(s)) {}
    ~scope() {
        ludus__scope_end(token, site);
    }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;
};
} /* namespace ludus */
#define LUDUS__SCOPE_AT(site_var, scope_var, name_str, cat_str) \
    LUDUS__SITE(site_var, name_str, cat_str);                   \
    ::ludus::scope scope_var(&site_var)
#else
LUDUS__INLINE void ludus__scope_cleanup(const uint32_t *token) {
    /* The site of the end is not needed for pairing (ends close the
     * innermost open scope); NULL keeps the cleanup a one-argument call. */
    ludus__scope_end(*token, NULL);
}
#define LUDUS__SCOPE_AT(site_var, scope_var, name_str, cat_str) \
    LUDUS__SITE(site_var, name_str, cat_str);                   \
    uint32_t scope_var __attribute__((cleanup(ludus__scope_cleanup), unused)) = ludus__scope_begin(&site_var)
#endif

#ifdef __cplusplus
namespace ludus {
struct dyn_scope {
    uint32_t token;
    explicit dyn_scope(const char *name) : token(ludus__load_armed() ? ludus__dyn_begin(name) : 0) {}
    ~dyn_scope() {
        ludus__scope_end(token, NULL);
    }
    dyn_scope(const dyn_scope &) = delete;
    dyn_scope &operator=(const dyn_scope &) = delete;
};
} /* namespace ludus */
#define LUDUS__SCOPE_DYN_AT(var, name_expr) ::ludus::dyn_scope var(name_expr)
#else
#define LUDUS__SCOPE_DYN_AT(var, name_expr)                               \
    uint32_t var __attribute__((cleanup(ludus__scope_cleanup), unused)) = \
        (ludus__load_armed() ? ludus__dyn_begin(name_expr) : 0u)
#endif

#define LUDUS__SCOPE_NC(name_str, cat_str) \
    LUDUS__SCOPE_AT(LUDUS__VAR(ludus__site_), LUDUS__VAR(ludus__scope_), name_str, cat_str)
#define LUDUS__SCOPE1(Name) LUDUS__SCOPE_NC(#Name, NULL)
#define LUDUS__SCOPE2(Name, Category) LUDUS__SCOPE_NC(#Name, #Category)

/* A scope that closes at the end of the enclosing block (also on return,
 * break and goto out of it). One or two arguments: (Name) or (Name, Category). */
#define LUDUS_PROFILE_SCOPE(...) LUDUS__PICK2(LUDUS__SCOPE2, LUDUS__SCOPE1, __VA_ARGS__)(__VA_ARGS__)
/* A scope named after the enclosing function. */
#define LUDUS_PROFILE_FUNCTION() LUDUS__SCOPE_NC(NULL, NULL)

#define LUDUS__MARK_AT(site_var, name_str, kind) \
    do {                                         \
        LUDUS__SITE(site_var, name_str, NULL);   \
        ludus__instant(&site_var, kind);         \
    } while (0)
/* Frame boundary: an instant on this thread and the start of a new frame
 * epoch (frames are numbered at export). Call it from one thread. */
#define LUDUS_PROFILE_FRAME() ludus__frame_check()
/* Zero-duration marker on this thread's track. */
#define LUDUS_PROFILE_MARK(Name) LUDUS__MARK_AT(ludus__mark_site, #Name, LUDUS__K_INSTANT)

#define LUDUS__BEGIN_AT(site_var, name_str)    \
    do {                                       \
        LUDUS__SITE(site_var, name_str, NULL); \
        ludus__span_begin_check(&site_var);    \
    } while (0)
/* A span that is not lexical: BEGIN opens it, END closes the innermost one
 * opened by BEGIN or ludus_begin_site on this thread. */
#define LUDUS_PROFILE_BEGIN(Name) LUDUS__BEGIN_AT(ludus__span_site, #Name)
#define LUDUS_PROFILE_END() ludus_end_site()

/* Flow: OUT returns an id (0 when not recording) to hand to the thread that
 * continues the work, which calls IN with it inside its own scope. */
#define LUDUS_PROFILE_FLOW_OUT(Name) ludus__flow_out_check(#Name)
#define LUDUS_PROFILE_FLOW_IN(id) ludus__flow_in_check(id)

/* A scope whose name is known only at run time (interned, bounded). */
#define LUDUS_PROFILE_SCOPE_DYN(name_expr) LUDUS__SCOPE_DYN_AT(LUDUS__VAR(ludus__dyn_), name_expr)

#else /* LUDUS_PROFILE_LEVEL == 0: nothing is evaluated, no code is emitted */

#define LUDUS_PROFILE_SCOPE(...) ((void)0)
#define LUDUS_PROFILE_FUNCTION() ((void)0)
#define LUDUS_PROFILE_FRAME() ((void)0)
#define LUDUS_PROFILE_MARK(Name) ((void)0)
#define LUDUS_PROFILE_BEGIN(Name) ((void)0)
#define LUDUS_PROFILE_END() ((void)0)
#define LUDUS_PROFILE_FLOW_OUT(Name) ((uint64_t)0)
/* sizeof names a value argument without evaluating it (no code, no unused-
 * variable warning for a variable only the macro uses). */
#define LUDUS_PROFILE_FLOW_IN(id) ((void)sizeof(id))
#define LUDUS_PROFILE_SCOPE_DYN(name_expr) ((void)sizeof(name_expr))

#endif

#if LUDUS_PROFILE_LEVEL > 1
/* Fine-grained scope, compiled in only at level 2. */
#define LUDUS_PROFILE_SCOPE_FINE(...) LUDUS_PROFILE_SCOPE(__VA_ARGS__)
#else
#define LUDUS_PROFILE_SCOPE_FINE(...) ((void)0)
#endif

#endif /* LUDUS_PROFILING_H */
