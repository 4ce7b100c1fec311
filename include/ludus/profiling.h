/* Ludus Profiling: instrumentation macros and the inline recording hot path.
 *
 * This is the only header instrumented code needs. It includes freestanding
 * headers only (<stdint.h>, <stddef.h>) and compiles as C11 and C++11.
 * Control calls (begin/end a capture, export) live in <ludus/capture.h>.
 *
 * LUDUS_PROFILE_LEVEL: 0 = every macro compiles to nothing and evaluates no
 * argument; 1 (default) = scopes, frames, marks, flows, counters, gauges,
 * plots; 2 = also LUDUS_PROFILE_SCOPE_FINE. */
#ifndef LUDUS_PROFILING_H
#define LUDUS_PROFILING_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifndef LUDUS_PROFILE_LEVEL
#define LUDUS_PROFILE_LEVEL 1
#endif

/* Compilers. LUDUS__MSVC: MSVC, and clang-cl (both define _MSC_VER): the
 * hot path's thread-local storage, loads and stores, and clock are MSVC's
 * (__declspec(thread), volatile accesses ordered by _ReadWriteBarrier,
 * __rdtsc), so clang-cl compiles what MSVC compiles. LUDUS__GNU: gcc and
 * clang, clang-cl included: attributes and builtins (branch hints, forced
 * inlining, printf checks, unused, cleanup) where the compiler has them;
 * MSVC gets its own spelling or none. tests/compile/header_msvc.sh compiles
 * every public header as MSVC would (no __clang__, every GNU extension
 * poisoned). With MSVC's C compiler LUDUS_PROFILE_SCOPE cannot close at the
 * end of its block (no cleanup attribute): LUDUS_ZONE_BEGIN and
 * LUDUS_ZONE_END are the way there (docs/instrument.md). */
#ifdef _MSC_VER
#define LUDUS__MSVC 1
#if !defined(_M_X64) || defined(_M_ARM64EC)
#error "Ludus Profiling with MSVC: x64 only so far (ARM64's acquire and release accesses are left: issue 36)"
#endif
#if !defined(__cplusplus) && !(defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
#error "Ludus Profiling with MSVC's C compiler needs /std:c11 or /std:c17 (_Generic)"
#endif
#else
#define LUDUS__MSVC 0
#endif
#if defined(__GNUC__) || defined(__clang__)
#define LUDUS__GNU 1
#define LUDUS__UNUSED __attribute__((unused))
#else
#define LUDUS__GNU 0
#define LUDUS__UNUSED
#endif

/* Symbols of the library's public interface (the shared library hides
 * everything else). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define LUDUS_API __attribute__((visibility("default")))
#else
#define LUDUS_API
#endif

/* An old name, kept as an inline wrapper for one minor release after it
 * changed (docs/design.md, "The public API's words"): a call warns and
 * names the new one. LUDUS_NO_DEPRECATED leaves the old names out. */
#if LUDUS__GNU
#define LUDUS__DEPRECATED(new_name) __attribute__((deprecated("renamed " #new_name)))
#elif LUDUS__MSVC
#define LUDUS__DEPRECATED(new_name) __declspec(deprecated("renamed " #new_name))
#else
#define LUDUS__DEPRECATED(new_name)
#endif

/* Casts that C++ compilers take under -Wold-style-cast (the header is
 * included through -I, not as a system header). */
#ifdef __cplusplus
#define LUDUS__CAST(T, x) static_cast<T>(x)
#define LUDUS__PUN(T, x) reinterpret_cast<T>(x)
#else
#define LUDUS__CAST(T, x) ((T)(x))
#define LUDUS__PUN(T, x) ((T)(x))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Sites. One static descriptor per instrumentation site; events carry its
 * address. Aligned to 16 bytes so an event can keep its kind in the low bits
 * of the address. The stable numeric id (FNV-1a of name, file and line) is
 * computed off the hot path, when a capture is exported. */
#if LUDUS__MSVC
#define LUDUS__ALIGN16 __declspec(align(16))
#else
#define LUDUS__ALIGN16 __attribute__((aligned(16)))
#endif
typedef struct LUDUS__ALIGN16 ludus_site {
    const char *name;     /* token or string literal as written; NULL: use function */
    const char *function; /* __func__ of the enclosing function */
    const char *file;     /* __FILE__ */
    const char *category; /* NULL when the site has none */
    uint32_t line;        /* __LINE__ */
    uint32_t flags;       /* LUDUS_SITE_* */
} ludus_site;

#define LUDUS_SITE_DYNAMIC 1u /* registered at run time (ludus_site_register) */
#define LUDUS_SITE_TEXT 2u    /* name and category are plain text, not C tokens or literals */
#define LUDUS_SITE_COUNT 4u   /* a LUDUS_PROFILE_COUNT counter */
#define LUDUS_SITE_GAUGE 8u   /* a LUDUS_PROFILE_GAUGE gauge */
#define LUDUS_SITE_MEMORY 16u /* a memory domain (ludus_memory_domain_register) */
#define LUDUS_SITE_TRACY 32u  /* a ludus__tracy_site: Tracy's source location follows (LUDUS_BACKEND_TRACY) */

/* The backend: LUDUS_BACKEND_TRACY (set by the build that links Tracy's
 * client, -DLUDUS_BACKEND=tracy) sends every macro to Tracy instead of the
 * built-in recorder (src/backend/tracy.c; docs/tracy.md). The library's
 * own sources are always compiled without it. */
#if defined(LUDUS_BACKEND_TRACY) && LUDUS_BACKEND_TRACY
#define LUDUS__TRACY 1
#else
#define LUDUS__TRACY 0
#endif

/* A counter (LUDUS_PROFILE_COUNT) or a gauge (LUDUS_PROFILE_GAUGE) as one
 * macro use sees it: its site and where the library keeps its value. Uses
 * with the same name share one counter or gauge. */
typedef struct ludus_counter_site {
    ludus_site site;
    uint32_t
        slot; /* counter: its slot in every thread's shard; gauge: 1 + its row in ludus__gauges; 0 until first use */
    uint32_t reserved;
} ludus_counter_site;

/* ---------------------------------------------------------------------------
 * Integration API: for code that names its work at run time (job systems,
 * script VMs). Register a site once, then begin/end/sample by its id. None of
 * these calls allocates; each is a relaxed load and a branch when no capture
 * runs. Flows link work across threads. */
typedef struct ludus_site_desc {
    const char *name;     /* required; copied into the library's table */
    const char *category; /* optional; copied */
    const char *file;     /* optional; copied */
    uint32_t line;        /* optional */
} ludus_site_desc;

/* Registers (or finds) a run-time site; thread-safe. Returns its id (> 0), or
 * 0 when the table (65,536 sites for the process's lifetime) is full or desc
 * is invalid (the refusal is counted as "interner_drops" of the capture that
 * is running). Same name, category, file and line give the same id, which
 * stays valid for the life of the process. */
LUDUS_API uint32_t ludus_site_register(const ludus_site_desc *desc);
/* Site for a run-time name with no file or line; same contract as above. */
LUDUS_API uint32_t ludus_site_intern(const char *name);

/* Spans by id: not lexical, paired by identity, not by position. Each thread
 * keeps its own open spans; lexical scopes opened inside or around a span do
 * not disturb it. An invalid id (0, or one never returned) records a span
 * named "<invalid site id>" so the mistake shows in the trace.
 *   ludus_span_end()       closes the innermost open span of this thread
 *   ludus_span_end_site(id)  closes the most recent open span of that site,
 *                          even when others were opened after it
 * An end with no matching open span is recorded, flagged and counted as a
 * mismatched end ("span_mismatches"), never paired with another span. */
LUDUS_API void ludus_span_begin(uint32_t site_id);
LUDUS_API void ludus_span_end(void);
LUDUS_API void ludus_span_end_site(uint32_t site_id);

/* Caller-owned flow ids must have this bit set so they never collide with
 * the ids LUDUS_PROFILE_FLOW_OUT hands out. */
#define LUDUS_CALLER_FLOW_ID_BIT (UINT64_C(1) << 63)
LUDUS_API void ludus_flow_begin(uint32_t site_id, uint64_t flow_id);
LUDUS_API void ludus_flow_end(uint64_t flow_id);
/* A timestamped value on the counter's track. Doubles are kept exactly in
 * .ludus and .pftrace; JSON cannot hold NaN or infinities, so such samples
 * are left out of JSON and counted there ("nonfinite_counter_samples"). */
LUDUS_API void ludus_counter_sample(uint32_t site_id, int64_t value);
LUDUS_API void ludus_counter_sample_f64(uint32_t site_id, double value);

