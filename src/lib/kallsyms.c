/* kallsyms.c: not written yet */
#include "uclamp/kallsyms.h"
