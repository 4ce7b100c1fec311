/* Chrome/Perfetto JSON export (trace-formats.md part A), streamed thread by
 * thread through the bounded writer. Slices are complete "X" events written
 * when they end (no B/E pairs, no empty args); times are ns since capture
 * start written as microseconds on a binary grid (2^-12 us, writer.h: every
 * sum a viewer makes of them is exact, so nesting is the same in every
 * viewer), a slice's dur its end's point less its begin's. Each
 * site's ,"name":..,"cat":.. and each track's ,\n{"ph":"X","pid":..,"tid":..,"ts":
 * are formatted once and copied per event (a fixed-size copy, inlined).
 *
 * What a viewer must see is in the events, not only in the metadata: a
 * thread's first loss is an instant there ("ludus: N events lost from here
 * on") and its count is in the thread's name; unwound, incomplete and
 * clipped slices carry {"ludus": "..."} args; a span end that matched no
 * span is an instant. Spans that do not nest on their thread's track go on
 * span tracks of their own (named "<thread> spans k").
 *
 * Flows: each end of a flow is a 1 ns slice with an s/f event at the same
 * pid, tid, category and timestamp, so DevTools (which binds v1 flows only
 * that way) and Perfetto (which binds to the enclosing slice) agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

/* Span lane k of thread t: a tid no Linux thread has (tids are < 2^22). */
/* The event names Chromium's DevTools interprets by name alone, whatever
 * the category (the Name enum of @paulirish/trace_engine 0.0.65, the
 * version tests/viewers pins; sorted by bytes): a slice so named is read as
 * DevTools' own event and its missing args stop the whole trace. Such a
 * name is written with a zero-width space after it: shown as recorded,
 * never equal to DevTools' own. */
static const char *const devtools_names[] = {
    "AbortPostTaskCallback",
    "ActivateLayerTree",
    "Animation",
    "AnimationFrame",
    "AnimationFrame::Presentation",
    "AsyncTask",
    "BeginCommitCompositorFrame",
    "BeginFrame",
    "BeginMainThreadFrame",
    "BeginRemoteFontLoad",
    "BlinkGC.AtomicPhase",
    "CancelAnimationFrame",
    "CancelIdleCallback",
    "Commit",
    "CommitLoad",
    "CompositeLayers",
    "ComputeIntersections",
    "ConsoleTime",
    "CppGC.IncrementalSweep",
    "CpuProfile",
    "CpuProfiler::StartProfiling",
    "Decode Image",
    "Decode LazyPixelRef",
    "DoDecrypt",
    "DoDecryptReply",
    "DoDigest",
    "DoDigestReply",
    "DoEncrypt",
    "DoEncryptReply",
    "DoSign",
    "DoSignReply",
    "DoVerify",
    "DoVerifyReply",
    "Draw LazyPixelRef",
    "DrawFrame",
    "DroppedFrame",
    "EmbedderCallback",
    "EvaluateScript",
    "EventDispatch",
    "EventTiming",
    "FireAnimationFrame",
    "FireIdleCallback",
    "FrameStartedLoading",
    "FunctionCall",
    "GCEvent",
    "GPUTask",
    "HandlePostMessage",
    "HitTest",
    "ImageDecodeTask",
    "ImageUploadTask",
    "InputHandlerProxy::HandleGestureFling::started",
    "InputLatency::MouseMove",
    "InputLatency::MouseWheel",
    "InteractiveTime",
    "InvalidateLayout",
    "JSSample",
    "JitCodeAdded",
    "JitCodeMoved",
    "Layerize",
    "Layout",
    "LayoutImageUnsized",
    "LayoutInvalidationTracking",
    "LayoutShift",
    "LazyPixelRef",
    "LinkPreconnect",
    "MajorGC",
    "MarkDOMContent",
    "MarkLoad",
    "MetaCharsetCheck",
    "MinorGC",
    "NeedsBeginFrameChanged",
    "Paint",
    "PaintImage",
    "PaintSetup",
    "ParseAuthorStyleSheet",
    "ParseHTML",
    "ParseMetaViewport",
    "PipelineReporter",
    "PrePaint",
    "PreloadRenderBlockingStatusChange",
    "Profile",
    "ProfileCall",
    "ProfileChunk",
    "Program",
    "RasterTask",
    "Rasterize",
    "RemoteFontLoaded",
    "RenderFrameImpl::createChildFrame",
    "RequestAnimationFrame",
    "RequestIdleCallback",
    "RequestMainThreadFrame",
    "ResourceFinish",
    "ResourceMarkAsCached",
    "ResourceReceiveResponse",
    "ResourceReceivedData",
    "ResourceSendRequest",
    "ResourceWillSendRequest",
    "RunMicrotasks",
    "RunPostTaskCallback",
    "RunTask",
    "SchedulePostMessage",
    "SchedulePostTaskCallback",
    "ScheduleStyleInvalidationTracking",
    "ScheduleStyleRecalculation",
    "Screenshot",
    "ScrollLayer",
    "SelectorStats",
    "SetLayerTreeId",
    "SoftNavigationStart",
    "StyleInvalidatorInvalidationTracking",
    "StyleRecalcInvalidationTracking",
    "SyntheticLayoutShift",
    "SyntheticLayoutShiftCluster",
    "SyntheticNetworkRequest",
    "TimeStamp",
    "TimerFire",
    "TimerInstall",
    "TimerRemove",
    "TracingSessionIdForWorker",
    "TracingStartedInBrowser",
    "TracingStartedInPage",
    "UpdateCounters",
    "UpdateLayer",
    "UpdateLayerTree",
    "UpdateLayoutTree",
    "UserTiming",
    "UserTiming::Measure",
    "V8.CompileCode",
    "V8.CompileModule",
    "V8.CompileScript",
    "V8.Execute",
    "V8.FinalizeDeserialization",
    "V8.OptimizeCode",
    "V8Console::runTask",
    "V8Sample",
    "WebSocketCreate",
    "WebSocketDestroy",
    "WebSocketReceive",
    "WebSocketReceiveHandshakeResponse",
    "WebSocketSend",
    "WebSocketSendHandshakeRequest",
    "XHRLoad",
    "XHRReadyStateChange",
    "cc::DisplayItemList",
    "cc::LayerTreeHostImpl",
    "cc::Picture",
    "domLoading",
    "firstContentfulPaint",
    "firstPaint",
    "largestContentfulPaint::Candidate",
    "largestContentfulPaint::CandidateForSoftNavigation",
    "largestContentfulPaint::Invalidate",
    "navigationStart",
    "thread_name",
    "v8.compile",
    "v8.deserializeOnBackground",
    "v8.evaluateModule",
    "v8.parseOnBackground",
    "v8.parseOnBackgroundParsing",
    "v8.parseOnBackgroundWaiting",
    "v8.produceCache",
    "v8.produceModuleCache",
    "v8.wasm.cachedModule",
    "v8.wasm.compiledModule",
    "v8.wasm.moduleCacheHit",
    "v8.wasm.moduleCacheInvalid",
    "v8.wasm.streamFromResponseCallback",
    "v8::Debugger::AsyncTaskRun",
    "v8::Debugger::AsyncTaskScheduled",
};

static int cmp_name(const void *k, const void *e) {
    return strcmp((const char *)k, *(const char *const *)e);
}