/* Non-local exits. C's longjmp (and anything built on it: a script VM's
 * error handling, coroutine switches) skips the end of every scope it jumps
 * out of. The recorder notices on its own, at the latest when an enclosing
 * scope ends (its end names its begin, so the scopes opened inside it that
 * never ended are closed there and marked "unwound"), or at capture end.
 * Code that knows it unwinds says so, and the skipped scopes end right there:
 *
 *     ludus_unwind_point up = ludus_unwind_here();
 *     if (setjmp(env) == 0) work(); else ludus_unwound_to(up);
 *
 * Both are cheap (no lock, no allocation) and async-signal-safe. */
typedef struct ludus_unwind_point {
    uintptr_t at; /* where the thread's next event would have gone; 0: not recording */
    uint32_t gen; /* the capture it belongs to */
    uint32_t reserved;
} ludus_unwind_point;
LUDUS_API ludus_unwind_point ludus_unwind_here(void);
LUDUS_API void ludus_unwound_to(ludus_unwind_point point);

/* ---------------------------------------------------------------------------
 * Log messages: a run-time text on the thread's track, as an instant with a
 * level. The text is copied into the thread's buffer (never interned: any
 * number of distinct texts is fine), cut at LUDUS_MESSAGE_MAX bytes. During
 * a capture only; a message that finds the buffer full is dropped and
 * counted like any event. ludus_log formats on the calling thread
 * (vsnprintf into a stack buffer); LUDUS_PROFILE_MESSAGE with a literal
 * formats and copies nothing. In a signal handler: LUDUS_PROFILE_MESSAGE,
 * LUDUS_PROFILE_LOG and ludus_log_text are safe (an event they interrupt
 * makes them drop and count, as every event does); ludus_log is not
 * (vsnprintf). A logger forwards to it with one line:
 *     void my_sink(int lvl, const char *s) { ludus_log_text(lvl, s, strlen(s)); } */
enum { LUDUS_LOG_DEBUG = 0, LUDUS_LOG_INFO = 1, LUDUS_LOG_WARNING = 2, LUDUS_LOG_ERROR = 3 };
#define LUDUS_MESSAGE_MAX 1024
/* A message formatted now (printf's rules), at level LUDUS_LOG_*. */
#if LUDUS__GNU
LUDUS_API void ludus_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#else
LUDUS_API void ludus_log(int level, const char *fmt, ...);
#endif
LUDUS_API void ludus_vlog(int level, const char *fmt, va_list args);
/* LUDUS_PROFILE_LOG(level, "format", args...): like ludus_log, but the
 * text is formatted when the capture is read, not when it is logged: the
 * call copies the arguments (numbers, and the bytes of %s strings) and the
 * site holds the format, which must be a string literal. Conversions d i u o
 * x X c s f F e E g G a A p with any flags, width, precision ('*' too) and
 * length modifier; %n and wide conversions end what is formatted. */
/* Text as it is (no formatting); len bytes, need not be NUL-terminated. */
LUDUS_API void ludus_log_text(int level, const char *text, size_t len);
/* "debug", "info", "warning", "error" ("?" for anything else). */
LUDUS_API const char *ludus_log_level_name(int level);

/* ---------------------------------------------------------------------------
 * Async zones: work whose life is not a block of one thread (tasks, loading,
 * requests, coroutines). A zone begins on a track with an id and a site and
 * ends, on any thread, by track and id; zones with the same track and id
 * nest (an end closes the most recent open one). Each track is its own
 * timeline in the viewers (zones of different ids that overlap go on lanes
 * of the track); tracks are known by name. Ids are yours (0 is fine). */
LUDUS_API uint32_t ludus_async_track(const char *name); /* a site id for the track (0 when the table is full) */
LUDUS_API void ludus_async_begin(uint32_t track, uint64_t id, uint32_t site_id);
LUDUS_API void ludus_async_end(uint32_t track, uint64_t id);

/* Fibers: a fiber's zones appear on the fiber's own track, whichever
 * thread runs it. Announce each switch on the thread that makes it:
 * ludus_fiber_enter(name) when the thread starts running a fiber (a name
 * that identifies it, unique among the fibers alive at once; copied into the
 * capture's table of run-time names, like LUDUS_PROFILE_SCOPE_DYN's), and
 * ludus_fiber_leave() when the thread stops running it (yield, finish).
 * Entering a fiber while in another leaves the other first. Scopes begun
 * on a fiber must end on it. The thread's own track shows, as a slice named
 * after the fiber, when it ran it. A coroutine whose yield discards its C
 * frames (a longjmp, as Lua's) leaves its scopes open, with nothing on the
 * fiber's track to close them: take ludus_unwind_here() right after the
 * enter and call ludus_unwound_to() before the leave, and they end at the
 * yield, flagged unwound. */
LUDUS_API void ludus_fiber_enter(const char *name);
LUDUS_API void ludus_fiber_leave(void);

/* ---------------------------------------------------------------------------
 * Scope annotations: a number or a short text attached to the scope open on
 * the calling thread (the innermost, lexical or span), as Tracy's ZoneValue
 * and ZoneText or Perfetto's debug annotations: an entity id, an asset's
 * name, a batch size.
 *     LUDUS_PROFILE_ANNOTATE(EntityId, id);       any integer, float or double
 *     LUDUS_PROFILE_ANNOTATE_TEXT(Asset, name);   a NUL-terminated string
 * Name is a token or a literal: the annotation's key. During a capture only
 * (the value is not even evaluated otherwise); no lock and no allocation: the value (and the text, cut at
 * LUDUS_ANNOTATION_TEXT_MAX bytes, before a UTF-8 character that would be split) is copied into the thread's buffer,
 * and a full buffer drops and counts it as any event. Async-signal-safe. The same key twice in one scope: exports keep
 * the last value. Annotations are the scope's JSON "args" and its Perfetto debug annotations; `ludus-trace report`
 * lists each annotated site's slowest calls with their annotations, and the
 * HTML report's frame flame graph shows them. One recorded while no scope is
 * open is an instant of its own (category "annotation"). In a Tracy build
 * each is the zone's text ("Key: value"). */
#define LUDUS_ANNOTATION_TEXT_MAX 1024

/* ---------------------------------------------------------------------------
 * Memory domains: the allocator's hooks. Always on (with or without a
 * capture), callable from any thread; a free may run on another thread than
 * its alloc. Per domain the library keeps live bytes and allocations, the
 * peak of live bytes, and bytes and allocations made and freed per frame
 * (churn). A domain counts only what its hooks see from registration on:
 * declare memory it already holds with ludus_memory_baseline, or its live
 * figures are marked "from registration on" (and a free of older memory
 * marks them unknown rather than letting them go negative).
 * Up to 16 domains (0 is returned when the table is full; the hooks ignore
 * domain 0). */
typedef uint32_t ludus_memory_domain;
LUDUS_API ludus_memory_domain ludus_memory_domain_register(const char *name);
LUDUS_API void ludus_memory_alloc(ludus_memory_domain domain, uint64_t bytes);
LUDUS_API void ludus_memory_free(ludus_memory_domain domain, uint64_t bytes);
/* What the domain held before its hooks ran (live bytes and allocations). */
LUDUS_API void ludus_memory_baseline(ludus_memory_domain domain, uint64_t bytes, uint64_t allocs);
/* Memory known to lie outside every domain, for the coverage manifest of
 * every export ("thread stacks", "GPU heaps"); text copied, 8 notes. */
LUDUS_API int ludus_memory_note_outside(const char *what, uint64_t bytes);
/* During a capture: one sample of every domain's live bytes on the calling
 * thread's timeline, as the counter "Memory/<domain>". Returns the number of
 * domains sampled (0 when no capture runs). Call it where no other thread
 * allocates if the values must reconcile exactly. */
LUDUS_API int ludus_memory_sample(void);
/* Hooks by pointer, for a free that knows the address and not the size
 * (free(), Tracy's TracyFree): alloc_ptr keeps ptr's size in a fixed table
 * of 262,144 live allocations (lock-free) and counts it as
 * ludus_memory_alloc does; free_ptr finds it and gives the bytes back to
 * the domain. An allocation that finds no room in the table, and a free of
 * an address it does not hold (allocated before, through the size hooks, or
 * not tracked), change no domain and are counted: ludus_memory_untracked()
 * (since the process started). NULL is ignored. */
LUDUS_API void ludus_memory_alloc_ptr(ludus_memory_domain domain, const void *ptr, uint64_t bytes);
LUDUS_API void ludus_memory_free_ptr(ludus_memory_domain domain, const void *ptr);
LUDUS_API uint64_t ludus_memory_untracked(void);

/* ---------------------------------------------------------------------------
 * Control calls, here so instrumented code can drive a capture with one
 * include; <ludus/capture.h> has the desc, the capture object and the rest.
 * They stay declared at every profile level. */
typedef struct ludus_capture_desc ludus_capture_desc;
typedef struct ludus_capture ludus_capture;
/* Begins a capture: desc NULL or zeroed takes the defaults (<ludus/capture.h>
 * documents each field, the pool and what begin costs). LUDUS_EBUSY while
 * one is active (LUDUS_TRACE's included), LUDUS_EINVAL, LUDUS_ENOMEM,
 * LUDUS_EUNSUPPORTED (a TSC clock asked for without one). */
