/*
 * uclampctl watch status: ask the daemon's socket for its counters and
 * render them as a table, JSON or Prometheus text. The plain counters are
 * one table below; each format walks it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd/common.h"
#include "cmd/watch_counters.h"
#include "uclamp/watch.h"

/* A plain counter: JSON "name", Prometheus uclampctl_watch_<name>_total,
 * and "word=N" on the text line 'line'. */
struct counter {
	const char *name;
	const char *line;
	const char *word;
	const char *help;
	size_t off;
};

#define AT(f) offsetof(struct uc_watch_stats, f)

/* in output order; the rescans by cause come after LOST (see print_*) */
static const struct counter counters[] = {
	{ "overruns", "lost events", "overruns", "Socket overruns (ENOBUFS): events lost.",
	  AT(overruns) },
	{ "seq_gaps", "lost events", "seq_gaps", "Gaps in the per-CPU event sequence: events lost.",
	  AT(seq_gaps) },
	{ "queue_drops", "lost events", "queue_drops", "Events dropped by a full internal queue.",
	  AT(queue_drops) },
	{ "applied", "tasks", "applied", "Tasks written (one sched_setattr each).", AT(applied) },
	{ "unchanged", "tasks", "unchanged", "Tasks matched and already at the wanted values.",
	  AT(unchanged) },
	{ "would_apply", "tasks", "would_apply", "Tasks a dry run would have written.",
	  AT(would_apply) },
	{ "gone", "tasks", "gone", "Tasks that exited before the write.", AT(gone) },
	{ "drift_corrected", "tasks", "drift_corrected",
	  "Tasks a re-check found changed back by another writer, and set again.",
	  AT(drift_corrected) },
	{ "rechecks", "re-checks", "done", "Periodic re-checks of the tracked processes for drift.",
	  AT(rechecks) },
	{ "identity_mismatch", "left alone", "identity_mismatch", "Reused PIDs left alone.",
	  AT(identity_mismatch) },
	{ "skipped_rt", "left alone", "skipped_rt", "Real-time tasks left alone.", AT(skipped_rt) },
	{ "given_up", "left alone", "given_up", "Processes left alone after repeated re-applies.",
	  AT(given_up) },
	{ "untracked", "left alone", "untracked",
	  "Processes matched but not tracked: the table was at its cap.", AT(untracked) },
	{ "refused", "left alone", "refused",
	  "Writes refused: would enable the fast path without consent.", AT(refused) },
	{ "groups_applied", "cgroups", "applied",
	  "cgroups of [cgroup] sections written when they appeared (or were made anew).",
	  AT(groups_applied) },
	{ "groups_unchanged", "cgroups", "unchanged",
	  "cgroups that appeared with the configured values already.", AT(groups_unchanged) },
	{ "groups_gone", "cgroups", "gone", "cgroups removed before the write.", AT(groups_gone) },
	{ "groups_skipped", "cgroups", "skipped",
	  "cgroups that cannot take the values (cpu cannot be enabled for them).",
	  AT(groups_skipped) },
	{ "log_suppressed", "log", "suppressed",
	  "Lines about processes not logged: over the daemon's limit (uclampctl(8), WATCH).",
	  AT(log_suppressed) },
	{ "reloads", "reloads", "ok", "Successful reloads.", AT(reloads) },
	{ "reload_failures", "reloads", "failed", "Reloads that kept the old rules.",
	  AT(reload_failures) },
	{ "consent_withdrawn", "reloads", "consent_withdrawn",
	  "Failed reloads that withdrew allow-enable: nothing that would enable the fast path "
	  "is written since.", AT(consent_withdrawn) },
};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))
#define LOST 3	/* counters[0..LOST) are the lost events */

static uint64_t value(const struct uc_watch_stats *s, const struct counter *c)
{
	uint64_t v;

	memcpy(&v, (const char *)s + c->off, sizeof(v));
	return v;
}

static uint64_t sum(const uint64_t *v, size_t n)
{
	uint64_t s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* The name of an errno for JSON and Prometheus ("EPERM"). */
static const char *errno_name(int err)
{
	const char *e = strerrorname_np(err);

	return e ? e : "?";
}

/* ---- text ------------------------------------------------------------------ */

#define LABEL "%-22s"

/* counters[from..to) as "line word=N ..." lines */
static void table_counters(const struct uc_watch_stats *s, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const struct counter *c = &counters[i];

		if (i == from || strcmp(c->line, counters[i - 1].line))
			printf("%s" LABEL, i == from ? "" : "\n", c->line);
		printf(" %s=%llu", c->word, (unsigned long long)value(s, c));
	}
	putchar('\n');
}

