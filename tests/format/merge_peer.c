/* A program for check_merge.py: one of two processes linked by a flow whose
 * id the program chose (traced with LUDUS_TRACE; never calls the control
 * API). Each also records flows of the library's own (ids it hands out,
 * which a merge keeps apart per process).
 *   merge_peer send|recv FLOW_ID [SPIN_MS] */
#define _POSIX_C_SOURCE 200809L
#include <ludus/profiling.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spin_ms(int ms) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    int send = !strcmp(argv[1], "send");
    uint64_t id = strtoull(argv[2], NULL, 10) | LUDUS_CALLER_FLOW_ID_BIT;
    int ms = argc > 3 ? atoi(argv[3]) : 20;
    ludus_thread_register(send ? "Sender" : "Receiver");
    uint32_t site = ludus_site_intern(send ? "Request" : "Response");
    for (int f = 0; f < 5; f++) {
        LUDUS_PROFILE_SCOPE(Work);
        uint64_t local;
        {
            LUDUS_PROFILE_SCOPE(Produce);
            local = LUDUS_PROFILE_FLOW_OUT(Local);
            spin_ms(1);
        }
        {
            LUDUS_PROFILE_SCOPE(Consume);
            LUDUS_PROFILE_FLOW_IN(local);
            spin_ms(1);
        }
        LUDUS_PROFILE_FRAME();
    }
    {
        LUDUS_PROFILE_SCOPE(Exchange);
        if (send) {
            ludus_flow_begin(site, id);
        } else {
            spin_ms(ms); /* the request was sent meanwhile */
            ludus_flow_end(id);
        }
    }
    return 0;
}