LUDUS_API int ludus_capture_begin(const ludus_capture_desc *desc);
/* Ends the active capture: disarms, joins producers that are mid-event,
 * and publishes every thread's events, including threads that exited during
 * the capture and threads that registered and recorded nothing. Every event
 * accepted before it returns is in the capture; an inline event still being
 * written on another thread at that moment is left out and counted as
 * dropped (end never waits for it). A thread inside an out-of-line event
 * (taking a pool piece, interning a name) is waited for a few hundred ns;
 * if it is still there (preempted), its events are published when that
 * event is over, before anything reads the capture, and if that event was
 * stamped after the end, the capture's end moves just past it.
 * LUDUS_ENOCAPTURE when none is active. The capture becomes the library's
 * "last ended capture" (ludus_capture_last); out, when not NULL, gets a
 * reference to it (release it when done):
 *     ludus_capture *c;
 *     ludus_capture_end(&c);
 *     ludus_capture_save(c, 0, 0, "frame.pftrace"); (format 0: by the extension)
 *     ludus_capture_release(c); */
LUDUS_API int ludus_capture_end(ludus_capture **out);
/* Registers the calling thread under a name (copied, up to 63 bytes). Threads
 * that record without registering are registered as "thread <tid>". Calling
 * again renames. Not async-signal-safe. */
LUDUS_API int ludus_thread_register(const char *name);
/* Publishes the thread's events to the running capture and releases its
 * slot; thread exit does the same. Events the thread records later register
 * it again. */
LUDUS_API int ludus_thread_unregister(void);
/* Static text for a LUDUS_E* code (<ludus/capture.h>); never NULL. */
LUDUS_API const char *ludus_error_string(int code);

/* Launch-to-exit (LUDUS_TRACE, <ludus/capture.h>) in every link: the
 * library's launch code defines ludus__launch_link, and every file
 * instrumented at a level above 0 names it (an undefined symbol, no code
 * and no data), so a static link takes the launch code in from libludus.a,
 * however it is linked (not needed where the implementation itself is
 * compiled: the library, the single file's LUDUS_IMPLEMENTATION file).
 * LUDUS_NO_LAUNCH leaves the name out (a program that must not carry the
 * exporters; it then says so when LUDUS_TRACE is set). */
LUDUS_API extern const int ludus__launch_link;
#if LUDUS_PROFILE_LEVEL > 0 && !defined(LUDUS_NO_LAUNCH) && !defined(LUDUS__LIBRARY) && !defined(LUDUS_IMPLEMENTATION)
#define LUDUS__STR2(x) #x
#define LUDUS__STR(x) LUDUS__STR2(x)
#if LUDUS__MSVC /* x64: no label prefix */
#pragma comment(linker, "/include:ludus__launch_link")
#elif defined(__USER_LABEL_PREFIX__)
__asm__(".globl " LUDUS__STR(__USER_LABEL_PREFIX__) "ludus__launch_link");
#else
__asm__(".globl ludus__launch_link");
#endif
#endif

/* ---------------------------------------------------------------------------
 * Internals used by the inline hot path. Not API: names may change. */

/* An event: 16 bytes in the thread's buffer. Kinds that carry a value take
 * a second, payload slot right after it ({value, word}). */
typedef struct ludus__event {
    uint64_t ticks; /* raw clock ticks (TSC or monotonic ns; the halves rdtsc returns, stored
                       without combining), converted at export */
    uintptr_t word; /* site address | kind, a begin's token, or a payload word */
} ludus__event;

/* The kinds the inline path writes, in the low 4 bits of an event's word
 * (sites are 16-aligned). Every kind, with its layout, is described in the
 * library's own src/record/event_kinds.h; none of that is API. */
enum { LUDUS__K_END = 1, LUDUS__K_BEGIN = 2, LUDUS__K_MARK = 3, LUDUS__K_MASK = 15 };

/* The thread's recording state, written by its own thread (and, for limit,
 * by the capture controller; see src/record/emit.c for the protocol).
 *   cur    the next free slot (16-aligned) plus the number of events of the
 *          thread being written in its low 4 bits: 1 while an event is
 *          written (the producer join), more when a signal handler's event
 *          interrupted it (that one is dropped and counted)
 *   limit  the end of the thread's current piece of the pool; 0 whenever
 *          the thread must take the out-of-line path (no capture, no piece,
 *          slow mode) */
typedef struct ludus__thread_hot {
    uintptr_t cur;
    uintptr_t limit;
} ludus__thread_hot;

/* armed: 0 = no capture; otherwise the capture generation, with
 * LUDUS__ARMED_SLOW set when every event takes the out-of-line path. It has a
 * cache line of its own ([0]; the rest is padding): every event of every
 * thread reads it, so nothing that is written may share its line. */
#define LUDUS__ARMED_SLOW 0x40000000u
LUDUS_API extern uint32_t ludus__armed_line[16];
#define ludus__armed (ludus__armed_line[0])
/* The hot path's thread-local variables: LUDUS__TLS before the type,
 * LUDUS__TLS_MODEL after the name (declarations here, definitions in
 * src/record). */
#if LUDUS__MSVC
#define LUDUS__TLS __declspec(thread)
#define LUDUS__TLS_MODEL
#elif LUDUS__GNU
#define LUDUS__TLS __thread
#define LUDUS__TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#error "Ludus Profiling needs GCC, Clang or MSVC (thread-local storage, atomics)"
#endif
LUDUS_API extern LUDUS__TLS ludus__thread_hot ludus__hot LUDUS__TLS_MODEL;

/* Out-of-line paths. ludus__nested_drop: the event found cur claimed (it
 * interrupted another event of its thread: a signal handler); it is dropped
 * and counted (n events), and 0 is returned. begin_slow and end_slow are
 * entered with the claim held on the inline path. */
LUDUS_API uintptr_t ludus__begin_slow(const ludus_site *site);
LUDUS_API void ludus__end_slow(uintptr_t token);
LUDUS_API uintptr_t ludus__nested_drop(unsigned n);
LUDUS_API void ludus__emit(const ludus_site *site, unsigned kind);
LUDUS_API uint64_t ludus__flow_out(const char *name);
LUDUS_API void ludus__flow_in(uint64_t flow_id);
LUDUS_API void ludus__frame(void);
LUDUS_API void ludus__span_begin(const ludus_site *site);
LUDUS_API uintptr_t ludus__dyn_begin(const char *name);
LUDUS_API void ludus__frame_tick(void);
LUDUS_API void ludus__count_slow(ludus_counter_site *site, int64_t n);
LUDUS_API void ludus__gauge_slow(ludus_counter_site *site, int64_t value);

/* A gauge's state: the last value, and the min and max of the current
 * frame (reset at each frame). */
