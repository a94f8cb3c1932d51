/* config.c: not written yet */
#include "uclamp/config.h"
