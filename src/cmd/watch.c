/*
 * uclampctl watch (the daemon: src/lib/watch*.c) and 'watch status'. A daemon
 * cannot prompt: rules that set clamps while the fast path is off need
 * allow-enable = yes or --yes (else exit 3); a reload without it is refused and
 * the old rules stay, without their consent (uc_watch_note_reload).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "cmd/common.h"
#include "cmd/watch_log.h"
#include "cmd/watch_counters.h"
#include "uclamp/config.h"
#include "uclamp/guard.h"
#include "uclamp/sysroot.h"
#include "uclamp/watch.h"

#define RECHECK_DEFAULT_S 60
#define RECHECK_MAX_S 86400

static void usage(void)
{
	printf("Usage:\n"
		" uclampctl watch [options]\n"
		" uclampctl watch status [-J | --format=text|json|prometheus]\n"
		"\n"
		"Keep the [tasks] rules of the configuration true for every process,\n"
		"including those that start later: subscribe to the kernel's process\n"
		"events, scan /proc once, then clamp each process as it execs (and a\n"
		"thread when it is renamed). Lost events trigger a full rescan. The\n"
		"processes the rules matched are checked again every --recheck seconds:\n"
		"a clamp another writer set back is set again (5 times in a row at most).\n"
		"A [cgroup] section whose group appears later is applied when it does.\n"
		"The configuration: %s and %s/*.conf.\n"
		"SIGHUP or a change to the files reloads it; a broken or refused one keeps\n"
		"the old rules, without consent to enable the fast path from the file.\n"
		"\n"
		"Options:\n"
		" -c, --config <path>    read this file or directory instead (repeatable)\n"
		" -n, --dry-run          log what would be set, write nothing\n"
		" -y, --yes              consent to enabling the uclamp fast path\n"
		"     --foreground       stay in the foreground (watch never forks; for\n"
		"                        systemd's Type=notify and scripts alike)\n"
		"     --oneshot          apply the rules to what runs now and exit ('apply')\n"
		"     --socket <path>    the status socket (default %s)\n"
		"     --recheck <secs>   check the matched processes for drift this often\n"
		"                        (default %d; 0: never)\n"
		"     --idle-without-uclamp  on a kernel without uclamp, stay running and do\n"
		"                        nothing (else exit 4)\n"
		CLI_HELP_OPTS_HELP
		" -J, --json             watch status: as JSON\n"
		"     --format <fmt>     watch status: text, json or prometheus\n"
		"\n"
		"Exit status: 0 stopped by SIGTERM/SIGINT, 1 the event source failed or\n"
		"another watch answers at the status socket, 2 an error in the\n"
		"configuration, 3 refused (the rules would enable the uclamp fast path\n"
		"without consent), 4 the kernel lacks uclamp (unless\n"
		"--idle-without-uclamp); --oneshot: as apply.\n",
		UC_CONFIG_FILE, UC_CONFIG_DIR, UC_WATCH_SOCKET, RECHECK_DEFAULT_S);
}

struct wctx {
	struct cli_ctl *ctl;
	const char **paths;	/* --config, every one given */
	size_t npaths;
	const char *sock;	/* --socket */
	struct watch_log_ctx log;
	int recheck_s;		/* --recheck */
	bool dry_run;
	bool oneshot;
	bool idle;		/* --idle-without-uclamp */
};

/* A line about the configuration, not about a process (file NULL: none). */
static void say(struct wctx *c, int prio, const char *msg, const char *file, int line,
		const char *reason)
{
	struct uc_watch_log l = {
		.prio = prio, .msg = msg, .pid = -1, .tid = -1, .old_min = -1, .old_max = -1,
		.new_min = -1, .new_max = -1, .reason = reason, .file = file, .line = line,
	};

	watch_log(&c->log, &l);
}

static void conf_err(void *data, const struct uc_conf_error *e)
{
	say(data, LOG_ERR, e->msg, e->file, e->line, NULL);
}

/* A user or group of the files that this host lacks: the rules go on without it. */
static void conf_skip(void *data, const struct uc_conf_skip *k)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "skipped %s of [%s]: %s (until a reload finds it)", k->target,
		 k->section, k->why);
	say(data, LOG_WARNING, msg, k->loc.file, k->loc.line, NULL);
}

static int load(void *data, struct uc_watch_ruleset *rs)
{
	struct wctx *c = data;

	return uc_watch_rules_load(c->paths, c->npaths, rs, conf_err, conf_skip, c);
}

/* The guard's verdict for "these rules write clamps", with no plan to show yet
 * (the processes may not have started): each write asks again with its plan. */
