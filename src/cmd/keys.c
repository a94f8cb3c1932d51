/*
 * uclampctl keys: the scheduler's static keys that gate fast-path cost,
 * each with its state, how it was read and what it means.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/common.h"
#include "uclamp/keys.h"

#define COLUMNS(NUM, TEXT, FLAG) \
	TEXT(KEY, 0.2, 0, "the static key's symbol") \
	TEXT(STATE, 0.1, 0, "on, off, unreadable, absent (sched_uclamp_used: as 'check')") \
	TEXT(HOW, 0.2, 0, "how it was read: kcore, system-map, a file, an inference") \
	NUM(COUNT, 0.05, "the key's enabled count, read from kernel memory") \
	TEXT(ADDRESS, 0.15, 0, "where it was read") \
	TEXT(VIEW, 0.2, 0, "what userspace shows of it") \
	TEXT(REASON, 0.3, 0, "why it is unreadable, absent or unknown") \
	TEXT(MEANING, 0.4, SCOLS_FL_WRAP, "what the key gates")

enum { COLUMNS(CLI_COL_ID, CLI_COL_ID, CLI_COL_ID) NCOLS };
static const struct cli_col cols[] = { COLUMNS(CLI_COL_NUMBER, CLI_COL_TEXT, CLI_COL_FLAG) };

static void usage(void)
{
	printf("Usage:\n uclampctl keys [options]\n\n"
	       "Show the scheduler's static keys that gate fast-path cost: each key's state,\n"
	       "how it was read, and what it means. Keys are read from kernel memory as root\n"
	       "(/proc/kallsyms + /proc/kcore, 4 bytes each), otherwise from what userspace\n"
	       "shows of them; a key that cannot be read is 'unreadable' with the reason.\n"
	       "sched_uclamp_used is shown exactly as 'uclampctl check' sees it.\n\n"
	       "Options:\n" CLI_OUTPUT_OPTS_HELP
	       CLI_HELP_OPTS_HELP
	       "\n"
	       "Default columns: KEY,STATE,HOW,MEANING.\n");
}

int cmd_keys(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct cli_opts opts = {
		.shared = CLI_OPTS_OUTPUT, .usage = usage,
		.cols = cols, .ncols = NCOLS,
		.no_args = "'keys' takes no arguments",
	};
	struct uc_skeys *ks;
	struct cli_table t;

	cli_parse_opts(ctl, argc, argv, &opts, NULL);

	/* before reading anything: a bad -o is a usage error that changes nothing */
	cli_table_or_err(ctl, &t, "keys", cols, NCOLS, "KEY,STATE,HOW,MEANING");
	ks = malloc(sizeof(*ks));
	if (!ks || uc_skeys_read(ks)) {
		cli_table_free(&t);
		free(ks);
		return cli_oom();
	}
	for (size_t i = 0; i < ks->n; i++) {
		const struct uc_skey *k = &ks->k[i];
		struct libscols_line *ln = cli_table_line(&t, NULL);

		cli_table_set(&t, ln, COL_KEY, k->name);
		cli_table_set(&t, ln, COL_STATE, uc_skey_state_name(k->state));
		cli_table_set(&t, ln, COL_HOW, k->how);
		if (k->have_count) {
			cli_table_setf(&t, ln, COL_COUNT, "%d", (int)k->count);
			cli_table_setf(&t, ln, COL_ADDRESS, "%#llx", (unsigned long long)k->addr);
		}
		cli_table_set(&t, ln, COL_VIEW, k->view);
		cli_table_set(&t, ln, COL_REASON, k->why);
		cli_table_set(&t, ln, COL_MEANING, k->meaning);
	}
	cli_table_print(&t, stdout);
	cli_table_free(&t);
	if (ctl->verbose)
		for (size_t i = 0; i < ks->info.nnotes; i++)
			cli_verbose(ctl, "kernel memory: %s", ks->info.notes[i]);
	free(ks);
	return CLI_EXIT_OK;
}
