/*
 * What every writing command holds while it works: the uclampctl lock (never
 * while a person is asked) and the handlers that turn SIGINT, SIGTERM and
 * SIGHUP into a stop request (finish the write under way, undo, report).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "cmd/common.h"
#include "uclamp/lock.h"
#include "uclamp/tasks.h"

static struct uc_lock lock = { .fd = -1 };

int cli_lock(const struct cli_ctl *ctl)
{
	pid_t holder;
	int rc;

	if (ctl->dry_run)
		return 0;	/* reads only */
	rc = uc_lock_try(&lock, &holder);
	if (rc == -EWOULDBLOCK) {
		char who[96] = "another process", name[64];

		/* what holds it, by its own name (escaped by cli_errx): not
		 * necessarily a uclampctl */
		if (holder && !uc_task_comm(holder, 0, name, sizeof(name)))
			snprintf(who, sizeof(who), "PID %d (%s)", (int)holder, name);
		else if (holder)
			snprintf(who, sizeof(who), "PID %d", (int)holder);
		if (!ctl->wait_s) {
			cli_errx("%s holds the uclampctl lock and --wait is 0: gave up at once; "
				 "nothing changed", who);
			return CLI_EXIT_FAIL;
		}
		if (!ctl->quiet)
			cli_errx("waiting for the uclampctl lock held by %s (up to %d s; see "
				 "--wait)", who, ctl->wait_s);
		rc = uc_lock_wait(&lock, ctl->wait_s * 1000);
		if (rc == -ETIMEDOUT) {
			cli_errx("gave up after %d s: %s still holds the uclampctl lock; "
				 "nothing changed", ctl->wait_s, who);
			return CLI_EXIT_FAIL;
		}
	}
	if (rc == -EPERM) {
		/* someone else could hold or swap the lock there */
		cli_errx("refused: %s is not root's alone (another owner, writable by group or "
			 "others, or a link): make it a root-owned 0755 directory; nothing changed",
			 UC_LOCK_DIR);
		return CLI_EXIT_FAIL;
	}
	/* no /run/uclampctl for us (not root, a read-only /run): the kernel
	 * will refuse such a user's writes to anything but its own tasks */
	if (rc)
		cli_verbose(ctl, "no uclampctl lock (%s: %s): going on without it", UC_LOCK_PATH,
			    strerror(-rc));
	return 0;
}

void cli_unlock(void)
{
	uc_lock_release(&lock);
}

/* ---- signals ------------------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;	/* the first signal */
static volatile sig_atomic_t nsignals;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
	if (nsignals < 100)
		nsignals++;
}

volatile sig_atomic_t *cli_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a prompt waiting in read() returns at once */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	return &stop_signal;
}

int cli_signals_caught(void)
{
	return nsignals;
}
