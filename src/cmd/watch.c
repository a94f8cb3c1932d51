/*
 * uclampctl watch: keep the [tasks] rules true for processes that start
 * later (the daemon in src/lib/watch*.c), and 'watch status' to ask it.
 *
 * Consent: a daemon cannot prompt. If the rules set clamps and the fast
 * path is not already on, watch refuses to start (exit 3) unless the
 * configuration says allow-enable = yes or --yes was given; a reload with
 * such rules is refused the same way and the old rules stay.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "cmd/common.h"
#include "cmd/watch_log.h"
#include "uclamp/config.h"
#include "uclamp/guard.h"
#include "uclamp/json.h"
#include "uclamp/watch.h"

static void usage(void)
{
	printf("Usage:\n"
		" uclampctl watch [options]\n"
		" uclampctl watch status [-J | --format=table|json|prometheus]\n"
		"\n"
		"Keep the [tasks] rules of the configuration true for every process,\n"
		"including those that start later: subscribe to the kernel's process\n"
		"events, scan /proc once, then clamp each process as it execs (and a\n"
		"thread when it is renamed). Lost events trigger a full rescan.\n"
		"The configuration: %s and %s/*.conf.\n"
		"SIGHUP or a change to the files reloads it; a broken one keeps the old rules.\n"
		"\n"
		"Options:\n"
		" -c, --config <path>    read this file or directory instead (repeatable)\n"
		" -n, --dry-run          log what would be set, write nothing\n"
		" -y, --yes              consent to enabling the uclamp fast path\n"
		"     --foreground       stay in the foreground (watch never forks; for\n"
		"                        systemd's Type=notify and scripts alike)\n"
		"     --oneshot          apply the rules to what runs now and exit ('apply')\n"
		"     --socket <path>    the status socket (default %s)\n"
		CLI_HELP_OPTS_HELP
		"\n"
		"Exit status: 0 stopped by SIGTERM/SIGINT, 1 the event source failed,\n"
		"2 an error in the configuration, 3 refused (the rules would enable the\n"
		"uclamp fast path without consent), 4 the kernel lacks uclamp.\n",
		UC_CONFIG_FILE, UC_CONFIG_DIR, UC_WATCH_SOCKET);
}

struct wctx {
	struct cli_ctl *ctl;
	const char **paths;	/* --config, every one given */
	size_t npaths;
	const char *sock;	/* --socket */
	struct watch_log_ctx log;
	bool dry_run;
	bool oneshot;
};

static void conf_err(void *data, const struct uc_conf_error *e)
{
	struct wctx *c = data;
	struct uc_watch_log l = {
		.prio = LOG_ERR, .msg = e->msg, .pid = -1, .tid = -1, .old_min = -1, .old_max = -1,
		.new_min = -1, .new_max = -1, .file = e->file, .line = e->line,
	};

	watch_log(&c->log, &l);
}

static int load(void *data, struct uc_watch_ruleset *rs)
{
	struct wctx *c = data;

	return uc_watch_rules_load(c->paths, c->npaths, rs, conf_err, c);
}

/* The guard's verdict for "these rules write clamps": UC_GUARD_REFUSE, ... */
static enum uc_guard_verdict consent(struct wctx *c, const struct uc_watch_ruleset *rs,
				     enum uc_key_state *key)
{
	struct uc_consent cons = { .yes = c->ctl->yes || rs->allow_enable, .interactive = false };
	struct uc_sched_attr sa = { .size = UC_SCHED_ATTR_SIZE_VER1 };
	enum uc_guard_verdict v;
	struct uc_plan p;

	*key = UC_KEY_UNKNOWN;
	if (!rs->sets_clamps || c->dry_run)
		return UC_GUARD_GO;
	*key = cli_key_state_now(c->ctl);
	/* the first clamp written flips the key: the guard judges that one write */
	uc_plan_init(&p);
	if (!uc_plan_add_task(&p, 0, 0, NULL, &sa, UC_ATTR_MIN, 0, 0)) {
		uc_plan_free(&p);
		return UC_GUARD_REFUSE;
	}
	v = uc_guard_check(&p, *key, &cons);
	uc_plan_free(&p);
	return v;
}

static const char refusal[] =
	"the rules set clamps, which would enable the uclamp fast path (sched_uclamp_used is %s); "
	"a daemon cannot ask: consent with --yes or 'allow-enable = yes' in [fast-path]";

