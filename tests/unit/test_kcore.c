/*
 * test_kcore.c: the ELF core reader (src/lib/kcore.c) on crafted images.
 *
 * Every image is written to a temporary file. pread() is wrapped
 * (-Wl,--wrap=pread) so each test can check that the reader touched nothing
 * but the ELF header, the program header table and the bytes it was asked
 * for, and can inject EINTR, short reads and I/O errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uclamp/kmem.h"
#include "fakeroot.h"

/* ---- pread spy --------------------------------------------------------- */
struct rd {
	uint64_t off, len;
};
static struct rd reads[200000];
static size_t nreads;
static int inject_eintr;	/* fail the next N calls with EINTR */
static int inject_short;	/* return at most 1 byte per call */
static uint64_t inject_eio_at = UINT64_MAX;	/* -1/EIO for a read starting here */
static uint64_t inject_eof_at = UINT64_MAX;	/* 0 (end of file) for a read starting here */

ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	if (inject_eintr > 0) {
		inject_eintr--;
		errno = EINTR;
		return -1;
	}
	if ((uint64_t)off == inject_eio_at) {
		errno = EIO;
		return -1;
	}
	if ((uint64_t)off == inject_eof_at)
		return 0;
	if (inject_short && n > 1)
		n = 1;
	if (nreads < sizeof(reads) / sizeof(reads[0]))
		reads[nreads++] = (struct rd){ (uint64_t)off, n };
	return __real_pread(fd, buf, n, off);
}

/* every recorded read lies inside one of the allowed [off, off+len) ranges */
static void assert_reads_within(const struct rd *allowed, size_t nallowed)
{
	for (size_t i = 0; i < nreads; i++) {
		bool ok = false;

		for (size_t j = 0; j < nallowed && !ok; j++)
			ok = reads[i].off >= allowed[j].off &&
			     reads[i].off + reads[i].len <= allowed[j].off + allowed[j].len;
		if (!ok)
			fail_msg("read of %llu bytes at %#llx is outside "
				 "the headers and the target",
				 (unsigned long long)reads[i].len,
				 (unsigned long long)reads[i].off);
	}
}

/* ---- crafted images ---------------------------------------------------- */
#define PHOFF 64
#define DATA_START 0x1000

/* the byte stored at file offset off (so a read's content names its offset) */
static uint8_t pattern(uint64_t off)
{
	return (uint8_t)((off * 7 + 3) ^ (off >> 8));
}

static uint32_t pattern32(uint64_t off)
{
	uint8_t b[4] = { pattern(off), pattern(off + 1), pattern(off + 2), pattern(off + 3) };
	uint32_t v;

	memcpy(&v, b, 4);
	return v;
}

struct image {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[8];
	size_t nph;
	/* file size; the data region [DATA_START, size) gets the pattern */
	uint64_t size;
};

static void image_init(struct image *im)
{
	memset(im, 0, sizeof(*im));
	memcpy(im->eh.e_ident, ELFMAG, SELFMAG);
	im->eh.e_ident[EI_CLASS] = ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	im->eh.e_ident[EI_DATA] = ELFDATA2LSB;
#else
	im->eh.e_ident[EI_DATA] = ELFDATA2MSB;
#endif
	im->eh.e_ident[EI_VERSION] = EV_CURRENT;
	im->eh.e_type = ET_CORE;
	im->eh.e_machine = EM_X86_64;
	im->eh.e_version = EV_CURRENT;
	im->eh.e_phoff = PHOFF;
	im->eh.e_ehsize = sizeof(Elf64_Ehdr);
	im->eh.e_phentsize = sizeof(Elf64_Phdr);
	im->size = DATA_START;
}

static void image_seg(struct image *im, uint32_t type, uint64_t vaddr, uint64_t size, uint64_t off)
{
	Elf64_Phdr *p = &im->ph[im->nph++];

	p->p_type = type;
	p->p_flags = PF_R | PF_W | PF_X;
	p->p_offset = off;
	p->p_vaddr = vaddr;
	p->p_paddr = UINT64_MAX;
	p->p_filesz = size;
	p->p_memsz = size;
	p->p_align = 4096;
	/* tests that need absurd fields set them after this, so this sum is sane */
	if (type == PT_LOAD && off + size > im->size)
		im->size = off + size;
	im->eh.e_phnum = (Elf64_Half)im->nph;
}

