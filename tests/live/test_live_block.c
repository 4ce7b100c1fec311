/* The watcher against blocks it must not trust (src/live/watch.c): a
 * block whose counts are past its arrays, whose strings are not
 * terminated, whose codes are out of range, is read with every count
 * clamped and every string terminated; a block that stays mid-write is
 * LUDUS_EBUSY after bounded retries; a block of another pid, version or
 * size, or one that can shrink, is refused. And the process side against a
 * hostile watcher: a command with a relative path, a length out of range or
 * an unterminated path is refused in the published status, and the process
 * goes on. Every block here is this process's own (the watcher finds it in
 * /proc/self/fd). */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/live.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "live/live_block.h"
#include "platform/live_map.h"

static ludus__live_map map;

/* A sealed block of ours, filled as a hostile process would. */
static ludus__live_block *hostile_block(void) {
    assert_int_equal(ludus__live_map_create(sizeof(ludus__live_block), &map), 0);
    ludus__live_block *b = map.p;
    memset(b, 0x7f, sizeof *b); /* no NUL anywhere, every count huge */
    memcpy(b->magic, LUDUS__LIVE_MAGIC, sizeof LUDUS__LIVE_MAGIC);
    b->version = LUDUS__LIVE_VERSION;
    b->block_bytes = sizeof *b;
    b->pid = (uint64_t)getpid();
    b->seq = 2;
    b->pub.nscopes = b->pub.nlocks = b->pub.nvalues = UINT32_MAX;
    b->pub.frames_total = UINT64_MAX;
    b->pub.top_rc = 12345;
    b->pub.cap_state = 99;
    b->pub.cap_rc = -100000;
    for (uint32_t i = 0; i < LUDUS__LIVE_VALUES; i++) b->pub.values[i].kind = 77;
    return b;
}

static void test_hostile_counts_and_strings(void **state) {
    (void)state;
    hostile_block();
    ludus_watch *w = NULL;
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), 0);
    ludus_watch_view *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_int_equal(ludus_watch_read(w, 1, 120, v), 0);
    assert_int_equal(v->nscopes, LUDUS_WATCH_SCOPES);
    assert_int_equal(v->nlocks, LUDUS_WATCH_LOCKS);
    assert_int_equal(v->nvalues, LUDUS_WATCH_VALUES);
    assert_int_equal(v->nframes, LUDUS_WATCH_FRAMES);
    assert_int_equal(v->top_rc, LUDUS_EFORMAT);
    assert_int_equal(v->capture_state, LUDUS_WATCH_CAPTURE_FAILED);
    assert_int_equal(v->capture_rc, LUDUS_EFORMAT);
    assert_true(strlen(v->process) < sizeof v->process);
    assert_true(strlen(v->frame_thread) < sizeof v->frame_thread);
    assert_true(strlen(v->capture_message) < sizeof v->capture_message);
    assert_true(strlen(v->capture_path) < sizeof v->capture_path);
    for (uint32_t i = 0; i < v->nscopes; i++) {
        assert_true(strlen(v->scopes[i].name) < sizeof v->scopes[i].name);
        assert_true(strlen(v->scopes[i].file) < sizeof v->scopes[i].file);
    }
    for (uint32_t i = 0; i < v->nvalues; i++) {
        assert_true(strlen(v->values[i].name) < sizeof v->values[i].name);
        assert_int_equal(v->values[i].kind, 0); /* unknown kinds are 0, never an index */
    }
    /* the heartbeat was written where the process reads it, bounded */
    ludus__live_block *b = map.p;
    assert_int_equal(b->w.window_frames, 120);
    assert_true(b->w.heartbeat_ns > 0 && b->w.scopes_heartbeat_ns == b->w.heartbeat_ns);
    /* a block that stays mid-write: LUDUS_EBUSY, after bounded retries */
    b->seq = 3;
    assert_int_equal(ludus_watch_read(w, 0, 0, v), LUDUS_EBUSY);
    free(v);
    ludus_watch_close(w);
    ludus__live_map_close(&map);
}

