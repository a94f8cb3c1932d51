/*
 * The daemon's counters on the wire: "key value" lines, one counter each,
 * read back by 'uclampctl watch status'. Names are the Prometheus ones
 * without the prefix, so every renderer uses the same words.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uclamp/watch.h"

const double uc_watch_lat_bounds[UC_WATCH_LAT_N] = {
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5,
};

static const char *const cause_names[UC_RESCAN_NCAUSES] = {
	"start", "overrun", "seq_gap", "queue_full", "reload", "locked",
};
static const char *const ev_names[UC_WEV_N] = {
	"fork", "exec", "comm", "uid", "gid", "exit", "other",
};

const char *uc_watch_cause_name(int c)
{
	return (unsigned)c < UC_RESCAN_NCAUSES ? cause_names[c] : "?";
}

const char *uc_watch_ev_name(int e)
{
	return (unsigned)e < UC_WEV_N ? ev_names[e] : "?";
}

/* The plain counters, by name. */
#define FIELDS(X) \
	X(generation) X(rules) X(tracked) X(tracked_cap) X(overruns) X(seq_gaps) X(queue_drops) \
	X(applied) X(unchanged) X(would_apply) X(gone) X(identity_mismatch) X(skipped_rt) \
	X(given_up) X(rechecks) X(drift_corrected) X(untracked) X(refused) X(log_suppressed) \
	X(reloads) X(reload_failures) X(consent_withdrawn) X(groups) X(groups_waiting) \
	X(groups_applied) X(groups_unchanged) X(groups_gone) X(groups_skipped) \
	X(errors_total) \
	X(queue_len) X(queue_hiwater) X(queue_cap) X(lat_count) X(lat_sum_ns) X(pid) X(started)

struct out {
	char *p;
	size_t left;
	int err;
};

static void put(struct out *o, const char *key, const char *sub, uint64_t v)
{
	int n = snprintf(o->p, o->left, "%s%s%s %" PRIu64 "\n", key, sub ? "." : "", sub ? sub : "",
			 v);

	if (n < 0 || (size_t)n >= o->left) {
		o->err = -ENOSPC;
		o->left = 0;
		return;
	}
	o->p += n;
	o->left -= (size_t)n;
}

int uc_watch_stats_format(const struct uc_watch_stats *s, char *buf, size_t n)
{
	struct out o = { .p = buf, .left = n };
	char sub[32];

	if (n)
		buf[0] = '\0';
#define PUT(f) put(&o, #f, NULL, s->f);
	FIELDS(PUT)
#undef PUT
	for (int i = 0; i < UC_WEV_N; i++)
		put(&o, "events", ev_names[i], s->events[i]);
	for (int i = 0; i < UC_RESCAN_NCAUSES; i++)
		put(&o, "rescans", cause_names[i], s->rescans[i]);
	for (int i = 0; i < UC_WATCH_MAX_ERRNOS; i++) {
		if (!s->errors[i].err)
			continue;
		snprintf(sub, sizeof(sub), "%d", s->errors[i].err);
		put(&o, "errno", sub, s->errors[i].n);
	}
	for (int i = 0; i <= UC_WATCH_LAT_N; i++) {
		snprintf(sub, sizeof(sub), "%d", i);
		put(&o, "lat_bucket", sub, s->lat_buckets[i]);
	}
	return o.err;
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -1;
}

static int parse_line(const char *key, uint64_t v, struct uc_watch_stats *s)
{
	const char *dot = strchr(key, '.');
	char head[32];
	int i;

	if (!dot) {
#define GET(f) if (!strcmp(key, #f)) { s->f = v; return 0; }
		FIELDS(GET)
#undef GET
		return 0;
	}
	if ((size_t)(dot - key) >= sizeof(head))
		return 0;
	memcpy(head, key, (size_t)(dot - key));
	head[dot - key] = '\0';
	dot++;
	if (!strcmp(head, "events") && (i = index_of(ev_names, UC_WEV_N, dot)) >= 0) {
		s->events[i] = v;
	} else if (!strcmp(head, "rescans") &&
		   (i = index_of(cause_names, UC_RESCAN_NCAUSES, dot)) >= 0) {
		s->rescans[i] = v;
	} else if (!strcmp(head, "errno")) {
		int err = atoi(dot);

		for (i = 0; i < UC_WATCH_MAX_ERRNOS; i++) {
			if (!s->errors[i].err) {
				s->errors[i].err = err;
				s->errors[i].n = v;
				break;
			}
		}
	} else if (!strcmp(head, "lat_bucket")) {
		i = atoi(dot);
		if (i >= 0 && i <= UC_WATCH_LAT_N)
			s->lat_buckets[i] = v;
	}
	return 0;
}

int uc_watch_stats_parse(const char *text, struct uc_watch_stats *s)
{
	memset(s, 0, sizeof(*s));
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		char line[128], key[96];
		uint64_t v;

		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (nl ? 1 : 0);
		if (!len)
			continue;
		if (sscanf(line, "%95s %" SCNu64, key, &v) != 2)
			return -EINVAL;
		parse_line(key, v, s);
	}
	return 0;
}