/* The standard image: a PT_NOTE first (as in /proc/kcore), then three
 * PT_LOADs: kernel text, the direct map, and one ending at the top of the
 * address space. */
#define TEXT 0xffffffff81000000ull
#define DMAP 0xffff888000000000ull
#define TOP 0xfffffffffffff000ull
static void image_std(struct image *im)
{
	image_init(im);
	image_seg(im, PT_NOTE, 0, 0x100, 0x800);
	image_seg(im, PT_LOAD, TEXT, 0x1000, 0x1000);
	image_seg(im, PT_LOAD, DMAP, 0x2000, 0x2000);
	image_seg(im, PT_LOAD, TOP, 0x1000, 0x4000);
}

static char tmpdir[PATH_MAX - 64];	/* the images, each unlinked once open */
static const struct fr_suite suite = { tmpdir, sizeof(tmpdir), "test-kcore", false, { NULL } };

/* Write the image (headers first, then the pattern over the data region,
 * sparse beyond 1 MiB); returns an O_RDONLY fd. raw/rawlen, when given,
 * replace the headers' bytes (for truncation and garbage tests). */
static int image_write(const struct image *im, const void *raw, size_t rawlen, uint64_t cut)
{
	char path[PATH_MAX];
	int wfd, fd;
	uint64_t end = cut ? cut : im->size;
	uint8_t chunk[4096];

	assert_int_equal(fr_path(path, sizeof(path), tmpdir, "kcore.XXXXXX"), 0);
	wfd = mkstemp(path);
	assert_true(wfd >= 0);
	/* the pattern, only near the segments (the file may be sparse and huge) */
	for (size_t s = 0; s < im->nph; s++) {
		uint64_t a = im->ph[s].p_offset, len = im->ph[s].p_filesz, b;

		if (im->ph[s].p_type != PT_LOAD || a < DATA_START || a > (1ull << 40))
			continue;
		b = a + (len < (1u << 20) ? len : (1u << 20));
		for (uint64_t o = a; o < b && o < end; o += sizeof(chunk)) {
			size_t n = sizeof(chunk);

			if (o + n > b)
				n = b - o;
			if (o + n > end)
				n = end - o;
			for (size_t i = 0; i < n; i++)
				chunk[i] = pattern(o + i);
			assert_int_equal(pwrite(wfd, chunk, n, (off_t)o), (ssize_t)n);
		}
	}
	if (raw) {
		assert_int_equal(pwrite(wfd, raw, rawlen, 0), (ssize_t)rawlen);
	} else {
		assert_int_equal(pwrite(wfd, &im->eh, sizeof(im->eh), 0), (ssize_t)sizeof(im->eh));
		if (im->nph)
			assert_int_equal(pwrite(wfd, im->ph, im->nph * sizeof(Elf64_Phdr), PHOFF),
					 (ssize_t)(im->nph * sizeof(Elf64_Phdr)));
	}
	assert_int_equal(ftruncate(wfd, (off_t)end), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	close(wfd);
	unlink(path);
	nreads = 0;
	return fd;
}

static const struct rd hdr_ranges[] = { { 0, sizeof(Elf64_Ehdr) },
					{ PHOFF, 8 * sizeof(Elf64_Phdr) } };

/* read 4 bytes and check rc, the value (pattern of the expected file
 * offset) and that nothing else was read */
static void read4(int fd, uint64_t vaddr, int want_rc, uint64_t want_off, const char *why_has)
{
	uint32_t v = 0xdeadbeef;
	const char *why = NULL;
	int rc = uc_kcore_read_why(fd, vaddr, &v, 4, &why);

	if (rc != want_rc)
		fail_msg("vaddr %#llx: rc %d (%s), expected %d", (unsigned long long)vaddr, rc,
			 why ? why : "-", want_rc);
	if (rc == 0) {
		struct rd allowed[3] = { hdr_ranges[0], hdr_ranges[1], { want_off, 4 } };

		assert_int_equal(v, pattern32(want_off));
		assert_reads_within(allowed, 3);
	} else {
		assert_int_equal(v, 0xdeadbeef);	/* buf untouched on failure */
		assert_non_null(why);
		if (why_has && !strstr(why, why_has))
			fail_msg("reason '%s' lacks '%s'", why, why_has);
		assert_reads_within(hdr_ranges, 2);
	}
}

/* one read4: at vaddr, rc, the file offset read (rc 0) or words of the reason (else) */
struct probe {
	uint64_t vaddr;
	int rc;
	uint64_t off;
	const char *why;
};

#define PROBES(...) ((const struct probe[]){ __VA_ARGS__ })
/* read4s(fd, { vaddr, rc, off, why }, ...): each probe's reads checked on their own */
#define read4s(fd, ...) \
	read4_each((fd), PROBES(__VA_ARGS__), sizeof(PROBES(__VA_ARGS__)) / sizeof(struct probe))

static void read4_each(int fd, const struct probe *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		nreads = 0;
		read4(fd, p[i].vaddr, p[i].rc, p[i].off, p[i].why);
	}
}