typedef struct ludus__gauge_state {
    int64_t last, min, max, reserved;
} ludus__gauge_state;
LUDUS_API extern ludus__gauge_state ludus__gauges[32];
LUDUS_API void ludus__plot_i64(const ludus_site *site, int64_t value);
LUDUS_API void ludus__plot_f64(const ludus_site *site, double value);
LUDUS_API void ludus__message(const ludus_site *site, int level);
#if LUDUS__GNU
LUDUS_API void ludus__log_deferred(const ludus_site *site, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#else
LUDUS_API void ludus__log_deferred(const ludus_site *site, int level, const char *fmt, ...);
#endif
LUDUS_API void ludus__async(const ludus_site *site, const ludus_site *track, uint64_t id);
/* Annotations of the open scope: site is the annotation's key. */
LUDUS_API void ludus__annotate_i64(const ludus_site *site, int64_t value);
LUDUS_API void ludus__annotate_u64(const ludus_site *site, uint64_t value);
LUDUS_API void ludus__annotate_f64(const ludus_site *site, double value);
LUDUS_API void ludus__annotate_text(const ludus_site *site, const char *text);

/* The calling thread's counter shard: one int64 per counter slot, summed
 * over every thread at each frame. NULL until the thread's first count. */
LUDUS_API extern LUDUS__TLS int64_t *ludus__shard LUDUS__TLS_MODEL;

/* The inline hot path reads the CPU's counter itself: the TSC on x86-64,
 * the virtual counter CNTVCT_EL0 on AArch64. Elsewhere (or with
 * LUDUS_NO_INLINE_TSC) every event is a call. */
#if (defined(__x86_64__) || defined(__aarch64__) || defined(_M_X64)) && !defined(LUDUS_NO_INLINE_TSC)
#define LUDUS__INLINE_CLOCK 1
#else
#define LUDUS__INLINE_CLOCK 0
#endif

/* Inline helpers are always inlined (GCC stops inlining plain "static
 * inline" in large files, which would turn the hot path into a call) and not
 * themselves instrumented by -finstrument-functions. */
#if LUDUS__GNU
#define LUDUS__INLINE static inline __attribute__((always_inline, no_instrument_function))
#define LUDUS__LIKELY(x) __builtin_expect(!!(x), 1)
#define LUDUS__UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define LUDUS__INLINE static __forceinline
#define LUDUS__LIKELY(x) (x)
#define LUDUS__UNLIKELY(x) (x)
#endif

/* The hot path's shared loads and stores. GCC and Clang: __atomic builtins.
 * MSVC (x64 only, above): volatile accesses, which x64 makes atomic for
 * aligned words and orders as acquire loads and release stores (TSO); a
 * compiler barrier (_ReadWriteBarrier) keeps the event's plain stores before
 * the release whatever /volatile: says. Never a locked instruction. */
#if LUDUS__MSVC
#ifdef __cplusplus
extern "C" {
#endif
unsigned __int64 __rdtsc(void);
void _ReadWriteBarrier(void);
#pragma intrinsic(__rdtsc)
#pragma intrinsic(_ReadWriteBarrier)
#ifdef __cplusplus
}
#endif
LUDUS__INLINE uint32_t ludus__load_u32(const uint32_t *p) {
    return *LUDUS__PUN(const volatile uint32_t *, p);
}
LUDUS__INLINE uint32_t ludus__load_acquire_u32(const uint32_t *p) {
    uint32_t v = *LUDUS__PUN(const volatile uint32_t *, p);
    _ReadWriteBarrier();
    return v;
}
LUDUS__INLINE int64_t ludus__load_i64(const int64_t *p) {
    return *LUDUS__PUN(const volatile int64_t *, p);
}
LUDUS__INLINE void ludus__store_i64(int64_t *p, int64_t v) {
    *LUDUS__PUN(volatile int64_t *, p) = v;
}
LUDUS__INLINE void ludus__release_uptr(uintptr_t *p, uintptr_t v) {
    _ReadWriteBarrier();
    *LUDUS__PUN(volatile uintptr_t *, p) = v;
}
#else
LUDUS__INLINE uint32_t ludus__load_u32(const uint32_t *p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
LUDUS__INLINE uint32_t ludus__load_acquire_u32(const uint32_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
LUDUS__INLINE int64_t ludus__load_i64(const int64_t *p) {
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
LUDUS__INLINE void ludus__store_i64(int64_t *p, int64_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
LUDUS__INLINE void ludus__release_uptr(uintptr_t *p, uintptr_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
#endif

LUDUS__INLINE uint32_t ludus__load_armed(void) {
    return ludus__load_u32(&ludus__armed);
}

#if LUDUS__INLINE_CLOCK && LUDUS__MSVC
LUDUS__INLINE int ludus__is_armed(void) {
    return ludus__load_armed() != 0;
}

/* Starts an event: cur + 1, the slot as it was returned. A plain add (no
 * lock, as the xadd of GCC's x64 path): only the thread writes cur, and
 * Windows runs no signal handler on it between the load and the store. */
LUDUS__INLINE uintptr_t ludus__claim(ludus__thread_hot *t) {
    uintptr_t old = *LUDUS__PUN(volatile uintptr_t *, &t->cur);
    *LUDUS__PUN(volatile uintptr_t *, &t->cur) = old + 1;
    _ReadWriteBarrier();
    return old;
}

LUDUS__INLINE void ludus__unclaim(ludus__thread_hot *t) {
    _ReadWriteBarrier();
    *LUDUS__PUN(volatile uintptr_t *, &t->cur) = *LUDUS__PUN(volatile uintptr_t *, &t->cur) - 1;
}

LUDUS__INLINE int ludus__full(ludus__thread_hot *t, uintptr_t e) {
    return e >= *LUDUS__PUN(const volatile uintptr_t *, &t->limit);
}

/* The TSC's 64 bits in one store (the same bytes as GCC's path's halves). */
LUDUS__INLINE void ludus__put(uintptr_t e, uintptr_t word) {
    *LUDUS__PUN(uint64_t *, e) = __rdtsc();
    *LUDUS__PUN(uintptr_t *, e + 8) = word;
}
#elif LUDUS__INLINE_CLOCK && defined(__x86_64__)
/* 1 while a capture is armed: "cmpl $0, armed" and a branch (compilers load,
 * test and branch: one instruction more). */
LUDUS__INLINE int ludus__is_armed(void) {
    int idle;
    __asm__("cmpl $0, %1" : "=@ccz"(idle) : "m"(ludus__armed));
    return !idle;
}

/* Starts an event: adds 1 to cur with one xadd, which returns the slot as
 * it was. Not locked: only the thread itself (and its signal handlers)
 * writes cur, and one instruction is atomic with respect to a signal. Low
 * bits already set: this event interrupted another one of its thread; it
 * must take the 1 back (ludus__unclaim). One read-modify-write and no
 * reload: the slot comes back in a register. */
LUDUS__INLINE uintptr_t ludus__claim(ludus__thread_hot *t) {
    uintptr_t old = 1;
    __asm__ volatile("xaddq %0, %1" : "+r"(old), "+m"(t->cur) : : "memory");
    return old;
}

LUDUS__INLINE void ludus__unclaim(ludus__thread_hot *t) {
    __asm__ volatile("subq $1, %0" : "+m"(t->cur) : : "memory");
}

/* 1 when slot e is past the piece: "cmpq limit, e" in memory (an atomic
 * load would not fold into the compare). */
LUDUS__INLINE int ludus__full(ludus__thread_hot *t, uintptr_t e) {
    int full;
    __asm__("cmpq %1, %2" : "=@ccae"(full) : "m"(t->limit), "r"(e));
    return full;
}

/* Writes the event at slot e: the clock, then the word. */
LUDUS__INLINE void ludus__put(uintptr_t e, uintptr_t word) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    *LUDUS__PUN(uint32_t *, e) = lo;
    *LUDUS__PUN(uint32_t *, e + 4) = hi;
    *LUDUS__PUN(uintptr_t *, e + 8) = word;
}
#elif LUDUS__INLINE_CLOCK && defined(__aarch64__)
LUDUS__INLINE int ludus__is_armed(void) {
    return ludus__load_armed() != 0;
}

/* Starts an event as on x86-64: adds 1 to cur and returns the slot as it
 * was. A load-exclusive/store-exclusive pair (ARMv8.0; no call to an
 * outlined atomic): a signal delivered between them clears the exclusive
 * monitor, the store fails and the add is retried, so the add is atomic
 * with respect to the thread's signal handlers, which is all it must be
 * (only the thread writes cur). The "memory" clobber keeps the limit's
 * load after it (the join's asymmetric barrier makes that enough). */
LUDUS__INLINE uintptr_t ludus__claim(ludus__thread_hot *t) {
    uintptr_t old, nw;
    uint32_t failed;
    __asm__ volatile("1: ldxr %0, %3\n"
                     "   add %1, %0, #1\n"
                     "   stxr %w2, %1, %3\n"
                     "   cbnz %w2, 1b"
                     : "=&r"(old), "=&r"(nw), "=&r"(failed), "+Q"(t->cur)
                     :
                     : "memory");
    return old;
}

LUDUS__INLINE void ludus__unclaim(ludus__thread_hot *t) {
    uintptr_t v;
    uint32_t failed;
    __asm__ volatile("1: ldxr %0, %2\n"
                     "   sub %0, %0, #1\n"
                     "   stxr %w1, %0, %2\n"
                     "   cbnz %w1, 1b"
                     : "=&r"(v), "=&r"(failed), "+Q"(t->cur)
                     :
                     : "memory");
}

/* 1 when slot e is past the piece. The limit is read by one ldr at its
 * offset from t (an atomic load would add the offset first). */
LUDUS__INLINE int ludus__full(ludus__thread_hot *t, uintptr_t e) {
    uintptr_t limit;
    __asm__("ldr %0, %1" : "=r"(limit) : "m"(t->limit));
    return e >= limit;
}

/* Writes the event at slot e: the virtual counter (CNTVCT_EL0, constant
 * rate, the same on every core; CNTFRQ_EL0 gives its frequency), then the
 * word. Not ordered by an isb, as rdtsc is not by an lfence on x86-64. */
LUDUS__INLINE void ludus__put(uintptr_t e, uintptr_t word) {
    uint64_t ticks;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(ticks));
    *LUDUS__PUN(uint64_t *, e) = ticks;
    *LUDUS__PUN(uintptr_t *, e + 8) = word;
}
#else
LUDUS__INLINE int ludus__is_armed(void) {
    return ludus__load_armed() != 0;
}
#endif

#if !LUDUS__TRACY
/* Begin a scope: returns its token for ludus__scope_end, the address of the
 * begin's slot | 1 (0 when nothing was recorded). An end names its begin by
 * that token, so ends pair by identity: a scope skipped by longjmp is found
 * when an enclosing scope ends. */
LUDUS__INLINE uintptr_t ludus__scope_begin(const ludus_site *site) {
#if LUDUS__INLINE_CLOCK
    ludus__thread_hot *t;
    uintptr_t e;
    if (LUDUS__LIKELY(!ludus__is_armed())) return 0;
    t = &ludus__hot;
    e = ludus__claim(t);
    if (LUDUS__UNLIKELY(e & LUDUS__K_MASK)) {
        ludus__unclaim(t);
        return ludus__nested_drop(2);
    }
    if (LUDUS__UNLIKELY(ludus__full(t, e))) return ludus__begin_slow(site); /* it holds the claim */
    ludus__put(e, LUDUS__PUN(uintptr_t, site) + LUDUS__K_BEGIN);            /* site is 16-aligned: + is | */
    ludus__release_uptr(&t->cur, e + 16);                                   /* next slot, claim released */
    return e + LUDUS__K_END;
#else
    if (LUDUS__LIKELY(!ludus__is_armed())) return 0;
    return ludus__begin_slow(site);
#endif
}

/* End a scope: an END event whose word is the begin's token. A token of an
 * earlier capture lands as an END the reader finds no begin for (an orphan,
 * counted); nothing is written when no capture runs. */
LUDUS__INLINE void ludus__scope_end(uintptr_t token) {
#if LUDUS__INLINE_CLOCK
    ludus__thread_hot *t;
    uintptr_t e;
    if (token == 0) return;
    t = &ludus__hot;
    e = ludus__claim(t);
    if (LUDUS__UNLIKELY(e & LUDUS__K_MASK)) {
        ludus__unclaim(t);
        ludus__nested_drop(1);
        return;
    }
    if (LUDUS__UNLIKELY(ludus__full(t, e))) {
        ludus__end_slow(token);
        return;
    }
    ludus__put(e, token); /* the begin's address | LUDUS__K_END */
    ludus__release_uptr(&t->cur, e + 16);
#else
    if (token == 0) return;
    ludus__end_slow(token);
#endif
}

LUDUS__INLINE void ludus__instant(const ludus_site *site, unsigned kind) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__emit(site, kind);
}

LUDUS__INLINE uint64_t ludus__flow_out_check(const char *name) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return 0;
    return ludus__flow_out(name);
}

LUDUS__INLINE void ludus__flow_in_check(uint64_t id) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__flow_in(id);
}

LUDUS__INLINE void ludus__frame_check(void) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__frame();
}