static bool may_run(void *data, const struct uc_watch_ruleset *rs)
{
	struct wctx *c = data;
	enum uc_key_state key;
	char msg[320];
	struct uc_watch_log l = {
		.prio = LOG_ERR, .msg = msg, .pid = -1, .tid = -1, .old_min = -1, .old_max = -1,
		.new_min = -1, .new_max = -1, .reason = "reload",
	};

	if (consent(c, rs, &key) != UC_GUARD_REFUSE)
		return true;
	snprintf(msg, sizeof(msg), refusal, uc_key_state_name(key));
	watch_log(&c->log, &l);
	return false;
}

static int oneshot(struct cli_ctl *ctl, struct wctx *c)
{
	char **argv = calloc(2 * c->npaths + 4, sizeof(*argv));
	int argc = 0, rc;

	if (!argv) {
		cli_errx("out of memory");
		return CLI_EXIT_FAIL;
	}
	argv[argc++] = (char *)"apply";
	for (size_t i = 0; i < c->npaths; i++) {
		argv[argc++] = (char *)"--config";
		argv[argc++] = (char *)c->paths[i];
	}
	if (c->dry_run)
		argv[argc++] = (char *)"--dry-run";
	if (ctl->yes)
		argv[argc++] = (char *)"--yes";
	optind = 0;	/* a fresh getopt for apply */
	rc = cmd_apply(ctl, argc, argv);
	free(argv);
	return rc;
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
	};
	static const char *const defaults[] = { UC_CONFIG_FILE, UC_CONFIG_DIR };
	enum uc_key_state key;
	struct uc_watch *w;
	int rc;

	rc = load(c, &rs);
	if (rc == -ENOMEM) {
		cli_errx("out of memory");
		return CLI_EXIT_FAIL;
	}
	if (rc) {
		cli_errx("watch: errors in the configuration: not started");
		return CLI_EXIT_USAGE;
	}
	switch (consent(c, &rs, &key)) {
	case UC_GUARD_REFUSE:
		if (rs.ops)
			rs.ops->free(rs.rules);
		if (key == UC_KEY_UNSUPPORTED) {
			cli_errx("watch: the kernel has no uclamp (CONFIG_UCLAMP_TASK): "
				 "nothing to watch for");
			return CLI_EXIT_NOTSUPP;
		}
		cli_errx(refusal, uc_key_state_name(key));
		return CLI_EXIT_REFUSED;
	case UC_GUARD_GO_WARN:
		cli_warnx(ctl, "watch: the first clamp written will enable the uclamp fast path "
			  "(consent: %s)", rs.allow_enable ? "allow-enable = yes" : "--yes");
		break;
	default:
		break;
	}
	if (!rs.nrules)
		cli_warnx(ctl,
			  "watch: no [tasks] rules yet: waiting for the configuration to change");
	if (!c->npaths) {
		lo.config_paths = defaults;
		lo.nconfig = 2;
	}
	o.yes = ctl->yes;
	o.key = key;
	rc = uc_watch_new(&o, &w);
	if (rc) {
		if (rs.ops)
			rs.ops->free(rs.rules);
		cli_errx("out of memory");
		return CLI_EXIT_FAIL;
	}
	uc_watch_set_rules(w, &rs);
	rc = uc_watch_run(w, &lo);
	uc_watch_free(w);
	return rc ? run_error(rc) : CLI_EXIT_OK;
}

/* ---- watch status ----------------------------------------------------------- */

enum fmt { FMT_TABLE, FMT_JSON, FMT_PROM };

