/* The plan under test of the executor and run suites (test_exec.c, test_plan_run.c):
 * each test's setup inits it, plan_teardown frees it. */
#ifndef UC_TEST_PLAN_FIXTURE_H
#define UC_TEST_PLAN_FIXTURE_H

#include <sys/types.h>

#include "uclamp/plan.h"

extern struct uc_plan plan;

/* cmocka teardown: free the plan */
int plan_teardown(void **state);
/* add TID's change of attr from -> to (pid = tid, comm "t"; its policy is tid % 3, so that
 * a test can see which task's attributes reached a write); fails the test if it cannot */
void plan_task(pid_t tid, enum uc_attr attr, long from, long to);

#endif