/* 1 when the name (n bytes) is one DevTools interprets. */
static int devtools_name(const char *name, size_t n) {
    char key[64];
    if (n >= sizeof key || memchr(name, 0, n)) return 0;
    memcpy(key, name, n);
    key[n] = 0;
    return bsearch(key, devtools_names, sizeof devtools_names / sizeof devtools_names[0], sizeof devtools_names[0],
                   cmp_name) != NULL;
}

#define LANE_TID(t, k) (UINT64_C(0x40000000) + (uint64_t)(t)*LUDUS__MAX_LANES + (k))

typedef struct json_track {
    char part[64]; /* ,\n{"ph":"X","pid":P,"tid":T,"ts": (at most 18 + 11 + 7 + 20 + 6 = 62 bytes) */
    size_t len;
    int64_t shift_ns; /* added to every ts (a merge: this capture's start after the earliest) */
} json_track;

/* Per-export state: every site's name/category snippet (memory bounded by
 * sites) and the tracks of the thread being written. */
/* The integer part of the last slice's begin and its digits: consecutive
 * slices mostly begin within one us. */
typedef struct begin_digits {
    uint64_t us;
    size_t len;
    char digits[40];
} begin_digits;

typedef struct json_ctx {
    ludus__writer *w;
    const ludus_capture *c;
    char *snip;        /* all snippets, back to back, 64 bytes of padding after */
    size_t *snip_off;  /* nsites + 1 offsets */
    size_t *snip_name; /* where each snippet's ,"name":.. part ends */
    json_track tracks[LUDUS__MAX_LANES];
    uint64_t skipped_nonfinite;
    ludus__slice_args args;             /* annotations of the open slices */
    const ludus__nev_iter *it;          /* the thread's stream (a message's text) */
    int64_t shift_ns;                   /* ts origin: 0 = this capture's start (a merge: the earliest capture's) */
    ludus__grid_fracs *fracs;           /* the grid's fractions, formatted once */
    char kind_cat[LUDUS_NEV_COUNT][40]; /* per normalised kind: ,"cat":"<its category>","s":"t" */
    size_t kind_cat_len[LUDUS_NEV_COUNT];
    begin_digits last; /* the last slice's begin (the loop keeps a copy while it writes) */
    uint64_t flow_ns;  /* a merge: xored into the flow ids the library made (per capture) */
} json_ctx;

static void set_track(json_track *k, const json_ctx *x, uint64_t tid) {
    int pid = x->c->pid;
    k->shift_ns = x->shift_ns;
    char *p = k->part;
    memcpy(p, ",\n{\"ph\":\"X\",\"pid\":", 18);
    p += 18;
    if (pid < 0) *p++ = '-';
    p = ludus__fmt_u64(p, pid < 0 ? (uint64_t)0 - (uint64_t)(int64_t)pid : (uint64_t)pid);
    memcpy(p, ",\"tid\":", 7);
    p += 7;
    p = ludus__fmt_u64(p, tid);
    memcpy(p, ",\"ts\":", 6);
    p += 6;
    k->len = (size_t)(p - k->part);
}

/* ,\n{"ph":"<ph>","pid":..,"tid":..,"ts":<ts> */
static inline void head(ludus__writer *w, const json_track *k, char ph, int64_t ts) {
    char *p = ludus__w_reserve(w, 48 + sizeof k->part);
    memcpy(p, k->part, sizeof k->part); /* fixed size: inlined, no call */
    p[9] = ph;
    p += k->len;
    ludus__w_commit(w, ludus__fmt_us(p, ts + k->shift_ns));
}

/* The same, the time's fraction from x's table. */
static inline void head_t(const json_ctx *x, const json_track *k, char ph, int64_t ts) {
    char *p = ludus__w_reserve(x->w, 48 + sizeof k->part);
    memcpy(p, k->part, sizeof k->part); /* fixed size: inlined, no call */
    p[9] = ph;
    p += k->len;
    ludus__w_commit(x->w, ludus__fmt_grid_t(p, ludus__grid(ts + k->shift_ns), x->fracs));
}

/* ,\n{"ph":"X","pid":..,"tid":..,"ts":<begin>,"dur":<dur> for a slice from
 * begin_ns to end_ns, on the grid (writer.h: ts + dur is its end's point). */
static inline void slice_head(ludus__writer *w, const json_track *k, int64_t begin_ns, int64_t end_ns) {
    uint64_t pb, pe;
    ludus__slice_grid(begin_ns + k->shift_ns, end_ns + k->shift_ns, &pb, &pe);
    char *p = ludus__w_reserve(w, sizeof k->part + 32 + 7 + 32);
    memcpy(p, k->part, sizeof k->part);
    p += k->len;
    p = ludus__fmt_grid(p, pb);
    memcpy(p, ",\"dur\":", 7);
    ludus__w_commit(w, ludus__fmt_grid(p + 7, pe - pb));
}

/* The site's ,"name":..,"cat":.. (or only its ,"name":.. part). */
static inline void snippet_part(json_ctx *x, uint32_t site, int name_only) {
    ludus__writer *w = x->w;
    size_t n = (name_only ? x->snip_name[site] : x->snip_off[site + 1]) - x->snip_off[site];
    if (n <= 64) {
        /* A fixed 64-byte copy (inlined), n kept: the block has 64 bytes of
         * padding and the extra bytes are overwritten. */
        char *p = ludus__w_reserve(w, 64);
        memcpy(p, x->snip + x->snip_off[site], 64);
        ludus__w_commit(w, p + n);
    } else {
        ludus__w_bytes(w, x->snip + x->snip_off[site], n);
    }
}

typedef struct snip_buf {
    char *b;
    size_t n;
} snip_buf;

static int snip_write(void *ud, const void *data, size_t n) {
    snip_buf *s = ud;
    char *b = ludus__realloc(s->b, s->n + n + 64);
    if (!b) return -1;
    memcpy(b + s->n, data, n);
    s->b = b;
    s->n += n;
    return 0;
}

static int build_snippets(json_ctx *x) {
    const ludus_capture *c = x->c;
    if (!x->fracs) {
        x->fracs = ludus__malloc(sizeof *x->fracs);
        if (!x->fracs) return -1;
        ludus__grid_fracs_init(x->fracs);
    }
    x->last.us = 0;
    x->last.len = 1;
    x->last.digits[0] = '0';
    for (int k = 0; k < LUDUS_NEV_COUNT; k++) { /* the library's own categories: short, nothing to escape */
        int n = snprintf(x->kind_cat[k], sizeof x->kind_cat[k], ",\"cat\":\"%s\",\"s\":\"t\"", ludus__nevs[k].category);
        x->kind_cat_len[k] = n > 0 && (size_t)n < sizeof x->kind_cat[k] ? (size_t)n : 0;
    }
    x->snip_off = ludus__malloc((c->nsites + 1) * sizeof *x->snip_off);
    x->snip_name = ludus__malloc((c->nsites + 1) * sizeof *x->snip_name);
    ludus__writer *sw = ludus__malloc(sizeof *sw);
    snip_buf sb = {NULL, 0};
    if (!x->snip_off || !x->snip_name || !sw) {
        ludus__free(sw);
        return -1;
    }
    ludus__w_init(sw, snip_write, &sb);
    x->snip_off[0] = 0;
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        ludus__w_str(sw, ",\"name\":");
        if (devtools_name(s->name, s->name_len)) { /* the name, then U+200B ZERO WIDTH SPACE */
            char shown[80];
            memcpy(shown, s->name, s->name_len);
            memcpy(shown + s->name_len, "\xe2\x80\x8b", 3);
            ludus__w_json_str(sw, shown, s->name_len + 3);
        } else {
            ludus__w_json_str(sw, s->name, s->name_len);
        }
        x->snip_name[i] = (size_t)sw->bytes;
        ludus__w_str(sw, ",\"cat\":");
        if (s->category)
            ludus__w_json_str(sw, s->category, s->category_len);
        else /* always one, the kind's as .pftrace has it ("default"): DevTools stops on a RunTask without */
            ludus__w_json_str(sw, ludus__nevs[LUDUS_NEV_BEGIN].category, strlen(ludus__nevs[LUDUS_NEV_BEGIN].category));
        x->snip_off[i + 1] = (size_t)sw->bytes;
    }
    int rc = ludus__w_flush(sw);
    ludus__free(sw);
    if (rc == 0 && !sb.b) sb.b = ludus__calloc(1, 64);
    x->snip = sb.b;
    return rc == 0 && sb.b ? 0 : -1;
}