static void test_refused_blocks(void **state) {
    (void)state;
    ludus_watch *w = NULL;
    /* nothing published */
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), LUDUS_ENODATA);
    assert_non_null(strstr(ludus_last_error_detail(), "LUDUS_LIVE=1"));
    /* another pid's header (inherited across fork), another version, another size */
    ludus__live_block *b = hostile_block();
    b->pid = (uint64_t)getpid() + 1;
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), LUDUS_ENODATA);
    assert_non_null(strstr(ludus_last_error_detail(), "inherited"));
    b->pid = (uint64_t)getpid();
    b->version = LUDUS__LIVE_VERSION + 1;
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), LUDUS_EFORMAT);
    b->version = LUDUS__LIVE_VERSION;
    b->block_bytes = 64;
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), LUDUS_EFORMAT);
    ludus__live_map_close(&map);
    /* a block of our name that can shrink: not one of ours */
    int fd = memfd_create("ludus-live", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)sizeof(ludus__live_block)), 0);
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), LUDUS_EFORMAT);
    close(fd);
    assert_null(w);
}

/* A watcher that writes nonsense: the process refuses it in its status
 * and goes on publishing. */
static void test_hostile_commands(void **state) {
    (void)state;
    assert_int_equal(ludus_live_start(), 0);
    ludus_watch *w = NULL;
    assert_int_equal(ludus_watch_open((uint64_t)getpid(), &w), 0);
    ludus_watch_view *v = calloc(1, sizeof *v);
    assert_non_null(v);
    /* the command area written by hand, as a hostile watcher would: the
     * block mapped a second time, as the watcher maps it */
    ludus__live_map m2;
    uint32_t uid;
    assert_int_equal(ludus__live_map_open((uint64_t)getpid(), sizeof(ludus__live_block), &m2, &uid), 0);
    ludus__live_watcher_area *a = &((ludus__live_block *)m2.p)->w;
    static const struct {
        uint32_t ms;
        const char *path;
        const char *why;
    } bad[] = {
        {1000, "relative.ludus", "not absolute"},
        {0, "/tmp/zero.ludus", "1 .. 3600000"},
        {4000000000u, "/tmp/huge.ludus", "1 .. 3600000"},
        {1000, "/tmp/no-extension", "extension"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t id = 0;
        /* ludus_watch_capture checks ms and makes paths absolute: write the area directly */
        memset(a->cmd_path, 'x', sizeof a->cmd_path); /* unterminated unless the path ends it */
        memcpy(a->cmd_path, bad[i].path, strlen(bad[i].path) + 1);
        a->cmd_kind = LUDUS__LIVE_CMD_CAPTURE;
        a->cmd_ms = bad[i].ms;
        id = a->cmd_seq + 1;
        __atomic_store_n(&a->cmd_seq, id, __ATOMIC_RELEASE);
        int done = 0;
        for (int t = 0; t < 200 && !done; t++) {
            usleep(20000);
            assert_int_equal(ludus_watch_read(w, 0, 0, v), 0);
            done = v->capture_id == id && v->capture_state == LUDUS_WATCH_CAPTURE_FAILED;
        }
        assert_true(done);
        assert_non_null(strstr(v->capture_message, bad[i].why));
    }
    /* an unterminated path: cut by the process, refused (no extension), never read past */
    memset(a->cmd_path, 'x', sizeof a->cmd_path);
    a->cmd_path[0] = '/';
    a->cmd_ms = 10;
    uint64_t id = a->cmd_seq + 1;
    __atomic_store_n(&a->cmd_seq, id, __ATOMIC_RELEASE);
    int done = 0;
    for (int t = 0; t < 200 && !done; t++) {
        usleep(20000);
        assert_int_equal(ludus_watch_read(w, 0, 0, v), 0);
        done = v->capture_id == id && v->capture_state == LUDUS_WATCH_CAPTURE_FAILED;
    }
    assert_true(done);
    assert_true(ludus_live_publishing());
    ludus__live_map_close(&m2);
    free(v);
    ludus_watch_close(w);
    ludus_live_stop();
    assert_false(ludus_live_publishing());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_counts_and_strings),
        cmocka_unit_test(test_refused_blocks),
        cmocka_unit_test(test_hostile_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