LUDUS__INLINE void ludus__span_begin_check(const ludus_site *site) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__span_begin(site);
}
#endif /* !LUDUS__TRACY */

/* Adds n to the thread's shard of the counter: no lock and no atomic
 * read-modify-write (bench/RESULTS.md, gate G7: a shared atomic costs ~10x
 * under contention). One non-locked add on x86, so a signal handler's add
 * cannot tear it; the frame thread reads shards with atomic loads. */
LUDUS__INLINE void ludus__count(ludus_counter_site *site, int64_t n) {
    uint32_t slot = ludus__load_u32(&site->slot);
    int64_t *shard = ludus__shard;
    if (LUDUS__UNLIKELY(slot == 0 || shard == NULL)) {
        ludus__count_slow(site, n);
        return;
    }
#if defined(__x86_64__) && !LUDUS__MSVC
    __asm__ volatile("addq %1, %0" : "+m"(shard[slot]) : "er"(n));
#else
    /* modulo 2^64, as the x86 add: a frame's amount is the difference of two
     * totals; a load and a store, no read-modify-write: the slot is this thread's */
    ludus__store_i64(&shard[slot], (int64_t)((uint64_t)ludus__load_i64(&shard[slot]) + (uint64_t)n));
#endif
}

/* A gauge's level: one store, plus a compare-and-swap only when the value
 * is a new minimum or maximum of the frame. */
LUDUS__INLINE void ludus__gauge(ludus_counter_site *site, int64_t value) {
    uint32_t row = ludus__load_acquire_u32(&site->slot);
    ludus__gauge_state *g = &ludus__gauges[(row - 1) & 31];
    if (LUDUS__UNLIKELY(row - 1 >= 32 || value < ludus__load_i64(&g->min) || value > ludus__load_i64(&g->max))) {
        ludus__gauge_slow(site, value);
        return;
    }
    ludus__store_i64(&g->last, value);
}

#if !LUDUS__TRACY
LUDUS__INLINE void ludus__plot_i64_check(const ludus_site *site, int64_t value) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__plot_i64(site, value);
}

LUDUS__INLINE void ludus__plot_f64_check(const ludus_site *site, double value) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__plot_f64(site, value);
}

LUDUS__INLINE void ludus__message_check(const ludus_site *site, int level) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__message(site, level);
}

LUDUS__INLINE void ludus__async_check(const ludus_site *site, const ludus_site *track, uint64_t id) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__async(site, track, id);
}
LUDUS__INLINE void ludus__annotate_i64_check(const ludus_site *site, int64_t value) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__annotate_i64(site, value);
}
LUDUS__INLINE void ludus__annotate_u64_check(const ludus_site *site, uint64_t value) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__annotate_u64(site, value);
}
LUDUS__INLINE void ludus__annotate_f64_check(const ludus_site *site, double value) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__annotate_f64(site, value);
}
LUDUS__INLINE void ludus__annotate_text_check(const ludus_site *site, const char *text) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    ludus__annotate_text(site, text);
}
#define LUDUS__DYN_BEGIN(name) (ludus__is_armed() ? ludus__dyn_begin(name) : LUDUS__CAST(uintptr_t, 0))

#else /* LUDUS__TRACY: the same seam, every call to src/backend/tracy.c */

/* A site of the macros in a Tracy build: the descriptor, then Tracy's source
 * location for it (made once, on the site's first use, with its name as
 * text: no allocation per zone). Its flags have LUDUS_SITE_TRACY. */
typedef struct ludus__tracy_site {
    ludus_site site;
    void *loc; /* the ___tracy_source_location_data, NULL until first use */
} ludus__tracy_site;

/* Exported by a Tracy build's library only (hence not LUDUS_API, which
 * every build exports). */
#define LUDUS__TRACY_API LUDUS_API
/* A zone: its token is nonzero; ends are paired by token, and zones opened
 * after a zone that ends are ended first (Tracy nests zones per thread). */
LUDUS__TRACY_API uintptr_t ludus__tracy_begin(const ludus_site *site);
LUDUS__TRACY_API void ludus__tracy_end(uintptr_t token);
LUDUS__TRACY_API uintptr_t ludus__tracy_dyn_begin(const char *name);
LUDUS__TRACY_API void ludus__tracy_instant(const ludus_site *site, unsigned kind);
LUDUS__TRACY_API void ludus__tracy_frame(void);
LUDUS__TRACY_API void ludus__tracy_span_begin(const ludus_site *site);
LUDUS__TRACY_API void ludus__tracy_plot_i64(const ludus_site *site, int64_t value);
LUDUS__TRACY_API void ludus__tracy_plot_f64(const ludus_site *site, double value);
LUDUS__TRACY_API void ludus__tracy_message(const ludus_site *site, int level);
LUDUS__TRACY_API void ludus__tracy_async(const ludus_site *site, const ludus_site *track, uint64_t id);
/* An annotation of the innermost zone: its text "Key: value" (kind: 0
 * integer, 1 unsigned, 2 double, 3 text). */
LUDUS__TRACY_API void ludus__tracy_annotate(const ludus_site *site, int kind, uint64_t bits, const char *text);
LUDUS__TRACY_API uintptr_t ludus__tracy_lock_wait(const void *lock, const ludus_site *site, unsigned kind);