static uint64_t sum(const uint64_t *v, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

static void print_table(const struct uc_watch_stats *s)
{
	uint64_t cum = 0;

	printf("%-22s %llu\n", "pid", (unsigned long long)s->pid);
	printf("%-22s %llu\n", "rules generation", (unsigned long long)s->generation);
	printf("%-22s %llu\n", "rules", (unsigned long long)s->rules);
	printf("%-22s %llu (cap %llu)\n", "tracked processes", (unsigned long long)s->tracked,
	       (unsigned long long)s->tracked_cap);
	printf("%-22s", "events");
	for (int i = 0; i < UC_WEV_N; i++)
		printf(" %s=%llu", uc_watch_ev_name(i), (unsigned long long)s->events[i]);
	printf("\n%-22s overruns=%llu seq_gaps=%llu queue_drops=%llu\n", "lost events",
	       (unsigned long long)s->overruns, (unsigned long long)s->seq_gaps,
	       (unsigned long long)s->queue_drops);
	printf("%-22s", "rescans");
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		printf(" %s=%llu", uc_watch_cause_name(i), (unsigned long long)s->rescans[i]);
	printf("\n%-22s applied=%llu unchanged=%llu would_apply=%llu gone=%llu\n", "tasks",
	       (unsigned long long)s->applied, (unsigned long long)s->unchanged,
	       (unsigned long long)s->would_apply, (unsigned long long)s->gone);
	printf("%-22s identity_mismatch=%llu skipped_rt=%llu given_up=%llu untracked=%llu "
	       "refused=%llu\n",
	       "left alone", (unsigned long long)s->identity_mismatch,
	       (unsigned long long)s->skipped_rt, (unsigned long long)s->given_up,
	       (unsigned long long)s->untracked, (unsigned long long)s->refused);
	printf("%-22s ok=%llu failed=%llu\n", "reloads", (unsigned long long)s->reloads,
	       (unsigned long long)s->reload_failures);
	printf("%-22s %llu", "errors", (unsigned long long)s->errors_total);
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++)
		if (s->errors[i].err)
			printf(" %s=%llu", strerror(s->errors[i].err),
			       (unsigned long long)s->errors[i].n);
	printf("\n%-22s %llu (high-water %llu, cap %llu)\n", "queue",
	       (unsigned long long)s->queue_len, (unsigned long long)s->queue_hiwater,
	       (unsigned long long)s->queue_cap);
	printf("%-22s count=%llu mean=%.3f ms\n", "exec->apply latency",
	       (unsigned long long)s->lat_count,
	       s->lat_count ? (double)s->lat_sum_ns / (double)s->lat_count / 1e6 : 0.0);
	for (int i = 0; i <= UC_WATCH_LAT_N && s->lat_count; i++) {
		cum += s->lat_buckets[i];
		if (i < UC_WATCH_LAT_N)
			printf("%-22s <= %g ms: %llu\n", "", uc_watch_lat_bounds[i] * 1e3,
			       (unsigned long long)cum);
		else
			printf("%-22s all: %llu\n", "", (unsigned long long)cum);
	}
}

#define U(x) ((long long)(x))

static void json_counts(struct uc_json *j, const char *key, const uint64_t *v, int n,
			const char *(*name)(int))
{
	uc_json_open(j, key, '{', true);
	for (int i = 0; i < n; i++)
		uc_json_int(j, name(i), U(v[i]));
	uc_json_close(j, '}');
}

static const char *ev_name(int i)
{
	return uc_watch_ev_name(i);
}

static const char *cause_name(int i)
{
	return uc_watch_cause_name(i);
}

/* The counters as JSON, through the one JSON writer (uc_json). */
static void print_json(const struct uc_watch_stats *s)
{
	struct uc_json j;

	uc_json_init(&j, stdout, 2);
	uc_json_open(&j, NULL, '{', false);
	uc_json_int(&j, "pid", U(s->pid));
	uc_json_int(&j, "started", U(s->started));
	uc_json_int(&j, "generation", U(s->generation));
	uc_json_int(&j, "rules", U(s->rules));
	uc_json_int(&j, "tracked", U(s->tracked));
	uc_json_int(&j, "tracked_cap", U(s->tracked_cap));
	json_counts(&j, "events", s->events, UC_WEV_N, ev_name);
	uc_json_int(&j, "overruns", U(s->overruns));
	uc_json_int(&j, "seq_gaps", U(s->seq_gaps));
	uc_json_int(&j, "queue_drops", U(s->queue_drops));
	json_counts(&j, "rescans", s->rescans, UC_RESCAN_NCAUSES, cause_name);
	uc_json_int(&j, "applied", U(s->applied));
	uc_json_int(&j, "unchanged", U(s->unchanged));
	uc_json_int(&j, "would_apply", U(s->would_apply));
	uc_json_int(&j, "gone", U(s->gone));
	uc_json_int(&j, "identity_mismatch", U(s->identity_mismatch));
	uc_json_int(&j, "skipped_rt", U(s->skipped_rt));
	uc_json_int(&j, "given_up", U(s->given_up));
	uc_json_int(&j, "untracked", U(s->untracked));
	uc_json_int(&j, "refused", U(s->refused));
	uc_json_int(&j, "reloads", U(s->reloads));
	uc_json_int(&j, "reload_failures", U(s->reload_failures));
	uc_json_int(&j, "errors_total", U(s->errors_total));
	uc_json_open(&j, "errors", '{', true);
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++) {
		const char *e = strerrorname_np(s->errors[i].err);

		if (s->errors[i].err)
			uc_json_int(&j, e ? e : "?", U(s->errors[i].n));
	}
	uc_json_close(&j, '}');
	uc_json_open(&j, "queue", '{', true);
	uc_json_int(&j, "len", U(s->queue_len));
	uc_json_int(&j, "high_water", U(s->queue_hiwater));
	uc_json_int(&j, "cap", U(s->queue_cap));
	uc_json_close(&j, '}');
	uc_json_open(&j, "exec_apply_latency", '{', true);
	uc_json_int(&j, "count", U(s->lat_count));
	uc_json_double(&j, "sum_seconds", (double)s->lat_sum_ns / 1e9);
	uc_json_open(&j, "buckets", '[', true);
	for (int i = 0; i <= UC_WATCH_LAT_N; i++) {
		uc_json_open(&j, NULL, '{', true);
		if (i < UC_WATCH_LAT_N) {
			uc_json_double(&j, "le", uc_watch_lat_bounds[i]);
			uc_json_int(&j, "count", U(sum(s->lat_buckets, (size_t)i + 1)));
		} else {
			uc_json_str(&j, "le", "+Inf");
			uc_json_int(&j, "count", U(s->lat_count));
		}
		uc_json_close(&j, '}');
	}
	uc_json_close(&j, '[');
	uc_json_close(&j, '}');
	uc_json_close(&j, '}');
	putchar('\n');
}

