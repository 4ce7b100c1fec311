/* Ludus Profiling: Tracy's C API (tracy/TracyC.h) onto Ludus. A program
 * instrumented for Tracy builds unchanged with this directory first on its
 * include path and TRACY_ENABLE defined, links libludus instead of Tracy's
 * client, and records as any Ludus program does (LUDUS_TRACE, the flight
 * recorder, ludus-trace). Without TRACY_ENABLE every macro is empty, as in
 * Tracy's own header. What maps to what, and what does not map:
 * docs/from-tracy.md. Needs the builtin backend (not LUDUS_BACKEND=tracy). */
#ifndef LUDUS_TRACY_COMPAT_TRACYC_H
#define LUDUS_TRACY_COMPAT_TRACYC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum TracyPlotFormatEnum {
    TracyPlotFormatNumber,
    TracyPlotFormatMemory,
    TracyPlotFormatPercentage,
    TracyPlotFormatWatt
};

enum TracyMessageSeverity {
    TracyMessageSeverityTrace,
    TracyMessageSeverityDebug,
    TracyMessageSeverityInfo,
    TracyMessageSeverityWarning,
    TracyMessageSeverityError,
    TracyMessageSeverityFatal
};

#ifdef __cplusplus
}
#endif

/* On: TRACY_ENABLE, and Ludus's macros not compiled out (a build at
 * LUDUS_PROFILE_LEVEL 0 compiles Tracy's macros out too). */
#if defined(TRACY_ENABLE) && (!defined(LUDUS_PROFILE_LEVEL) || LUDUS_PROFILE_LEVEL > 0)
#define LUDUS__TC_ON 1
#else
#define LUDUS__TC_ON 0
#endif

#if !LUDUS__TC_ON

typedef const void *TracyCZoneCtx;
typedef const void *TracyCLockCtx;
typedef const void *TracyCSharedLockCtx;

#define TracyCSetThreadName(name)
#define TracyCZone(c, x)
#define TracyCZoneN(c, x, y)
#define TracyCZoneC(c, x, y)
#define TracyCZoneNC(c, x, y, z)
#define TracyCZoneEnd(c)
#define TracyCZoneText(c, x, y)
#define TracyCZoneTextF(c, ...)
#define TracyCZoneName(c, x, y)
#define TracyCZoneNameF(c, ...)
#define TracyCZoneColor(c, x)
#define TracyCZoneValue(c, x)
#define TracyCAlloc(x, y)
#define TracyCFree(x)
#define TracyCSecureAlloc(x, y)
#define TracyCSecureFree(x)
#define TracyCMemoryDiscard(x)
#define TracyCAllocN(x, y, z)
#define TracyCFreeN(x, y)
#define TracyCSecureAllocN(x, y, z)
#define TracyCSecureFreeN(x, y)
#define TracyCFrameMark
#define TracyCFrameMarkNamed(x)
#define TracyCFrameMarkStart(x)
#define TracyCFrameMarkEnd(x)
#define TracyCFrameImage(x, y, z, w, a)
#define TracyCPlot(x, y)
#define TracyCPlotF(x, y)
#define TracyCPlotI(x, y)
#define TracyCPlotConfig(x, y, z, w, a)
#define TracyCMessage(x, y)
#define TracyCMessageL(x)
#define TracyCMessageC(x, y, z)
#define TracyCMessageLC(x, y)
#define TracyCAppInfo(x, y)
#define TracyCZoneS(x, y, z)
#define TracyCZoneNS(x, y, z, w)
#define TracyCZoneCS(x, y, z, w)
#define TracyCZoneNCS(x, y, z, w, a)
#define TracyCAllocS(x, y, z)
#define TracyCFreeS(x, y)
#define TracyCMemoryDiscardS(x, y)
#define TracyCSecureAllocS(x, y, z)
#define TracyCSecureFreeS(x, y)
#define TracyCAllocNS(x, y, z, w)
#define TracyCFreeNS(x, y, z)
#define TracyCSecureAllocNS(x, y, z, w)
#define TracyCSecureFreeNS(x, y, z)
#define TracyCMessageS(x, y, z)
#define TracyCMessageLS(x, y)
#define TracyCMessageCS(x, y, z, w)
#define TracyCMessageLCS(x, y, z)
#define TracyCLockCtx(l)
#define TracyCLockAnnounce(l)
#define TracyCLockTerminate(l)
#define TracyCLockBeforeLock(l)
#define TracyCLockAfterLock(l)
#define TracyCLockAfterUnlock(l)
#define TracyCLockAfterTryLock(l, x)
#define TracyCLockMark(l)
#define TracyCLockCustomName(l, x, y)
#define TracyCSharedLockCtx(l)
#define TracyCSharedLockAnnounce(l)
#define TracyCSharedLockTerminate(l)
#define TracyCSharedLockBeforeLock(l)
#define TracyCSharedLockAfterLock(l)
#define TracyCSharedLockAfterUnlock(l)
#define TracyCSharedLockAfterTryLock(l, x)
#define TracyCSharedLockBeforeSharedLock(l)
#define TracyCSharedLockAfterSharedLock(l)
#define TracyCSharedLockAfterSharedUnlock(l)
#define TracyCSharedLockAfterTrySharedLock(l, x)
#define TracyCSharedLockMark(l)
#define TracyCSharedLockCustomName(l, x, y)
#define TracyCIsConnected 0
#define TracyCIsStarted 0
#define TracyCBeginSamplingProfiling() 0
#define TracyCEndSamplingProfiling()
#define TracyCFiberEnter(fiber)
#define TracyCFiberLeave