static void table_latency(const struct uc_watch_stats *s)
{
	uint64_t cum = 0;

	printf(LABEL " count=%llu mean=%.3f ms\n", "exec->apply latency",
	       (unsigned long long)s->lat_count,
	       s->lat_count ? (double)s->lat_sum_ns / (double)s->lat_count / 1e6 : 0.0);
	for (int i = 0; i <= UC_WATCH_LAT_N && s->lat_count; i++) {
		cum += s->lat_buckets[i];
		if (i < UC_WATCH_LAT_N)
			printf(LABEL " <= %g ms: %llu\n", "", uc_watch_lat_bounds[i] * 1e3,
			       (unsigned long long)cum);
		else
			printf(LABEL " all: %llu\n", "", (unsigned long long)cum);
	}
}

static void print_table(const struct uc_watch_stats *s)
{
	printf(LABEL " %llu\n" LABEL " %llu\n" LABEL " %llu\n", "pid", (unsigned long long)s->pid,
	       "rules generation", (unsigned long long)s->generation, "rules",
	       (unsigned long long)s->rules);
	printf(LABEL " %llu (cap %llu)\n", "tracked processes", (unsigned long long)s->tracked,
	       (unsigned long long)s->tracked_cap);
	printf(LABEL " %llu (waiting for their group %llu)\n", "[cgroup] sections",
	       (unsigned long long)s->groups, (unsigned long long)s->groups_waiting);
	printf(LABEL, "events");
	for (int i = 0; i < UC_WEV_N; i++)
		printf(" %s=%llu", uc_watch_ev_name(i), (unsigned long long)s->events[i]);
	putchar('\n');
	table_counters(s, 0, LOST);
	printf(LABEL, "rescans");
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		printf(" %s=%llu", uc_watch_cause_name(i), (unsigned long long)s->rescans[i]);
	putchar('\n');
	table_counters(s, LOST, NCOUNTERS);
	printf(LABEL " %llu", "errors", (unsigned long long)s->errors_total);
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++)
		if (s->errors[i].err)
			printf(" %s=%llu", strerror(s->errors[i].err),
			       (unsigned long long)s->errors[i].n);
	printf("\n" LABEL " %llu (high-water %llu, cap %llu)\n", "queue",
	       (unsigned long long)s->queue_len, (unsigned long long)s->queue_hiwater,
	       (unsigned long long)s->queue_cap);
	table_latency(s);
}

/* ---- JSON ------------------------------------------------------------------ */

#define U(x) ((long long)(x))

static void json_counters(struct cli_json *j, const struct uc_watch_stats *s, size_t from,
			  size_t to)
{
	for (size_t i = from; i < to; i++)
		cli_json_int(j, counters[i].name, U(value(s, &counters[i])));
}

/* an array of counts as an object by name */
static void json_by_name(struct cli_json *j, const char *key, const uint64_t *v, int n,
			 const char *(*name)(int))
{
	cli_json_open(j, key, '{', true);
	for (int i = 0; i < n; i++)
		cli_json_int(j, name(i), U(v[i]));
	cli_json_close(j, '}');
}

static void json_latency(struct cli_json *j, const struct uc_watch_stats *s)
{
	cli_json_open(j, "exec_apply_latency", '{', true);
	cli_json_int(j, "count", U(s->lat_count));
	cli_json_double(j, "sum_seconds", (double)s->lat_sum_ns / 1e9);
	cli_json_open(j, "buckets", '[', true);
	for (int i = 0; i <= UC_WATCH_LAT_N; i++) {
		cli_json_open(j, NULL, '{', true);
		if (i < UC_WATCH_LAT_N) {
			cli_json_double(j, "le", uc_watch_lat_bounds[i]);
			cli_json_int(j, "count", U(sum(s->lat_buckets, (size_t)i + 1)));
		} else {
			cli_json_str(j, "le", "+Inf");
			cli_json_int(j, "count", U(s->lat_count));
		}
		cli_json_close(j, '}');
	}
	cli_json_close(j, '[');
	cli_json_close(j, '}');
}

