/* ludus-trace verbs: each verb_*.c file defines one verb and registers it
 * with LUDUS_TRACE_VERB; main.c dispatches on argv[1]. */
#ifndef LUDUS_TRACE_VERBS_H
#define LUDUS_TRACE_VERBS_H

#include <stdint.h>
#include <stdio.h>

/* Exit codes of every verb. */
enum { LT_OK = 0, LT_USAGE = 1, LT_BAD_INPUT = 2, LT_IO = 3, LT_FAILED_GATE = 4 };

typedef struct lt_verb {
    const char *name;                  /* "info" */
    const char *summary;               /* one line for the verb list */
    const char *usage;                 /* full usage text, printed by --help and on a usage error */
    int (*run)(int argc, char **argv); /* argv[0] is the verb */
} lt_verb;

void lt_register_verb(const lt_verb *v);

#define LUDUS_TRACE_VERB(var)                                       \
    __attribute__((constructor)) static void var##_register(void) { \
        lt_register_verb(&var);                                     \
    }

/* "ludus-trace VERB: WHAT: the error (the library's detail)" on stderr. */
void lt_error(const char *verb, const char *what, int rc);

/* Prints the verb's usage to stderr and returns LT_USAGE. */
int lt_usage(const lt_verb *v, const char *problem);

/* Progress on stderr for work over a second, only when stderr is a terminal. */
typedef struct lt_progress {
    const char *label;
    uint64_t total;
    int64_t start_ns, last_ns;
    int enabled, shown;
} lt_progress;
void lt_progress_begin(lt_progress *p, const char *label, uint64_t total);
void lt_progress_update(lt_progress *p, uint64_t done);
void lt_progress_end(lt_progress *p);

#endif
