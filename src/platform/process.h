/* Process events the recorder must survive (posix_process.c). */
#ifndef LUDUS_PROCESS_H
#define LUDUS_PROCESS_H

#include "platform.h"

/* Runs prepare in the parent before fork, parent after it in the parent,
 * child after it in the child (pthread_atfork). */
LUDUS_HIDDEN int ludus__on_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void));

#endif