LUDUS__INLINE uintptr_t ludus__scope_begin(const ludus_site *site) {
    return ludus__tracy_begin(site);
}
LUDUS__INLINE void ludus__scope_end(uintptr_t token) {
    if (token != 0) ludus__tracy_end(token);
}
LUDUS__INLINE void ludus__instant(const ludus_site *site, unsigned kind) {
    ludus__tracy_instant(site, kind);
}
/* Flows have no Tracy equivalent: none is recorded (OUT returns 0). */
LUDUS__INLINE uint64_t ludus__flow_out_check(const char *name) {
    (void)name;
    return 0;
}
LUDUS__INLINE void ludus__flow_in_check(uint64_t id) {
    (void)id;
}
LUDUS__INLINE void ludus__span_begin_check(const ludus_site *site) {
    ludus__tracy_span_begin(site);
}
LUDUS__INLINE void ludus__plot_i64_check(const ludus_site *site, int64_t value) {
    ludus__tracy_plot_i64(site, value);
}
LUDUS__INLINE void ludus__plot_f64_check(const ludus_site *site, double value) {
    ludus__tracy_plot_f64(site, value);
}
LUDUS__INLINE void ludus__message_check(const ludus_site *site, int level) {
    ludus__tracy_message(site, level);
}
LUDUS__INLINE void ludus__async_check(const ludus_site *site, const ludus_site *track, uint64_t id) {
    ludus__tracy_async(site, track, id);
}
LUDUS__INLINE void ludus__annotate_i64_check(const ludus_site *site, int64_t value) {
    ludus__tracy_annotate(site, 0, LUDUS__CAST(uint64_t, value), NULL);
}
LUDUS__INLINE void ludus__annotate_u64_check(const ludus_site *site, uint64_t value) {
    ludus__tracy_annotate(site, 1, value, NULL);
}
LUDUS__INLINE void ludus__annotate_f64_check(const ludus_site *site, double value) {
    union {
        double d;
        uint64_t u;
    } bits; /* the double's bits (memcpy would need <string.h>) */
    bits.d = value;
    ludus__tracy_annotate(site, 2, bits.u, NULL);
}
LUDUS__INLINE void ludus__annotate_text_check(const ludus_site *site, const char *text) {
    ludus__tracy_annotate(site, 3, 0, text);
}
#define LUDUS__DYN_BEGIN(name) ludus__tracy_dyn_begin(name)
#endif /* LUDUS__TRACY */

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---------------------------------------------------------------------------
 * Macros. Name and Category are tokens or string literals (a literal keeps
 * its text: LUDUS_PROFILE_SCOPE("Render scene")). */
#define LUDUS__CAT2(a, b) a##b
#define LUDUS__CAT(a, b) LUDUS__CAT2(a, b)
#define LUDUS__VAR(base) LUDUS__CAT(base, __LINE__)
/* The variables a scope macro declares in the enclosing block: named by a
 * counter, so any number of scope macros may share a line (a macro of yours
 * that opens two, a one-line function). */
#define LUDUS__UVAR(base) LUDUS__CAT(base, __COUNTER__)

#if LUDUS__TRACY
#define LUDUS__SITE(var, name_str, cat_str) \
    static ludus__tracy_site var = {        \
        {name_str, __func__, __FILE__, cat_str, LUDUS__CAST(uint32_t, __LINE__), LUDUS_SITE_TRACY}, NULL}
#define LUDUS__SITE_PTR(var) (&(var).site)
#else
#define LUDUS__SITE(var, name_str, cat_str) \
    static const ludus_site var = {name_str, __func__, __FILE__, cat_str, LUDUS__CAST(uint32_t, __LINE__), 0u}
#define LUDUS__SITE_PTR(var) (&(var))
#endif

/* What a compiled-out scope macro becomes: a declaration that emits
 * nothing (a typedef), as the scope it replaces is one, so code that keeps
 * its declarations first (-Wdeclaration-after-statement) stays clean at
 * every level. */
#define LUDUS__NO_SCOPE typedef int LUDUS__UVAR(ludus__no_scope_) LUDUS__UNUSED

/* A zone's context: what LUDUS_ZONE_BEGIN hands back and LUDUS_ZONE_END
 * takes (the begin's token; 0 when nothing was recorded). Plain data: keep
 * it in a local, a struct, a job; copy it freely. */
typedef struct ludus_zone {
    uintptr_t token;
} ludus_zone;

/* A zone from a begin's token (a compound literal is not C++). */
LUDUS__INLINE ludus_zone ludus__zone_make(uintptr_t token) {
    ludus_zone z;
    z.token = token;
    return z;
}

/* Picks the one- or two-argument form of LUDUS_PROFILE_SCOPE (ISO C11: no
 * GNU comma swallowing). */
#define LUDUS__ARG3(a, b, c, ...) c
#define LUDUS__PICK2(impl2, impl1, ...) LUDUS__ARG3(__VA_ARGS__, impl2, impl1, unused)
/* The two- or three-argument form of LUDUS_ZONE_BEGIN. */
#define LUDUS__ARG4(a, b, c, d, ...) d
#define LUDUS__PICK23(impl3, impl2, ...) LUDUS__ARG4(__VA_ARGS__, impl3, impl2, unused)

#if LUDUS_PROFILE_LEVEL > 0

#ifdef __cplusplus
namespace ludus {
struct scope {
    uintptr_t token;
    explicit scope(const ludus_site *s) : token(ludus__scope_begin(s)) {}
    ~scope() {
        ludus__scope_end(token);
    }
    scope(const scope &) = delete;
    scope &operator=(const scope &) = delete;
};
struct dyn_scope {
    uintptr_t token;
    explicit dyn_scope(const char *name) : token(LUDUS__DYN_BEGIN(name)) {}
    ~dyn_scope() {
        ludus__scope_end(token);
    }
    dyn_scope(const dyn_scope &) = delete;
    dyn_scope &operator=(const dyn_scope &) = delete;
};
} /* namespace ludus */
#define LUDUS__SCOPE_AT(site_var, scope_var, name_str, cat_str) \
    LUDUS__SITE(site_var, name_str, cat_str);                   \
    ::ludus::scope scope_var(LUDUS__SITE_PTR(site_var))
#define LUDUS__SCOPE_DYN_AT(var, name_expr) ::ludus::dyn_scope var(name_expr)
#elif LUDUS__MSVC && !LUDUS__GNU
/* MSVC's C compiler has no cleanup attribute: a scope that closes at the
 * end of its block cannot be written. The explicit pair can: */
#define LUDUS__SCOPE_AT(site_var, scope_var, name_str, cat_str) \
    _Static_assert(0, "MSVC C: use LUDUS_ZONE_BEGIN(z, Name) and LUDUS_ZONE_END(z) (docs/instrument.md)")
#define LUDUS__SCOPE_DYN_AT(var, name_expr) \
    _Static_assert(0, "MSVC C: use ludus_span_begin and ludus_span_end for run-time names (docs/instrument.md)")
#else
LUDUS__INLINE void ludus__scope_cleanup(const uintptr_t *token) {
    ludus__scope_end(*token);
}
#define LUDUS__SCOPE_AT(site_var, scope_var, name_str, cat_str)                  \
    LUDUS__SITE(site_var, name_str, cat_str);                                    \
    uintptr_t scope_var __attribute__((cleanup(ludus__scope_cleanup), unused)) = \
        ludus__scope_begin(LUDUS__SITE_PTR(site_var))
#define LUDUS__SCOPE_DYN_AT(var, name_expr) \
    uintptr_t var __attribute__((cleanup(ludus__scope_cleanup), unused)) = LUDUS__DYN_BEGIN(name_expr)
#endif

#define LUDUS__SCOPE_NC(name_str, cat_str) \
    LUDUS__SCOPE_AT(LUDUS__UVAR(ludus__site_), LUDUS__UVAR(ludus__scope_), name_str, cat_str)
#define LUDUS__SCOPE1(Name) LUDUS__SCOPE_NC(#Name, NULL)
#define LUDUS__SCOPE2(Name, Category) LUDUS__SCOPE_NC(#Name, #Category)

/* A scope that closes at the end of the enclosing block (also on return,
 * break and goto out of it). One or two arguments: (Name) or (Name, Category). */
#define LUDUS_PROFILE_SCOPE(...) LUDUS__PICK2(LUDUS__SCOPE2, LUDUS__SCOPE1, __VA_ARGS__)(__VA_ARGS__)
/* A scope named after the enclosing function. */
#define LUDUS_PROFILE_FUNCTION() LUDUS__SCOPE_NC(NULL, NULL)
/* A lock wait (category "lock") for a lock the wrappers of <ludus/locks.h>
 * do not cover: open it in the block that blocks, only after your own
 * try-lock failed, so an uncontended lock records nothing:
 *     if (!my_trylock(&l)) { LUDUS_PROFILE_LOCK_WAIT(MyLock); my_lock(&l); } */
#define LUDUS_PROFILE_LOCK_WAIT(Name) LUDUS__SCOPE_NC(#Name, "lock")

#define LUDUS__MARK_AT(site_var, name_str, kind)         \
    do {                                                 \
        LUDUS__SITE(site_var, name_str, NULL);           \
        ludus__instant(LUDUS__SITE_PTR(site_var), kind); \
    } while (0)
/* Frame boundary, once per frame from one thread (the main loop's): it
 * closes the frame's snapshot of counters, gauges and memory domains into
 * the ring of recent frames (<ludus/overlay.h>) and, during a capture,
 * records a frame mark and the snapshot. A frame is the time between two
 * marks: place it at the top or at the bottom of the loop; the time before
 * the first mark and after the last is reported as such, never as a frame. */
#if LUDUS__TRACY
#define LUDUS_PROFILE_FRAME() ludus__tracy_frame()
#else
#define LUDUS_PROFILE_FRAME() ludus__frame_tick()
#endif
/* Zero-duration marker on this thread's track. */
#define LUDUS_PROFILE_MARK(Name) LUDUS__MARK_AT(ludus__mark_site, #Name, LUDUS__K_MARK)

