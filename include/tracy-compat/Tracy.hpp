/* Tracy's older layout (#include "Tracy.hpp" with Tracy's root on the
 * include path): the same header. */
#include "tracy/Tracy.hpp"
