/* keys.c: not written yet */
#include "uclamp/keys.h"
