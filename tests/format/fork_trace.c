/* A program for check_launch.py: traced with LUDUS_TRACE (it never calls
 * the control API), it records a scope, forks, and both processes record a
 * scope of their own and exit normally, so each writes its capture at exit.
 *   fork_trace [SPIN_MS] */
#define _GNU_SOURCE
#include <ludus/profiling.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void spin_ms(int ms) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv) {
    int ms = argc > 1 ? atoi(argv[1]) : 10;
    {
        LUDUS_PROFILE_SCOPE(BeforeFork);
        spin_ms(1);
    }
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        LUDUS_PROFILE_SCOPE(InChild);
        spin_ms(ms);
        return 0;
    }
    {
        LUDUS_PROFILE_SCOPE(InParent);
        spin_ms(ms);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
