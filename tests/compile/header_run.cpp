// header_all.c built and run as C++ (the RAII scope path), level 1.
#include "header_all.c"
