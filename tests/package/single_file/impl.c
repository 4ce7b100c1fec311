/* The one file of the program that holds the implementation. */
#define LUDUS_IMPLEMENTATION
#include "ludus_profiling.h"
