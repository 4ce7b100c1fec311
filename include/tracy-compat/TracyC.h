/* Tracy's older layout (#include "TracyC.h"): the same header. */
#include "tracy/TracyC.h"