static void hex_id(ludus__writer *w, uint64_t id) {
    static const char hex[] = "0123456789abcdef";
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = hex[id & 15];
        id >>= 4;
    } while (id);
    ludus__w_str(w, ",\"id\":\"0x");
    ludus__w_bytes(w, tmp + i, (size_t)(20 - i));
    ludus__w_ch(w, '"');
}

/* One end of a flow: a 1 ns slice (cat "flow") and the s/f event at the same
 * pid, tid, category and timestamp. The slice is synthetic, so it is placed
 * where it ties with nothing: viewers misorder a slice that ends at the very
 * ns the thread's next event begins. It goes at the flow's time t when that
 * leaves a 1 ns gap before the next event, else as close before t as the
 * previous event allows. Returns the end of the slice. */
static int64_t flow_end(json_ctx *x, const json_track *k, const ludus__nev *ev, int64_t prev_ns, int64_t next_ns) {
    ludus__writer *w = x->w;
    int out = ev->kind == LUDUS_NEV_FLOW_OUT;
    int64_t at = ev->ts_ns;
    if (next_ns != INT64_MAX && at > next_ns - 2) at = next_ns - 2;
    if (prev_ns != INT64_MIN && at < prev_ns + 1) at = prev_ns + 1;
    if (next_ns != INT64_MAX && at > next_ns - 2) at = ev->ts_ns; /* no room: keep t */
    slice_head(w, k, at, at + 1);
    ludus__w_str(w, ",\"name\":");
    if (out && ev->site != UINT32_MAX) {
        const ludus__site_info *s = &x->c->sites[ev->site];
        ludus__w_json_str(w, s->name, s->name_len);
    } else {
        const char *name = out ? "flow" : ludus__nevs[ev->kind].label;
        ludus__w_json_str(w, name, strlen(name));
    }
    ludus__w_str(w, ",\"cat\":\"flow\"}");
    head(w, k, out ? 's' : 'f', at);
    ludus__w_str(w, ",\"name\":\"flow\",\"cat\":\"flow\"");
    hex_id(w, ludus__merged_flow_id(ev->value, x->flow_ns));
    if (!out) ludus__w_str(w, ",\"bp\":\"e\"");
    ludus__w_ch(w, '}');
    return at + 1;
}

/* What a synthesised slice end is, as an arg the viewers show. */
static void flag_args(ludus__writer *w, uint16_t flags, int comma) {
    static const struct {
        uint16_t bit;
        const char *text;
    } names[] = {{LUDUS_NEV_UNWOUND, "unwound"}, {LUDUS_NEV_INCOMPLETE, "incomplete"}, {LUDUS_NEV_CLIPPED, "clipped"}};
    int first = 1;
    ludus__w_str(w, comma ? ",\"ludus\":\"" : "\"ludus\":\"");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (flags & names[i].bit) {
            if (!first) ludus__w_ch(w, ',');
            ludus__w_str(w, names[i].text); /* constant text */
            first = 0;
        }
    ludus__w_ch(w, '"');
}

/* A scope annotation as an args member: "key":value (a double that JSON
 * cannot hold, as its name in a string). */