#else /* LUDUS__TC_ON */

#include "LudusTracyCompat.h"

/* A zone's context is a Ludus zone: the begin's token (0: nothing
 * recorded, active 0 or no capture running). Copy it freely. */
typedef ludus_zone TracyCZoneCtx;
/* A lock's context: the lock's call site (see TracyCLockAnnounce). */
typedef const ludus_site *TracyCLockCtx;
typedef const ludus_site *TracyCSharedLockCtx;

#define TracyCSetThreadName(name) ((void)ludus_thread_register(name));

/* Zones: the site is static (the name a string literal, as Tracy requires;
 * no name: the enclosing function), the begin is LUDUS_ZONE_BEGIN's.
 * Colour and callstack depth are not kept. */
#define TracyCZoneNC(ctx, name, color, active)               \
    LUDUS__TC_SITE(LUDUS__VAR(ludus__tc_zone_), name, NULL); \
    TracyCZoneCtx ctx = ludus__zone_make(ludus__tc_zone_begin(&LUDUS__VAR(ludus__tc_zone_), (active)));
#define TracyCZone(ctx, active) TracyCZoneNC(ctx, NULL, 0, active)
#define TracyCZoneN(ctx, name, active) TracyCZoneNC(ctx, name, 0, active)
#define TracyCZoneC(ctx, color, active) TracyCZoneNC(ctx, NULL, color, active)
#define TracyCZoneS(ctx, depth, active) TracyCZoneNC(ctx, NULL, 0, active)
#define TracyCZoneNS(ctx, name, depth, active) TracyCZoneNC(ctx, name, 0, active)
#define TracyCZoneCS(ctx, color, depth, active) TracyCZoneNC(ctx, NULL, color, active)
#define TracyCZoneNCS(ctx, name, color, depth, active) TracyCZoneNC(ctx, name, color, active)
#define TracyCZoneEnd(ctx) LUDUS_ZONE_END(ctx);

/* Annotations of the zone open on the thread (the innermost: the context's
 * zone wherever the program ends its zones in order), recorded only when
 * the context's zone was: Text as "text", Name as "name" (a zone's name is
 * its site's), Value as "value"; the colour is dropped. */