/* the standard image with one field of the ELF header changed */
struct bad_header {
	size_t off, size;	/* the field, in Elf64_Ehdr */
	uint64_t value;
	const char *why;	/* words of the reason it is refused with */
};

#define EH(field) offsetof(Elf64_Ehdr, field), sizeof(((Elf64_Ehdr *)0)->field)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FOREIGN_DATA ELFDATA2MSB
#else
#define FOREIGN_DATA ELFDATA2LSB
#endif

static void set_field(Elf64_Ehdr *eh, size_t off, size_t size, uint64_t value)
{
	uint8_t *p = (uint8_t *)eh + off;
	uint16_t v16 = (uint16_t)value;

	if (size == 1)
		*p = (uint8_t)value;
	else if (size == 2)
		memcpy(p, &v16, 2);
	else if (size == 8)
		memcpy(p, &value, 8);
	else
		fail_msg("no %zu-byte fields in the ELF header", size);
}

/* image_std, written: its fd */
static int std_image(void)
{
	struct image im;

	image_std(&im);
	return image_write(&im, NULL, 0, 0);
}

/* ---- tests ------------------------------------------------------------- */
static void several_loads(void **state)
{
	int fd;

	(void)state;
	fd = std_image();
	read4s(fd, { TEXT + 0x710, 0, 0x1000 + 0x710, NULL },
	       { DMAP + 0x1ffc, 0, 0x2000 + 0x1ffc, NULL },
	       { TOP + 0x10, 0, 0x4000 + 0x10, NULL });
	/* the plain API agrees */
	uint32_t v;
	assert_int_equal(uc_kcore_read_why(fd, DMAP, &v, 4, NULL), 0);
	assert_int_equal(v, pattern32(0x2000));
	close(fd);
}

static void segment_edges(void **state)
{
	int fd;

	(void)state;
	fd = std_image();
	read4s(fd, { TEXT, 0, 0x1000, NULL },				/* first 4 bytes */
	       { TEXT + 0x1000 - 4, 0, 0x1000 + 0x1000 - 4, NULL },	/* last 4 bytes */
	       { TEXT + 0x1000 - 2, -EFAULT, 0, "no PT_LOAD" },	/* straddles the end */
	       { TEXT + 0x1000, -EFAULT, 0, "no PT_LOAD" },		/* just past it */
	       { TEXT - 1, -EFAULT, 0, "no PT_LOAD" },		/* straddles the start */
	       { TEXT - 4, -EFAULT, 0, "no PT_LOAD" },		/* just below it */
	       /* the very top of the address space: no overflow either way */
	       { UINT64_MAX - 3, 0, 0x4000 + 0xffc, NULL },
	       { UINT64_MAX - 2, -EFAULT, 0, "no PT_LOAD" },
	       { UINT64_MAX, -EFAULT, 0, NULL });
	close(fd);
}

static void no_segment(void **state)
{
	struct image im;
	int fd;

	(void)state;
	image_std(&im);
	fd = image_write(&im, NULL, 0, 0);
	read4s(fd, { 0, -EFAULT, 0, "no PT_LOAD" },
	       { 0xffffffffa0000000ull, -EFAULT, 0, "no PT_LOAD" },
	       /* inside the PT_NOTE's vaddr range: not a LOAD */
	       { 0x10, -EFAULT, 0, "no PT_LOAD" });
	close(fd);

	/* no program headers at all */
	image_init(&im);
	fd = image_write(&im, NULL, 0, 0);
	read4(fd, TEXT, -EFAULT, 0, "no PT_LOAD");
	close(fd);
}