static enum uc_guard_verdict consent(struct wctx *c, const struct uc_watch_ruleset *rs,
				     enum uc_key_state *key)
{
	struct uc_consent cons = { .yes = c->ctl->yes || rs->allow_enable, .interactive = false };

	*key = UC_KEY_UNKNOWN;
	if (!rs->sets_clamps || c->dry_run)
		return UC_GUARD_GO;
	*key = cli_key_state_now(c->ctl);
	return uc_guard_decide(true, *key, &cons);
}

static const char refusal[] =
	"the rules set clamps, which would enable the uclamp fast path (sched_uclamp_used is %s); "
	"a daemon cannot ask: consent with --yes or 'allow-enable = yes' in [fast-path]";

static bool may_run(void *data, const struct uc_watch_ruleset *rs)
{
	struct wctx *c = data;
	enum uc_key_state key;
	char msg[320];

	if (consent(c, rs, &key) != UC_GUARD_REFUSE)
		return true;
	snprintf(msg, sizeof(msg), refusal, uc_key_state_name(key));
	say(c, LOG_ERR, msg, NULL, 0, "reload");
	return false;
}

static int run_error(int rc)
{
	switch (-rc) {
	case EPERM:
	case EACCES:
		cli_errx("watch: the proc connector refused us: before Linux 6.6 it needs "
			 "CAP_NET_ADMIN (run as root, or give the service CAP_NET_ADMIN)");
		break;
	case ETIMEDOUT:
		cli_errx("watch: no answer from the proc connector: the kernel ignores "
			 "subscriptions from a non-initial user or PID namespace (a container); "
			 "run watch on the host");
		break;
	case EADDRINUSE:
		cli_errx("watch: another watch daemon took the status socket while this one "
			 "started: not started");
		break;
	case EPROTONOSUPPORT:
	case ENOENT:
		cli_errx("watch: this kernel has no proc connector (it needs CONFIG_CONNECTOR and "
			"CONFIG_PROC_EVENTS)");
		break;
	default:
		cli_errx("watch: %s", strerror(-rc));
	}
	return CLI_EXIT_FAIL;
}

/* No uclamp: exit 4, so an enabled service fails visibly; with
 * --idle-without-uclamp (one unit for a mixed fleet) say so once, tell systemd,
 * and sleep until SIGTERM/SIGINT (no subscription, no wakeups). */
static int no_uclamp(struct cli_ctl *ctl, struct wctx *c)
{
	sigset_t set;
	int sig;

	if (!c->idle)
		return cli_no_uclamp("watch has nothing to do (--idle-without-uclamp keeps it "
				     "running)");
	cli_warnx(ctl, "watch: %s: idle until stopped (--idle-without-uclamp)", CLI_NO_UCLAMP);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	watch_notify(&c->log, "READY=1\nSTATUS=idle: this kernel has no uclamp");
	do
		sig = sigwaitinfo(&set, NULL);
	while (sig == SIGHUP || (sig < 0 && errno == EINTR));
	watch_notify(&c->log, "STOPPING=1");
	return CLI_EXIT_OK;
}

static int do_watch(struct cli_ctl *ctl, struct wctx *c, const char *sock)
{
	struct uc_watch_ruleset rs;
	struct uc_watch_opts o = { .dry_run = c->dry_run, .log = watch_log, .log_data = &c->log };
	struct uc_watch_loop_opts lo = {
		.config_paths = c->paths,
		.nconfig = c->npaths,
		.load = load,
		.may_run = may_run,
		.data = c,
		.notify = watch_notify,
		.watchdog_usec = watch_watchdog_usec(),
		.status_socket = sock,
		.rcvbuf = uc_test_rcvbuf(),
	};
	static const char *const defaults[] = { UC_CONFIG_FILE, UC_CONFIG_DIR };
	enum uc_key_state key;
	struct uc_watch *w;
	pid_t owner;
	int rc;

	/* one daemon per status socket: a second one would fight the first over
	 * every task (and used to take its socket); a dry run too, for the socket */
	if (uc_watch_status_owner(sock, &owner) > 0) {
		cli_errx("watch: a watch daemon (PID %d) already answers at %s: not started "
			 "(stop it, or give this one another --socket)", (int)owner, sock);
		return CLI_EXIT_FAIL;
	}
	if (cli_key_state_now(ctl) == UC_KEY_UNSUPPORTED)
		return no_uclamp(ctl, c);
	rc = load(c, &rs);
	if (rc == -ENOMEM)
		return cli_oom();
	if (rc) {
		cli_errx("watch: errors in the configuration: not started");
		return CLI_EXIT_USAGE;
	}
	switch (consent(c, &rs, &key)) {
	case UC_GUARD_REFUSE:
		if (rs.ops)
			rs.ops->free(rs.rules);
		if (key == UC_KEY_UNSUPPORTED)
			return cli_no_uclamp("watch has nothing to do");
		cli_errx(refusal, uc_key_state_name(key));
		return CLI_EXIT_REFUSED;
	case UC_GUARD_GO_WARN:
		cli_warnx(ctl, "watch: the first clamp written will enable the uclamp fast path "
			  "(consent: %s)", rs.allow_enable ? "allow-enable = yes" : "--yes");
		break;
	default:
		break;
	}
	if (!rs.nrules && !(rs.config && rs.config->ncgroups))
		cli_warnx(ctl, "watch: no [tasks] or [cgroup] sections yet: waiting for the "
			  "configuration to change");
	if (!c->npaths) {
		lo.config_paths = defaults;
		lo.nconfig = 2;
	}
	o.yes = ctl->yes;
	o.key = key;
	o.recheck_ms = (unsigned)c->recheck_s * 1000u;
	rc = uc_watch_new(&o, &w);
	if (rc) {
		if (rs.ops)
			rs.ops->free(rs.rules);
		return cli_oom();
	}
	uc_watch_set_rules(w, &rs);
	rc = uc_watch_run(w, &lo);
	uc_watch_free(w);
	return rc ? run_error(rc) : CLI_EXIT_OK;
}