static void arg_member(json_ctx *x, const ludus__nev *ev, int comma) {
    ludus__writer *w = x->w;
    const ludus__site_info *s = &x->c->sites[ev->site];
    if (comma) ludus__w_ch(w, ',');
    ludus__w_json_str(w, s->name, s->name_len);
    ludus__w_ch(w, ':');
    switch (ludus__nevs[ev->kind].value) {
    case LUDUS__V_I64:
        ludus__w_i64(w, (int64_t)ev->value);
        break;
    case LUDUS__V_U64:
        ludus__w_u64(w, ev->value);
        break;
    case LUDUS__V_F64: {
        double d;
        memcpy(&d, &ev->value, sizeof d);
        if (d != d)
            ludus__w_str(w, "\"NaN\"");
        else if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
            ludus__w_str(w, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        else
            ludus__w_double(w, d);
        break;
    }
    default: {
        size_t n;
        const char *t = ludus__arg_text(x->it, ev, &n);
        ludus__w_json_str(w, t, n);
        break;
    }
    }
}

/* A slice's begin time: fmt_grid_t, the integer part copied when it is the
 * last slice's. */
__attribute__((always_inline)) static inline char *begin_time(begin_digits *b, const ludus__grid_fracs *fracs, char *p,
                                                              uint64_t g) {
    uint64_t q = g >> 12;
    if (q != b->us) {
        b->us = q;
        /* fmt_grid_t's integer part; the fraction is written after it */
        b->len = (size_t)(ludus__fmt_grid_t(b->digits, q << 12, fracs) - b->digits);
    }
    memcpy(p, b->digits, 16); /* at most 15 digits below 2^64 ns */
    p += b->len;
    const char *f = fracs->f[g & 4095u];
    memcpy(p, f, 16);
    return p + (unsigned char)f[15];
}

/* A slice's ,\n{"ph":"X",..,"ts":<begin>,"dur":<dur> at p (the track, two
 * times on the grid); returns the end. */
__attribute__((always_inline)) static inline char *slice_times(char *p, const json_track *k, const ludus__nev *ev,
                                                               begin_digits *last, const ludus__grid_fracs *fracs) {
    memcpy(p, k->part, sizeof k->part); /* fixed size: inlined, no call */
    p += k->len;
    uint64_t pb, pe;
    ludus__slice_grid(ev->begin_ns + k->shift_ns, ev->ts_ns + k->shift_ns, &pb, &pe);
    p = begin_time(last, fracs, p, pb);
    memcpy(p, ",\"dur\":", 7);
    return ludus__fmt_grid_t(p + 7, pe - pb, fracs);
}

/* A complete slice: one X event, formatted in one reservation. */
__attribute__((always_inline)) static inline void slice(json_ctx *x, const ludus__nev *ev) {
    ludus__writer *w = x->w;
    const json_track *k = &x->tracks[ev->lane];
    size_t n = x->snip_off[ev->site + 1] - x->snip_off[ev->site];
    char *p = slice_times(ludus__w_reserve(w, sizeof k->part + 40 + 7 + 40 + 64 + 1), k, ev, &x->last, x->fracs);
    const char *sn = x->snip + x->snip_off[ev->site];
    if (n <= 64) {
        memcpy(p, sn, 64); /* the block has 64 bytes of padding; the extra bytes are overwritten */
        p += n;
    } else {
        ludus__w_commit(w, p);
        ludus__w_bytes(w, sn, n);
        p = ludus__w_reserve(w, 1);
    }
    const ludus__nev *args;
    uint32_t nargs = ludus__slice_args_take(&x->args, ev->lane, ev->depth, &args);
    if (nargs || (ev->flags & (LUDUS_NEV_UNWOUND | LUDUS_NEV_INCOMPLETE | LUDUS_NEV_CLIPPED))) {
        ludus__w_commit(w, p);
        ludus__w_str(w, ",\"args\":{");
        for (uint32_t i = 0; i < nargs; i++) arg_member(x, &args[i], i > 0);
        if (ev->flags & (LUDUS_NEV_UNWOUND | LUDUS_NEV_INCOMPLETE | LUDUS_NEV_CLIPPED))
            flag_args(w, ev->flags, nargs > 0);
        ludus__w_str(w, "}}");
        return;
    }
    *p++ = '}';
    ludus__w_commit(w, p);
}

/* What the loop keeps of the export's state in locals while it writes a
 * batch of slices at a pointer of its own (byte stores may alias anything:
 * read from x, every field would be read again after each). */
typedef struct slice_run {
    const json_track *tracks;
    const ludus__grid_fracs *fracs;
    const char *snip;
    const size_t *snip_off;
    const ludus__slice_args_lane *args;
    int any_args;      /* an annotation was added on this thread: look at the lane's */
    begin_digits last; /* x's, copied back around the slow path */
} slice_run;

/* Room a slice written by slice_fast needs: the track, two times, ,"dur":,
 * the snippet's 64-byte copy and the closing brace (more than a mark's,
 * INSTANT_ROOM + 1). */
#define SLICE_ROOM (sizeof(((json_track *)0)->part) + 40 + 7 + 40 + 64 + 1)
#define SLICE_SLOW_FLAGS (LUDUS_NEV_UNWOUND | LUDUS_NEV_INCOMPLETE | LUDUS_NEV_CLIPPED)

/* slice()'s common case at p (SLICE_ROOM there): no annotation pending on
 * the lane, no flag, a snippet of at most 64 bytes. Returns the end, or
 * NULL (nothing written) when the slice needs slice(). */
__attribute__((always_inline)) static inline char *slice_fast(slice_run *r, char *p, const ludus__nev *ev) {
    uint32_t site = ev->site;
    const char *sn = r->snip + r->snip_off[site]; /* read before the first store (which may alias it) */
    size_t n = r->snip_off[site + 1] - r->snip_off[site];
    if (n > 64 || (ev->flags & SLICE_SLOW_FLAGS) || (r->any_args && r->args[ev->lane].n)) return NULL;
    p = slice_times(p, &r->tracks[ev->lane], ev, &r->last, r->fracs);
    memcpy(p, sn, 64); /* the block has 64 bytes of padding; the extra bytes are overwritten */
    p += n;
    *p++ = '}';
    return p;
}

/* An annotation with no scope open: an instant of its own. */
static void lone_arg(json_ctx *x, const ludus__nev *ev) {
    ludus__writer *w = x->w;
    head(w, &x->tracks[0], 'I', ev->ts_ns);
    snippet_part(x, ev->site, 1);
    ludus__w_str(w, ",\"cat\":\"annotation\",\"s\":\"t\",\"args\":{");
    arg_member(x, ev, 0);
    ludus__w_str(w, ",\"ludus\":\"annotation without an open scope\"}}");
}

/* Room instant_at needs: the track, a time, the snippet's 64-byte copy, the
 * kind's category. */
#define INSTANT_ROOM (sizeof(((json_track *)0)->part) + 40 + 64 + sizeof(((json_ctx *)0)->kind_cat[0]))
_Static_assert(INSTANT_ROOM + 1 <= SLICE_ROOM, "the loop reserves SLICE_ROOM for a mark too");

/* An instant's ,\n{"ph":"I",..,"ts":..,"name":..,"cat":..,"s":"t" at p
 * (INSTANT_ROOM there) when its site's snippet is at most 64 bytes
 * (instant_fits); returns the end. Everything is read before the first
 * store (byte stores may alias x). */
static inline int instant_fits(const json_ctx *x, const ludus__nev *ev) {
    return ev->site != UINT32_MAX && x->snip_off[ev->site + 1] - x->snip_off[ev->site] <= 64;
}
__attribute__((always_inline)) static inline char *instant_at(const json_ctx *x, char *p, const ludus__nev *ev) {
    const json_track *k = &x->tracks[ev->lane];
    const char *sn = x->snip + x->snip_off[ev->site];
    int site_cat = x->c->sites[ev->site].category != NULL; /* else the kind's ,"cat":..,"s":"t" */
    size_t n = (site_cat ? x->snip_off[ev->site + 1] : x->snip_name[ev->site]) - x->snip_off[ev->site];
    const char *kind_cat = x->kind_cat[ev->kind];
    size_t kind_cat_len = x->kind_cat_len[ev->kind];
    uint64_t g = ludus__grid(ev->ts_ns + k->shift_ns);
    const ludus__grid_fracs *fracs = x->fracs;
    size_t len = k->len;
    memcpy(p, k->part, sizeof k->part); /* fixed size: inlined, no call */
    p[9] = 'I';
    p = ludus__fmt_grid_t(p + len, g, fracs);
    memcpy(p, sn, 64); /* the block has 64 bytes of padding */
    p += n;
    if (site_cat) {
        memcpy(p, ",\"s\":\"t\"", 8);
        return p + 8;
    }
    memcpy(p, kind_cat, sizeof x->kind_cat[0]); /* fixed size: inlined, no call */
    return p + kind_cat_len;
}

static void write_event(json_ctx *x, const ludus__nev *ev) {
    ludus__writer *w = x->w;
    const json_track *k = &x->tracks[ev->lane];
    const ludus__nev_info *ni = &ludus__nevs[ev->kind];
    switch (ni->json) {
    case LUDUS__TR_SLICE_END:
        slice(x, ev);
        break;
    case LUDUS__TR_INSTANT:
    case LUDUS__TR_FRAME:
        if (instant_fits(x, ev)) {
            char *p = ludus__w_reserve(w, INSTANT_ROOM);
            ludus__w_commit(w, instant_at(x, p, ev));
        } else {
            head_t(x, k, 'I', ev->ts_ns);
            if (ev->site != UINT32_MAX) { /* without a category of its own: the kind's, below */
                snippet_part(x, ev->site, !x->c->sites[ev->site].category);
            } else {
                const char *label = ni->label ? ni->label : ni->category; /* a mark or frame without a site */
                ludus__w_str(w, ",\"name\":");
                ludus__w_json_str(w, label, strlen(label));
            }
            if (ev->site == UINT32_MAX || !x->c->sites[ev->site].category) { /* the kind's: ,"cat":..,"s":"t" */
                char *p = ludus__w_reserve(w, sizeof x->kind_cat[0]);
                memcpy(p, x->kind_cat[ev->kind], sizeof x->kind_cat[0]); /* fixed size: inlined, no call */
                ludus__w_commit(w, p + x->kind_cat_len[ev->kind]);
            } else {
                char *p = ludus__w_reserve(w, 8);
                memcpy(p, ",\"s\":\"t\"", 8);
                ludus__w_commit(w, p + 8);
            }
        }
        if (ev->kind == LUDUS_NEV_FRAME) {
            ludus__w_str(w, ",\"args\":{\"frame\":");
            ludus__w_u64(w, ev->value);
            ludus__w_ch(w, '}');
        } else if (ev->kind == LUDUS_NEV_LOSS) {
            ludus__w_str(w, ",\"args\":{\"lost\":");
            ludus__w_u64(w, ev->value);
            ludus__w_ch(w, '}');
        } else if (ev->kind == LUDUS_NEV_CRASH) {
            ludus__w_str(w, ",\"args\":{\"crash\":");
            ludus__w_json_str(w, x->c->crash.signal_name, strlen(x->c->crash.signal_name));
            ludus__w_str(w, ",\"signal\":");
            ludus__w_u64(w, ev->value);
            ludus__w_ch(w, '}');
        } else if (ev->kind == LUDUS_NEV_MISMATCH) {
            ludus__w_str(w, ",\"args\":{\"ludus\":\"span end without a matching begin\"}");
        }
        ludus__w_ch(w, '}');
        break;
    case LUDUS__TR_MESSAGE: { /* an instant named by its text, the level in args */
        size_t n;
        const char *text = ludus__nev_text(x->it, ev, &n);
        head(w, k, 'I', ev->ts_ns);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, text, n);
        ludus__w_str(w, ",\"cat\":\"log\",\"s\":\"t\",\"args\":{\"level\":\"");
        ludus__w_str(w, ludus_log_level_name((int)ev->value));
        ludus__w_str(w, "\"}}");
        break;
    }
    case LUDUS__TR_COUNTER_I64:
    case LUDUS__TR_COUNTER_F64: {
        double d = 0;
        if (ni->json == LUDUS__TR_COUNTER_F64) {
            memcpy(&d, &ev->value, sizeof d);
            if (((ev->value >> 52) & 0x7ff) == 0x7ff) { /* NaN, inf: JSON cannot hold them */
                x->skipped_nonfinite++;
                break;
            }
        }
        head(w, k, 'C', ev->ts_ns);
        if (ev->site != UINT32_MAX)
            snippet_part(x, ev->site, 1);
        else
            ludus__w_str(w, ",\"name\":\"counter\"");
        /* the series names the value: Perfetto shows the track as "<name> <series>" */
        ludus__w_str(w, ",\"args\":{\"");
        ludus__w_str(w, ev->series ? ludus__stats[ev->series - 1].series : "value");
        ludus__w_str(w, "\":");
        if (ni->json == LUDUS__TR_COUNTER_I64)
            ludus__w_i64(w, (int64_t)ev->value);
        else
            ludus__w_double(w, d);
        ludus__w_str(w, "}}");
        break;
    }
    default:
        break; /* slice begins are written with their ends; flows by the caller */
    }
}