static void truncated(void **state)
{
	struct image im;
	int fd;
	static const struct {
		uint64_t cut;
		const char *why;
	} cuts[] = {
		/* cut in the program header table, in the ELF header */
		{ PHOFF + sizeof(Elf64_Phdr) + 10, "truncated program headers" },
		{ 40, "truncated ELF header" },
		{ 1, "bad magic" },	/* a single byte */
	};

	(void)state;
	image_std(&im);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		fd = image_write(&im, NULL, 0, cuts[i].cut);
		read4(fd, TEXT, -ENOEXEC, 0, cuts[i].why);
		close(fd);
	}
	/* segment data beyond the end of the file: the short read is caught up front */
	fd = image_write(&im, NULL, 0, 0x1800);
	read4s(fd, { TEXT + 0x10, 0, 0x1010, NULL }, { TEXT + 0xa00, -EIO, 0, "beyond the end" });
	close(fd);
}

/* one field of the ELF header wrong: refused, naming it */
static void bad_header_fields(void **state)
{
	static const struct bad_header bad[] = {
		{ EH(e_ident[EI_CLASS]), ELFCLASS32, "32-bit" },
		{ EH(e_ident[EI_CLASS]), 7, "class" },
		{ EH(e_ident[EI_MAG1]), 'X', "bad magic" },
		{ EH(e_ident[EI_DATA]), FOREIGN_DATA, "byte order" },
		{ EH(e_type), ET_EXEC, "core" },
		{ EH(e_ident[EI_VERSION]), 0, "version" },
		/* e_phnum huge: the table would run far past the end of the file */
		{ EH(e_phnum), 65534, "truncated program headers" },
		{ EH(e_phnum), PN_XNUM, "extended" },
		{ EH(e_phentsize), 32, "too small" },
		/* e_phoff so large that e_phoff + table overflows 64 bits */
		{ EH(e_phoff), UINT64_MAX - 8, "truncated program headers" },
		{ EH(e_phoff), 16, "overlap" },
	};
	static const char text[] = "ffffffff81000000 T _text\n";
	struct image im;
	int fd;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		image_std(&im);
		set_field(&im.eh, bad[i].off, bad[i].size, bad[i].value);
		fd = image_write(&im, NULL, 0, 0);
		read4(fd, TEXT, -ENOEXEC, 0, bad[i].why);
		close(fd);
	}

	/* text that is not ELF at all */
	image_std(&im);
	fd = image_write(&im, text, sizeof(text) - 1, sizeof(text) - 1);
	read4(fd, TEXT, -ENOEXEC, 0, "bad magic");
	close(fd);
}

static void bad_phdr_fields(void **state)
{
	struct image im;
	int fd;

	(void)state;
	/* a covering segment whose p_offset + delta overflows */
	image_init(&im);
	image_seg(&im, PT_LOAD, TEXT, 0x1000, 0x1000);
	im.ph[0].p_offset = UINT64_MAX - 2;
	fd = image_write(&im, NULL, 0, 0);
	read4(fd, TEXT + 0x10, -ENOEXEC, 0, "offset out of range");
	close(fd);

	/* a huge p_filesz must not make p_vaddr + p_filesz wrap into a match */
	image_init(&im);
	image_seg(&im, PT_LOAD, TEXT, 0x1000, 0x1000);
	im.ph[0].p_filesz = UINT64_MAX;
	fd = image_write(&im, NULL, 0, 0);
	read4s(fd, { TEXT - 0x1000, -EFAULT, 0, "no PT_LOAD" },
	       /* covered, but not in the file */
	       { TEXT + 0x2000, -EIO, 0, "beyond the end" });
	close(fd);
}

