/* The live view on Windows, two processes under Wine (check_windows.sh and
 * check_msvc.sh run them; docs/live.md):
 *   windows_live serve DIR   the watched program (started with LUDUS_LIVE=1):
 *                            writes its pid to DIR/pid, then runs frames of
 *                            scopes "LiveWork" until DIR/stop appears
 *   windows_live watch PID DIR   the first watcher: the block and its event
 *                            admit only this user (owner and a one-entry
 *                            DACL); a block name taken first is refused (its
 *                            own); the process, idle with no poll, wakes for
 *                            the watcher's ring and publishes frames and top
 *                            scopes; a capture on demand is written whole
 *   windows_live stop PID DIR    creates DIR/stop and sees the process leave
 *                            (OpenProcess: ludus_watch_alive, then EXITED)
 * Every wait is bounded (WAIT_S) and says what it waited for; none decides
 * anything by how long something took. Prints what failed and exits 1. */
#include <ludus/live.h>
#include <ludus/profiling.h>
#include <windows.h>
#include <aclapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WAIT_S 120 /* a bound for a loaded machine, never reached when it works */

static int failures;
#define CHECK(cond)                                                \
    do {                                                           \
        if (!(cond)) {                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                            \
        }                                                          \
    } while (0)

static void path_in(char *out, size_t cap, const char *dir, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

static int exists(const char *path) {
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

static volatile unsigned sink; /* the frames' work, kept */

static int serve(const char *dir) {
    if (!ludus_live_publishing()) {
        printf("FAIL: LUDUS_LIVE=1 started no publisher (%s)\n", ludus_last_error_detail());
        return 1;
    }
    char tmp[1024], pid[1024], stop[1024];
    path_in(tmp, sizeof tmp, dir, "pid.tmp");
    path_in(pid, sizeof pid, dir, "pid");
    path_in(stop, sizeof stop, dir, "stop");
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%lu\n", (unsigned long)GetCurrentProcessId()) < 0 || fclose(f) != 0 ||
        !MoveFileExA(tmp, pid, MOVEFILE_REPLACE_EXISTING)) {
        printf("FAIL: cannot write %s\n", pid);
        return 1;
    }
    ULONGLONG give_up = GetTickCount64() + WAIT_S * 3000ull;
    while (!exists(stop)) {
        if (GetTickCount64() > give_up) {
            printf("FAIL: never told to stop (%s)\n", stop);
            return 1;
        }
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(LiveWork);
        for (unsigned i = 0; i < 20000; i++) sink += i;
        Sleep(1);
    }
    return 0;
}

/* This process's user. */
static int my_sid(PSID out, DWORD cap) {
    HANDLE tok;
    union {
        TOKEN_USER u;
        unsigned char b[sizeof(TOKEN_USER) + SECURITY_MAX_SID_SIZE];
    } info;
    DWORD len;
    int ok = OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok) &&
             GetTokenInformation(tok, TokenUser, &info, sizeof info, &len) && CopySid(cap, out, info.u.User.Sid);
    return ok ? 0 : -1;
}

/* The named object's owner is this user and its DACL admits this user
 * alone. The names are src/platform/win32_live_map.c's. */
static void check_admits_only_me(HANDLE h, const char *what, PSID me) {
    PSID owner = NULL;
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD e = GetSecurityInfo(h, SE_KERNEL_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner, NULL,
                              &dacl, NULL, &sd);
    CHECK(e == ERROR_SUCCESS);
    if (e != ERROR_SUCCESS) return;
    CHECK(owner && EqualSid(owner, me));
    CHECK(dacl != NULL); /* a NULL DACL would admit everyone */
    if (dacl) {
        printf("%s: %u entries in its DACL\n", what, (unsigned)dacl->AceCount);
        CHECK(dacl->AceCount == 1);
        ACCESS_ALLOWED_ACE *ace = NULL;
        if (dacl->AceCount == 1 && GetAce(dacl, 0, (void **)&ace)) {
            CHECK(ace->Header.AceType == ACCESS_ALLOWED_ACE_TYPE);
            CHECK(EqualSid((PSID)&ace->SidStart, me));
        }
    }
    LocalFree(sd);
}

/* Reads until done(v) holds; 0 when it did within WAIT_S. */
static int read_until(ludus_watch *w, int want_scopes, ludus_watch_view *v, int (*done)(const ludus_watch_view *),
                      const char *what) {
    ULONGLONG give_up = GetTickCount64() + WAIT_S * 1000ull;
    for (;;) {
        int rc = ludus_watch_read(w, want_scopes, 0, v);
        if (rc == 0 && done(v)) return 0;
        if (rc != 0 && rc != LUDUS_EBUSY) {
            printf("FAIL: reading the block while waiting for %s: %s\n", what, ludus_last_error_detail());
            return -1;
        }
        if (GetTickCount64() > give_up) {
            printf("FAIL: %s: not within %d s\n", what, WAIT_S);
            return -1;
        }
        Sleep(10);
    }
}

static int published_frames(const ludus_watch_view *v) {
    return v->publishes > 1 && v->frames_total > 0; /* 1: the empty view ludus_live_start wrote */
}
static int has_live_work(const ludus_watch_view *v) {
    for (uint32_t i = 0; i < v->nscopes; i++)
        if (strcmp(v->scopes[i].name, "LiveWork") == 0) return 1;
    return 0;
}
static int capture_over(const ludus_watch_view *v) {
    return v->capture_id != 0 &&
           (v->capture_state == LUDUS_WATCH_CAPTURE_DONE || v->capture_state == LUDUS_WATCH_CAPTURE_FAILED);
}