#define LUDUS__BEGIN_AT(site_var, name_str)                 \
    do {                                                    \
        LUDUS__SITE(site_var, name_str, NULL);              \
        ludus__span_begin_check(LUDUS__SITE_PTR(site_var)); \
    } while (0)
/* Zones with a context: the non-lexical form for C engines and for code
 * instrumented with begin/end pairs (Tracy's TracyCZone/TracyCZoneEnd,
 * Perfetto's TRACE_EVENT_BEGIN/END). The same inline path as a scope, at a
 * scope's cost: BEGIN records the begin and gives its context, END records
 * the end that names it.
 *     LUDUS_ZONE_BEGIN(z, Physics);           declares ludus_zone z
 *     LUDUS_ZONE_BEGIN(z, "Broad phase", phys); a literal name, a category
 *     LUDUS_ZONE_BEGIN_INTO(job->zone, Job);   fills an existing ludus_zone
 *     LUDUS_ZONE_END(z);
 * An end may sit in another function than its begin (a callback, a state
 * machine's next step) but must run on the begin's thread, in the order
 * the thread's nesting allows (an end closes its own zone: zones opened
 * inside it and not ended yet are closed with it, marked unwound, as after
 * a longjmp). A zone begun before a capture records nothing at its end; a
 * zone of an earlier capture is an orphan end, counted. Name and Category
 * are tokens or literals; for names known at run time, use spans. */
#define LUDUS__ZONE_AT(site_var, var_decl, name_str, cat_str) \
    LUDUS__SITE(site_var, name_str, cat_str);                 \
    var_decl = ludus__zone_make(ludus__scope_begin(LUDUS__SITE_PTR(site_var)))
#define LUDUS__ZONE_BEGIN_NC(var_decl, name_str, cat_str) \
    LUDUS__ZONE_AT(LUDUS__UVAR(ludus__zone_site_), var_decl, name_str, cat_str)
