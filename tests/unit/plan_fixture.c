/* The plan under test of the executor and run suites: see plan_fixture.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "uclamp/sched.h"
#include "plan_fixture.h"

struct uc_plan plan;

int plan_teardown(void **state)
{
	(void)state;
	uc_plan_free(&plan);
	return 0;
}

void plan_task(pid_t tid, enum uc_attr attr, long from, long to)
{
	struct uc_sched_attr sa = { .size = 56, .sched_policy = (uint32_t)tid % 3 };

	assert_non_null(uc_plan_add_task(&plan, tid, tid, "t", &sa, attr, from, to));
}