static int watch(uint64_t pid, const char *dir) {
    ludus_watch *w = NULL;
    /* this process publishes nothing */
    CHECK(ludus_watch_open(GetCurrentProcessId(), &w) == LUDUS_ENODATA);
    CHECK(strstr(ludus_last_error_detail(), "publishes nothing") != NULL);
    union {
        SID s;
        unsigned char b[SECURITY_MAX_SID_SIZE];
    } me;
    CHECK(my_sid(&me.s, sizeof me) == 0);
    char name[64];
    snprintf(name, sizeof name, "Local\\ludus-live-%llu", (unsigned long long)pid);
    HANDLE section = OpenFileMappingA(READ_CONTROL, FALSE, name);
    CHECK(section != NULL);
    if (section) check_admits_only_me(section, "the mapping", &me.s);
    snprintf(name, sizeof name, "Local\\ludus-live-%llu-ring", (unsigned long long)pid);
    HANDLE ring = OpenEventA(READ_CONTROL, FALSE, name);
    CHECK(ring != NULL);
    if (ring) check_admits_only_me(ring, "the event", &me.s);
    if (section) CloseHandle(section);
    if (ring) CloseHandle(ring);

    /* a name taken before the process makes its block is refused, not
     * reused (it could be another's) */
    snprintf(name, sizeof name, "Local\\ludus-live-%lu", (unsigned long)GetCurrentProcessId());
    HANDLE squat = CreateFileMappingA(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0, 1 << 20, name);
    CHECK(squat != NULL);
    CHECK(ludus_live_start() != 0);
    CHECK(!ludus_live_publishing());
    printf("a taken name: %s\n", ludus_last_error_detail());
    if (squat) CloseHandle(squat);
    CHECK(ludus_live_start() == 0); /* free again */
    ludus_live_stop();

    if (ludus_watch_open(pid, &w) != 0) {
        printf("FAIL: ludus_watch_open(%llu): %s\n", (unsigned long long)pid, ludus_last_error_detail());
        return 1;
    }
    ludus_watch_view *v = calloc(1, sizeof *v);
    if (!v) return 1;
    CHECK(ludus_watch_alive(w) == 1);
    /* idle, the process waits for a ring alone (no poll on Windows): it
     * publishes only if the watcher's event woke it */
    if (read_until(w, 0, v, published_frames, "frames published after the watcher rang") == 0) {
        CHECK(v->pid == pid);
        CHECK(strcmp(v->process, "windows_live") == 0);
        printf("woken: %llu publishes, %llu frames\n", (unsigned long long)v->publishes,
               (unsigned long long)v->frames_total);
    } else {
        failures++;
    }
    if (read_until(w, 1, v, has_live_work, "top scopes naming LiveWork") == 0)
        printf("top scopes: %u, first %s\n", v->nscopes, v->scopes[0].name);
    else
        failures++;
    char out[1024], tmp[1100];
    path_in(out, sizeof out, dir, "own.ludus");
    uint64_t id = 0;
    CHECK(ludus_watch_capture(w, 300, out, &id) == 0);
    if (read_until(w, 0, v, capture_over, "the capture on demand written") == 0) {
        CHECK(v->capture_id == id);
        CHECK(v->capture_state == LUDUS_WATCH_CAPTURE_DONE);
        if (v->capture_state != LUDUS_WATCH_CAPTURE_DONE) printf("capture: %s\n", v->capture_message);
        CHECK(v->capture_events > 0);
        CHECK(exists(out));
        snprintf(tmp, sizeof tmp, "%s/.own.ludus.%llu.live-tmp", dir, (unsigned long long)pid);
        CHECK(!exists(tmp));
        printf("captured %llu events, %llu frames into %s\n", (unsigned long long)v->capture_events,
               (unsigned long long)v->capture_frames, v->capture_path);
    } else {
        failures++;
    }
    free(v);
    ludus_watch_close(w);
    return failures ? 1 : 0;
}

static int stop(uint64_t pid, const char *dir) {
    ludus_watch *w = NULL;
    if (ludus_watch_open(pid, &w) != 0) {
        printf("FAIL: ludus_watch_open(%llu): %s\n", (unsigned long long)pid, ludus_last_error_detail());
        return 1;
    }
    ludus_watch_view *v = calloc(1, sizeof *v);
    if (!v) return 1;
    CHECK(ludus_watch_alive(w) == 1);
    char path[1024];
    path_in(path, sizeof path, dir, "stop");
    FILE *f = fopen(path, "w");
    CHECK(f && fclose(f) == 0);
    /* the process leaves: the handle the watcher holds says so */
    ULONGLONG give_up = GetTickCount64() + WAIT_S * 1000ull;
    while (ludus_watch_alive(w) && GetTickCount64() < give_up) Sleep(10);
    CHECK(ludus_watch_alive(w) == 0);
    CHECK(ludus_watch_read(w, 0, 0, v) == LUDUS_ENODATA);
    CHECK(v->state & LUDUS_WATCH_EXITED);
    free(v);
    ludus_watch_close(w);
    /* and a new watcher is told it is gone */
    CHECK(ludus_watch_open(pid, &w) == LUDUS_ENODATA);
    CHECK(strstr(ludus_last_error_detail(), "no process") != NULL);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 3 && strcmp(argv[1], "serve") == 0) return serve(argv[2]);
    uint64_t pid = argc == 4 ? strtoull(argv[2], NULL, 10) : 0;
    if (pid && strcmp(argv[1], "watch") == 0) return watch(pid, argv[3]);
    if (pid && strcmp(argv[1], "stop") == 0) return stop(pid, argv[3]);
    fprintf(stderr, "usage: windows_live serve DIR | watch PID DIR | stop PID DIR\n");
    return 2;
}
