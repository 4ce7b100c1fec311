/* Scopes named after the events Chromium's DevTools (its trace_engine)
 * interprets by name, each with and without a category, in a frame loop
 * (inside "Outer", a name DevTools does not know),
 * saved as Chrome JSON: every slice must carry a category and its name as
 * recorded (check_devtools_names.py); make test-viewers loads the file in
 * the viewers.   devtools_names OUT.json */
#include <stdio.h>

#include <ludus/capture.h>

static void spin(int n) {
    for (volatile int i = 0; i < n; i++) {
    }
}

static void frame_work(void) {
    LUDUS_PROFILE_SCOPE(Outer);
    {
        LUDUS_PROFILE_SCOPE(Animation);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(Animation, game);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(RunTask);
        LUDUS_PROFILE_SCOPE(FunctionCall);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(RunTask, jobs);
        LUDUS_PROFILE_SCOPE(FunctionCall, jobs);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(Paint);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(Paint, render);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(Layout);
        LUDUS_PROFILE_SCOPE(UpdateLayoutTree);
        spin(200);
    }
    {
        LUDUS_PROFILE_SCOPE(EventDispatch, input);
        LUDUS_PROFILE_SCOPE(TimerFire);
        spin(200);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: devtools_names OUT.json\n");
        return 2;
    }
    ludus_thread_register("Main");
    ludus_capture_desc desc = {.chunk_count = 64};
    int rc = ludus_capture_begin(&desc);
    for (int frame = 0; rc == 0 && frame < 20; frame++) {
        LUDUS_PROFILE_FRAME();
        frame_work();
    }
    ludus_capture *c = NULL;
    if (rc == 0) rc = ludus_capture_end(&c);
    if (rc == 0) rc = ludus_capture_save(c, 0, 0, argv[1]);
    if (rc) fprintf(stderr, "%s: %s\n", ludus_error_string(rc), ludus_last_error_detail());
    ludus_capture_release(c);
    return rc != 0;
}