#define ASYNC_TID(lane_index) (UINT64_C(0x7ffe0000) + (lane_index))

static uint32_t async_lane_index(const ludus_capture *c, uint32_t track, uint32_t lane) {
    uint32_t k = 0;
    for (uint32_t t = 0; t < track; t++) k += c->async.tracks[t].lanes;
    return k + lane;
}

static void meta_kv_u64(ludus__writer *w, const char *k, uint64_t v) {
    ludus__w_str(w, ",\"");
    ludus__w_str(w, k);
    ludus__w_str(w, "\":");
    ludus__w_u64(w, v);
}

static void gpu_metadata(ludus__writer *w, const ludus_capture *c);

/* The capture's metadata fields (after a first field of the object). */
static void capture_fields(json_ctx *x) {
    ludus__writer *w = x->w;
    const ludus_capture *c = x->c;
    ludus__w_str(w, ",\"clock\":{\"source\":");
    ludus__w_str(w, c->clock_tsc ? "\"tsc\"" : "\"monotonic\"");
    ludus__w_str(w, ",\"domain\":\"CLOCK_MONOTONIC\"");
    /* Rate as the exact ratio of the calibration points (no float). */
    meta_kv_u64(w, "rate_ticks", c->c1.ticks - c->c0.ticks);
    meta_kv_u64(w, "rate_ns", (uint64_t)(c->c1.ns - c->c0.ns));
    ludus__w_str(w, ",\"calibration\":[");
    for (int i = 0; i < 2; i++) {
        const ludus__calib_point *p = i ? &c->c1 : &c->c0;
        ludus__w_str(w, i ? ",{\"ticks\":" : "{\"ticks\":");
        ludus__w_u64(w, p->ticks);
        ludus__w_str(w, ",\"ns\":");
        ludus__w_i64(w, p->ns);
        ludus__w_str(w, ",\"window_ns\":");
        ludus__w_i64(w, p->window_ns);
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "]}");
    ludus__w_str(w, ",\"capture_start_ns\":");
    ludus__w_i64(w, c->start_ns);
    ludus__w_str(w, ",\"capture_end_ns\":");
    ludus__w_i64(w, c->end_ns);
    ludus__w_str(w, ",\"time_origin\":\"ts 0 = capture_start_ns\"");
    ludus__w_str(w, ",\"time_grid\":\"ts and dur in us, multiples of 2^-12 us (exact doubles); round(x * 1000) "
                    "is the ns\"");
    if (c->cut) {
        ludus__w_str(w, ",\"cut_from_ns\":");
        ludus__w_i64(w, c->cut_from_ns);
        ludus__w_str(w, ",\"cut_to_ns\":");
        ludus__w_i64(w, c->cut_to_ns);
    }
    meta_kv_u64(w, "events", c->events);
    meta_kv_u64(w, "dropped", c->dropped);
    meta_kv_u64(w, "unregistered_thread_drops", c->unregistered_drops);
    meta_kv_u64(w, "filtered", c->filtered);
    meta_kv_u64(w, "incomplete", c->incomplete);
    meta_kv_u64(w, "unwound", c->unwound);
    meta_kv_u64(w, "orphan_ends", c->orphan_ends);
    meta_kv_u64(w, "mismatched_span_ends", c->mismatched);
    meta_kv_u64(w, "async_unmatched_ends", c->async.unmatched);
    meta_kv_u64(w, "async_lanes", async_lane_index(c, c->async.ntracks, 0)); /* pseudo-threads of async tracks */
    meta_kv_u64(w, "frames", c->frames);
    meta_kv_u64(w, "interner_drops", c->interner_drops);
    meta_kv_u64(w, "counters_refused", c->counters_refused);
    meta_kv_u64(w, "counter_adds_lost", c->counter_adds_lost);
    meta_kv_u64(w, "site_id_collisions", c->id_collisions);
    meta_kv_u64(w, "nonfinite_counter_samples", x->skipped_nonfinite);
    meta_kv_u64(w, "annotation_texts_cut", c->texts_cut);
    meta_kv_u64(w, "annotation_keys_dropped", c->keys_dropped);
    if (x->args.dropped) meta_kv_u64(w, "annotations_dropped", x->args.dropped);
    if (x->args.superseded) meta_kv_u64(w, "annotations_superseded", x->args.superseded);
    meta_kv_u64(w, "pool_bytes_used", c->bytes_used);
    if (c->crash.signal) { /* ended by a crash (crash.c) */
        ludus__w_str(w, ",\"crash\":{\"signal\":");
        ludus__w_json_str(w, c->crash.signal_name, strlen(c->crash.signal_name));
        meta_kv_u64(w, "signo", (uint64_t)c->crash.signal);
        meta_kv_u64(w, "tid", c->crash.tid);
        ludus__w_ch(w, '}');
    }
    if (c->trigger.reason[0]) { /* the rolling window's trigger this window was taken for */
        ludus__w_str(w, ",\"trigger\":{\"reason\":");
        ludus__w_json_str(w, c->trigger.reason, strlen(c->trigger.reason));
        ludus__w_str(w, ",\"detail\":");
        ludus__w_json_str(w, c->trigger.detail, strlen(c->trigger.detail));
        meta_kv_u64(w, "at_ns", (uint64_t)(c->trigger.ns - c->start_ns));
        ludus__w_ch(w, '}');
    }
    if (c->nmem_cov) ludus__mem_cov_json(w, c);
    gpu_metadata(w, c);
    ludus__w_str(w, ",\"threads\":[");
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        ludus__w_str(w, t ? ",{\"tid\":" : "{\"tid\":");
        ludus__w_u64(w, th->tid);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, th->name, strlen(th->name));
        meta_kv_u64(w, "events", th->events);
        meta_kv_u64(w, "dropped", th->dropped);
        if (th->first_drop_ns != LUDUS__NO_DROP) {
            ludus__w_str(w, ",\"first_drop_ns\":");
            ludus__w_i64(w, th->first_drop_ns);
        }
        meta_kv_u64(w, "incomplete", th->incomplete);
        meta_kv_u64(w, "unwound", th->unwound);
        meta_kv_u64(w, "orphan_ends", th->orphan_ends);
        meta_kv_u64(w, "mismatched_span_ends", th->mismatched);
        meta_kv_u64(w, "filtered", th->filtered);
        meta_kv_u64(w, "span_lanes", th->lanes);
        ludus__w_str(w, th->exited ? ",\"exited\":true}" : ",\"exited\":false}");
    }
    ludus__w_str(w, "],\"sites\":[");
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        ludus__w_str(w, i ? ",{\"id\":" : "{\"id\":");
        ludus__w_u64(w, s->id);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, s->name, s->name_len);
        ludus__w_str(w, ",\"file\":");
        ludus__w_json_str(w, s->file, strlen(s->file));
        ludus__w_str(w, ",\"line\":");
        ludus__w_u64(w, s->line);
        ludus__w_ch(w, '}');
    }
    ludus__w_ch(w, ']');
}

