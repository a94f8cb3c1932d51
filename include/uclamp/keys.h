/* The scheduler's static keys that gate fast-path cost (uclampctl keys). */
#ifndef UCLAMP_KEYS_H
#define UCLAMP_KEYS_H

#endif