#define P "uclampctl_watch_"

static void prom_counter(const char *name, const char *help, uint64_t v)
{
	printf("# HELP " P "%s %s\n# TYPE " P "%s counter\n" P "%s %llu\n", name, help, name, name,
	       (unsigned long long)v);
}

static void prom_gauge(const char *name, const char *help, uint64_t v)
{
	printf("# HELP " P "%s %s\n# TYPE " P "%s gauge\n" P "%s %llu\n", name, help, name, name,
	       (unsigned long long)v);
}

static void print_prom(const struct uc_watch_stats *s)
{
	prom_gauge("rules_generation", "Rules generation (1 at start, +1 per reload).",
		   s->generation);
	prom_gauge("rules", "Rules loaded.", s->rules);
	prom_gauge("tracked_processes", "Processes in the table.", s->tracked);
	printf("# HELP " P "events_total Proc connector events received, by type.\n"
	       "# TYPE " P "events_total counter\n");
	for (int i = 0; i < UC_WEV_N; i++)
		printf(P "events_total{type=\"%s\"} %llu\n", uc_watch_ev_name(i),
		       (unsigned long long)s->events[i]);
	prom_counter("overruns_total", "Socket overruns (ENOBUFS): events lost.", s->overruns);
	prom_counter("seq_gaps_total", "Gaps in the per-CPU event sequence: events lost.",
		     s->seq_gaps);
	prom_counter("queue_drops_total", "Events dropped by a full internal queue.",
		     s->queue_drops);
	printf("# HELP " P "rescans_total Full /proc rescans, by cause.\n# TYPE " P
	       "rescans_total counter\n");
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		printf(P "rescans_total{cause=\"%s\"} %llu\n", uc_watch_cause_name(i),
		       (unsigned long long)s->rescans[i]);
	prom_counter("applied_total", "Tasks written (one sched_setattr each).", s->applied);
	prom_counter("unchanged_total", "Tasks matched and already at the wanted values.",
		     s->unchanged);
	prom_counter("would_apply_total", "Tasks a dry run would have written.", s->would_apply);
	prom_counter("gone_total", "Tasks that exited before the write.", s->gone);
	prom_counter("identity_mismatch_total", "Reused PIDs left alone.", s->identity_mismatch);
	prom_counter("skipped_rt_total", "Real-time tasks left alone.", s->skipped_rt);
	prom_counter("given_up_total", "Processes left alone after repeated re-applies.",
		     s->given_up);
	prom_counter("refused_total", "Writes refused: would enable the fast path without consent.",
		     s->refused);
	prom_counter("reloads_total", "Successful reloads.", s->reloads);
	prom_counter("reload_failures_total", "Reloads that kept the old rules.",
		     s->reload_failures);
	printf("# HELP " P "errors_total Failed reads and writes, by errno.\n# TYPE " P
	       "errors_total counter\n");
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++)
		if (s->errors[i].err)
			printf(P "errors_total{errno=\"%s\"} %llu\n",
			       strerrorname_np(s->errors[i].err) ? strerrorname_np(s->errors[i].err)
								 : "?",
			       (unsigned long long)s->errors[i].n);
	prom_gauge("queue_length", "Events queued now.", s->queue_len);
	prom_gauge("queue_high_water", "Most events queued at once.", s->queue_hiwater);
	printf("# HELP " P
	       "exec_apply_latency_seconds From the kernel's exec event to the clamp written.\n"
	       "# TYPE " P "exec_apply_latency_seconds histogram\n");
	for (int i = 0; i < UC_WATCH_LAT_N; i++)
		printf(P "exec_apply_latency_seconds_bucket{le=\"%g\"} %llu\n",
		       uc_watch_lat_bounds[i],
		       (unsigned long long)sum(s->lat_buckets, (size_t)i + 1));
	printf(P "exec_apply_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
	       (unsigned long long)s->lat_count);
	printf(P "exec_apply_latency_seconds_sum %.9f\n", (double)s->lat_sum_ns / 1e9);
	printf(P "exec_apply_latency_seconds_count %llu\n", (unsigned long long)s->lat_count);
}

