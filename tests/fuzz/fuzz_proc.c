/*
 * libFuzzer: the /proc parsers, fed through a fake root. The first byte
 * picks the file, the rest is its content:
 *   0 /proc/PID/status      uc_task_uid (the Uid line)
 *   1 /proc/PID/task/TID/sched  uc_task_sched_file (util, effective clamps) and
 *                           uc_task_effective, its one parser (schedfile.c)
 *   2 /proc/PID/comm        uc_task_comm
 *   3 /proc/PID/cgroup      uc_cg_of_pid on a v2 and a v1 layout
 *   4 a cgroup's cpu.uclamp.min  uc_cg_read (the kernel's percent format)
 *   5 a sysctl file         uc_sysctl_read / uc_read_long
 *   6 /sys/kernel/security/lockdown  uc_lockdown_state
 *   7 /proc/PID/task/TID/stat   uc_task_stat (comm, CPU time, CPU, start time)
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "uclamp/cgroup.h"
#include "uclamp/identity.h"
#include "uclamp/kmem.h"
#include "uclamp/sysctl.h"
#include "uclamp/sysroot.h"
#include "uclamp/tasks.h"
#include "uclamp/value.h"

#define PID 4242

static struct uc_cg_info v1, v2;

static void layouts(void)
{
	static int done;

	if (done)
		return;
	done = 1;
	v2.version = UC_CG_V2;
	snprintf(v2.mount, sizeof(v2.mount), "%s/sys/fs/cgroup", fuzz_root());
	v1.version = UC_CG_V1;
	snprintf(v1.mount, sizeof(v1.mount), "%s/sys/fs/cgroup/cpu", fuzz_root());
	uc_cg_use(&v2);
}

/* relative, and no ".." component: never climbing out of the hierarchy */
static void check_rel(const char *rel)
{
	if (rel[0] == '/' || fuzz_dotdot(rel))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char rel[PATH_MAX], buf[64];
	int a, b, pct;
	struct uc_sched_file sf;
	struct uc_stat st;
	uid_t uid;
	long v;

	if (size < 1)
		return 0;
	fuzz_root();
	layouts();
	switch (data[0] % 8) {
	case 0:
		fuzz_put("/proc/4242/status", data + 1, size - 1);
		uc_task_uid(PID, &uid);
		break;
	case 1:
		fuzz_put("/proc/4242/task/4243/sched", data + 1, size - 1);
		uc_task_effective(PID, PID + 1, &a, &b);
		if (uc_task_sched_file(PID, PID + 1, &sf) == 0 &&
		    (sf.eff_min > 1024 || sf.eff_max > 1024 || sf.util_avg > (1L << 20) ||
		     sf.util_est > (1L << 20) || sf.eff_min < -1 || sf.util_avg < -1))
			abort();
		break;
	case 2:
		fuzz_put("/proc/4242/comm", data + 1, size - 1);
		if (uc_task_comm(PID, 0, buf, sizeof(buf)) == 0 && strlen(buf) >= sizeof(buf))
			abort();
		break;
	case 3:
		fuzz_put("/proc/4242/cgroup", data + 1, size - 1);
		if (uc_cg_of_pid(&v2, PID, rel, sizeof(rel)) == 0)
			check_rel(rel);
		if (uc_cg_of_pid(&v1, PID, rel, sizeof(rel)) == 0)
			check_rel(rel);
		break;
	case 4:
		fuzz_put("/sys/fs/cgroup/g/cpu.uclamp.min", data + 1, size - 1);
		if (uc_cg_read("g", UC_ATTR_MIN, &pct) == 0 && (pct < 0 || pct > UC_PCT_MAX))
			abort();
		break;
	case 5:
		fuzz_put("/proc/sys/kernel/sched_util_clamp_min", data + 1, size - 1);
		uc_sysctl_read(UC_ATTR_MIN, &v);
		uc_read_long("/proc/sys/kernel/sched_util_clamp_min", &v);
		break;
	case 6:
		fuzz_put("/sys/kernel/security/lockdown", data + 1, size - 1);
		if (uc_lockdown_state(buf, sizeof(buf)) == 0 && strlen(buf) >= sizeof(buf))
			abort();
		break;
	case 7:
		fuzz_put("/proc/4242/task/4243/stat", data + 1, size - 1);
		if (uc_task_stat(PID, PID + 1, &st) == 0 &&
		    (strnlen(st.comm, sizeof(st.comm)) >= sizeof(st.comm) || st.cpu < -1 ||
		     st.cpu > 65535))
			abort();
		break;
	}
	return 0;
}