enum { OPT_FG = 0x100, OPT_ONESHOT, OPT_SOCKET, OPT_RECHECK, OPT_IDLE };

static bool watch_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct wctx *w = data;
	unsigned long long v;

	switch (c) {
	case 'c': w->paths[w->npaths++] = arg; return true;
	case OPT_FG: return true;	/* watch never forks: accepted for init scripts */
	case OPT_ONESHOT: w->oneshot = true; return true;
	case OPT_SOCKET: w->sock = arg; return true;
	case OPT_IDLE: w->idle = true; return true;
	case OPT_RECHECK:
		if (uc_num_parse(arg, 0, RECHECK_MAX_S, &v))
			cli_usage_error(ctl, "invalid value '%s' for --recheck: use whole seconds "
					"from 0 (never) to %d", arg, RECHECK_MAX_S);
		w->recheck_s = (int)v;
		return true;
	}
	return false;
}

int cmd_watch(struct cli_ctl *ctl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, OPT_FG },
		{ "oneshot", no_argument, NULL, OPT_ONESHOT },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "recheck", required_argument, NULL, OPT_RECHECK },
		{ "idle-without-uclamp", no_argument, NULL, OPT_IDLE },
		{ NULL, 0, NULL, 0 },
	};
	/* as enum cli_watch_fmt */
	static const char *const formats[] = { "text", "json", "prometheus", NULL };
	static const struct cli_opts opts = {
		.shortopts = "c:", .longopts = longopts, .shared = CLI_OPTS_WRITE | CLI_OPTS_FORMAT,
		.formats = formats, .own = watch_opt, .usage = usage,
		.no_args = "watch takes 'status' or options",
	};
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	struct wctx c = { .ctl = ctl, .paths = paths, .sock = UC_WATCH_SOCKET,
			  .recheck_s = RECHECK_DEFAULT_S };
	bool status = false;
	int rc;

	ctl->consent_hint = "--yes or 'allow-enable = yes' in [fast-path]";
	if (!paths)
		return cli_oom();
	if (argc > 1 && !strcmp(argv[1], "status")) {
		status = true;
		argv++;
		argc--;
	}
	cli_parse_opts(ctl, argc, argv, &opts, &c);
	c.dry_run = ctl->dry_run;

	if (status && (c.npaths || c.dry_run || ctl->yes || c.oneshot))
		cli_usage_error(ctl, "watch status takes only -J, --format and --socket");
	if (!status && ctl->format_given)
		cli_usage_error(ctl, "-J and --format go with 'watch status'");
	c.log.max_prio = ctl->quiet ? LOG_WARNING : ctl->verbose ? LOG_DEBUG : LOG_INFO;
	if (status)
		rc = cli_watch_status((enum cli_watch_fmt)ctl->format, c.sock);
	else if (c.oneshot)	/* what apply does, with watch's --config, --dry-run, --yes */
		rc = cli_apply(ctl, c.paths, c.npaths, false, false);
	else if (!(rc = cli_procns_check()))	/* event PIDs are looked up in /proc */
		rc = do_watch(ctl, &c, c.sock);
	free(paths);
	return rc;
}
