/* Symbol addresses from /proc/kallsyms and System.map. */
#ifndef UCLAMP_KALLSYMS_H
#define UCLAMP_KALLSYMS_H

#include <stdint.h>

/* Look up name in a kallsyms/System.map-format file ("ADDR TYPE NAME [mod]").
 * 0 and *addr; -ENOENT absent; -EPERM present but zeroed (kptr_restrict). */
int uc_ksym_lookup(const char *abspath, const char *name, uint64_t *addr);

#endif
