/* Tracy's C API (tracy/TracyC.h) onto Ludus: every mapped macro, written
 * as a program instrumented for Tracy writes it, run under a capture saved
 * to argv[1] (JSON); check_capture.py checks what the capture holds
 * (expect_c.txt). Built as C11 with -Wall -Wextra -Werror. */
#define _POSIX_C_SOURCE 200809L /* pthread_rwlock_t under -std=c11 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ludus/capture.h>
#include <tracy/TracyC.h>

/* A lock as C engines wrap one: its Tracy context beside it. */
typedef struct locked_counter {
    pthread_mutex_t m;
    TracyCLockCtx(ctx);
    int value;
} locked_counter;

static void lc_lock(locked_counter *lc) {
    TracyCLockBeforeLock(lc->ctx);
    pthread_mutex_lock(&lc->m);
    TracyCLockAfterLock(lc->ctx);
}
static void lc_unlock(locked_counter *lc) {
    pthread_mutex_unlock(&lc->m);
    TracyCLockAfterUnlock(lc->ctx);
}

static void *worker(void *arg) {
    locked_counter *lc = (locked_counter *)arg;
    TracyCSetThreadName("worker");
    for (int i = 0; i < 3; i++) {
        TracyCZoneN(w, "WorkerJob", 1);
        lc_lock(lc);
        lc->value++;
        lc_unlock(lc);
        TracyCZoneEnd(w);
    }
    return NULL;
}

#ifdef TRACY_ENABLE /* as Tracy users write it: the context exists only then */
/* A zone begun in one function and ended in another (a callback). */
static TracyCZoneCtx load_begin(void) {
    TracyCZoneN(ctx, "Load", 1);
    return ctx;
}
static void load_end(TracyCZoneCtx ctx) {
    TracyCZoneEnd(ctx);
}
#endif

