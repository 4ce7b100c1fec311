/* process.h on POSIX systems (pthread_atfork). */
#include "process.h"

#include <pthread.h>

int ludus__on_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
    return pthread_atfork(prepare, parent, child) == 0 ? 0 : -1;
}
