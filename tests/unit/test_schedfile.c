/*
 * schedfile.c: /proc/PID/task/TID/sched read by name. The 6.1 layout (as
 * the project's VM kernel prints it: util_est in two fields), the 7.x one
 * (one se.avg.util_est; 7.3-rc7, the cpufreq guest; both captured there,
 * 6.1's enqueued and 7.3's clamp lines changed to test more), a kernel or feature
 * without some lines, and hostile input: a comm in the header posing as a
 * field, junk values, a file that is not a sched file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fakeroot.h"
#include "uclamp/tasks.h"

static char root[256];
static const struct fr_suite suite = { root, sizeof(root), "test-schedfile", true, { NULL } };

/* /proc/self/sched in the 6.1 guest (CONFIG_SCHED_DEBUG, no schedstats) */
static const char v6_1[] =
	"head (57, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :          3071.713699\n"
	"se.vruntime                                  :           404.336168\n"
	"se.sum_exec_runtime                          :            37.453474\n"
	"se.nr_migrations                             :                    0\n"
	"nr_switches                                  :                   65\n"
	"nr_voluntary_switches                        :                   65\n"
	"nr_involuntary_switches                      :                    0\n"
	"se.load.weight                               :              1048576\n"
	"se.avg.load_sum                              :                40511\n"
	"se.avg.runnable_sum                          :             32267759\n"
	"se.avg.util_sum                              :             32085696\n"
	"se.avg.load_avg                              :                  879\n"
	"se.avg.runnable_avg                          :                  684\n"
	"se.avg.util_avg                              :                  680\n"
	"se.avg.last_update_time                      :           3071713280\n"
	"se.avg.util_est.ewma                         :                  676\n"
	"se.avg.util_est.enqueued                     :                  701\n"
	"uclamp.min                                   :                    0\n"
	"uclamp.max                                   :                 1024\n"
	"effective uclamp.min                         :                    0\n"
	"effective uclamp.max                         :                 1024\n"
	"policy                                       :                    0\n"
	"prio                                         :                  120\n"
	"clock-delta                                  :                 3185\n";

/* /proc/self/sched in the 7.3-rc7 cpufreq guest: one util_est, and se.slice */
static const char v7_3[] =
	"cat (63, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :          3356.668160\n"
	"se.vruntime                                  :           501.244413\n"
	"se.sum_exec_runtime                          :            41.938032\n"
	"se.nr_migrations                             :                    0\n"
	"nr_switches                                  :                   41\n"
	"nr_voluntary_switches                        :                   41\n"
	"nr_involuntary_switches                      :                    0\n"
	"se.load.weight                               :              1048576\n"
	"se.avg.load_sum                              :                35774\n"
	"se.avg.runnable_sum                          :             29430249\n"
	"se.avg.util_sum                              :             29362877\n"
	"se.avg.load_avg                              :                  781\n"
	"se.avg.runnable_avg                          :                  627\n"
	"se.avg.util_avg                              :                  626\n"
	"se.avg.last_update_time                      :           3356667904\n"
	"se.avg.util_est                              :                  644\n"
	"uclamp.min                                   :                    0\n"
	"uclamp.max                                   :                  300\n"
	"effective uclamp.min                         :                    0\n"
	"effective uclamp.max                         :                  300\n"
	"policy                                       :                    0\n"
	"prio                                         :                  120\n"
	"se.slice                                     :              1400000\n"
	"clock-delta                                  :                 3489\n";

/* text parses to these values */
static void expect(const char *text, long util_avg, long util_est, bool split, long eff_min,
		   long eff_max)
{
	struct uc_sched_file sf;

	assert_int_equal(uc_sched_file_parse(text, &sf), 0);
	assert_int_equal(sf.util_avg, util_avg);
	assert_int_equal(sf.util_est, util_est);
	assert_int_equal(sf.util_est_split, split);
	assert_int_equal(sf.eff_min, eff_min);
	assert_int_equal(sf.eff_max, eff_max);
}

static void layouts(void **state)
{
	(void)state;
	/* 6.1: util_est is max(ewma, enqueued), as the kernel uses it */
	expect(v6_1, 680, 701, true, 0, 1024);
	expect(v7_3, 626, 644, false, 0, 300);
}

#define HEAD "x (1, #threads: 1)\n-------------------------------------------\n"

/* a field the kernel does not print is -1, the others are still read */
static void missing_fields(void **state)
{
	struct uc_sched_file sf;

	(void)state;
	/* no util_est line (a kernel with UTIL_EST off may drop it), no UCLAMP_TASK */
	expect(HEAD "se.avg.util_avg        :     12\npolicy                 :      0\n", 12, -1,
	       false, -1, -1);
	/* before 6.8, only one of the two util_est fields */
	expect(HEAD "se.avg.util_est.enqueued :   40\n", -1, 40, true, -1, -1);
	/* no header line: not the file, nothing taken */
	assert_int_equal(uc_sched_file_parse("se.avg.util_avg : 12\n", &sf), -EINVAL);
	assert_int_equal(sf.util_avg, -1);
	assert_int_equal(uc_sched_file_parse("", &sf), -EINVAL);
}

static void hostile(void **state)
{
	struct uc_sched_file sf;

	(void)state;
	/* a comm posing as a field before the header's end is not read; the
	 * first line of a field counts, a later duplicate does not */
	expect("\neffective uclamp.max:9 (1, #threads: 1)\n"
	       "-------------------------------------------\n"
	       "effective uclamp.max   :    512\neffective uclamp.max   :      1\n", -1, -1, false,
	       -1, 512);
	/* a name is whole: a longer or shorter one is another field */
	expect(HEAD "se.avg.util_avgx       :     99\nse.avg.util_av         :     98\n"
	       "effective uclamp.min2  :      7\n", -1, -1, false, -1, -1);
	/* junk values: not numbers, negative, out of range, overflowing */
	expect(HEAD "se.avg.util_avg        :    abc\nse.avg.util_est        :    -5\n"
	       "effective uclamp.min   :   1025\n"
	       "effective uclamp.max   : 99999999999999999999999\n", -1, -1, false, -1, -1);
	/* a line of dashes alone is no header; a comm as long as any may
	 * hold a whole header with fields: only the kernel's own counts */
	assert_int_equal(uc_sched_file_parse("---------------\n"
					     "effective uclamp.max   :    7\n", &sf), -EINVAL);
	expect("a (1, #threads: 1)\n----\neffective uclamp.max : 5\nse.avg.util_avg : 7\n"
	       " (9, #threads: 1)\n" HEAD "se.avg.util_avg        :     12\n", 12, -1, false, -1,
	       -1);
	/* no newline at the end, a line without ':' */
	expect(HEAD "current_node=0, numa_group_id=0\nse.avg.util_avg :     33", 33, -1, false, -1,
	       -1);
}

/* through the (fake) /proc: the file read, a missing one */
static void from_proc(void **state)
{
	struct uc_sched_file sf;

	(void)state;
	assert_int_equal(fr_write(root, "proc/10/task/11/sched", v7_3), 0);
	assert_int_equal(uc_task_sched_file(10, 11, &sf), 0);
	assert_int_equal(sf.util_avg, 626);
	assert_int_equal(uc_task_sched_file(10, 12, &sf), -ENOENT);
	assert_int_equal(sf.util_avg, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(missing_fields),
		cmocka_unit_test(hostile),
		cmocka_unit_test(from_proc),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