/* entries larger than Elf64_Phdr (allowed by ELF): stride by e_phentsize */
static void larger_phentsize(void **state)
{
	uint8_t raw[PHOFF + 3 * 80];
	struct image im;
	int fd;

	(void)state;
	image_std(&im);
	im.eh.e_phentsize = 80;
	im.eh.e_phnum = 3;
	memset(raw, 0xee, sizeof(raw));
	memcpy(raw, &im.eh, sizeof(im.eh));
	for (int i = 0; i < 3; i++)
		memcpy(raw + PHOFF + i * 80, &im.ph[i], sizeof(Elf64_Phdr));
	fd = image_write(&im, raw, sizeof(raw), 0);
	read4(fd, DMAP + 8, 0, 0x2008, NULL);
	close(fd);
}

/* kcore's file offsets are far beyond 4 GiB: 64-bit offsets all the way */
static void offsets_above_4g(void **state)
{
	const uint64_t off = 0x140001000ull;	/* 5 GiB + 4 KiB */
	struct image im;
	int fd;

	(void)state;
	image_init(&im);
	image_seg(&im, PT_NOTE, 0, 0x100, 0x800);
	image_seg(&im, PT_LOAD, TEXT, 0x1000, off);
	fd = image_write(&im, NULL, 0, 0);
	read4(fd, TEXT + 0x710, 0, off + 0x710, NULL);
	close(fd);
}

static void io_faults(void **state)
{
	uint32_t v;
	int fd;

	(void)state;
	fd = std_image();

	/* EINTR and 1-byte reads are retried transparently */
	inject_eintr = 3;
	inject_short = 1;
	read4(fd, DMAP + 0x100, 0, 0x2100, NULL);
	inject_short = 0;
	assert_int_equal(inject_eintr, 0);

	/* an I/O error on the target bytes is passed on as -errno */
	nreads = 0;
	inject_eio_at = 0x2000 + 0x40;
	read4(fd, DMAP + 0x40, -EIO, 0, "read failed");
	inject_eio_at = UINT64_MAX;

	/* the file ends under our feet (a racing truncate): a short read */
	nreads = 0;
	inject_eof_at = 0x2000 + 0x80;
	read4(fd, DMAP + 0x80, -EIO, 0, "short read");
	inject_eof_at = UINT64_MAX;

	/* bad arguments */
	assert_int_equal(uc_kcore_read_why(-1, TEXT, &v, 4, NULL), -EINVAL);
	assert_int_equal(uc_kcore_read_why(fd, TEXT, NULL, 4, NULL), -EINVAL);
	assert_int_equal(uc_kcore_read_why(fd, TEXT, &v, 0, NULL), -EINVAL);
	close(fd);

	/* not seekable */
	int p[2];
	assert_int_equal(pipe(p), 0);
	assert_int_equal(uc_kcore_read_why(p[0], TEXT, &v, 4, NULL), -ESPIPE);
	close(p[0]);
	close(p[1]);
}

/* random garbage after a valid ident: errors only, no crash (run under
 * valgrind/ASan to see out-of-bounds reads in the reader itself) */
static void fuzz_headers(void **state)
{
	struct image im;
	uint8_t raw[PHOFF + 4 * sizeof(Elf64_Phdr)];

	(void)state;
	srand(12345);
	for (int round = 0; round < 300; round++) {
		uint32_t v;
		int fd, rc;

		image_std(&im);
		memcpy(raw, &im.eh, sizeof(im.eh));
		memcpy(raw + PHOFF, im.ph, 4 * sizeof(Elf64_Phdr));
		/* flip a few random bytes past the ident */
		for (int k = 0; k < 6; k++)
			raw[16 + rand() % (sizeof(raw) - 16)] = (uint8_t)rand();
		fd = image_write(&im, raw, sizeof(raw), 0);
		rc = uc_kcore_read_why(fd, TEXT + (uint64_t)(rand() % 0x1000), &v, 4, NULL);
		assert_true(rc == 0 || rc == -ENOEXEC || rc == -EFAULT || rc == -EIO);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(several_loads),
		cmocka_unit_test(segment_edges),
		cmocka_unit_test(no_segment),
		cmocka_unit_test(truncated),
		cmocka_unit_test(bad_header_fields),
		cmocka_unit_test(bad_phdr_fields),
		cmocka_unit_test(larger_phentsize),
		cmocka_unit_test(offsets_above_4g),
		cmocka_unit_test(io_faults),
		cmocka_unit_test(fuzz_headers),
	};

	return fr_run(&suite, tests, NULL, NULL);
}