static void write_metadata(json_ctx *x) {
    ludus__w_str(x->w,
                 "\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"ludus_version\":\"" LUDUS_VERSION_STRING "\"");
    capture_fields(x);
    ludus__w_str(x->w, "}}\n");
}

static void meta_event(ludus__writer *w, const json_track *k, const char *what, const char *key, const char *text,
                       uint64_t number) {
    head(w, k, 'M', 0);
    ludus__w_str(w, ",\"name\":\"");
    ludus__w_str(w, what);
    ludus__w_str(w, "\",\"args\":{\"");
    ludus__w_str(w, key);
    ludus__w_str(w, "\":");
    if (text)
        ludus__w_json_str(w, text, strlen(text));
    else
        ludus__w_u64(w, number);
    ludus__w_str(w, "}}");
}

/* Names and order of the thread's tracks (its own, then its span lanes). */
/* ---- async zones: each lane of each async track is a track of its own
 * (a pseudo-thread named after the track, tid ASYNC_TID), its zones complete
 * slices there, nested as they were, with the zone's id in args. Not b/e
 * events: the DevTools Performance panel and speedscope draw no async
 * events of a generic trace (docs/viewers.md), and this way every viewer
 * shows the same timeline the pftrace's async tracks give Perfetto. ---- */

static void async_meta(json_ctx *x) {
    const ludus_capture *c = x->c;
    json_track k;
    char name[4200];
    for (uint32_t t = 0; t < c->async.ntracks; t++) {
        const ludus__async_track *at = &c->async.tracks[t];
        const char *tn = at->site != UINT32_MAX ? c->sites[at->site].name : "<invalid track>";
        for (uint32_t lane = 0; lane < at->lanes; lane++) {
            uint32_t i = async_lane_index(c, t, lane);
            set_track(&k, x, ASYNC_TID(i));
            if (lane)
                snprintf(name, sizeof name, "%.4096s (%u)", tn, lane + 1);
            else
                snprintf(name, sizeof name, "%.4096s", tn);
            meta_event(x->w, &k, "thread_name", "name", name, 0);
            /* after every thread's tracks */
            meta_event(x->w, &k, "thread_sort_index", "sort_index", NULL, (uint64_t)c->nthreads * LUDUS__MAX_LANES + i);
        }
    }
}

static void async_zones(json_ctx *x) {
    const ludus_capture *c = x->c;
    ludus__writer *w = x->w;
    json_track k;
    for (uint32_t i = 0; i < c->async.n && !w->failed; i++) {
        const ludus__async_zone *z = &c->async.zones[i];
        set_track(&k, x, ASYNC_TID(async_lane_index(c, z->track, z->lane)));
        slice_head(w, &k, z->begin_ns, z->end_ns);
        const char *name = z->site != UINT32_MAX ? c->sites[z->site].name : "<begin cut away>";
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, name, strlen(name));
        ludus__w_str(w, ",\"cat\":\"async\",\"args\":{\"id\":");
        ludus__w_u64(w, z->id);
        /* as a slice's flags: its end synthesised (open at capture end, or
         * cut), its begin moved to the cut */
        int inc = (z->flags & (LUDUS_NEV_INCOMPLETE | LUDUS__ASYNC_END_CLIPPED)) != 0;
        int clip = (z->flags & (LUDUS_NEV_CLIPPED | LUDUS__ASYNC_END_CLIPPED)) != 0;
        if (inc || clip) {
            ludus__w_str(w, ",\"ludus\":\"");
            ludus__w_str(w, inc && clip ? "incomplete,clipped" : inc ? "incomplete" : "clipped");
            ludus__w_ch(w, '"');
        }
        ludus__w_str(w, "}}");
    }
}

/* ---- GPU timing (gpu.c): each lane of each GPU context is a track of its
 * own (a pseudo-thread named after the queue, "(uncalibrated)" when no
 * calibration placed it, tid GPU_TID), its passes complete slices there (cat
 * "gpu", args: frame, device_ns, error_ns, submit_ns); the frame samples a
 * counter "<queue> frame time (ns)". A pass whose submitter started a flow
 * ends it at the pass's begin (a 1 ns slice and an f event, as flow_end
 * does), so the viewers draw an arrow from the CPU submission. ---- */

#define GPU_TID(k, lane) (UINT64_C(0x7ffd0000) + (uint64_t)(k)*LUDUS__MAX_LANES + (lane))

