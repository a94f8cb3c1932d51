/* The CLI's voice: messages, and dispatch through command tables with their usage. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/common.h"
#include "uclamp/escape.h"

int cli_term_width(FILE *f)
{
	struct winsize ws;

	if (!isatty(fileno(f)))
		return 0;
	if (!ioctl(fileno(f), TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Print text after prefix, each line cut at the last space within width
 * columns (a word longer than that stays whole), the lines after the first
 * indented as far as the prefix. width 0: one line. */
static void wrapped(FILE *f, const char *prefix, const char *text, int width)
{
	int indent = (int)strlen(prefix);
	size_t room = width > indent + 20 ? (size_t)(width - indent) : 0;

	fputs(prefix, f);
	while (room && strlen(text) > room) {
		size_t cut = room;

		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (!cut)	/* a word longer than the room: whole, then cut after it */
			cut = room + strcspn(text + room, " ");
		if (!text[cut])
			break;
		fprintf(f, "%.*s\n%*s", (int)cut, text, indent, "");
		text += cut + 1;
	}
	fprintf(f, "%s\n", text);
}

void cli_prom_head(const char *name, const char *help, const char *type)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void cli_prom_gauge(const char *name, const char *help, long long v)
{
	cli_prom_head(name, help, "gauge");
	printf("%s %lld\n", name, v);
}

void cli_vline_width(FILE *f, const char *prefix, int width, const char *fmt, va_list ap)
{
	char buf[1024], *line = buf, *esc;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, aq);
	va_end(aq);
	if (n >= (int)sizeof(buf) && vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	/* names from /proc and cgroupfs are hostile: no raw byte reaches the terminal */
	esc = line ? uc_escape_name_dup(line) : NULL;
	wrapped(f, prefix, esc ? esc : "(out of memory)", width);
	free(esc);
	if (line != buf)
		free(line);
}

void cli_line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vline_width(f, "", 0, fmt, ap);
	va_end(ap);
}

void cli_msg(const struct cli_ctl *ctl, enum cli_msg_kind kind, const char *fmt, ...)
{
	static const char *const prefix[] = {
		[CLI_MSG_ERROR] = "uclampctl: ",
		[CLI_MSG_WARNING] = "uclampctl: warning: ",
		[CLI_MSG_INFO] = "",
		[CLI_MSG_VERBOSE] = "uclampctl: ",
	};
	FILE *f = stderr;
	va_list ap;

	if (kind != CLI_MSG_ERROR && ctl->quiet)
		return;
	if (kind == CLI_MSG_VERBOSE && !ctl->verbose)
		return;
	if (kind == CLI_MSG_INFO && !ctl->to_stderr)
		f = stdout;
	fflush(stdout);
	va_start(ap, fmt);
	cli_vline_width(f, prefix[kind], 0, fmt, ap);
	va_end(ap);
}

int cli_lib_exit = CLI_EXIT_FAIL;

void cli_lib_missing(const char *soname, const char *what, const char *why)
{
	cli_errx("cannot load %s, needed for %s (%s): install the package that has it", soname,
		 what, why);
	exit(cli_lib_exit);
}

int cli_oom(void)
{
	cli_errx("out of memory");
	return CLI_EXIT_FAIL;
}

int cli_no_uclamp(const char *why_fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("uclampctl: " CLI_NO_UCLAMP ": ", stderr);
	va_start(ap, why_fmt);
	vfprintf(stderr, why_fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_NOTSUPP;
}

noreturn void cli_usage_error(const struct cli_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	cli_vline_width(stderr, "uclampctl: ", 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'uclampctl %s%s--help' for more information.\n",
		ctl->cmd ? ctl->cmd : "", ctl->cmd ? " " : "");
	exit(CLI_EXIT_USAGE);
}

int cli_dispatch(struct cli_ctl *ctl, const char *group, const struct cli_command *cmds,
		int argc, char **argv)
{
	static char name[128];
	char pfx[64];	/* "GROUP " or "" */

	snprintf(pfx, sizeof(pfx), "%s%s", group ? group : "", group ? " " : "");
	if (argc < 1 || !strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
		FILE *out = argc < 1 ? stderr : stdout;

		fprintf(out, "Usage:\n uclampctl %s<command> [options]\n\nCommands:\n", pfx);
		for (size_t i = 0; cmds[i].name; i++)
			fprintf(out, " %-8s %s\n", cmds[i].name, cmds[i].help);
		fprintf(out, "\nRun 'uclampctl %s<command> --help' for its options.\n", pfx);
		return argc < 1 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
	}
	for (size_t i = 0; cmds[i].name; i++) {
		if (strcmp(argv[0], cmds[i].name))
			continue;
		snprintf(name, sizeof(name), "%s%s", pfx, cmds[i].name);
		ctl->cmd = name;
		optind = 0;	/* GNU getopt: start over at argv[1] */
		return cmds[i].fn(ctl, argc, argv);
	}
	cli_usage_error(ctl, "unknown command '%s%s'", pfx, argv[0]);
}

static void synopsis_lines(FILE *out, const char *cmd, const char *s)
{
	do {
		size_t len = strcspn(s, "\n");

		fprintf(out, " uclampctl %s %.*s\n", cmd, (int)len, s);
		s += len;
	} while (*s++);
}

void cli_usage_head(FILE *out, const char *cmd, const char *synopsis)
{
	fputs("Usage:\n", out);
	synopsis_lines(out, cmd, synopsis);
}

static void group_usage(FILE *out, const char *group, const struct cli_command *cmds,
			const char *about, const char *details)
{
	char cmd[64];

	fputs("Usage:\n", out);
	for (size_t i = 0; cmds[i].name; i++) {
		snprintf(cmd, sizeof(cmd), "%s %s", group, cmds[i].name);
		synopsis_lines(out, cmd, cmds[i].synopsis ? cmds[i].synopsis : "[options]");
	}
	fprintf(out, "\n%s%s%s\nCommands:\n", about, details ? "\n" : "", details ? details : "");
	for (size_t i = 0; cmds[i].name; i++)
		fprintf(out, " %-8s %s\n", cmds[i].name, cmds[i].help);
	fprintf(out, "\nRun 'uclampctl %s <command> --help' for its options.\n", group);
}

int cli_dispatch_group(struct cli_ctl *ctl, const char *group, const struct cli_command *cmds,
		       const char *about, const char *details, int argc, char **argv)
{
	ctl->cmd = group;
	if (argc < 2) {
		group_usage(stderr, group, cmds, about, details);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		group_usage(stdout, group, cmds, about, details);
		return CLI_EXIT_OK;
	}
	return cli_dispatch(ctl, group, cmds, argc - 1, argv + 1);
}