static void unnamed_zone(void) {
    TracyCZone(ctx, 1);
    TracyCZoneEnd(ctx);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (ludus_capture_begin(NULL) != 0) return 1;
    TracyCSetThreadName("main");
    TracyCAppInfo("tracy_c test", 12);
    if (!TracyCIsConnected) return 3;

    locked_counter lc;
    pthread_mutex_init(&lc.m, NULL);
    TracyCLockAnnounce(lc.ctx);
    TracyCLockCustomName(lc.ctx, "CounterLockXYZ", 11); /* "CounterLock" */
    lc.value = 0;

    for (int frame = 0; frame < 4; frame++) {
        TracyCZoneN(outer, "Outer", 1);
        {
            TracyCZoneNC(inner, "Inner", 0xff0000, 1);
            TracyCZoneText(inner, "hello!!", 5);
            TracyCZoneValue(inner, 42);
            TracyCZoneColor(inner, 0x00ff00);
            TracyCZoneEnd(inner);
        }
        TracyCZoneN(off, "NeverRecorded", 0); /* active 0: nothing */
        TracyCZoneText(off, "x", 1);
        TracyCZoneEnd(off);
        TracyCZoneC(colored, 0x0000ff, 1); /* unnamed: the function's name */
        TracyCZoneNameF(colored, "frame %d", frame);
        TracyCZoneEnd(colored);
        TracyCZoneS(s1, 8, 1);
        TracyCZoneEnd(s1);
        TracyCZoneNS(s2, "Deep", 8, 1);
        TracyCZoneTextF(s2, "%s-%d", "d", frame);
        TracyCZoneName(s2, "deep name", 9);
        TracyCZoneEnd(s2);
        TracyCZoneCS(s3, 0x123456, 8, 1);
        TracyCZoneEnd(s3);
        TracyCZoneNCS(s4, "DeepColored", 0x123456, 8, 1);
        TracyCZoneEnd(s4);

        TracyCPlot("Speed", 1.5 * frame);
        TracyCPlotF("Ratio", (float)frame / 2);
        TracyCPlotI("Count", frame * 10);
        TracyCPlotConfig("Count", TracyPlotFormatNumber, 1, 1, 0);

        TracyCMessage("msg sized XXX", 9); /* "msg sized" */
        TracyCMessageL("msg literal");
        TracyCMessageC("msg color", 9, 0xff00ff);
        TracyCMessageLC("msg literal color", 0xff00ff);
        TracyCMessageS("msg stack", 9, 4);
        TracyCMessageLS("msg literal stack", 4);
        TracyCMessageCS("msg color stack", 15, 0xff, 4);
        TracyCMessageLCS("msg literal color stack", 0xff, 4);

        void *a = malloc(100);
        TracyCAlloc(a, 100);
        void *b = malloc(1000);
        TracyCAllocN(b, 1000, "Textures");
        void *c = malloc(7);
        TracyCSecureAlloc(c, 7);
        void *d = malloc(9);
        TracyCAllocS(d, 9, 4);
        void *e = malloc(64);
        TracyCAllocNS(e, 64, 4, "Textures");
        TracyCFree(a);
        free(a);
        TracyCFreeN(b, "Textures");
        free(b);
        TracyCSecureFree(c);
        free(c);
        TracyCFreeS(d, 4);
        free(d);
        /* Secure variants (older Tracy versions): the same domains. */
        char scratch[4];
        (void)scratch; /* unused without TRACY_ENABLE */
        TracyCSecureAllocN(scratch, 1, "Textures");
        TracyCSecureFreeN(scratch, "Textures");
        TracyCSecureAllocS(scratch, 2, 4);
        TracyCSecureFreeS(scratch, 4);
        TracyCSecureAllocNS(scratch, 3, 4, "Textures");
        TracyCSecureFreeNS(scratch, 4, "Textures");
        TracyCMemoryDiscardS("Textures", 4);
        if (frame == 3) { /* 64 bytes of "Textures" stay live */
            TracyCMemoryDiscard("Textures");
        } else {
            TracyCFreeNS(e, 4, "Textures");
            free(e);
        }
        /* The last frame's "e" is freed after the capture (below). */
        if (frame == 3) lc.value += (int)(e != NULL);
        if (frame < 3) e = NULL;

        TracyCFrameMarkStart("Physics");
        {
            TracyCZoneN(step, "Step", 1);
            TracyCZoneEnd(step);
        }
        TracyCFrameMarkEnd("Physics");
        TracyCFrameMarkNamed("Secondary");
        TracyCFrameImage(NULL, 0, 0, 0, 0);

        TracyCZoneEnd(outer);
        TracyCFrameMark
    }

#ifdef TRACY_ENABLE
    TracyCZoneCtx job = load_begin();
    unnamed_zone();
    load_end(job);
#else
    unnamed_zone();
#endif

    /* Lock waits: the C API records every BeforeLock..AfterLock. */
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, &lc);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    lc_lock(&lc);
    lc_unlock(&lc);
    TracyCLockMark(lc.ctx);
    int acquired = pthread_mutex_trylock(&lc.m) == 0;
    TracyCLockAfterTryLock(lc.ctx, acquired);
    if (acquired) pthread_mutex_unlock(&lc.m);

    /* A shared lock: every Before..After pair is a wait (both sides). */
    pthread_rwlock_t rw;
    TracyCSharedLockCtx(rw_ctx);
    pthread_rwlock_init(&rw, NULL);
    TracyCSharedLockAnnounce(rw_ctx);
    TracyCSharedLockCustomName(rw_ctx, "SharedLock", 10);
    TracyCSharedLockBeforeLock(rw_ctx);
    pthread_rwlock_wrlock(&rw);
    TracyCSharedLockAfterLock(rw_ctx);
    pthread_rwlock_unlock(&rw);
    TracyCSharedLockAfterUnlock(rw_ctx);
    TracyCSharedLockBeforeSharedLock(rw_ctx);
    pthread_rwlock_rdlock(&rw);
    TracyCSharedLockAfterSharedLock(rw_ctx);
    pthread_rwlock_unlock(&rw);
    TracyCSharedLockAfterSharedUnlock(rw_ctx);
    acquired = pthread_rwlock_trywrlock(&rw) == 0;
    TracyCSharedLockAfterTryLock(rw_ctx, acquired);
    if (acquired) pthread_rwlock_unlock(&rw);
    acquired = pthread_rwlock_tryrdlock(&rw) == 0;
    TracyCSharedLockAfterTrySharedLock(rw_ctx, acquired);
    if (acquired) pthread_rwlock_unlock(&rw);
    TracyCSharedLockMark(rw_ctx);
    TracyCSharedLockTerminate(rw_ctx);
    pthread_rwlock_destroy(&rw);

    TracyCFiberEnter("Fiber A");
    {
        TracyCZoneN(fz, "OnFiber", 1);
        TracyCZoneEnd(fz);
    }
    TracyCFiberLeave

        (void) TracyCIsStarted;
    if (TracyCBeginSamplingProfiling()) return 4;
    TracyCEndSamplingProfiling();

    ludus_memory_sample();
    ludus_capture *cap = NULL;
    if (ludus_capture_end(&cap) != 0) return 5;
    int rc = ludus_capture_save(cap, LUDUS_FORMAT_JSON, 0, argv[1]);
    ludus_capture_release(cap);
#ifdef TRACY_ENABLE
    /* A free of an address the hooks never saw changes no domain: counted. */
    uint64_t untracked = ludus_memory_untracked();
    static char never_allocated;
    TracyCFree(&never_allocated);
    if (ludus_memory_untracked() != untracked + 1) return 7;
#endif
    TracyCLockTerminate(lc.ctx);
    pthread_mutex_destroy(&lc.m);
    return rc == 0 && lc.value == 7 ? 0 : 6;
}