#define TracyCZoneText(ctx, txt, size) ludus__tc_zone_text((ctx).token, LUDUS__TC_KEY_TEXT, (txt), (size));
#define TracyCZoneTextF(ctx, ...) ludus__tc_zone_textf((ctx).token, LUDUS__TC_KEY_TEXT, __VA_ARGS__);
#define TracyCZoneName(ctx, txt, size) ludus__tc_zone_text((ctx).token, LUDUS__TC_KEY_NAME, (txt), (size));
#define TracyCZoneNameF(ctx, ...) ludus__tc_zone_textf((ctx).token, LUDUS__TC_KEY_NAME, __VA_ARGS__);
#define TracyCZoneColor(ctx, color) ((void)(ctx).token, (void)(color));
#define TracyCZoneValue(ctx, value) ludus__tc_zone_value((ctx).token, (value));

/* Memory: the unnamed pool is the domain "heap", a named one the domain of
 * its name (16 domains in all). Secure variants are the same. */
#define TracyCAlloc(ptr, size) ludus_memory_alloc_ptr(ludus__tc_heap(), (ptr), (size))
#define TracyCFree(ptr) ludus_memory_free_ptr(ludus__tc_heap(), (ptr))
#define TracyCSecureAlloc(ptr, size) TracyCAlloc(ptr, size)
#define TracyCSecureFree(ptr) TracyCFree(ptr)
#define TracyCAllocN(ptr, size, name) ludus_memory_alloc_ptr(LUDUS__TC_DOMAIN(name), (ptr), (size))
#define TracyCFreeN(ptr, name) ludus_memory_free_ptr(LUDUS__TC_DOMAIN(name), (ptr))
#define TracyCSecureAllocN(ptr, size, name) TracyCAllocN(ptr, size, name)
#define TracyCSecureFreeN(ptr, name) TracyCFreeN(ptr, name)
#define TracyCAllocS(ptr, size, depth) TracyCAlloc(ptr, size)
#define TracyCFreeS(ptr, depth) TracyCFree(ptr)
#define TracyCSecureAllocS(ptr, size, depth) TracyCAlloc(ptr, size)
#define TracyCSecureFreeS(ptr, depth) TracyCFree(ptr)
#define TracyCAllocNS(ptr, size, depth, name) TracyCAllocN(ptr, size, name)
#define TracyCFreeNS(ptr, depth, name) TracyCFreeN(ptr, name)
#define TracyCSecureAllocNS(ptr, size, depth, name) TracyCAllocN(ptr, size, name)
#define TracyCSecureFreeNS(ptr, depth, name) TracyCFreeN(ptr, name)
#define TracyCMemoryDiscard(name) ((void)(name));
#define TracyCMemoryDiscardS(name, depth) ((void)(name), (void)(depth));

/* Frames: the frame mark; a named frame is a mark of that name; Start/End
 * a span of that name (a discontinuous frame). Frame images are dropped. */
#define TracyCFrameMark LUDUS_PROFILE_FRAME();
#define TracyCFrameMarkNamed(name) ludus__tc_mark(name);
#define TracyCFrameMarkStart(name) ludus__tc_frame_start(name);
#define TracyCFrameMarkEnd(name) ludus__tc_frame_end(name);
#define TracyCFrameImage(image, width, height, offset, flip) \
    ((void)(image), (void)(width), (void)(height), (void)(offset), (void)(flip));

/* Plots: a sample on the plot's track, by name (any string). */
#define TracyCPlot(name, val) ludus__tc_plot_f64((name), (double)(val));
#define TracyCPlotF(name, val) ludus__tc_plot_f64((name), (double)(val));
#define TracyCPlotI(name, val) ludus__tc_plot_i64((name), (int64_t)(val));
#define TracyCPlotConfig(name, type, step, fill, color) \
    ((void)(name), (void)(type), (void)(step), (void)(fill), (void)(color));

