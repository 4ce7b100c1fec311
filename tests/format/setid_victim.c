/* A program for check_setid.py, installed there as a set-user-ID copy:
 * it records a scope, says "ready" on stdout, waits for a line on stdin
 * (the test swaps its output for a link meanwhile: no timing), records
 * another and exits normally (a LUDUS_TRACE capture would be written now). */
#include <ludus/profiling.h>
#include <stdio.h>

int main(void) {
    { LUDUS_PROFILE_SCOPE(BeforeSwap); }
    printf("ready\n");
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    { LUDUS_PROFILE_SCOPE(AfterSwap); }
    return 0;
}
