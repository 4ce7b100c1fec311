#include "../json.h"