#define LUDUS__ZONE_BEGIN2(var, Name) LUDUS__ZONE_BEGIN_NC(ludus_zone var, #Name, NULL)
#define LUDUS__ZONE_BEGIN3(var, Name, Category) LUDUS__ZONE_BEGIN_NC(ludus_zone var, #Name, #Category)
#define LUDUS_ZONE_BEGIN(...) LUDUS__PICK23(LUDUS__ZONE_BEGIN3, LUDUS__ZONE_BEGIN2, __VA_ARGS__)(__VA_ARGS__)
#define LUDUS__ZONE_INTO2(lvalue, Name)              \
    do {                                             \
        LUDUS__ZONE_BEGIN_NC((lvalue), #Name, NULL); \
    } while (0)
#define LUDUS__ZONE_INTO3(lvalue, Name, Category)         \
    do {                                                  \
        LUDUS__ZONE_BEGIN_NC((lvalue), #Name, #Category); \
    } while (0)
#define LUDUS_ZONE_BEGIN_INTO(...) LUDUS__PICK23(LUDUS__ZONE_INTO3, LUDUS__ZONE_INTO2, __VA_ARGS__)(__VA_ARGS__)
#define LUDUS_ZONE_END(zone) ludus__scope_end((zone).token)

/* A span that is not lexical: BEGIN opens it, END closes the innermost span
 * opened by BEGIN or ludus_span_begin on this thread (lexical scopes opened
 * since do not matter: see ludus_span_end). */
#define LUDUS_PROFILE_BEGIN(Name) LUDUS__BEGIN_AT(ludus__span_site, #Name)
#define LUDUS_PROFILE_END() ludus_span_end()

/* Flow: OUT returns an id (0 when not recording) to hand to the thread that
 * continues the work, which calls IN with it inside its own scope. */
#define LUDUS_PROFILE_FLOW_OUT(Name) ludus__flow_out_check(#Name)
#define LUDUS_PROFILE_FLOW_IN(id) ludus__flow_in_check(id)

/* A scope whose name is known only at run time (interned per capture,
 * bounded; an empty name is recorded as "<empty name>"). */
#define LUDUS_PROFILE_SCOPE_DYN(name_expr) LUDUS__SCOPE_DYN_AT(LUDUS__UVAR(ludus__dyn_), name_expr)

#define LUDUS__COUNTER_SITE(name_str, flags) \
    { name_str, __func__, __FILE__, NULL, LUDUS__CAST(uint32_t, __LINE__), flags }
/* Adds n (an integer) to a counter summed per frame: draw calls, jobs run,
 * bytes uploaded. Any thread, with or without a capture. An add counts
 * toward the frame whose LUDUS_PROFILE_FRAME reads it first: every add is in
 * exactly one frame, none is lost or counted twice. 128 counters. */
#define LUDUS_PROFILE_COUNT(Name, n)                                                                                  \
    do {                                                                                                              \
        static ludus_counter_site LUDUS__VAR(ludus__count_) = {LUDUS__COUNTER_SITE(#Name, LUDUS_SITE_COUNT), 0u, 0u}; \
        ludus__count(&LUDUS__VAR(ludus__count_), LUDUS__CAST(int64_t, n));                                            \
    } while (0)
/* A level (entities alive, queue depth): per frame its last, min and max
 * value (the level carried in from the previous frame included). 32 gauges. */
#define LUDUS_PROFILE_GAUGE(Name, value)                                                                              \
    do {                                                                                                              \
        static ludus_counter_site LUDUS__VAR(ludus__gauge_) = {LUDUS__COUNTER_SITE(#Name, LUDUS_SITE_GAUGE), 0u, 0u}; \
        ludus__gauge(&LUDUS__VAR(ludus__gauge_), LUDUS__CAST(int64_t, value));                                        \
    } while (0)
/* A timestamped sample on the counter's timeline track, during a capture
 * only: integers stay integers, float and double are kept as doubles. */
#ifdef __cplusplus
namespace ludus {
inline void plot(const ludus_site *s, double v) {
    ludus__plot_f64_check(s, v);
}
inline void plot(const ludus_site *s, float v) {
    ludus__plot_f64_check(s, v);
}
template <typename T> inline void plot(const ludus_site *s, T v) {
    ludus__plot_i64_check(s, static_cast<int64_t>(v));
}
} /* namespace ludus */
#define LUDUS__PLOT_CALL(site, value) ::ludus::plot(site, value)
#else
/* clang-format off */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define LUDUS__PLOT_CALL(site, value) \
    _Generic((value), float: ludus__plot_f64_check, double: ludus__plot_f64_check, \
             long double: ludus__plot_f64_check, default: ludus__plot_i64_check)(site, value)
#else /* C99: the same choice with GCC and Clang builtins */
#define LUDUS__PLOT_IS_FLOAT(value)                           \
    (__builtin_types_compatible_p(__typeof__(value), float) | \
     __builtin_types_compatible_p(__typeof__(value), double) | \
     __builtin_types_compatible_p(__typeof__(value), long double))
#define LUDUS__PLOT_CALL(site, value) \
    __builtin_choose_expr(LUDUS__PLOT_IS_FLOAT(value), ludus__plot_f64_check, ludus__plot_i64_check)(site, value)
#endif
/* clang-format on */
#endif
#define LUDUS_PROFILE_PLOT(Name, value)                                     \
    do {                                                                    \
        LUDUS__SITE(LUDUS__VAR(ludus__plot_), #Name, NULL);                 \
        LUDUS__PLOT_CALL(LUDUS__SITE_PTR(LUDUS__VAR(ludus__plot_)), value); \
    } while (0)
/* A log message whose text is fixed (a literal or a token): nothing is
 * formatted or copied, the site holds the text. level: LUDUS_LOG_*. */
#define LUDUS_PROFILE_MESSAGE(level, Text)                                         \
    do {                                                                           \
        LUDUS__SITE(LUDUS__VAR(ludus__message_), #Text, "log");                    \
        ludus__message_check(LUDUS__SITE_PTR(LUDUS__VAR(ludus__message_)), level); \
    } while (0)
/* A message formatted when the capture is read (see ludus_log above). */
#define LUDUS__LOG_FIRST(fmt, ...) fmt
#if LUDUS__TRACY /* formatted now (ludus_log), sent as a Tracy message */
#define LUDUS_PROFILE_LOG(level, ...) ludus_log(level, __VA_ARGS__)
#else
#define LUDUS_PROFILE_LOG(level, ...)                                                             \
    do {                                                                                          \
        static const ludus_site LUDUS__VAR(ludus__log_) = {                                       \
            LUDUS__LOG_FIRST(__VA_ARGS__, unused), __func__,       __FILE__, "log",               \
            LUDUS__CAST(uint32_t, __LINE__),       LUDUS_SITE_TEXT};                              \
        if (ludus__is_armed()) ludus__log_deferred(&LUDUS__VAR(ludus__log_), level, __VA_ARGS__); \
    } while (0)
#endif
/* Async zones by name (see ludus_async_begin): Track and Name are tokens or
 * literals; uses with the same Track text share the track. */
#define LUDUS_PROFILE_ASYNC_BEGIN(Track, id, Name)                                                       \
    do {                                                                                                 \
        LUDUS__SITE(LUDUS__VAR(ludus__async_track_), #Track, NULL);                                      \
        LUDUS__SITE(LUDUS__VAR(ludus__async_), #Name, NULL);                                             \
        ludus__async_check(LUDUS__SITE_PTR(LUDUS__VAR(ludus__async_)),                                   \
                           LUDUS__SITE_PTR(LUDUS__VAR(ludus__async_track_)), LUDUS__CAST(uint64_t, id)); \
    } while (0)
#define LUDUS_PROFILE_ASYNC_END(Track, id)                                                                     \
    do {                                                                                                       \
        LUDUS__SITE(LUDUS__VAR(ludus__async_track_), #Track, NULL);                                            \
        ludus__async_check(NULL, LUDUS__SITE_PTR(LUDUS__VAR(ludus__async_track_)), LUDUS__CAST(uint64_t, id)); \
    } while (0)
/* Scope annotations (see ludus__annotate above): integers (unsigned ones
 * kept unsigned), float and double kept as doubles; a text is copied. */
#ifdef __cplusplus
namespace ludus {
inline void annotate(const ludus_site *s, double v) {
    ludus__annotate_f64_check(s, v);
}
inline void annotate(const ludus_site *s, float v) {
    ludus__annotate_f64_check(s, v);
}
inline void annotate(const ludus_site *s, long double v) {
    ludus__annotate_f64_check(s, static_cast<double>(v));
}
inline void annotate(const ludus_site *s, bool v) {
    ludus__annotate_u64_check(s, v ? 1u : 0u);
}
inline void annotate(const ludus_site *s, unsigned char v) {
    ludus__annotate_u64_check(s, v);
}
inline void annotate(const ludus_site *s, unsigned short v) {
    ludus__annotate_u64_check(s, v);
}
inline void annotate(const ludus_site *s, unsigned int v) {
    ludus__annotate_u64_check(s, v);
}
inline void annotate(const ludus_site *s, unsigned long v) {
    ludus__annotate_u64_check(s, v);
}
inline void annotate(const ludus_site *s, unsigned long long v) {
    ludus__annotate_u64_check(s, v);
}
template <typename T> inline void annotate(const ludus_site *s, T v) {
    ludus__annotate_i64_check(s, static_cast<int64_t>(v));
}
} /* namespace ludus */
#define LUDUS__ANNOTATE_CALL(site, value) ::ludus::annotate(site, value)
#else
/* clang-format off */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define LUDUS__ANNOTATE_F64(site, value) ludus__annotate_f64_check(site, (double)(value))
#define LUDUS__ANNOTATE_U64(site, value) ludus__annotate_u64_check(site, (uint64_t)(value))
#define LUDUS__ANNOTATE_CALL(site, value) \
    _Generic((value), float: LUDUS__ANNOTATE_F64(site, value), double: LUDUS__ANNOTATE_F64(site, value), \
             long double: LUDUS__ANNOTATE_F64(site, value), _Bool: LUDUS__ANNOTATE_U64(site, value), \
             unsigned char: LUDUS__ANNOTATE_U64(site, value), unsigned short: LUDUS__ANNOTATE_U64(site, value), \
             unsigned int: LUDUS__ANNOTATE_U64(site, value), unsigned long: LUDUS__ANNOTATE_U64(site, value), \
             unsigned long long: LUDUS__ANNOTATE_U64(site, value), \
             default: ludus__annotate_i64_check(site, (int64_t)(value)))
#else /* C99: floating or not, with GCC and Clang builtins (unsigned values go as signed) */
#define LUDUS__ANNOTATE_CALL(site, value) \
    __builtin_choose_expr(LUDUS__PLOT_IS_FLOAT(value), ludus__annotate_f64_check, ludus__annotate_i64_check)(site, value)
#endif
/* clang-format on */
#endif
/* The value is evaluated only while it can be recorded (a capture runs;
 * always in a Tracy build), as LUDUS_PROFILE_LOG's arguments are. */
#if LUDUS__TRACY
#define LUDUS__ANNOTATING() 1
#else
#define LUDUS__ANNOTATING() ludus__is_armed()
#endif
#define LUDUS_PROFILE_ANNOTATE(Name, value)                                                                  \
    do {                                                                                                     \
        LUDUS__SITE(LUDUS__VAR(ludus__annotate_), #Name, NULL);                                              \
        if (LUDUS__ANNOTATING()) LUDUS__ANNOTATE_CALL(LUDUS__SITE_PTR(LUDUS__VAR(ludus__annotate_)), value); \
    } while (0)
#define LUDUS_PROFILE_ANNOTATE_TEXT(Name, text)                                                                     \
    do {                                                                                                            \
        LUDUS__SITE(LUDUS__VAR(ludus__annotate_), #Name, NULL);                                                     \
        if (LUDUS__ANNOTATING()) ludus__annotate_text_check(LUDUS__SITE_PTR(LUDUS__VAR(ludus__annotate_)), (text)); \
    } while (0)

#else /* LUDUS_PROFILE_LEVEL == 0: nothing is evaluated, no code is emitted */

#define LUDUS_PROFILE_SCOPE(...) LUDUS__NO_SCOPE
#define LUDUS_PROFILE_FUNCTION() LUDUS__NO_SCOPE
#define LUDUS_PROFILE_LOCK_WAIT(Name) LUDUS__NO_SCOPE
#define LUDUS_PROFILE_FRAME() ((void)0)
#define LUDUS_PROFILE_MARK(Name) ((void)0)
/* A declared zone is a context that is always "not recorded" (code that
 * keeps or passes it still builds); BEGIN_INTO and END name their zone
 * without evaluating it: no code. */
#define LUDUS__ZONE_NONE2(var, Name) ludus_zone var LUDUS__UNUSED = {0}
#define LUDUS__ZONE_NONE3(var, Name, Category) LUDUS__ZONE_NONE2(var, Name)
#define LUDUS_ZONE_BEGIN(...) LUDUS__PICK23(LUDUS__ZONE_NONE3, LUDUS__ZONE_NONE2, __VA_ARGS__)(__VA_ARGS__)
#define LUDUS__ZONE_INTO_NONE2(lvalue, Name) ((void)sizeof((lvalue).token))
#define LUDUS__ZONE_INTO_NONE3(lvalue, Name, Category) ((void)sizeof((lvalue).token))
#define LUDUS_ZONE_BEGIN_INTO(...) \
    LUDUS__PICK23(LUDUS__ZONE_INTO_NONE3, LUDUS__ZONE_INTO_NONE2, __VA_ARGS__)(__VA_ARGS__)
#define LUDUS_ZONE_END(zone) ((void)sizeof((zone).token))

#define LUDUS_PROFILE_BEGIN(Name) ((void)0)
#define LUDUS_PROFILE_END() ((void)0)
#define LUDUS_PROFILE_FLOW_OUT(Name) LUDUS__CAST(uint64_t, 0)
/* sizeof names a value argument without evaluating it (no code, no unused-
 * variable warning for a variable only the macro uses). */
#define LUDUS_PROFILE_FLOW_IN(id) ((void)sizeof(id))
#define LUDUS_PROFILE_SCOPE_DYN(name_expr) typedef char LUDUS__UVAR(ludus__no_scope_)[sizeof(name_expr)] LUDUS__UNUSED
#define LUDUS_PROFILE_COUNT(Name, n) ((void)sizeof(n))
#define LUDUS_PROFILE_GAUGE(Name, value) ((void)sizeof(value))
#define LUDUS_PROFILE_PLOT(Name, value) ((void)sizeof(value))
#define LUDUS_PROFILE_MESSAGE(level, Text) ((void)sizeof(level))
#define LUDUS_PROFILE_LOG(level, ...) ((void)sizeof(level))
#define LUDUS_PROFILE_ASYNC_BEGIN(Track, id, Name) ((void)sizeof(id))
#define LUDUS_PROFILE_ASYNC_END(Track, id) ((void)sizeof(id))
#define LUDUS_PROFILE_ANNOTATE(Name, value) ((void)sizeof(value))
#define LUDUS_PROFILE_ANNOTATE_TEXT(Name, text) \
    ((void)sizeof(*(text))) /* not sizeof(text): clang warns on an array that decays */

#endif

#if LUDUS_PROFILE_LEVEL > 1
/* Fine-grained scope, compiled in only at level 2. */
#define LUDUS_PROFILE_SCOPE_FINE(...) LUDUS_PROFILE_SCOPE(__VA_ARGS__)
#else
#define LUDUS_PROFILE_SCOPE_FINE(...) LUDUS__NO_SCOPE
#endif

/* Level 0: the API calls that do work at run time compile to nothing too. */
#include <ludus/level0.h>

#endif /* LUDUS_PROFILING_H */