static int do_status(struct cli_ctl *ctl, enum fmt fmt, const char *sock)
{
	struct uc_watch_stats s;
	int rc = uc_watch_status_query(sock, &s);

	if (rc == -ENOENT || rc == -ECONNREFUSED) {
		cli_errx("watch status: the daemon is not running (no one listens at %s)", sock);
		return CLI_EXIT_FAIL;
	}
	if (rc == -EACCES) {
		cli_errx("watch status: permission denied: the status socket is root's "
			 "(run as root)");
		return CLI_EXIT_FAIL;
	}
	if (rc) {
		cli_errx("watch status: %s: %s", sock, strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	if (fmt == FMT_JSON)
		print_json(&s);
	else if (fmt == FMT_PROM)
		print_prom(&s);
	else
		print_table(&s);
	return CLI_EXIT_OK;
}

enum { OPT_FG = 0x100, OPT_ONESHOT, OPT_SOCKET };

static bool watch_opt(struct cli_ctl *ctl, int c, const char *arg, void *data)
{
	struct wctx *w = data;

	(void)ctl;
	switch (c) {
	case 'c': w->paths[w->npaths++] = arg; return true;
	case OPT_FG: return true;	/* watch never forks: accepted for init scripts */
	case OPT_ONESHOT: w->oneshot = true; return true;
	case OPT_SOCKET: w->sock = arg; return true;
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
		{ NULL, 0, NULL, 0 },
	};
	/* as enum fmt */
	static const char *const formats[] = { "table", "json", "prometheus", NULL };
	static const struct cli_opts opts = {
		.shortopts = "c:", .longopts = longopts, .shared = CLI_OPTS_WRITE | CLI_OPTS_FORMAT,
		.formats = formats, .own = watch_opt, .usage = usage,
		.no_args = "watch takes 'status' or options",
	};
	const char **paths = calloc((size_t)argc + 1, sizeof(*paths));
	struct wctx c = { .ctl = ctl, .paths = paths, .sock = UC_WATCH_SOCKET };
	bool status = false;
	int rc;

	ctl->consent_hint = "--yes or 'allow-enable = yes' in [fast-path]";
	if (!paths) {
		cli_errx("out of memory");
		return CLI_EXIT_FAIL;
	}
	if (argc > 1 && !strcmp(argv[1], "status")) {
		status = true;
		argv++;
		argc--;
	}
	if (!cli_parse_opts(ctl, argc, argv, &opts, &c)) {
		free(paths);
		return CLI_EXIT_OK;
	}
	c.dry_run = ctl->dry_run;

	if (status && (c.npaths || c.dry_run || ctl->yes || c.oneshot))
		cli_usage_error(ctl, "watch status takes only -J, --format and --socket");
	if (!status && ctl->format_given)
		cli_usage_error(ctl, "-J and --format go with 'watch status'");
	c.log.max_prio = ctl->quiet ? LOG_WARNING : ctl->verbose ? LOG_DEBUG : LOG_INFO;
	if (status)
		rc = do_status(ctl, (enum fmt)ctl->format, c.sock);
	else if (c.oneshot)
		rc = oneshot(ctl, &c);
	else
		rc = do_watch(ctl, &c, c.sock);
	free(paths);
	return rc;
}