/* Messages: log messages at level info (the text copied; colour and
 * callstack dropped). App info is a message too. */
#define TracyCMessage(txt, size) ludus__tc_message((txt), (size_t)(size))
#define TracyCMessageL(txt) ludus__tc_message_l(txt)
#define TracyCMessageC(txt, size, color) TracyCMessage(txt, size)
#define TracyCMessageLC(txt, color) TracyCMessageL(txt)
#define TracyCMessageS(txt, size, depth) TracyCMessage(txt, size)
#define TracyCMessageLS(txt, depth) TracyCMessageL(txt)
#define TracyCMessageCS(txt, size, color, depth) TracyCMessage(txt, size)
#define TracyCMessageLCS(txt, color, depth) TracyCMessageL(txt)
#define TracyCAppInfo(txt, size) TracyCMessage(txt, size);

/* Locks: the context is the announce's call site; the lock is known by
 * the context's address (a name given with CustomName is the lock's
 * name, as ludus_lock_name). The C API does not try the lock first, so
 * every BeforeLock..AfterLock is recorded as a lock wait, contended or
 * not. Shared locks: the same, for both sides. */
#define TracyCLockCtx(l) TracyCLockCtx l
#define TracyCLockAnnounce(l)                         \
    LUDUS__TC_LOCK_SITE(LUDUS__VAR(ludus__tc_lock_)); \
    (l) = &LUDUS__VAR(ludus__tc_lock_);
#define TracyCLockTerminate(l) ((void)ludus_lock_forget(&(l)));
#define TracyCLockBeforeLock(l) ludus__tc_lock_before(&(l), (l));
#define TracyCLockAfterLock(l) ludus__tc_lock_after();
#define TracyCLockAfterUnlock(l) ((void)(l));
#define TracyCLockAfterTryLock(l, acquired) ((void)(l), (void)(acquired));
#define TracyCLockMark(l) ((void)(l));
#define TracyCLockCustomName(l, name, size) ludus__tc_lock_name(&(l), (name), (size_t)(size));
#define TracyCSharedLockCtx(l) TracyCSharedLockCtx l
#define TracyCSharedLockAnnounce(l) TracyCLockAnnounce(l)
#define TracyCSharedLockTerminate(l) TracyCLockTerminate(l)
#define TracyCSharedLockBeforeLock(l) TracyCLockBeforeLock(l)
#define TracyCSharedLockAfterLock(l) TracyCLockAfterLock(l)
#define TracyCSharedLockAfterUnlock(l) TracyCLockAfterUnlock(l)
#define TracyCSharedLockAfterTryLock(l, acquired) TracyCLockAfterTryLock(l, acquired)
#define TracyCSharedLockBeforeSharedLock(l) TracyCLockBeforeLock(l)
#define TracyCSharedLockAfterSharedLock(l) TracyCLockAfterLock(l)
#define TracyCSharedLockAfterSharedUnlock(l) TracyCLockAfterUnlock(l)
#define TracyCSharedLockAfterTrySharedLock(l, acquired) TracyCLockAfterTryLock(l, acquired)
#define TracyCSharedLockMark(l) TracyCLockMark(l)
#define TracyCSharedLockCustomName(l, name, size) TracyCLockCustomName(l, name, size)

/* "Connected": a capture is running (Ludus needs no viewer). */
#define TracyCIsConnected ludus__tc_connected()
#define TracyCIsStarted 1
#define TracyCBeginSamplingProfiling() 0
#define TracyCEndSamplingProfiling() ((void)0)
/* Fibers: Ludus's own (ludus_fiber_enter / _leave). */
#define TracyCFiberEnter(fiber) ludus_fiber_enter(fiber);
#define TracyCFiberLeave ludus_fiber_leave();

#endif /* LUDUS__TC_ON */

#endif /* LUDUS_TRACY_COMPAT_TRACYC_H */