/* The counters as JSON, through the one JSON writer (cli_json). */
static void print_json(const struct uc_watch_stats *s)
{
	struct cli_json j;

	cli_json_begin(&j, stdout, 3);
	cli_json_int(&j, "pid", U(s->pid));
	cli_json_int(&j, "started", U(s->started));
	cli_json_int(&j, "generation", U(s->generation));
	cli_json_int(&j, "rules", U(s->rules));
	cli_json_int(&j, "tracked", U(s->tracked));
	cli_json_int(&j, "tracked_cap", U(s->tracked_cap));
	cli_json_int(&j, "groups", U(s->groups));
	cli_json_int(&j, "groups_waiting", U(s->groups_waiting));
	json_by_name(&j, "events", s->events, UC_WEV_N, uc_watch_ev_name);
	json_counters(&j, s, 0, LOST);
	json_by_name(&j, "rescans", s->rescans, UC_RESCAN_NCAUSES, uc_watch_cause_name);
	json_counters(&j, s, LOST, NCOUNTERS);
	cli_json_int(&j, "errors_total", U(s->errors_total));
	cli_json_open(&j, "errors", '{', true);
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++)
		if (s->errors[i].err)
			cli_json_int(&j, errno_name(s->errors[i].err), U(s->errors[i].n));
	cli_json_close(&j, '}');
	cli_json_open(&j, "queue", '{', true);
	cli_json_int(&j, "len", U(s->queue_len));
	cli_json_int(&j, "high_water", U(s->queue_hiwater));
	cli_json_int(&j, "cap", U(s->queue_cap));
	cli_json_close(&j, '}');
	json_latency(&j, s);
	cli_json_end(&j);
}

/* ---- Prometheus ------------------------------------------------------------ */

#define P "uclampctl_watch_"

static void prom_gauge(const char *name, const char *help, uint64_t v)
{
	cli_prom_head(name, help, "gauge");
	printf("%s %llu\n", name, (unsigned long long)v);
}

static void prom_counters(const struct uc_watch_stats *s, size_t from, size_t to)
{
	char name[64];

	for (size_t i = from; i < to; i++) {
		snprintf(name, sizeof(name), P "%s_total", counters[i].name);
		cli_prom_head(name, counters[i].help, "counter");
		printf("%s %llu\n", name, (unsigned long long)value(s, &counters[i]));
	}
}

/* one counter with a label: name{label="..."} */
static void prom_by_name(const char *name, const char *help, const char *label,
			 const uint64_t *v, int n, const char *(*vname)(int))
{
	cli_prom_head(name, help, "counter");
	for (int i = 0; i < n; i++)
		printf("%s{%s=\"%s\"} %llu\n", name, label, vname(i), (unsigned long long)v[i]);
}

static void prom_latency(const struct uc_watch_stats *s)
{
	cli_prom_head(P "exec_apply_latency_seconds",
		      "From the kernel's exec event to the clamp written.", "histogram");
	for (int i = 0; i < UC_WATCH_LAT_N; i++)
		printf(P "exec_apply_latency_seconds_bucket{le=\"%g\"} %llu\n",
		       uc_watch_lat_bounds[i],
		       (unsigned long long)sum(s->lat_buckets, (size_t)i + 1));
	printf(P "exec_apply_latency_seconds_bucket{le=\"+Inf\"} %llu\n",
	       (unsigned long long)s->lat_count);
	printf(P "exec_apply_latency_seconds_sum %.9f\n", (double)s->lat_sum_ns / 1e9);
	printf(P "exec_apply_latency_seconds_count %llu\n", (unsigned long long)s->lat_count);
}

void cli_watch_print_prom(const struct uc_watch_stats *s)
{
	prom_gauge(P "rules_generation", "Rules generation (1 at start, +1 per reload).",
		   s->generation);
	prom_gauge(P "rules", "Rules loaded.", s->rules);
	prom_gauge(P "tracked_processes", "Processes in the table.", s->tracked);
	prom_gauge(P "cgroup_sections", "[cgroup] sections of the configuration.", s->groups);
	prom_gauge(P "cgroup_sections_waiting", "[cgroup] sections whose group is not there now.",
		   s->groups_waiting);
	prom_by_name(P "events_total", "Proc connector events received, by type.", "type",
		     s->events, UC_WEV_N, uc_watch_ev_name);
	prom_counters(s, 0, LOST);
	prom_by_name(P "rescans_total", "Full /proc rescans, by cause.", "cause", s->rescans,
		     UC_RESCAN_NCAUSES, uc_watch_cause_name);
	prom_counters(s, LOST, NCOUNTERS);
	cli_prom_head(P "errors_total", "Failed reads and writes, by errno.", "counter");
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++)
		if (s->errors[i].err)
			printf(P "errors_total{errno=\"%s\"} %llu\n", errno_name(s->errors[i].err),
			       (unsigned long long)s->errors[i].n);
	prom_gauge(P "queue_length", "Events queued now.", s->queue_len);
	prom_gauge(P "queue_high_water", "Most events queued at once.", s->queue_hiwater);
	prom_latency(s);
}

int cli_watch_status(enum cli_watch_fmt fmt, const char *sock)
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
	if (fmt == CLI_WATCH_JSON)
		print_json(&s);
	else if (fmt == CLI_WATCH_PROM)
		cli_watch_print_prom(&s);
	else
		print_table(&s);
	return CLI_EXIT_OK;
}
