/* tasks.c: not written yet */
#include "uclamp/tasks.h"
