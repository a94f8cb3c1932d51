/* kcore.c: not written yet */
#include "uclamp/kcore.h"
