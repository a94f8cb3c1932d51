/*
 * The libraries opened when a command first needs one (dlopen; linked, every
 * command loaded all of them before main()), by one loader (dlib.c), sonames
 * from configure. A user lists a library's functions once, LIST(X), and gets
 * a typed table: UC_DLIB_FNS(dlu, UC_CGROUP_FNS); #define dl dlu.f; then
 * UC_DLIB_LOAD(UC_DLIB_CGROUP, dlu) and dl.cgroup_init(). The lists are here
 * because src/dlopen-deps.c links them for dpkg-shlibdeps (debian/rules).
 */
#ifndef UCLAMP_DLIB_H
#define UCLAMP_DLIB_H

#include <stddef.h>

enum uc_dlib {
	UC_DLIB_SMARTCOLS,	/* tables: src/cmd/output.c */
	UC_DLIB_CGROUP,		/* the cpu hierarchy's mount: src/lib/cgroup_io.c */
	UC_DLIB_NL,		/* watch's proc connector: src/lib/procevents.c */
	UC_DLIB_SYSTEMD,	/* optional: the bus (systemd.c) */
	UC_DLIB_N
};

#define UC_SCOLS_FNS(X) \
	X(scols_new_table) X(scols_unref_table) X(scols_table_set_name) \
	X(scols_table_enable_json) X(scols_table_enable_raw) X(scols_table_enable_noheadings) \
	X(scols_table_new_column) X(scols_table_new_line) X(scols_table_get_column) \
	X(scols_table_get_ncols) X(scols_table_get_nlines) X(scols_table_get_name) \
	X(scols_table_get_termwidth) X(scols_table_is_json) X(scols_table_is_raw) \
	X(scols_table_is_noheadings) X(scols_table_is_tree) X(scols_table_next_line) \
	X(scols_table_set_stream) X(scols_print_table) X(scols_column_get_table) \
	X(scols_column_get_whint) X(scols_column_get_width) X(scols_column_get_flags) \
	X(scols_column_get_header) X(scols_column_get_json_type) X(scols_column_set_json_type) \
	X(scols_column_is_wrap) X(scols_column_set_wrapfunc) X(scols_line_get_cell) \
	X(scols_line_set_data) X(scols_cell_get_data) X(scols_new_iter) X(scols_reset_iter) \
	X(scols_free_iter) X(scols_column_is_trunc) X(scols_column_is_tree) \
	X(scols_table_set_termforce) X(scols_table_set_termwidth) X(scols_line_get_parent) \
	X(scols_cell_set_data)

#define UC_CGROUP_FNS(X) \
	X(cgroup_set_logger) X(cgroup_init) X(cgroup_get_subsys_mount_point) \
	X(cgroup_get_last_errno)

#define UC_NL_FNS(X) \
	X(nl_socket_alloc) X(nl_socket_free) X(nl_socket_disable_seq_check) \
	X(nl_socket_disable_auto_ack) X(nl_connect) X(nl_socket_add_membership) \
	X(nl_socket_get_fd) X(nl_socket_set_nonblocking) X(nl_socket_set_buffer_size) \
	X(nl_send_simple) X(nlmsg_ok) X(nlmsg_next) X(nlmsg_data) X(nlmsg_datalen)

/* The typed pointers (.f) over the array uc_dlib_load() fills (.v): a
 * union, as POSIX has dlsym's void * stand for a function pointer. */
#define UC_DLIB_PTR_(f) __typeof__(f) *f;
#define UC_DLIB_NAME_(f) #f,
#define UC_DLIB_ONE_(f) +1
#define UC_DLIB_UNION(tag, LIST) \
	union tag { \
		struct { LIST(UC_DLIB_PTR_) } f; \
		void *v[0 LIST(UC_DLIB_ONE_)]; \
	}
#define UC_DLIB_FNS(var, LIST) \
	static const char *const var##_names[] = { LIST(UC_DLIB_NAME_) }; \
	static UC_DLIB_UNION(var##_fns, LIST) var
#define UC_DLIB_LOAD(lib, var) \
	uc_dlib_load(lib, var##_names, (var).v, sizeof((var).v) / sizeof((var).v[0]))

/* Open lib once and look up names into fns[n] (filled: one test): 0, or -ENOPKG
 * (missing), the on_missing handler called first for all but libsystemd. */
int uc_dlib_load(enum uc_dlib lib, const char *const *names, void **fns, size_t n);

/* what: what needs it ("tables"); why: dlerror()'s line. The CLI's says so
 * and exits: libraries are opened while a command plans, before any write. */
typedef void uc_dlib_missing_fn(const char *soname, const char *what, const char *why);
void uc_dlib_on_missing(uc_dlib_missing_fn *fn);

/* Take lib's functions from sym() (NULL: not there) instead of the library,
 * from now on; NULL goes back to the library. A test seam: only tests/unit
 * calls it (test_cgroup scripts libcgroup's answers). */
void uc_dlib_use(enum uc_dlib lib, void *(*sym)(const char *name));

#endif