static void gpu_meta(json_ctx *x) {
    const ludus__gpu_data *g = ludus__gpu_of(x->c);
    json_track k;
    char name[160];
    for (uint32_t i = 0; g && i < g->nctx; i++) {
        const ludus__gpu_ctx *gc = &g->ctx[i];
        for (uint32_t lane = 0; lane < (gc->lanes ? gc->lanes : 1); lane++) {
            set_track(&k, x, GPU_TID(i, lane));
            ludus__gpu_track_name(gc, lane, name, sizeof name);
            meta_event(x->w, &k, "thread_name", "name", name, 0);
            /* after the threads' and the async tracks */
            meta_event(x->w, &k, "thread_sort_index", "sort_index", NULL,
                       (uint64_t)x->c->nthreads * LUDUS__MAX_LANES + 0x10000u + (uint64_t)i * LUDUS__MAX_LANES + lane);
        }
    }
}

static void gpu_spans(json_ctx *x) {
    const ludus_capture *c = x->c;
    const ludus__gpu_data *g = ludus__gpu_of(c);
    ludus__writer *w = x->w;
    json_track k;
    char name[160];
    for (uint64_t i = 0; g && i < g->ns && !w->failed; i++) {
        const ludus__gpu_sample *s = &g->s[i];
        if (!ludus__gpu_shown(c, s)) continue;
        const ludus__gpu_ctx *gc = &g->ctx[s->ctx];
        set_track(&k, x, GPU_TID(s->ctx, s->lane));
        if (s->name == UINT32_MAX) { /* P1: the frame's GPU time, a counter */
            head(w, &k, 'C', s->begin_ns);
            snprintf(name, sizeof name, "%s frame time (ns)", gc->name);
            ludus__w_str(w, ",\"name\":");
            ludus__w_json_str(w, name, strlen(name));
            ludus__w_str(w, ",\"cat\":\"gpu\",\"args\":{\"ns\":");
            ludus__w_i64(w, s->device_ns);
            ludus__w_str(w, "}}");
            continue;
        }
        slice_head(w, &k, s->begin_ns, s->end_ns);
        const char *pn = g->names[s->name];
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, pn, strlen(pn));
        ludus__w_str(w, ",\"cat\":\"gpu\",\"args\":{\"frame\":");
        ludus__w_u64(w, s->frame);
        ludus__w_str(w, ",\"device_ns\":");
        ludus__w_i64(w, s->device_ns);
        ludus__w_str(w, ",\"error_ns\":");
        ludus__w_i64(w, s->error_ns);
        ludus__w_str(w, ",\"submit_ns\":");
        ludus__w_i64(w, s->submit_ns);
        if (s->flags & LUDUS_GPU_SPAN_UNCALIBRATED)
            ludus__w_str(w, ",\"ludus\":\"uncalibrated: anchored at the frame's begin\"");
        else if (s->flags & LUDUS_GPU_SPAN_EXTRAPOLATED)
            ludus__w_str(w, ",\"ludus\":\"extrapolated beyond the calibration\"");
        ludus__w_str(w, "}}");
        if (s->flow_id) {
            slice_head(w, &k, s->begin_ns, s->begin_ns + 1);
            ludus__w_str(w, ",\"name\":\"submitted\",\"cat\":\"flow\"}");
            head(w, &k, 'f', s->begin_ns);
            ludus__w_str(w, ",\"name\":\"flow\",\"cat\":\"flow\"");
            hex_id(w, ludus__merged_flow_id(s->flow_id, x->flow_ns));
            ludus__w_str(w, ",\"bp\":\"e\"}");
        }
    }
}

static void gpu_metadata(ludus__writer *w, const ludus_capture *c) {
    static const char *const cov_names[] = {
#define COV_NAME(name, text, meaning) text,
        LUDUS_GPU_COVERAGE(COV_NAME)
#undef COV_NAME
    };
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g) return;
    ludus__w_str(w, ",\"gpu\":[");
    for (uint32_t i = 0; i < g->nctx; i++) {
        const ludus__gpu_ctx *k = &g->ctx[i];
        ludus__w_str(w, i ? ",{\"name\":" : "{\"name\":");
        ludus__w_json_str(w, k->name, strlen(k->name));
        ludus__w_str(w, ",\"device\":");
        ludus__w_json_str(w, k->device, strlen(k->device));
        meta_kv_u64(w, "queue", k->queue);
        ludus__w_str(w, ",\"tick_period_ns\":");
        ludus__w_double(w, k->period_ns);
        meta_kv_u64(w, "valid_bits", k->valid_bits);
        ludus__w_str(w, k->calibrated ? ",\"calibrated\":true" : ",\"calibrated\":false");
        meta_kv_u64(w, "calibration_points", k->ncal);
        meta_kv_u64(w, "calibration_breaks", k->breaks);
        meta_kv_u64(w, "max_error_ns", (uint64_t)k->max_error_ns);
        meta_kv_u64(w, "lanes", k->lanes);
        meta_kv_u64(w, "samples", k->samples);
        meta_kv_u64(w, "passes", k->passes);
        ludus__w_str(w, ",\"coverage\":{");
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++) {
            ludus__w_str(w, v ? ",\"" : "\"");
            ludus__w_str(w, cov_names[v]);
            ludus__w_str(w, "\":");
            ludus__w_u64(w, k->cov[v]);
        }
        ludus__w_str(w, "}}");
    }
    ludus__w_ch(w, ']');
}

static void thread_meta(json_ctx *x, uint32_t t) {
    const ludus__cap_thread *th = &x->c->threads[t];
    json_track k;
    char name[160];
    for (uint32_t lane = 0; lane <= th->lanes && lane < LUDUS__MAX_LANES; lane++) {
        set_track(&k, x, lane ? LANE_TID(t, lane) : th->tid);
        if (lane)
            snprintf(name, sizeof name, "%s spans %u", th->name, lane);
        else if (th->dropped)
            snprintf(name, sizeof name, "%s [%llu events lost]", th->name, (unsigned long long)th->dropped);
        else
            snprintf(name, sizeof name, "%s", th->name);
        meta_event(x->w, &k, "thread_name", "name", name, 0);
        meta_event(x->w, &k, "thread_sort_index", "sort_index", NULL, (uint64_t)t * LUDUS__MAX_LANES + lane);
    }
}

/* A capture's events (the first of the array when first), ts shifted by
 * x->shift_ns. */
