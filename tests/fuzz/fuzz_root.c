/* The fake root of the fuzz targets (see fuzz.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "uclamp/sysroot.h"

static char root[PATH_MAX];

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	/* only our own mkdtemp directory */
	if (root[0] && strstr(root, "/uclampctl-fuzz.")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			return;
	}
}

const char *fuzz_root(void)
{
	const char *base;

	if (root[0])
		return root;
	base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" :
	       getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	snprintf(root, sizeof(root), "%s/uclampctl-fuzz.XXXXXX", base);
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	/* before the first sysroot call: uc_sysroot() reads it once */
	if (setenv(UC_SYSROOT_ENV, root, 1))
		abort();
	return root;
}

static void mkdirs(char *p)
{
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			abort();
		*s = '/';
	}
}

void fuzz_put(const char *abspath, const uint8_t *data, size_t size)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s%s", fuzz_root(), abspath);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 && errno == ENOENT) {
		mkdirs(p);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		abort();
	while (size) {
		ssize_t w = write(fd, data, size);

		if (w <= 0)
			abort();
		data += w;
		size -= (size_t)w;
	}
	close(fd);
}

char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

bool fuzz_dotdot(const char *path)
{
	/* "/path/" holds "/../" exactly when path has a ".." component */
	size_t len = strlen(path);
	char *s = malloc(len + 3);
	bool found;

	if (!s)
		abort();
	s[0] = '/';
	memcpy(s + 1, path, len);
	memcpy(s + 1 + len, "/", 2);
	found = strstr(s, "/../") != NULL;
	free(s);
	return found;
}