static int capture_events(json_ctx *x, ludus_capture *c, int first) {
    ludus__writer *w = x->w;
    if (build_snippets(x) != 0) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__w_str(w, first ? "\n{\"ph\":\"M\",\"pid\":" : ",\n{\"ph\":\"M\",\"pid\":");
    ludus__w_i64(w, c->pid);
    ludus__w_str(w, ",\"name\":\"process_name\",\"args\":{\"name\":");
    ludus__w_json_str(w, c->process_name, strlen(c->process_name));
    ludus__w_str(w, "}}");
    for (uint32_t t = 0; t < c->nthreads; t++) thread_meta(x, t);
    int rc = ludus__async_ensure(c);
    if (rc == 0) async_meta(x);
    gpu_meta(x);
    for (uint32_t t = 0; t < c->nthreads && !w->failed && rc == 0; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        for (uint32_t lane = 0; lane < LUDUS__MAX_LANES; lane++)
            set_track(&x->tracks[lane], x, lane ? LANE_TID(t, lane) : th->tid);
        ludus__nev_iter it;
        rc = ludus__nev_init(&it, c, t);
        ludus__nev_no_begins(&it); /* slices are written at their ends */
        x->it = &it;
        ludus__slice_args_reset(&x->args);
        int64_t prev_ns = INT64_MIN;
        slice_run r = {x->tracks, x->fracs, x->snip, x->snip_off, x->args.lane, 0, {0, 0, {0}}};
        /* a batch at a time (no read of the iterator per event); a flow's
         * peek may refill it: then the loop goes on from the new batch.
         * Slices are written at p, committed before anything else writes. */
        while (rc == 0 && (it.opos < it.on || ludus__nev_fill(&it))) {
            const ludus__nev *ev = it.ob + it.opos, *const end = it.ob + it.on;
            it.opos = it.on;
            r.last = x->last;
            char *p = ludus__w_reserve(w, SLICE_ROOM);
            for (; ev < end; ev++) {
                uint8_t tr = ludus__nevs[ev->kind].json;
                if (tr == LUDUS__TR_SLICE_END) {
                    if (__builtin_expect(p > w->buf + (LUDUS__WRITER_BUF - SLICE_ROOM), 0)) {
                        ludus__w_commit(w, p);
                        p = ludus__w_reserve(w, SLICE_ROOM);
                    }
                    char *e = slice_fast(&r, p, ev);
                    if (e) {
                        p = e;
                    } else {
                        ludus__w_commit(w, p);
                        x->last = r.last;
                        slice(x, ev);
                        r.last = x->last;
                        p = ludus__w_reserve(w, SLICE_ROOM);
                    }
                    prev_ns = ev->ts_ns;
                    continue;
                }
                if (tr == LUDUS__TR_INSTANT && ev->kind == LUDUS_NEV_MARK && instant_fits(x, ev)) {
                    /* a mark has no args (write_event's other instants do) */
                    if (__builtin_expect(p > w->buf + (LUDUS__WRITER_BUF - SLICE_ROOM), 0)) {
                        ludus__w_commit(w, p);
                        p = ludus__w_reserve(w, SLICE_ROOM);
                    }
                    p = instant_at(x, p, ev);
                    *p++ = '}';
                    prev_ns = ev->ts_ns;
                    continue;
                }
                ludus__w_commit(w, p);
                if (tr == LUDUS__TR_ARG) {
                    if (ev->depth == UINT32_MAX)
                        lone_arg(x, ev);
                    else
                        ludus__slice_args_add(&x->args, x->c, ev);
                    r.any_args = 1;
                    p = ludus__w_reserve(w, SLICE_ROOM);
                    continue; /* no event of its own on the track: a flow end may still sit right after the last one */
                } else if (tr == LUDUS__TR_FLOW_OUT || tr == LUDUS__TR_FLOW_IN) {
                    /* placed knowing the next event's time */
                    ludus__nev cur = *ev;
                    it.opos = (uint32_t)(ev + 1 - it.ob);
                    prev_ns = flow_end(x, &x->tracks[cur.lane], &cur, prev_ns, ludus__nev_peek_ts(&it));
                    p = NULL;
                    break; /* on from it.opos (0 of a new batch when the peek refilled) */
                } else if (tr != LUDUS__TR_SLICE_BEGIN) {
                    write_event(x, ev);
                }
                p = ludus__w_reserve(w, SLICE_ROOM);
                prev_ns = ev->ts_ns;
            }
            if (p) ludus__w_commit(w, p);
            x->last = r.last;
        }
        if (rc == 0) rc = ludus__nev_error(&it);
        ludus__nev_free(&it);
    }
    x->it = NULL;
    if (rc == 0) async_zones(x);
    if (rc == 0) gpu_spans(x);
    return rc;
}

static void ctx_free(json_ctx *x) {
    ludus__slice_args_free(&x->args);
    ludus__free(x->snip);
    ludus__free(x->snip_off);
    ludus__free(x->snip_name);
    ludus__free(x->fracs);
    x->fracs = NULL;
    x->snip = NULL;
    x->snip_off = x->snip_name = NULL;
}

static int export_rc(const ludus__writer *w, int rc) {
    if (rc == LUDUS_ENOMEM) return ludus__fail(rc, "out of memory during the export");
    return rc ? rc : (w->failed ? LUDUS_EIO : 0);
}

int ludus__export_json(ludus_capture *c, ludus__writer *w, unsigned flags) {
    (void)flags;
    json_ctx x;
    memset(&x, 0, sizeof x);
    x.w = w;
    x.c = c;
    ludus__w_str(w, "{\"traceEvents\":[");
    int rc = capture_events(&x, c, 1);
    if (rc == 0) write_metadata(&x);
    ctx_free(&x);
    return export_rc(w, rc);
}

int ludus__export_json_merged(ludus_capture *const *cs, uint32_t n, int64_t origin_ns, ludus__writer *w) {
    json_ctx x;
    uint64_t *skipped = ludus__calloc(n ? n : 1, sizeof *skipped); /* per capture: NaN/inf samples left out */
    uint64_t *args_dropped = ludus__calloc(2 * (n ? n : 1), sizeof *args_dropped); /* annotations dropped, superseded */
    if (!skipped || !args_dropped) {
        ludus__free(skipped);
        ludus__free(args_dropped);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int rc = 0;
    ludus__w_str(w, "{\"traceEvents\":[");
    for (uint32_t i = 0; i < n && rc == 0 && !w->failed; i++) {
        memset(&x, 0, sizeof x);
        x.w = w;
        x.c = cs[i];
        x.shift_ns = cs[i]->start_ns - origin_ns;
        x.flow_ns = ludus__merge_flow_space(i);
        rc = capture_events(&x, cs[i], i == 0);
        skipped[i] = x.skipped_nonfinite;
        args_dropped[2 * i] = x.args.dropped;
        args_dropped[2 * i + 1] = x.args.superseded;
        ctx_free(&x);
    }
    if (rc == 0) {
        ludus__w_str(w,
                     "\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"ludus_version\":\"" LUDUS_VERSION_STRING "\"");
        ludus__w_str(w, ",\"merged\":true,\"time_origin\":\"ts 0 = time_origin_ns (CLOCK_MONOTONIC): the earliest "
                        "capture's start\",\"time_origin_ns\":");
        ludus__w_i64(w, origin_ns);
        ludus__w_str(w, ",\"captures\":[");
        for (uint32_t i = 0; i < n; i++) {
            memset(&x, 0, sizeof x);
            x.w = w;
            x.c = cs[i];
            x.skipped_nonfinite = skipped[i];
            x.args.dropped = args_dropped[2 * i];
            x.args.superseded = args_dropped[2 * i + 1];
            ludus__w_str(w, i ? ",{\"pid\":" : "{\"pid\":");
            ludus__w_i64(w, cs[i]->pid);
            ludus__w_str(w, ",\"process_name\":");
            ludus__w_json_str(w, cs[i]->process_name, strlen(cs[i]->process_name));
            ludus__w_str(w, ",\"ts_offset_ns\":");
            ludus__w_i64(w, cs[i]->start_ns - origin_ns);
            capture_fields(&x);
            ludus__w_ch(w, '}');
        }
        ludus__w_str(w, "]}}\n");
    }
    ludus__free(skipped);
    ludus__free(args_dropped);
    return export_rc(w, rc);
}
