// SPDX-License-Identifier: GPL-2.0
/*
 * lraidctl: control lraid RAID5/RAID6 arrays through /dev/lraid-control.
 *
 *   lraidctl create lraidN --level 5|6 [--chunk SIZE] [--raid-devices N]
 *            [--spare-devices N] [--layout left-symmetric]
 *            [--bitmap internal|none] [--bitmap-chunk SIZE] [--assume-clean]
 *            [--run] MEMBER... [SPARE...]
 *   lraidctl assemble [--run] [--no-degraded] [--force] lraidN DEVICE...
 *   lraidctl assemble --scan [--run] [--no-degraded] [--force] [lraidN]
 *   lraidctl stop --scan | lraidN
 *   lraidctl fail lraidN MEMBER
 *   lraidctl add lraidN DEVICE
 *   lraidctl re-add lraidN DEVICE
 *   lraidctl remove lraidN MEMBER
 *   lraidctl detail --scan | [--json] lraidN
 *   lraidctl examine --scan | [--json] MEMBER...
 *   lraidctl incremental [--run] [--quiet] MEMBER
 *   lraidctl action check|repair|idle|frozen [--wait] lraidN...
 *   lraidctl action --wait lraidN...
 *   lraidctl version | --version | help
 */
#define _GNU_SOURCE		/* O_DIRECT */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <linux/blkpg.h>
#include <linux/fs.h>		/* BLKGETSIZE64 */
#include <linux/netlink.h>
#include <sys/file.h>		/* flock */
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>

#include "uapi/lraid.h"

/* kernel-style names used by the shared superblock codec header */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#include "lraid_sb.h"

/* ABI layout; module/lraid_ctl.c asserts the same */
static_assert(sizeof(struct lraid_ioc_version) == 48);
static_assert(sizeof(struct lraid_ioc_create) == 64);
static_assert(sizeof(struct lraid_ioc_assemble) == 56);
static_assert(sizeof(struct lraid_ioc_stop) == 24);
static_assert(sizeof(struct lraid_ioc_member) == 24);
static_assert(sizeof(struct lraid_ioc_fail) == 32);
static_assert(sizeof(struct lraid_ioc_add) == 32);
static_assert(sizeof(struct lraid_ioc_remove) == 32);
static_assert(sizeof(struct lraid_ioc_info) == 104 + 32 * 24);
static_assert(offsetof(struct lraid_ioc_create, member_fds) == 16);
static_assert(offsetof(struct lraid_ioc_assemble, member_fds) == 16);
static_assert(offsetof(struct lraid_ioc_info, members) == 104);

#define CONTROL_PATH	"/dev/" LRAID_CONTROL_NAME
#define TOOL_VERSION	"1.0"

static const char *prog = "lraidctl";

static void __attribute__((format(printf, 1, 2))) err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage(void)
{
	fprintf(stderr,
		"usage:\n"
		"  %s create lraidN --level 5|6 [--chunk SIZE] [--raid-devices N]\n"
		"         [--spare-devices N] [--layout left-symmetric]\n"
		"         [--bitmap internal|none] [--bitmap-chunk SIZE] [--assume-clean]\n"
		"         [--run] MEMBER... [SPARE...]\n"
		"  %s assemble [--run] [--no-degraded] [--force] lraidN DEVICE...\n"
		"  %s assemble --scan [--run] [--no-degraded] [--force] [lraidN]\n"
		"  %s stop --scan | lraidN\n"
		"  %s fail lraidN MEMBER\n"
		"  %s add lraidN DEVICE\n"
		"  %s re-add lraidN DEVICE                (mdadm --re-add)\n"
		"  %s remove lraidN MEMBER\n"
		"  %s detail --scan | [--json] lraidN\n"
		"  %s list\n"
		"  %s examine --scan | [--json] MEMBER...\n"
		"  %s incremental [--run] [--quiet] MEMBER\n"
		"  %s action check|repair|idle|frozen [--wait] lraidN...\n"
		"  %s action check|repair [--wait] --scan   (every array not degraded nor busy)\n"
		"  %s action --wait lraidN...\n"
		"  %s check|repair [--wait] lraidN...     (action check|repair)\n"
		"  %s set lraidN [--speed-min KIB|system] [--speed-max KIB|system]\n"
		"  %s monitor --scan | lraidN... [--program CMD] [--syslog] [--mail ADDR]\n"
		"         [--delay SECONDS] [--increment PERCENT] [--oneshot] [--test]\n"
		"         [--daemonise] [--pid-file FILE] [--spare-group lraidA,lraidB...]\n"
		"                                             (mdadm --monitor)\n"
		"  %s version | --version | help\n"
		"SIZE: KiB, or with a K, M or G suffix (chunk default 64K; bitmap chunk\n"
		"default 64M, or more if the bitmap needs it); --bitmap default: internal\n"
		"when each member's data area is 100G or more, else none. --spare-devices:\n"
		"the last N devices given are added as spares once the array is made.\n"
		"assemble: DEVICE... are members and spares. Options also as --level=6,\n"
		"-l6, -c 64, -n 4, -x 1, -p ls, -b internal, -R, -f, -s (as mdadm);\n"
		"lraidN may be /dev/lraidN.\n",
		prog, prog, prog, prog, prog, prog, prog, prog, prog, prog,
		prog, prog, prog, prog, prog, prog, prog, prog, prog);
	return 2;
}

/* N of a name "lraidN" within range, else -1 */
static int name_index(const char *name)
{
	unsigned long v;
	char *end;

	if (strncmp(name, "lraid", 5) || !isdigit((unsigned char)name[5]))
		return -1;
	errno = 0;
	v = strtoul(name + 5, &end, 10);
	if (errno || *end || v >= LRAID_MAX_ARRAYS)
		return -1;
	return v;
}

/* "lraidN" or "/dev/lraidN" -> N */
static int parse_array(const char *s, uint32_t *index)
{
	int n = name_index(strncmp(s, "/dev/", 5) ? s : s + 5);

	if (n < 0) {
		err("'%s' is not an array name (expected lraidN or /dev/lraidN, N below %d)",
		    s, LRAID_MAX_ARRAYS);
		return -1;
	}
	*index = n;
	return 0;
}

/* --scan or -s: the arrays, not one (stop, detail, examine) */
static bool is_scan(const char *arg)
{
	return !strcmp(arg, "--scan") || !strcmp(arg, "-s");
}

/*
 * SIZE with an optional K/M/G suffix; a bare number is << @shift (mdadm:
 * KiB). A number above 2^40, or above 2^50 bytes with a suffix, is refused.
 */
static int parse_size(const char *s, uint64_t *out, unsigned int shift)
{
	unsigned long long v;
	unsigned int unit = 0;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || v > (1ULL << 40))
		return -1;
	if (!*end) {
		*out = v << shift;
		return 0;
	}
	if (*end == 'k' || *end == 'K')
		unit = 10;
	else if (*end == 'm' || *end == 'M')
		unit = 20;
	else if (*end == 'g' || *end == 'G')
		unit = 30;
	if (unit) {
		if (v > 1ULL << (50 - unit))
			return -1;
		v <<= unit;
		if (*++end == 'i')	/* KiB, MiB */
			end++;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -1;
	*out = v;
	return 0;
}

static int open_control(void)
{
	int fd = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		err("cannot open %s: %s%s", CONTROL_PATH, strerror(errno),
		    errno == ENOENT ? " (is lraid.ko loaded?)" : "");
	return fd;
}

/* Where a block device sits: its sysfs node, its disk's, its sectors. */
struct dev_place {
	char node[PATH_MAX];	/* /sys/devices/.../block/DISK[/PART] */
	char disk[PATH_MAX];	/* the whole disk's node */
	unsigned long long start, size;
	bool part;
};

static unsigned long long sys_number(const char *dir, const char *name)
{
	unsigned long long v = 0;
	char path[PATH_MAX + 16];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* The first line of sysfs file @dir/@name, without its newline; "" if none. */
static void sys_line(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX + 16];
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(out, len, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
}

/* Whether array @index keeps a write-intent bitmap (sysfs, 1.4 on) */
static bool array_has_bitmap(unsigned int index)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/sys/block/lraid%u/lraid", index);
	return sys_number(dir, "bitmap_region_kb") != 0;
}

/* A pass, as /sys/block/lraidN/lraid/ tells it. */
struct sync_state {
	/* idle, check, repair, resync, recover; "" for an older module */
	char action[16];
	char last[16];		/* none, or one of those passes */
	unsigned long long done, total, mismatches;
	bool running;
};

static void sync_state(unsigned int index, struct sync_state *st)
{
	char dir[64], line[64];

	snprintf(dir, sizeof(dir), "/sys/block/lraid%u/lraid", index);
	sys_line(dir, "sync_action", st->action, sizeof(st->action));
	sys_line(dir, "last_sync_action", st->last, sizeof(st->last));
	st->mismatches = sys_number(dir, "mismatch_cnt");
	sys_line(dir, "sync_completed", line, sizeof(line));
	if (sscanf(line, "%llu / %llu", &st->done, &st->total) != 2)
		st->done = st->total = 0;
	st->running = st->action[0] && strcmp(st->action, "idle");
}

/* Returns false when sysfs does not say (the kernel still checks). */
static bool dev_place(dev_t d, struct dev_place *p)
{
	char link[64], tmp[PATH_MAX + 16];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d), minor(d));
	if (!realpath(link, p->node))
		return false;
	snprintf(tmp, sizeof(tmp), "%s/partition", p->node);
	p->part = access(tmp, F_OK) == 0;
	strcpy(tmp, p->node);
	strcpy(p->disk, p->part ? dirname(tmp) : p->node);
	p->start = p->part ? sys_number(p->node, "start") : 0;
	p->size = sys_number(p->node, "size");
	return true;
}

/* A disk and its own partition, or two partitions sharing sectors. */
static bool dev_overlap(const struct dev_place *a, const struct dev_place *b)
{
	if (strcmp(a->disk, b->disk))
		return false;
	if (!a->part || !b->part)
		return true;
	return a->start < b->start + b->size && b->start < a->start + a->size;
}

/*
 * Open the members (@flags: O_RDWR for create, which writes them; assemble
 * only reads them, and the kernel opens them itself: a read-write open
 * would make udev send a change event for each member when it is closed,
 * and its rule run incremental again) and check what can be checked here
 * for clear errors.
 */
static int open_members(int argc, char **argv, int32_t *fds, int flags)
{
	static struct dev_place place[LRAID_MAX_MEMBERS_ABI];
	bool known[LRAID_MAX_MEMBERS_ABI];
	dev_t devs[LRAID_MAX_MEMBERS_ABI];
	int i, j;

	if (argc > LRAID_MAX_MEMBERS_ABI) {
		err("too many members: %d (at most %d)", argc,
		    LRAID_MAX_MEMBERS_ABI);
		return -1;
	}
	for (i = 0; i < argc; i++) {
		struct stat st;

		fds[i] = open(argv[i], flags | O_CLOEXEC);
		if (fds[i] < 0) {
			err("cannot open member %s: %s", argv[i], strerror(errno));
			goto fail;
		}
		if (fstat(fds[i], &st)) {
			err("cannot stat member %s: %s", argv[i],
			    strerror(errno));
			i++;
			goto fail;
		}
		if (!S_ISBLK(st.st_mode)) {
			err("member %s is not a block device: %s", argv[i],
			    strerror(ENOTBLK));
			i++;
			goto fail;
		}
		devs[i] = st.st_rdev;
		known[i] = dev_place(devs[i], &place[i]);
		for (j = 0; j < i; j++) {
			if (devs[j] == devs[i]) {
				err("member %s given twice (same device as %s): %s",
				    argv[i], argv[j], strerror(EINVAL));
				i++;
				goto fail;
			}
			if (known[i] && known[j] &&
			    dev_overlap(&place[i], &place[j])) {
				err("member %s overlaps member %s (a disk and its own partition): %s",
				    argv[i], argv[j], strerror(EINVAL));
				i++;
				goto fail;
			}
		}
	}
	return 0;
fail:
	while (i-- > 0)
		if (fds[i] >= 0)
			close(fds[i]);
	return -1;
}

/*
 * Drop the kernel's partitions of a whole-disk member, as mdadm's create
 * does. Create erased the partition table, but the partition devices the
 * kernel read from it stay until the table is read again (which the
 * array's claim on the disk refuses), and a write through one would land
 * in the array's data. A partition someone holds open stays: that is
 * reported, and the array is made all the same.
 */
static void drop_partitions(int fd, const char *path)
{
	char dir[64], sub[64 + 2 * NAME_MAX];
	struct dirent **names;
	struct stat st;
	int n, i;

	if (fstat(fd, &st)) {
		err("warning: cannot look for partitions of member %s: %s",
		    path, strerror(errno));
		return;
	}
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	/* the whole listing first: the deletions change the directory */
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		err("warning: cannot look for partitions of member %s in %s: %s",
		    path, dir, strerror(errno));
	for (i = 0; i < n; i++) {
		struct blkpg_partition part = { 0 };
		struct blkpg_ioctl_arg arg = {
			.op = BLKPG_DEL_PARTITION,
			.datalen = sizeof(part),
			.data = &part,
		};
		const char *name = names[i]->d_name;

		snprintf(sub, sizeof(sub), "%s/%s", dir, name);
		part.pno = name[0] == '.' ? 0 : (int)sys_number(sub, "partition");
		if (part.pno > 0 && ioctl(fd, BLKPG, &arg) && errno != ENXIO) {
			if (errno == EBUSY)
				err("warning: partition %s of member %s is open and stays, though create erased its table; once it is closed: delpart %s %d",
				    name, path, path, part.pno);
			else
				err("warning: partition %s of member %s stays, though create erased its table: %s",
				    name, path, strerror(errno));
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void close_members(int n, int32_t *fds)
{
	while (n-- > 0)
		close(fds[n]);
}

static const char *errno_hint(int e);
static void uuid_str(const uint8_t *u, char *out);

/*
 * Why an index answers EBUSY while a create or assemble of it is under way
 * (see being_created()); a create may zero its members for hours.
 */
#define BEING_CREATED "being created or assembled"

/*
 * The superblock block of @path into @block, read around the page cache:
 * the kernel writes superblocks of a running array with direct bios, so
 * while it holds the member open a buffered read can return a copy from
 * before them. Devices and files that refuse O_DIRECT (a file system
 * without it, a logical block larger than the superblock) are read
 * through the cache. With @in_use, the device is first opened exclusively
 * and *@in_use says whether something else holds it (a file system, a
 * device-mapper table, an array); it is then read all the same. Returns
 * 0, or -errno with why in @msg (@len bytes).
 */
static int read_sb_block(const char *path, uint8_t *block, bool *in_use,
			 char *msg, size_t len)
{
	int flags = O_RDONLY | O_CLOEXEC | O_DIRECT | (in_use ? O_EXCL : 0);
	ssize_t n;
	int fd, e;

	for (;;) {
		fd = open(path, flags);
		if (fd < 0 && errno == EBUSY && (flags & O_EXCL)) {
			*in_use = true;
			flags &= ~O_EXCL;
			continue;
		}
		if (fd < 0 && errno == EINVAL && (flags & O_DIRECT)) {
			flags &= ~O_DIRECT;
			continue;
		}
		if (fd < 0) {
			e = errno;
			snprintf(msg, len, "cannot open %s: %s", path,
				 strerror(e));
			return -e;
		}
		n = pread(fd, block, LRAID_SB_SIZE, 0);
		e = n < 0 ? errno : EIO;	/* short: smaller than that */
		close(fd);
		if (n < 0 && e == EINVAL && (flags & O_DIRECT)) {
			flags &= ~O_DIRECT;
			continue;
		}
		break;
	}
	if (n != (ssize_t)LRAID_SB_SIZE) {
		snprintf(msg, len, "cannot read the superblock of %s: %s", path,
			 n < 0 ? strerror(e) : "short read");
		return -e;
	}
	return 0;
}

/*
 * Read and decode the superblock of @path. Returns 0, -EIO after printing
 * why the device could not be read, or the decoder's errno with *@why set.
 */
static int read_sb(const char *path, struct lraid_sb_info *sb,
		   const char **why)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	char msg[PATH_MAX + 128];
	int ret;

	ret = read_sb_block(path, block, NULL, msg, sizeof(msg));
	if (ret) {
		err("%s", msg);
		return -EIO;
	}
	return lraid_sb_decode(block, sb, why);
}

/* The 4096 bytes at @off of the open device @fd into @buf; false if not. */
static bool read_at(int fd, uint8_t *buf, unsigned long long off)
{
	return pread(fd, buf, 4096, off) == 4096;
}

static uint32_t get_le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the block @blk starts with lraid's superblock magic */
static bool has_sb_magic(const uint8_t *blk)
{
	return get_le32(blk) == (uint32_t)LRAID_SB_MAGIC &&
	       get_le32(blk + 4) == (uint32_t)(LRAID_SB_MAGIC >> 32);
}

/* Whether @path no longer carries an lraid superblock (nor is unreadable). */
static bool sb_gone(const char *path)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	char msg[PATH_MAX + 128];

	return !read_sb_block(path, block, NULL, msg, sizeof(msg)) &&
	       !has_sb_magic(block);
}

#define MD_SB_MAGIC	0xa92b4efcU

/* Signatures at fixed offsets in the first 4 KiB (@blk 0) or at 64 KiB (1) */
static const struct member_sig {
	unsigned int blk, off, len;
	const char *magic, *what;
} member_sigs[] = {
	{ 0, 1080, 2, "\x53\xef", "an ext2/ext3/ext4 file system" },
	{ 0, 0, 4, "XFSB", "an XFS file system" },
	{ 1, 64, 8, "_BHRfS_M", "a btrfs file system" },
	{ 0, 0, 6, "LUKS\xba\xbe", "a LUKS header" },
	{ 0, 512, 8, "LABELONE", "an LVM physical volume label" },
	{ 0, 4086, 10, "SWAPSPACE2", "swap space" },
	{ 0, 512, 8, "EFI PART", "a GPT partition table" },
};

/*
 * What a device about to become a member already holds, looked for as
 * mdadm looks before it creates: an lraid or md superblock, a file
 * system, a partition table or another known signature. Prints each find
 * and returns how many there were; a device that cannot be opened is left
 * to the create to report, one that cannot be read counts as a find.
 */
static int probe_member(const char *path)
{
	static uint8_t blk[3][4096] __attribute__((aligned(4096)));
	unsigned long long bytes = 0, md_off[4];
	static const char *const md_ver[4] = { "1.1", "1.2", "1.0", "0.90" };
	struct lraid_sb_info sb;
	const char *why = "";
	struct stat st;
	int fd, found = 0;
	unsigned int i;
	char uuid[40];

	fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECT);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISBLK(st.st_mode) ||
	    ioctl(fd, BLKGETSIZE64, &bytes) ||
	    bytes < LRAID_MD_END_MIN_SECTORS << 9) {
		close(fd);
		return 0;
	}
	errno = 0;	/* a short read sets none */
	if (!read_at(fd, blk[0], 0) || !read_at(fd, blk[1], 65536)) {
		err("%s: cannot read it to see what it holds: %s", path,
		    strerror(errno ? errno : EIO));
		close(fd);
		return 1;
	}
	if (has_sb_magic(blk[0])) {
		if (lraid_sb_decode(blk[0], &sb, &why)) {
			err("%s holds a damaged lraid superblock (%s)", path,
			    why);
		} else if (lraid_sb_is_spare(&sb)) {
			uuid_str(sb.uuid, uuid);
			err("%s is a spare of lraid array '%s' (RAID%u, %u members, UUID %s)",
			    path, sb.name, sb.level, sb.nr_members, uuid);
		} else {
			uuid_str(sb.uuid, uuid);
			err("%s is role %u of lraid array '%s' (RAID%u, %u members, UUID %s)",
			    path, sb.role, sb.name, sb.level, sb.nr_members,
			    uuid);
		}
		found++;
	}
	/* md 1.1 at 0, 1.2 at 4 KiB, 1.0 and 0.90 near the end */
	md_off[0] = 0;
	md_off[1] = 4096;
	md_off[2] = lraid_md10_sector(bytes >> 9) << 9;
	md_off[3] = lraid_md090_sector(bytes >> 9) << 9;
	for (i = 0; i < 4; i++) {
		if (read_at(fd, blk[2], md_off[i]) &&
		    get_le32(blk[2]) == MD_SB_MAGIC) {
			err("%s holds an md superblock (metadata %s)", path,
			    md_ver[i]);
			found++;
		}
	}
	close(fd);
	for (i = 0; i < sizeof(member_sigs) / sizeof(member_sigs[0]); i++) {
		const struct member_sig *m = &member_sigs[i];

		if (!memcmp(blk[m->blk] + m->off, m->magic, m->len)) {
			err("%s holds %s", path, m->what);
			found++;
		}
	}
	if (!found && blk[0][510] == 0x55 && blk[0][511] == 0xaa) {
		err("%s holds a partition table or boot sector", path);
		found++;
	}
	return found;
}

/*
 * Members that differ in size by more than 1% of the largest (mdadm's
 * threshold): the smallest sets the size, and the rest of the larger ones
 * goes unused. Names the largest and returns whether there is such a
 * difference.
 */
static bool size_oddity(int nm, char **paths, const int32_t *fds)
{
	uint64_t bytes, small = UINT64_MAX, large = 0;
	int i, s = 0, l = 0;

	for (i = 0; i < nm; i++) {
		if (ioctl(fds[i], BLKGETSIZE64, &bytes))
			return false;	/* the kernel tells */
		if (bytes < small) {
			small = bytes;
			s = i;
		}
		if (bytes > large) {
			large = bytes;
			l = i;
		}
	}
	if ((large - small) * 100 <= large)
		return false;
	err("%s (%" PRIu64 "K) is more than 1%% larger than the smallest member, %s (%" PRIu64 "K): the smallest sets the size, the rest goes unused",
	    paths[l], large >> 10, paths[s], small >> 10);
	return true;
}

/*
 * Whether to go on with a create over @nm members and the spares after
 * them, @nd devices in all: yes if none holds anything probe_member()
 * knows and the members' sizes agree, if @run, or if the user says so on
 * a terminal; otherwise no, with the reason.
 */
static bool may_create(int nm, int nd, char **paths, const int32_t *fds,
		       bool run)
{
	char line[16] = "";
	int i, found = 0;
	bool odd;

	for (i = 0; i < nd; i++)
		found += probe_member(paths[i]);
	odd = size_oddity(nm, paths, fds);
	if ((!found && !odd) || run)
		return true;
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		fprintf(stderr, "%s: continue creating the array%s? [y/N] ",
			prog, found ? " over them" : "");
		if (fgets(line, sizeof(line), stdin) &&
		    (line[0] == 'y' || line[0] == 'Y'))
			return true;
	}
	if (found)
		err("create refused: it would overwrite what the %s above hold; --run creates anyway: %s",
		    nd > nm ? "devices" : "members", strerror(EEXIST));
	else
		err("create refused: the members differ in size; --run creates anyway: %s",
		    strerror(EINVAL));
	return false;
}

/*
 * Issue @req with @arg (whose member_fds field is @fds_field) for the
 * members open as @fds, which stay open. Returns 0 or the ioctl's errno
 * (after printing why), -1 for any other failure.
 */
static int member_ioctl(const char *verb, uint32_t index, int32_t *fds,
			unsigned long req, void *arg, __u64 *fds_field)
{
	int ctl, ret = 0;

	ctl = open_control();
	if (ctl < 0)
		return -1;
	*fds_field = (uintptr_t)fds;
	if (ioctl(ctl, req, arg)) {
		ret = errno;
		err("%s lraid%u failed: %s%s", verb, index, strerror(ret),
		    errno_hint(ret));
	}
	close(ctl);
	return ret;
}

static const char *errno_hint(int e)
{
	switch (e) {
	case EBUSY:
		return " (a member or the array is in use: mounted, opened exclusively, part of another array, being created or assembled, or this array already running under another number)";
	case EEXIST:
		return " (that array number is already running)";
	case ENODEV:
		return " (no such array, or members missing; see dmesg)";
	case ENOSPC:
		return " (members too small for this layout)";
	case EFBIG:
		return " (the array would be larger than a block device can be)";
	case EINVAL:
		return " (see dmesg for the field that was refused)";
	case EBADMSG:
		return " (superblock checksum mismatch)";
	default:
		return "";
	}
}

/*
 * Each member's data area from which create keeps a write-intent bitmap
 * when --bitmap is not given: mdadm's 100 GiB, in sectors.
 */
#define AUTO_BITMAP_SECTORS	(100ULL << 21)

/*
 * The loaded module's ABI and features into *@v: 0, or -1 after saying
 * why it could not be asked.
 */
static int kernel_version(struct lraid_ioc_version *v)
{
	int ctl = open_control();

	if (ctl < 0)
		return -1;
	memset(v, 0, sizeof(*v));
	if (ioctl(ctl, LRAID_IOC_VERSION, v)) {
		err("version query failed: %s", strerror(errno));
		close(ctl);
		return -1;
	}
	close(ctl);
	return 0;
}

/*
 * Whether the loaded module keeps a write-intent bitmap: ABI 1.4 or later
 * with LRAID_FEAT_BITMAP. Returns 1 or 0 (*@v then says which ABI it
 * has), or -1 after saying why it could not be asked.
 */
static int kernel_has_bitmap(struct lraid_ioc_version *v)
{
	if (kernel_version(v))
		return -1;
	return (v->major > 1 || v->minor >= 4) &&
	       (v->features & LRAID_FEAT_BITMAP);
}

/* Whether the module of @v keeps spares: ABI 1.5 with LRAID_FEAT_SPARES */
static bool has_spares(const struct lraid_ioc_version *v)
{
	return (v->major > 1 || v->minor >= 5) &&
	       (v->features & LRAID_FEAT_SPARES);
}

/* The same asked through @ctl, quietly: false when it cannot be asked */
static bool ctl_has_spares(int ctl)
{
	struct lraid_ioc_version v;

	memset(&v, 0, sizeof(v));
	return !ioctl(ctl, LRAID_IOC_VERSION, &v) && has_spares(&v);
}

/*
 * Whether the loaded module is known to keep no spares (its ABI in *@v);
 * quietly false when it cannot be asked: the command then says why.
 */
static bool kernel_lacks_spares(struct lraid_ioc_version *v)
{
	int ctl = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	bool lacks;

	memset(v, 0, sizeof(*v));
	if (ctl < 0)
		return false;
	lacks = !ioctl(ctl, LRAID_IOC_VERSION, v) && !has_spares(v);
	close(ctl);
	return lacks;
}

/* The smallest member's size in sectors; 0 when one does not say */
static uint64_t smallest_member(int nm, const int32_t *fds)
{
	uint64_t bytes, small = UINT64_MAX;
	int i;

	for (i = 0; i < nm; i++) {
		if (ioctl(fds[i], BLKGETSIZE64, &bytes))
			return 0;
		if (bytes < small)
			small = bytes;
	}
	return small >> 9;
}

/* Bits a bitmap needs for @sectors of data at @region sectors per bit */
static uint64_t bitmap_bits(uint64_t sectors, uint64_t region)
{
	return sectors / region + !!(sectors % region);
}

/*
 * Settle create's bitmap in @c (level, members and chunk set): @want is
 * 1 for --bitmap=internal (the module's support already checked), 0 for
 * none, -1 when --bitmap was not given: internal when each member's data
 * area is at least 100 GiB and the module keeps bitmaps, as mdadm
 * decides. @region is --bitmap-chunk in bytes (0: the kernel's default),
 * checked against the layout lraid_sb_plan() gives the smallest member,
 * as the kernel will. Members too small for any layout are left to the
 * kernel to refuse. Returns 0, or 1 after saying why not.
 */
static int create_bitmap(struct lraid_ioc_create *c, int nm,
			 const int32_t *fds, int want, uint64_t region)
{
	struct lraid_sb_info info = { 0 };
	struct lraid_ioc_version v;
	uint64_t dev, room, fits;
	int has;

	if (!want)
		return 0;
	info.level = c->level;
	info.nr_members = c->nr_members;
	info.chunk_sectors = c->chunk_bytes >> 9;
	dev = smallest_member(nm, fds);
	if (!dev || lraid_sb_plan(&info, dev, false)) {
		if (want > 0) {
			c->flags |= LRAID_CREATE_BITMAP;
			c->bitmap_region_bytes = region;
		}
		return 0;
	}
	if (want < 0) {
		if (info.data_size < AUTO_BITMAP_SECTORS)
			return 0;
		has = kernel_has_bitmap(&v);
		if (has < 0)
			return 1;
		if (!has) {
			err("note: no write-intent bitmap on this large array: the lraid module (ABI %u.%u) keeps none",
			    v.major, v.minor);
			return 0;
		}
		err("automatically enabling write-intent bitmap on large array (--bitmap=none for none)");
		c->flags |= LRAID_CREATE_BITMAP;
		return 0;
	}
	info.bitmap_region_sectors = region >> 9;
	if (lraid_sb_plan(&info, dev, true) == -ENOSPC) {
		room = info.bitmap_sectors << 12;
		for (fits = region >> 9; bitmap_bits(info.data_size, fits) > room;)
			fits <<= 1;
		err("--bitmap-chunk %" PRIu64 "K too small: each member's data area (%" PRIu64 " sectors) is %" PRIu64 " regions of that size, more than the bitmap's %" PRIu64 " bits (the %" PRIu64 " sectors in front of the data area); %" PRIu64 "K or more fits: %s",
		    region >> 10, (uint64_t)info.data_size,
		    bitmap_bits(info.data_size, region >> 9), room,
		    (uint64_t)info.bitmap_sectors, fits >> 1, strerror(ENOSPC));
		return 1;
	}
	c->flags |= LRAID_CREATE_BITMAP;
	c->bitmap_region_bytes = region;
	return 0;
}

/*
 * Whether the spares @paths[nm..nd-1] (open as @fds) can be added to the
 * array @c (level, members and chunk set) once it is made of the members
 * @fds[0..nm-1]: each large enough for a member's data offset and data
 * area, as lraid_sb_plan() lays them out on the smallest member (as the
 * kernel will, and as its add checks), and not in use (an exclusive open
 * succeeds: the add claims it so). Checked before the create, so that a
 * spare refused leaves no array made without it. Members too small for
 * any layout are left to the kernel to refuse. Returns 0, or 1 after
 * saying why not.
 */
static int spares_fit(const struct lraid_ioc_create *c, int nm, int nd,
		      char **paths, const int32_t *fds)
{
	struct lraid_sb_info info = { 0 };
	uint64_t dev, bytes, need = 0;
	int i, fd;

	info.level = c->level;
	info.nr_members = c->nr_members;
	info.chunk_sectors = c->chunk_bytes >> 9;
	dev = smallest_member(nm, fds);
	if (dev && !lraid_sb_plan(&info, dev, false))
		need = info.data_offset + info.data_size;
	for (i = nm; i < nd; i++) {
		if (ioctl(fds[i], BLKGETSIZE64, &bytes)) {
			err("cannot tell the size of spare %s: %s", paths[i],
			    strerror(errno));
			return 1;
		}
		if ((bytes >> 9) < need) {
			err("spare %s has %llu sectors; a member of this array needs %llu: the data offset, %llu, and %llu of data: %s",
			    paths[i], (unsigned long long)(bytes >> 9),
			    (unsigned long long)need,
			    (unsigned long long)info.data_offset,
			    (unsigned long long)info.data_size,
			    strerror(ENOSPC));
			return 1;
		}
		fd = open(paths[i], O_RDONLY | O_EXCL | O_CLOEXEC);
		if (fd < 0 && errno == EBUSY) {
			err("spare %s is in use: mounted, a member of another array, or held open exclusively by some program: %s",
			    paths[i], strerror(EBUSY));
			return 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static int add_device(uint32_t index, const char *path, uint32_t flags,
		      int oflags);

static const struct option create_opts[] = {
	{ "level", required_argument, NULL, 'l' },
	{ "chunk", required_argument, NULL, 'c' },
	{ "raid-devices", required_argument, NULL, 'n' },
	{ "spare-devices", required_argument, NULL, 'x' },
	{ "assume-clean", no_argument, NULL, 'a' },
	{ "layout", required_argument, NULL, 'p' },
	{ "run", no_argument, NULL, 'R' },
	{ "bitmap", required_argument, NULL, 'b' },
	{ "bitmap-chunk", required_argument, NULL, 'B' },
	{ NULL, 0, NULL, 0 },
};

/*
 * create lraidN MEMBER... [SPARE...] with mdadm's spellings: --level=5,
 * -l5, -l raid6, --chunk=64 (KiB, like mdadm) or 64K/1M, -n/--raid-devices
 * to check the member count, -x/--spare-devices for the number of
 * devices at the end that are spares (mdadm: raid devices and spare
 * devices add up to the devices given), --layout=left-symmetric,
 * --bitmap=internal|none (-b), --bitmap-chunk=65536 (KiB) or 64M, options
 * before or after names. The array is made of the members, then each
 * spare is added to it (LRAID_IOC_ADD, which keeps it a spare: no role
 * is down); what can refuse a spare is checked before the array is made
 * (spares_fit()).
 */
static int cmd_create(int argc, char **argv)
{
	struct lraid_ioc_create c = { 0 };
	int32_t fds[LRAID_MAX_MEMBERS_ABI];
	uint64_t chunk = 64 << 10, region = 0;
	int level = 0, nr_devs = 0, nr_spare = 0, nd, nm, opt, ret, i;
	const char *name = NULL, *region_arg = NULL;
	int first_member = -1, bitmap = -1;
	struct lraid_ioc_version v;
	bool run = false;
	char *end;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "l:c:n:x:p:Rb:", create_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (!strcmp(optarg, "5") || !strcmp(optarg, "raid5"))
				level = 5;
			else if (!strcmp(optarg, "6") || !strcmp(optarg, "raid6"))
				level = 6;
			else {
				err("--level must be 5 or 6, not '%s'", optarg);
				return 1;
			}
			break;
		case 'c':
			if (parse_size(optarg, &chunk, 10)) {
				err("bad --chunk '%s' (KiB, or with a K or M suffix)",
				    optarg);
				return 1;
			}
			break;
		case 'n':
			errno = 0;
			nr_devs = (int)strtol(optarg, &end, 10);
			if (errno || *end || nr_devs < 1 ||
			    nr_devs > LRAID_MAX_MEMBERS_ABI) {
				err("bad --raid-devices '%s'", optarg);
				return 1;
			}
			break;
		case 'x':
			errno = 0;
			nr_spare = (int)strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || nr_spare < 0 ||
			    nr_spare >= LRAID_MAX_MEMBERS_ABI) {
				err("bad --spare-devices '%s'", optarg);
				return 1;
			}
			break;
		case 'a':
			c.flags |= LRAID_CREATE_ASSUME_CLEAN;
			break;
		case 'R':
			run = true;
			break;
		case 'p':
			/* md's default, the only layout lraid has */
			if (strcmp(optarg, "left-symmetric") &&
			    strcmp(optarg, "ls")) {
				err("--layout: only left-symmetric, not '%s'",
				    optarg);
				return 1;
			}
			break;
		case 'b':
			if (!strcmp(optarg, "internal")) {
				bitmap = 1;
			} else if (!strcmp(optarg, "none")) {
				bitmap = 0;
			} else {
				err("--bitmap must be internal or none, not '%s' (lraid keeps no bitmap in a file)",
				    optarg);
				return 1;
			}
			break;
		case 'B':
			if (parse_size(optarg, &region, 10) || !region) {
				err("bad --bitmap-chunk '%s' (KiB, or with a K, M or G suffix)",
				    optarg);
				return 1;
			}
			region_arg = optarg;
			break;
		default:
			if (optopt)
				err("option -%c needs a value or is unknown", optopt);
			else
				err("unknown option or missing value: '%s'",
				    argv[optind - 1]);
			return usage();
		}
	}
	/* getopt_long moved the names to the end: lraidN, then members */
	if (optind < argc)
		name = argv[optind];
	if (optind + 1 < argc)
		first_member = optind + 1;
	if (!level) {
		err("create needs --level 5 or 6");
		return usage();
	}
	if (!name || !level || first_member < 0)
		return usage();
	if (parse_array(name, &c.index))
		return 1;
	nd = argc - first_member;	/* members, then spares */
	nm = nd - nr_spare;
	if (nr_devs && nr_spare && nr_devs + nr_spare != nd) {
		err("--raid-devices %d and --spare-devices %d make %d devices, but %d given: %s",
		    nr_devs, nr_spare, nr_devs + nr_spare, nd,
		    strerror(EINVAL));
		return 1;
	}
	if (nr_devs && nr_devs != nm) {
		err("--raid-devices %d, but %d members given: %s", nr_devs, nm,
		    strerror(EINVAL));
		return 1;
	}
	if (nm < (level == 6 ? 4 : 3) && nr_spare) {
		err("RAID%d needs at least %d members, %d given besides the %d spare%s (--spare-devices: the last devices given): %s",
		    level, level == 6 ? 4 : 3, nm > 0 ? nm : 0, nr_spare,
		    nr_spare > 1 ? "s" : "", strerror(EINVAL));
		return 1;
	}
	if (nm < (level == 6 ? 4 : 3)) {
		err("RAID%d needs at least %d members, %d given: %s", level,
		    level == 6 ? 4 : 3, nm, strerror(EINVAL));
		return 1;
	}
	if (chunk < 4096 || chunk > (1 << 20) || (chunk & (chunk - 1))) {
		err("chunk %" PRIu64 "%s must be a power of two from 4K to 1M: %s",
		    chunk % 1024 ? chunk : chunk >> 10, chunk % 1024 ? "" : "K",
		    strerror(EINVAL));
		return 1;
	}
	if (region_arg && bitmap != 1) {
		err("--bitmap-chunk is for --bitmap=internal: %s",
		    strerror(EINVAL));
		return 1;
	}
	/* the kernel's bounds: at most 2^40 bytes a bit */
	if (region && ((region & (region - 1)) || region < chunk ||
		       region > 1ULL << 40)) {
		err("--bitmap-chunk %" PRIu64 "K must be a power of two of at least the chunk (%" PRIu64 "K) and at most 1024G: %s",
		    region >> 10, chunk >> 10, strerror(EINVAL));
		return 1;
	}
	if (bitmap == 1) {
		ret = kernel_has_bitmap(&v);
		if (ret < 0)
			return 1;
		if (!ret) {
			err("--bitmap=internal: the lraid module loaded (ABI %u.%u) keeps no write-intent bitmap (ABI 1.4 does); create with --bitmap=none, or load a newer lraid.ko: %s",
			    v.major, v.minor, strerror(EOPNOTSUPP));
			return 1;
		}
	}
	if (nr_spare) {
		if (kernel_version(&v))
			return 1;
		if (!has_spares(&v)) {
			err("--spare-devices: the lraid module loaded (ABI %u.%u) keeps no spares (ABI 1.5 does); create without them, or load a newer lraid.ko: %s",
			    v.major, v.minor, strerror(EOPNOTSUPP));
			return 1;
		}
	}
	c.level = level;
	c.nr_members = nm;
	c.chunk_bytes = chunk;
	/* all devices: none given twice, no member overlapping a spare */
	if (open_members(nd, argv + first_member, fds, O_RDWR))
		return 1;
	if (create_bitmap(&c, nm, fds, bitmap, region) ||
	    spares_fit(&c, nm, nd, argv + first_member, fds) ||
	    !may_create(nm, nd, argv + first_member, fds, run)) {
		close_members(nd, fds);
		return 1;
	}
	if (!(c.flags & LRAID_CREATE_ASSUME_CLEAN) && isatty(STDERR_FILENO))
		fprintf(stderr, "lraidctl: zeroing the members' data areas first: a full write of each\n"
			"member without write-zeroes offload (interrupt to abort; --assume-clean skips it)\n");
	ret = member_ioctl("create", c.index, fds, LRAID_IOC_CREATE, &c,
			   &c.member_fds);
	for (i = 0; !ret && i < nm; i++)
		drop_partitions(fds[i], argv[first_member + i]);
	close_members(nd, fds);
	if (ret)
		return 1;
	/* each says what became of it (add_report()) or why not */
	for (i = nm; i < nd; i++) {
		const char *path = argv[first_member + i];

		if (!add_device(c.index, path, 0, O_RDWR))
			continue;
		err("/dev/lraid%u was created without the spare %s; lraidctl add lraid%u %s adds it",
		    c.index, path, c.index, path);
		ret = 1;
	}
	printf("/dev/lraid%u\n", c.index);
	return ret;
}

/* "1, 3" for roles 1 and 3 of @mask */
static const char *roles_str(uint32_t mask)
{
	static char buf[128];
	size_t len = 0;
	int r;

	buf[0] = 0;
	for (r = 0; r < 32; r++)
		if (mask & (1U << r))
			len += snprintf(buf + len, sizeof(buf) - len, "%s%d",
					len ? ", " : "", r);
	return buf;
}

/*
 * The devices offered to an assembly, sorted by their superblocks into
 * members (a role) and spares (LRAID_SB_ROLE_SPARE), each kind in the
 * order given. The superblock checks of the set (lraid_sb_check_set()
 * and the rest) take the members only.
 */
struct offered {
	int nm, ns;
	char *mpaths[LRAID_MAX_MEMBERS_ABI];
	char *spaths[LRAID_MAX_MEMBERS_ABI];
	struct lraid_sb_info msbs[LRAID_MAX_MEMBERS_ABI];
	struct lraid_sb_info ssbs[LRAID_MAX_MEMBERS_ABI];
};

/*
 * Read the superblocks of @paths[0..n-1] (n at most LRAID_MAX_MEMBERS_ABI)
 * into @d. Returns 0, or -1 (printed) when one cannot be read or is not
 * valid, which the kernel would refuse for the same reason.
 */
static int read_offered(int n, char **paths, struct offered *d)
{
	struct lraid_sb_info sb;
	const char *why = "";
	int i, ret;

	d->nm = 0;
	d->ns = 0;
	for (i = 0; i < n; i++) {
		ret = read_sb(paths[i], &sb, &why);
		if (ret == -EIO)
			return -1;	/* printed */
		if (ret == -EINVAL && !strcmp(why, "not an lraid superblock")) {
			/* the decoder's words for a block without the magic */
			err("%s: no lraid superblock: %s (if it was added to the array and its rebuild did not end, it carries none until a rebuild does: leave it out, and add it again once the array runs)",
			    paths[i], strerror(-ret));
			return -1;
		}
		if (ret) {
			err("%s: %s: %s%s", paths[i], why, strerror(-ret),
			    errno_hint(-ret));
			return -1;
		}
		if (lraid_sb_is_spare(&sb)) {
			d->spaths[d->ns] = paths[i];
			d->ssbs[d->ns++] = sb;
		} else {
			d->mpaths[d->nm] = paths[i];
			d->msbs[d->nm++] = sb;
		}
	}
	return 0;
}

/*
 * What the kernel will make of the members @paths[0..nm-1], whose
 * superblocks read_offered() read into @sbs: the same superblock checks,
 * run here on the same data, to say which roles are missing, failed or
 * not fresh. Returns 0 when the set can start, 1 when too many roles are
 * unusable, -1 (printed) when the set is not valid at all, which the
 * kernel would refuse for the same reason.
 */
static int assess_members(int nm, char **paths, struct lraid_sb_info *sbs,
			  struct lraid_sb_roles *r, unsigned int *newest)
{
	const char *why = "";
	unsigned int fresh;
	int ret;

	ret = lraid_sb_check_set(sbs, nm, &fresh, &why);
	if (ret && ret != -ENODEV) {
		unsigned int x, y;

		if (!strcmp(why, LRAID_SB_WHY_SPLIT) &&
		    lraid_sb_split(sbs, nm, &x, &y))
			err("%s (role %u) records role %u failed and %s (role %u) records role %u failed, both at events %llu",
			    paths[x], sbs[x].role, sbs[y].role, paths[y],
			    sbs[y].role, sbs[x].role,
			    (unsigned long long)sbs[x].events);
		err("these members do not make one array: %s: %s", why,
		    strerror(-ret));
		return -1;
	}
	*newest = lraid_sb_newest(sbs, nm);
	lraid_sb_roles(sbs, nm, fresh, r);
	return ret ? 1 : 0;
}

static void report_roles(int nm, char **paths, const struct lraid_sb_info *sbs,
			 const struct lraid_sb_roles *r, unsigned int newest,
			 bool force)
{
	unsigned int resume = lraid_sb_resumable(sbs, nm, r->failed, force);
	unsigned int readd = resume < (unsigned int)nm ? (unsigned int)nm :
			     lraid_sb_readdable(sbs, nm, r->unusable, force);
	int i;

	for (i = 0; i < nm; i++) {
		if ((unsigned int)i == resume)
			err("%s (role %u) was being rebuilt when the array stopped, up to sector %llu of %llu: assembled with it, the rebuild goes on from there",
			    paths[i], sbs[i].role,
			    (unsigned long long)sbs[i].recovery_offset,
			    (unsigned long long)sbs[i].data_size);
		else if ((unsigned int)i == readd)
			err("%s (role %u) left the array at events %llu, since the write-intent bits were last cleared (%llu): assembled with it, it is re-added over the regions written while it was out",
			    paths[i], sbs[i].role,
			    (unsigned long long)sbs[i].events,
			    (unsigned long long)sbs[newest].bitmap_events);
		else if ((r->stale & (1U << sbs[i].role)) &&
		    !lraid_sb_in_sync(&sbs[i]))
			err("%s (role %u) is stale: rebuilt only up to sector %llu of %llu; not used",
			    paths[i], sbs[i].role,
			    (unsigned long long)sbs[i].recovery_offset,
			    (unsigned long long)sbs[i].data_size);
		else if (r->stale & (1U << sbs[i].role))
			err("%s (role %u) is stale: events %llu, array at %llu (it missed writes); not used",
			    paths[i], sbs[i].role,
			    (unsigned long long)sbs[i].events,
			    (unsigned long long)sbs[newest].events);
		else if (r->failed & (1U << sbs[i].role))
			err("%s (role %u) is stale: the array recorded it failed (events %llu, array at %llu); not used",
			    paths[i], sbs[i].role,
			    (unsigned long long)sbs[i].events,
			    (unsigned long long)sbs[newest].events);
	}
}

static const struct option assemble_opts[] = {
	{ "run", no_argument, NULL, 'R' },
	{ "force", no_argument, NULL, 'f' },
	{ "no-degraded", no_argument, NULL, 'D' },
	{ "scan", no_argument, NULL, 's' },
	{ NULL, 0, NULL, 0 },
};

struct assemble_opts {
	uint32_t flags;		/* LRAID_ASSEMBLE_* */
	bool run, no_degraded;
	/*
	 * incremental: the array of this UUID only, its members found
	 * without claiming any device, started once complete (or --run);
	 * @dev is the device named, @sb its superblock (the role it held),
	 * @quiet leaves out what is no error
	 */
	const uint8_t *uuid;
	const char *dev;
	const struct lraid_sb_info *sb;
	bool quiet;
};

static void spares_started(uint32_t index, int ns, char **spaths);

/*
 * Assemble @paths[0..nd-1] as lraid@index: members and spares, any order
 * (read_offered() sorts them). As mdadm --assemble with the devices
 * named: the array starts only if every role its newest
 * superblock records working is offered and fresh. One missing or stale
 * (a disk late to appear, a typo) would be recorded failed at the start
 * and come back only by an add (a rebuild, in full unless the
 * write-intent bitmap covers what it missed), so that takes --run (or
 * --force, which may also take stale members back). Roles already
 * recorded failed do not count: the array starts as degraded as it
 * stopped. --no-degraded refuses to leave out a working role even with
 * --run or --force. Spares do not count for any of that: each must go
 * with the members (lraid_sb_spare_mismatch() against the newest
 * member's superblock, as the kernel checks), else the assembly is
 * refused naming it; they are passed to the kernel with the members, and
 * the array keeps them as spares. Returns 0 when it started, else 1
 * (printed).
 */
static int assemble_set(uint32_t index, int nd, char **paths,
			const struct assemble_opts *o)
{
	static struct offered d;
	struct lraid_ioc_assemble c = { 0 };
	int32_t fds[LRAID_MAX_MEMBERS_ABI];
	const struct lraid_sb_info *ref;
	struct lraid_ioc_version v;
	struct lraid_sb_roles r;
	unsigned int newest = 0;
	int have, ret, nm, i;
	const char *why;
	char **mpaths;
	uint32_t lost;

	c.index = index;
	c.flags = o->flags;
	if (nd > LRAID_MAX_MEMBERS_ABI) {
		err("too many devices: %d (at most %d)", nd,
		    LRAID_MAX_MEMBERS_ABI);
		return 1;
	}
	/* each device's own error (cannot open, given twice) once, first */
	if (open_members(nd, paths, fds, O_RDONLY))
		return 1;
	ret = 1;
	if (read_offered(nd, paths, &d))
		goto out;	/* printed; the kernel would refuse the same */
	if (!d.nm) {
		err("assemble lraid%u refused: only spares given, no member of the array (%s%s): %s",
		    c.index, d.spaths[0], d.ns > 1 ? ", ..." : "",
		    strerror(EINVAL));
		goto out;
	}
	nm = d.nm;
	mpaths = d.mpaths;
	have = assess_members(nm, mpaths, d.msbs, &r, &newest);
	if (have < 0)
		goto out;	/* printed; the kernel would refuse the same */
	ref = &d.msbs[newest];
	for (i = 0; i < d.ns; i++) {
		why = lraid_sb_spare_mismatch(&d.ssbs[i], ref);
		if (why) {
			err("assemble lraid%u refused: %s carries a spare's superblock that does not go with these members: %s; leave it out: %s",
			    c.index, d.spaths[i], why, strerror(EINVAL));
			goto out;
		}
	}
	if (d.ns && kernel_lacks_spares(&v)) {
		err("assemble lraid%u refused: %s carries a spare's superblock, but the lraid module loaded (ABI %u.%u) keeps no spares (ABI 1.5 does); leave the spares out, or load a newer lraid.ko: %s",
		    c.index, d.spaths[0], v.major, v.minor,
		    strerror(EOPNOTSUPP));
		goto out;
	}
	if (d.ns && ref->nr_members + d.ns > LRAID_MAX_MEMBERS_ABI) {
		err("assemble lraid%u refused: %d spares given, but an array of %u members has room for %u at most; leave some out: %s",
		    c.index, d.ns, ref->nr_members,
		    LRAID_MAX_MEMBERS_ABI - ref->nr_members, strerror(EINVAL));
		goto out;
	}
	lost = r.missing | r.stale;
	if (lost && o->no_degraded) {
		report_roles(nm, mpaths, d.msbs, &r, newest,
			     c.flags & LRAID_ASSEMBLE_FORCE);
		err("assemble lraid%u refused (--no-degraded): it would start without role%s %s, last recorded working: %s",
		    c.index, lost & (lost - 1) ? "s" : "", roles_str(lost),
		    strerror(ENODEV));
		goto out;
	}
	if (have == 0 && lost && !o->run &&
	    !(c.flags & LRAID_ASSEMBLE_FORCE)) {
		report_roles(nm, mpaths, d.msbs, &r, newest,
			     c.flags & LRAID_ASSEMBLE_FORCE);
		err("assemble lraid%u refused: role%s %s, last recorded working, would be left out (missing or stale) and recorded failed, to come back only by %s; offer every member, or start degraded with --run: %s",
		    c.index, lost & (lost - 1) ? "s" : "", roles_str(lost),
		    ref->bitmap_sectors ?
		    "lraidctl add (a rebuild of the regions written without it, if the write-intent bitmap covers what it missed, else a full one)" :
		    "a full rebuild (lraidctl add)",
		    strerror(ENODEV));
		goto out;
	}
	c.nr_members = nd;	/* the spares too */
	ret = member_ioctl("assemble", c.index, fds, LRAID_IOC_ASSEMBLE, &c,
			   &c.member_fds);
	if (ret) {
		if (ret == ENODEV && have == 1) {
			report_roles(nm, mpaths, d.msbs, &r, newest,
			     c.flags & LRAID_ASSEMBLE_FORCE);
			err("RAID%u with %u members: %d missing (roles %s), %d failed, %d stale; it survives at most %u missing, failed or stale",
			    ref->level, ref->nr_members,
			    __builtin_popcount(r.missing), roles_str(r.missing),
			    __builtin_popcount(r.failed),
			    __builtin_popcount(r.stale), r.tolerate);
		} else if (ret == EUCLEAN) {
			err("lraid%u was not stopped cleanly (or not resynced since) and would start degraded: the parity of stripes being written then may be stale, so the blocks of the missing roles could be rebuilt wrong; --force starts it anyway",
			    c.index);
		}
		ret = 1;
		goto out;
	}
	if (have == 1) {
		/* too many roles unusable, yet started: only --force does that */
		err("/dev/lraid%u assembled with --force: members that were stale or recorded failed are in use again; blocks written while they were out read back old (the kernel log names them)",
		    c.index);
	} else if (have == 0 && r.unusable) {
		report_roles(nm, mpaths, d.msbs, &r, newest,
			     c.flags & LRAID_ASSEMBLE_FORCE);
		if (!(ref->state & LRAID_SB_STATE_CLEAN))
			err("/dev/lraid%u was not stopped cleanly (--force): blocks of the missing roles in stripes being written then may read back wrong",
			    c.index);
		bool force = c.flags & LRAID_ASSEMBLE_FORCE;
		unsigned int back = lraid_sb_resumable(d.msbs, nm, r.failed,
						       force);
		const char *what = " goes on";

		if (back >= (unsigned int)nm) {
			back = lraid_sb_readdable(d.msbs, nm, r.unusable,
						  force);
			what = ", a re-add, runs";
		}
		err("/dev/lraid%u started degraded: %d of %u members in use, without role%s %s%s%s%s%s",
		    c.index, __builtin_popcount(r.fresh), ref->nr_members,
		    r.unusable & (r.unusable - 1) ? "s" : "",
		    roles_str(r.unusable),
		    back < (unsigned int)nm ? "; the rebuild onto " : "",
		    back < (unsigned int)nm ? mpaths[back] : "",
		    back < (unsigned int)nm ? what : "",
		    back < (unsigned int)nm ?
		    " (lraidctl detail shows how far)" : "");
	} else if (have == 0 && !(ref->state & LRAID_SB_STATE_CLEAN)) {
		struct sync_state st;

		sync_state(c.index, &st);
		if ((st.running || !strcmp(st.last, "resync")) &&
		    (ref->feature_compat & LRAID_SB_FEAT_COMPAT_RESYNC) &&
		    ref->resync_offset)
			err("/dev/lraid%u was not stopped cleanly (or not resynced since): parity of stripes being written then may be stale; resyncing it now from sector %llu, where the last resync stopped (lraidctl detail lraid%u shows how far)",
			    c.index, (unsigned long long)ref->resync_offset,
			    c.index);
		else if (st.running || !strcmp(st.last, "resync"))
			err("/dev/lraid%u was not stopped cleanly (or not resynced since): parity of stripes being written then may be stale; resyncing it now (lraidctl detail lraid%u shows how far)",
			    c.index, c.index);
		else
			err("/dev/lraid%u was not stopped cleanly (or not resynced since): parity of stripes being written then may be stale; it stays marked so until a repair pass resyncs it (lraidctl action repair lraid%u), and starting it degraded takes --force",
			    c.index, c.index);
	}
	if (d.ns)
		spares_started(c.index, d.ns, d.spaths);
	printf("/dev/lraid%u\n", c.index);
out:
	close_members(nd, fds);
	return ret;
}

/* One device with an lraid superblock, found by assemble --scan. */
struct scan_dev {
	char path[PATH_MAX];		/* /dev/NAME */
	char sysname[NAME_MAX + 1];	/* NAME as sysfs writes it */
	bool in_use;			/* held by something else */
	struct lraid_sb_info sb;
};

/* One array found by assemble --scan. */
struct scan_array {
	/*
	 * its first device in the scan that is a member, or its first
	 * spare when no member is found (@spares_only)
	 */
	int first;
	bool spares_only;
	int running;		/* the number it runs under, or -1 */
	int index;		/* the number to assemble it as, or -1 */
	const char *why;	/* why not the number its name gives */
};

/* The block major lraid registered (/proc/devices), or -1 */
static int lraid_block_major(void)
{
	char line[128], name[64];
	bool block = false;
	int major = -1, m;
	FILE *f;

	f = fopen("/proc/devices", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Block devices:", 14))
			block = true;
		else if (block && sscanf(line, "%d %63s", &m, name) == 2 &&
			 !strcmp(name, "lraid"))
			major = m;
	}
	fclose(f);
	return major;
}

/*
 * The devices listed in /sys/class/block/@sysname/@dir ("holders": built
 * on it, "slaves": under it), and theirs, up to 16 deep: true as soon as
 * @hit(name, @arg) is.
 */
static bool sys_walk(const char *sysname, const char *dir, int depth,
		     bool (*hit)(const char *name, const void *arg),
		     const void *arg)
{
	char path[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	if (depth > 16)
		return false;
	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", sysname, dir);
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.')
			found = hit(e->d_name, arg) ||
				sys_walk(e->d_name, dir, depth + 1, hit, arg);
	closedir(d);
	return found;
}

static bool is_suspended(const char *sysname, const void *arg)
{
	char dir[PATH_MAX];

	(void)arg;
	snprintf(dir, sizeof(dir), "/sys/class/block/%s", sysname);
	return sys_number(dir, "dm/suspended") != 0;
}

/*
 * Whether @sysname is a suspended device-mapper device or is built on
 * one, at any depth: a read of it would wait for the resume.
 */
static bool suspended(const char *sysname)
{
	return is_suspended(sysname, NULL) ||
	       sys_walk(sysname, "slaves", 0, is_suspended, NULL);
}

/*
 * Every block device in /proc/partitions (mdadm's "DEVICE partitions")
 * that carries an lraid superblock, into *@out; returns how many, or -1
 * (printed). With @probe_use, each is opened exclusively first, as mdadm's
 * assemble does, to learn whether something holds it (a running array's
 * member, a disk under a device-mapper table, a mounted file system);
 * scan_members() decides what that means. Without (examine), shared only,
 * so that nothing else finds the device claimed for a moment. Skipped
 * without a word: devices without the magic,
 * lraid's own arrays (never members), and device-mapper devices that are
 * suspended or built on one (a read would wait for the resume; one
 * suspended after this check still makes the scan wait). A device with
 * the magic whose superblock is not valid, or that cannot be read, is
 * named and skipped; devices that cannot be opened for want of
 * permission are counted in *@denied.
 */
static int scan_devices(struct scan_dev **out, int *denied, bool probe_use)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	struct scan_dev *devs = NULL, *grown;
	int n = 0, cap = 0, own = lraid_block_major();
	unsigned long long blocks;
	char line[256], name[128];
	unsigned int maj, min;
	FILE *f;

	*denied = 0;
	f = fopen("/proc/partitions", "r");
	if (!f) {
		err("cannot read /proc/partitions: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char path[PATH_MAX], msg[PATH_MAX + 128];
		char sysname[NAME_MAX + 1];
		const char *why = "";
		struct lraid_sb_info sb;
		bool in_use = false;
		struct stat st;
		char *p;
		int ret;

		if (sscanf(line, " %u %u %llu %127s", &maj, &min, &blocks,
			   name) != 4)
			continue;	/* the header, the blank line */
		if (blocks * 1024 < LRAID_SB_SIZE || (int)maj == own)
			continue;	/* an extended partition's stub, say */
		/* /proc/partitions keeps a '/' in a name (cciss/c0d0) */
		snprintf(path, sizeof(path), "/dev/%s", name);
		if (stat(path, &st) || !S_ISBLK(st.st_mode) ||
		    st.st_rdev != makedev(maj, min))
			continue;	/* no node, or /dev names another */
		/* sysfs writes a '/' in a name as '!' */
		snprintf(sysname, sizeof(sysname), "%s", name);
		for (p = sysname; *p; p++)
			if (*p == '/')
				*p = '!';
		if (suspended(sysname))
			continue;
		ret = read_sb_block(path, block, probe_use ? &in_use : NULL,
				    msg, sizeof(msg));
		if (ret == -ENOMEDIUM)
			continue;	/* an empty drive */
		if (ret == -EACCES || ret == -EPERM) {
			(*denied)++;
			continue;
		}
		if (ret) {
			err("warning: %s; skipped", msg);
			continue;
		}
		if (!has_sb_magic(block))
			continue;
		ret = lraid_sb_decode(block, &sb, &why);
		if (ret) {
			err("warning: %s has an lraid superblock that is not valid (%s: %s); skipped",
			    path, why, strerror(-ret));
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(devs, cap * sizeof(*devs));
			if (!grown) {
				err("out of memory");
				free(devs);
				fclose(f);
				return -1;
			}
			devs = grown;
		}
		memset(&devs[n], 0, sizeof(devs[n]));
		strcpy(devs[n].path, path);
		strcpy(devs[n].sysname, sysname);
		devs[n].in_use = in_use;
		devs[n].sb = sb;
		n++;
	}
	fclose(f);
	*out = devs;
	return n;
}

/* Whether devs[@i] is the first of @devs to carry its array's UUID. */
static bool first_copy(const struct scan_dev *devs, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!memcmp(devs[j].sb.uuid, devs[i].sb.uuid,
			    sizeof(devs[i].sb.uuid)))
			return false;
	return true;
}

/* How many of @devs[0..n-1] carry the UUID of devs[@i] */
static int group_size(const struct scan_dev *devs, int n, int i)
{
	int j, k = 0;

	for (j = 0; j < n; j++)
		k += !memcmp(devs[j].sb.uuid, devs[i].sb.uuid,
			     sizeof(devs[i].sb.uuid));
	return k;
}

static bool same_name(const char *sysname, const void *target)
{
	return !strcmp(sysname, target);
}

/*
 * Whether another device found, with the same array and role, is built
 * on @d (a dm table over the member, showing its superblock).
 */
static bool covered(const struct scan_dev *devs, int n,
		    const struct scan_dev *d)
{
	int j;

	for (j = 0; j < n; j++)
		if (&devs[j] != d &&
		    !memcmp(devs[j].sb.uuid, d->sb.uuid, sizeof(d->sb.uuid)) &&
		    devs[j].sb.role == d->sb.role &&
		    sys_walk(d->sysname, "holders", 0, same_name,
			     devs[j].sysname))
			return true;
	return false;
}

/* @arg points to where the name goes (NAME_MAX + 1 bytes) */
static bool copy_name(const char *sysname, const void *arg)
{
	snprintf(*(char *const *)arg, NAME_MAX + 1, "%s", sysname);
	return true;
}

/* What holds the device (its first holder in sysfs), for a message. */
static const char *held_by(const struct scan_dev *d)
{
	static char msg[NAME_MAX + 64];
	char name[NAME_MAX + 1], *out = name;

	if (sys_walk(d->sysname, "holders", 0, copy_name, &out))
		snprintf(msg, sizeof(msg), "by %s", name);
	else
		snprintf(msg, sizeof(msg),
			 "(mounted, swap, or open exclusively by some program)");
	return msg;
}

/*
 * How many spares INFO lists in @c (members[nr_members ..]; zero from a
 * module before ABI 1.5), at most what the members array holds.
 */
static int info_spares(const struct lraid_ioc_info *c)
{
	int room = LRAID_MAX_MEMBERS_ABI - c->nr_members;

	if (room < 0)
		return 0;
	return c->nr_spares < room ? c->nr_spares : room;
}

/* What list_arrays() keeps of each running array. */
struct array_brief {
	uint8_t uuid[16];
	uint8_t level, nr_members, nr_spares;
};

/*
 * The arrays running now, one bit per number in @running, and what
 * identifies each in @briefs if given; those being created or assembled
 * (EBUSY) have their bit in @creating instead.
 */
static int list_arrays(int ctl, uint8_t *running, uint8_t *creating,
		       struct array_brief *briefs)
{
	struct lraid_ioc_info c;
	int i;

	memset(running, 0, LRAID_MAX_ARRAYS / 8);
	memset(creating, 0, LRAID_MAX_ARRAYS / 8);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		memset(&c, 0, sizeof(c));
		c.index = i;
		if (!ioctl(ctl, LRAID_IOC_INFO, &c)) {
			running[i / 8] |= 1 << (i % 8);
			if (briefs) {
				memcpy(briefs[i].uuid, c.uuid, sizeof(c.uuid));
				briefs[i].level = c.level;
				briefs[i].nr_members = c.nr_members;
				briefs[i].nr_spares = info_spares(&c);
			}
		} else if (errno == EBUSY) {
			creating[i / 8] |= 1 << (i % 8);
		} else if (errno != ENODEV) {	/* ENODEV: free */
			err("cannot list the running arrays: lraid%d: %s", i,
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}

static bool bit_set(const uint8_t *map, int i)
{
	return map[i / 8] & (1 << (i % 8));
}

/*
 * Whether @d is one of the devices of array @ref scan_members() weighs
 * (@spare false), or one of its spares scan_spares() does (true).
 */
static bool scan_candidate(const struct scan_dev *devs, int n,
			   const struct scan_dev *d,
			   const struct lraid_sb_info *ref, bool spare)
{
	return !memcmp(d->sb.uuid, ref->uuid, sizeof(ref->uuid)) &&
	       (spare ? lraid_sb_is_spare(&d->sb) :
		d->sb.role < LRAID_MAX_MEMBERS_ABI) &&	/* decode checks */
	       !(d->in_use && covered(devs, n, d));
}

/*
 * The members found for one array (every device with the UUID of
 * @devs[@first], a member's, that is not a spare) into @paths, one per
 * role, their indices in @devs into @idx. A device something else is
 * built on is left out without a word when that is another device of the
 * array found (a dm table over the member, showing the same superblock).
 * Of the devices with one role the one with the most events is taken and
 * the others named (old copies); two at the most events are not told
 * apart and the array is left alone. A role whose newest copy something
 * else holds is named and left out: an older copy is not taken instead.
 * Returns how many, or -1 (printed).
 */
static int scan_members(struct scan_dev *devs, int n, int first,
			char **paths, int *idx)
{
	const struct lraid_sb_info *ref = &devs[first].sb;
	int owner[LRAID_MAX_MEMBERS_ABI];
	int i, r, nm = 0;

	for (r = 0; r < LRAID_MAX_MEMBERS_ABI; r++)
		owner[r] = -1;
	/* the newest copy of each role */
	for (i = first; i < n; i++) {
		if (!scan_candidate(devs, n, &devs[i], ref, false))
			continue;
		r = devs[i].sb.role;
		if (owner[r] < 0 || devs[i].sb.events > devs[owner[r]].sb.events)
			owner[r] = i;
	}
	/* a tie at the top, and the older copies */
	for (i = first; i < n; i++) {
		const struct scan_dev *d = &devs[i], *o;

		if (!scan_candidate(devs, n, d, ref, false) ||
		    i == owner[d->sb.role])
			continue;
		o = &devs[owner[d->sb.role]];
		if (d->sb.events == o->sb.events) {
			err("%s and %s both hold role %u of %s with the same events (%llu): a copy of one disk? assemble it by naming its members",
			    o->path, d->path, d->sb.role, ref->name,
			    (unsigned long long)d->sb.events);
			return -1;
		}
		err("warning: %s holds an older copy of role %u of %s; not used",
		    d->path, d->sb.role, ref->name);
	}
	for (r = 0; r < LRAID_MAX_MEMBERS_ABI; r++) {
		struct scan_dev *d;

		if (owner[r] < 0)
			continue;
		d = &devs[owner[r]];
		if (d->in_use) {
			err("warning: %s (role %u of %s) is in use %s; not used",
			    d->path, r, ref->name, held_by(d));
		} else {
			idx[nm] = owner[r];
			paths[nm++] = d->path;
		}
	}
	if (!nm)
		err("%s: no member free to assemble it from", ref->name);
	return nm ? nm : -1;
}

/*
 * The spares found for the array whose members scan_members() chose
 * (@devs[@idx[0..nm-1]]) into @paths: every device with their UUID and a
 * spare's superblock, but for one something else holds (named, unless
 * that is another device of the array found: a dm table over it), one
 * that does not go with the members' newest superblock
 * (lraid_sb_spare_mismatch(), which the kernel would refuse the whole
 * assembly for) and those past the room the array has
 * (LRAID_MAX_MEMBERS_ABI devices, roles and spares), or every one when
 * the module keeps no spares (!@kept), each named and left out: the
 * array starts without them. Returns how many.
 */
static int scan_spares(struct scan_dev *devs, int n, const int *idx, int nm,
		       bool kept, char **paths)
{
	static struct lraid_sb_info sbs[LRAID_MAX_MEMBERS_ABI];
	const struct lraid_sb_info *ref;
	int i, ns = 0, room;
	const char *why;

	for (i = 0; i < nm; i++)
		sbs[i] = devs[idx[i]].sb;
	ref = &sbs[lraid_sb_newest(sbs, nm)];
	room = LRAID_MAX_MEMBERS_ABI -
	       (nm > (int)ref->nr_members ? nm : (int)ref->nr_members);
	for (i = 0; i < n; i++) {
		struct scan_dev *d = &devs[i];

		if (!scan_candidate(devs, n, d, ref, true))
			continue;
		why = lraid_sb_spare_mismatch(&d->sb, ref);
		if (d->in_use)
			err("warning: %s (a spare of %s) is in use %s; not used",
			    d->path, ref->name, held_by(d));
		else if (why)
			err("warning: %s carries a spare's superblock of %s that does not go with its members: %s; not used",
			    d->path, ref->name, why);
		else if (!kept)
			err("warning: %s (a spare of %s) left out: the lraid module loaded keeps no spares (ABI 1.5 does)",
			    d->path, ref->name);
		else if (ns >= room)
			err("warning: %s (a spare of %s) left out: an array of %u members has room for %d spares",
			    d->path, ref->name, ref->nr_members, room);
		else
			paths[ns++] = d->path;
	}
	return ns;
}

#define SCAN_LOCK "/run/lraidctl-scan.lock"

/*
 * Choose the number of every array not running: first the number its
 * name gives, where that is free and no other array found has the same
 * name (disks from another machine); then, for the rest, the highest free
 * numbers, as mdadm takes md127 and down. Returns 0, or -1 (printed)
 * when only @only was asked for and it cannot have its own number.
 */
static int scan_numbers(struct scan_dev *devs, struct scan_array *arr,
			int na, uint8_t *busy, const char *only)
{
	int i, j, idx;

	for (i = 0; i < na; i++) {
		const char *name = devs[arr[i].first].sb.name;

		arr[i].index = -1;
		if (arr[i].running >= 0 || arr[i].spares_only)
			continue;
		idx = name_index(name);
		arr[i].why = "its name gives no array number";
		if (idx < 0)
			continue;
		arr[i].why = "that number is in use";
		if (bit_set(busy, idx))
			continue;
		arr[i].why = "another array found has that name too";
		for (j = 0; j < na; j++)
			if (j != i && arr[j].running < 0 &&
			    !arr[j].spares_only &&
			    !strcmp(devs[arr[j].first].sb.name, name))
				break;
		if (j < na)
			continue;
		arr[i].index = idx;
		arr[i].why = NULL;
		busy[idx / 8] |= 1 << (idx % 8);
	}
	for (i = 0; i < na; i++) {
		if (arr[i].running >= 0 || arr[i].index >= 0 ||
		    arr[i].spares_only)
			continue;
		if (only) {
			err("%s cannot be assembled as /dev/%s: %s; name its members to assemble it under another number",
			    only, only, arr[i].why);
			return -1;
		}
		for (idx = LRAID_MAX_ARRAYS - 1; idx >= 0; idx--)
			if (!bit_set(busy, idx))
				break;
		arr[i].index = idx;
		if (idx >= 0)
			busy[idx / 8] |= 1 << (idx % 8);
	}
	return 0;
}

/*
 * Take the scan lock: one scan at a time, as two would race for the same
 * numbers. Returns its fd, or -1 after a warning (then the scan goes on).
 */
static int scan_lock(void)
{
	int lock = open(SCAN_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (lock < 0 || flock(lock, LOCK_EX)) {
		err("warning: cannot lock %s (%s): another scan may run at the same time",
		    SCAN_LOCK, strerror(errno));
		if (lock >= 0)
			close(lock);
		lock = -1;
	}
	return lock;
}

/*
 * Say which array a scan assembles, as what and from which devices: the
 * members @paths[0..nm-1], then the spares @paths[nm..nm+ns-1].
 */
static void scan_announce(const struct lraid_sb_info *sb,
			  const struct scan_array *a, int nm, int ns,
			  char **paths)
{
	char uuid[40];
	int i;

	uuid_str(sb->uuid, uuid);
	if (a->why)
		err("%s (UUID %s): %s, so it is assembled as /dev/lraid%d",
		    sb->name, uuid, a->why, a->index);
	fprintf(stderr, "%s: %s (UUID %s, RAID%u, %u members) from", prog,
		sb->name, uuid, sb->level, sb->nr_members);
	for (i = 0; i < nm + ns; i++)
		fprintf(stderr, "%s %s", i == nm ? (ns > 1 ? ", spares" :
			", spare") : "", paths[i]);
	fputc('\n', stderr);
}

/*
 * The arrays the devices @devs[0..n-1] carry (each once, at the first of
 * its members, or of its spares when none is found; with @only, only the
 * one of that name) into @arr, each with the number it runs under or -1,
 * from list_arrays()'s @busy, @creating and @briefs; @busy then also
 * holds the numbers @creating does. Returns how many.
 */
static int find_arrays(const struct scan_dev *devs, int n, const char *only,
		       struct scan_array *arr, uint8_t *busy,
		       const uint8_t *creating,
		       const struct array_brief *briefs)
{
	int i, j, na = 0;

	for (i = 0; i < LRAID_MAX_ARRAYS / 8; i++)
		busy[i] |= creating[i];	/* numbers in use either way */
	for (i = 0; i < n; i++) {
		const struct lraid_sb_info *sb = &devs[i].sb;
		int first = i;

		if (!first_copy(devs, i))
			continue;
		/* a member speaks for the array: a spare's name may be old */
		for (j = i; j < n && lraid_sb_is_spare(&devs[first].sb); j++)
			if (!memcmp(devs[j].sb.uuid, sb->uuid,
				    sizeof(sb->uuid)) &&
			    !lraid_sb_is_spare(&devs[j].sb))
				first = j;
		sb = &devs[first].sb;
		if (only && strcmp(sb->name, only))
			continue;
		arr[na].first = first;
		arr[na].spares_only = lraid_sb_is_spare(sb);
		arr[na].running = -1;
		for (j = 0; j < LRAID_MAX_ARRAYS; j++)
			if (bit_set(busy, j) && !bit_set(creating, j) &&
			    !memcmp(briefs[j].uuid, sb->uuid, sizeof(sb->uuid)))
				arr[na].running = j;
		na++;
	}
	return na;
}

static bool any_byte_set(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return true;
	return false;
}

static bool any_name(const char *sysname, const void *arg)
{
	(void)sysname;
	(void)arg;
	return true;
}

/*
 * incremental: a create or assemble by hand in progress has an array
 * whose UUID is not known until it runs, so wait (up to 20 s, well within
 * udev's time for an event) until none is; scans hold the lock instead.
 * Returns 1 to go on, 0 to give up (said unless quiet), -1 on error
 * (printed).
 */
static int wait_created(int ctl, uint8_t *busy, uint8_t *creating,
			struct array_brief *briefs,
			const struct assemble_opts *o)
{
	int i;

	for (i = 0; i <= 20; i++) {
		if (i)
			sleep(1);
		if (list_arrays(ctl, busy, creating, briefs))
			return -1;
		if (!any_byte_set(creating, LRAID_MAX_ARRAYS / 8))
			return 1;
	}
	if (!o->quiet)
		err("%s: another array is being created or assembled; not assembling now (run this again when it is done)",
		    o->dev);
	return 0;
}

/*
 * incremental: whether to start the array @sb names from @paths[0..nm-1]
 * now. 1 (said unless quiet): wait, a role it last recorded working is
 * missing or stale and there is no --run. -1 (said): the kernel would
 * refuse it (too many roles unusable, or not stopped cleanly and it would
 * start degraded), which takes a decision by hand (--force); the members
 * are not opened. 0: go.
 */
static int scan_waits(const struct assemble_opts *o,
		      const struct lraid_sb_info *sb, int nm, char **paths)
{
	static struct offered d;
	struct lraid_sb_info *sbs = d.msbs;
	struct lraid_sb_roles r;
	unsigned int newest;
	char uuid[40];
	uint32_t lost;
	int have;

	/* scan_members() gave members only; a spare since is left out */
	if (read_offered(nm, paths, &d))
		return -1;
	if (!d.nm) {
		err("%s: %s: its members now carry spares' superblocks; not assembled",
		    o->dev, sb->name);
		return -1;
	}
	nm = d.nm;
	paths = d.mpaths;
	have = assess_members(nm, paths, sbs, &r, &newest);
	if (have < 0)
		return -1;
	uuid_str(sb->uuid, uuid);
	/*
	 * Too many roles unusable: missing ones may still come, unless the
	 * failed and stale ones alone are too many already
	 */
	if (have > 0 && (o->run || __builtin_popcount(r.failed | r.stale) >
			 (int)r.tolerate)) {
		report_roles(nm, paths, sbs, &r, newest,
			     o->flags & LRAID_ASSEMBLE_FORCE);
		err("%s: %s (UUID %s): %d missing, %d failed and %d stale roles, more than RAID%u survives; not assembled (lraidctl assemble --force by hand, see the admin guide)",
		    o->dev, sb->name, uuid, __builtin_popcount(r.missing),
		    __builtin_popcount(r.failed), __builtin_popcount(r.stale),
		    sb->level);
		return -1;
	}
	lost = r.missing | r.stale;
	if (lost && !o->run) {
		if (!o->quiet)
			err("%s: %s (UUID %s, RAID%u): %d of %u members found, waiting for role%s %s (lraidctl assemble --scan --run %s starts it without)",
			    o->dev, sb->name, uuid, sb->level, nm,
			    sbs[newest].nr_members, lost & (lost - 1) ? "s" : "",
			    roles_str(lost), sb->name);
		return 1;
	}
	if (r.unusable && !(sbs[newest].state & LRAID_SB_STATE_CLEAN)) {
		err("%s: %s (UUID %s) was not stopped cleanly (or not resynced since) and would start degraded, without role%s %s; not assembled (lraidctl assemble --force by hand, see the admin guide)",
		    o->dev, sb->name, uuid,
		    r.unusable & (r.unusable - 1) ? "s" : "",
		    roles_str(r.unusable));
		return -1;
	}
	return 0;
}

static int incremental_readd(int ctl, int index,
			     const struct assemble_opts *o);
static int incremental_spare(int ctl, int index,
			     const struct assemble_opts *o);

/*
 * assemble --scan [lraidN]: as mdadm --assemble --scan without a config
 * file. Every array whose members carry a superblock is assembled from
 * the members found (scan_devices(), scan_members()), under the number
 * scan_numbers() gives it. With lraidN, only the array of that name, and
 * only as /dev/lraidN. Arrays already running are named and left alone.
 * Each array is held to the rules of a named assemble: a working member
 * missing takes --run, unlike mdadm's scan, which starts an array
 * degraded when it can: a disk late to appear could come back only by
 * an add (a full rebuild, or with a write-intent bitmap one of the
 * regions written without it). --force takes an array name. Spares
 * found with an array's UUID (scan_spares()) count for none of that and
 * are assembled with it; spares whose members are not found make no
 * array (said). Scans run one at a time (a lock file in /run). Returns 0
 * when every array found runs, 1 when one could not start or none was
 * found.
 */
static int assemble_scan(const char *only, const struct assemble_opts *o)
{
	static struct array_brief briefs[LRAID_MAX_ARRAYS];
	static uint8_t busy[LRAID_MAX_ARRAYS / 8];
	static uint8_t creating[LRAID_MAX_ARRAYS / 8];
	char *paths[LRAID_MAX_MEMBERS_ABI];
	int idx[LRAID_MAX_MEMBERS_ABI];
	struct scan_array *arr = NULL;
	struct scan_dev *devs = NULL;
	int n, i, na = 0, ctl, lock, denied, ret = 1, arrays = 0;
	bool found = false;
	char only_buf[16];
	uint32_t index;

	if (only) {	/* as create names arrays: /dev/lraid01 is lraid1 */
		if (parse_array(only, &index))
			return 1;
		snprintf(only_buf, sizeof(only_buf), "lraid%u", index);
		only = only_buf;
	}
	if ((o->flags & LRAID_ASSEMBLE_FORCE) && !only) {
		err("assemble --scan --force takes the name of the array to force: %s",
		    strerror(EINVAL));
		return 1;
	}
	ctl = open_control();
	if (ctl < 0)
		return 1;
	/* incremental: outside the lock, so that the others do not queue */
	if (o->uuid) {
		i = wait_created(ctl, busy, creating, briefs, o);
		if (i <= 0) {
			close(ctl);
			return -i;
		}
	}
	lock = scan_lock();
	n = scan_devices(&devs, &denied, !o->uuid);
	if (n < 0)
		goto out;
	for (i = 0; o->uuid && i < n; i++)
		devs[i].in_use = sys_walk(devs[i].sysname, "holders", 0,
					  any_name, NULL);
	arr = calloc(n ? n : 1, sizeof(*arr));
	if (!arr) {
		err("out of memory");
		goto out;
	}
	if (list_arrays(ctl, busy, creating, briefs))
		goto out;
	na = find_arrays(devs, n, only, arr, busy, creating, briefs);
	if (!na && !o->uuid) {
		err("no %s%s found: no device in /proc/partitions carries %s%s",
		    only ? "array named " : "lraid arrays", only ? only : "",
		    only ? "its superblock" : "an lraid superblock",
		    denied ? " (some could not be opened: not root?)" : "");
		goto out;
	}
	if (scan_numbers(devs, arr, na, busy, only))
		goto out;
	ret = 0;
	for (i = 0; i < na; i++) {
		const struct lraid_sb_info *sb = &devs[arr[i].first].sb;
		char uuid[40];
		int nm, ns;

		if (o->uuid && memcmp(sb->uuid, o->uuid, sizeof(sb->uuid)))
			continue;
		found = true;
		uuid_str(sb->uuid, uuid);
		if (arr[i].running >= 0) {
			arrays++;
			if (!o->quiet)
				err("%s%s%s (UUID %s) is already running as /dev/lraid%d",
				    o->dev ? o->dev : "", o->dev ? ": " : "",
				    sb->name, uuid, arr[i].running);
			if (o->sb && (lraid_sb_is_spare(o->sb) ?
			    incremental_spare(ctl, arr[i].running, o) :
			    incremental_readd(ctl, arr[i].running, o)) > 0)
				ret = 1;
			continue;
		}
		if (arr[i].spares_only) {
			/*
			 * not an array to assemble; incremental: the spare
			 * came first, and the assembly once its members
			 * have come takes it
			 */
			if (o->dev && !o->quiet)
				err("%s: a spare of %s (UUID %s), none of whose members is found yet: the array takes it when it is assembled",
				    o->dev, sb->name, uuid);
			else if (!o->dev)
				err("%s (UUID %s): only spares found (%s%s), no member: not assembled",
				    sb->name, uuid, devs[arr[i].first].path,
				    group_size(devs, n, arr[i].first) > 1 ?
				    " and more" : "");
			continue;
		}
		arrays++;
		nm = scan_members(devs, n, arr[i].first, paths, idx);
		if (nm < 0) {
			ret = 1;
			continue;
		}
		ns = scan_spares(devs, n, idx, nm, ctl_has_spares(ctl),
				 paths + nm);
		if (o->uuid) {
			int w = scan_waits(o, sb, nm, paths);

			if (w) {
				ret = w < 0;
				continue;
			}
		}
		if (arr[i].index < 0) {
			err("%s (UUID %s): every array number is in use",
			    sb->name, uuid);
			ret = 1;
			continue;
		}
		scan_announce(sb, &arr[i], nm, ns, paths);
		if (assemble_set(arr[i].index, nm + ns, paths, o))
			ret = 1;
		fflush(stdout);	/* "/dev/lraidN" before the next array's lines */
	}
	if (o->uuid && !found) {	/* changed meanwhile, or not listed */
		err("%s: its array is not found on the block devices%s", o->dev,
		    denied ? " (some could not be opened: not root?)" : "");
		ret = 1;
	}
	if (!o->uuid && !arrays)	/* spares only (said) */
		ret = 1;
out:
	free(arr);
	free(devs);
	if (lock >= 0)
		close(lock);
	close(ctl);
	return ret;
}

/*
 * assemble [--run] [--no-degraded] [--force] lraidN MEMBER..., options
 * anywhere; or assemble --scan [OPTION...] [lraidN].
 */
static int cmd_assemble(int argc, char **argv)
{
	struct assemble_opts o = { 0 };
	uint32_t index;
	bool scan = false;
	int opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "Rfs", assemble_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'R':
			o.run = true;
			break;
		case 'f':
			o.flags |= LRAID_ASSEMBLE_FORCE;
			break;
		case 'D':
			o.no_degraded = true;
			break;
		case 's':
			scan = true;
			break;
		default:
			err("unknown option '%s'", argv[optind - 1]);
			return usage();
		}
	}
	argc -= optind - 1;
	argv += optind - 1;
	if (scan) {
		if (argc > 2) {
			err("assemble --scan finds the members itself: name at most the array");
			return usage();
		}
		return assemble_scan(argc == 2 ? argv[1] : NULL, &o);
	}
	if (argc < 3)
		return usage();
	if (parse_array(argv[1], &index))
		return 1;
	return assemble_set(index, argc - 2, argv + 2, &o);
}

/*
 * At boot udev may run incremental before lraid.ko is loaded (the module
 * has no alias a device could load it by): load it then, as
 * "modprobe lraid" would; if that fails, open_control() says so.
 */
static void load_module(void)
{
	int status;
	pid_t pid;

	if (!access(CONTROL_PATH, F_OK))
		return;
	pid = fork();
	if (pid == 0) {
		execlp("modprobe", "modprobe", "-q", "lraid", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
}

static const struct option incremental_opts[] = {
	{ "run", no_argument, NULL, 'R' },
	{ "quiet", no_argument, NULL, 'q' },
	{ NULL, 0, NULL, 0 },
};

/*
 * incremental [--run] [--quiet] DEV: as mdadm --incremental (-I), for the
 * udev rule (tools/udev/65-lraid-incremental.rules.in) that runs it for
 * each block device that appears or changes. When DEV carries an lraid
 * superblock, the array's members are looked for as assemble --scan does,
 * but nothing is opened exclusively (this runs while the system boots
 * and mounts, and a claim held for a moment could fail a mount): what is
 * built on a device comes from its holders in sysfs. The array is
 * assembled under the number assemble --scan would give it once every
 * role it last recorded working is there; until then the command waits
 * for the next member's event (exit 0), and --run starts it with what is
 * there (mdadm -IR). No superblock on DEV (silent with --quiet), the
 * array already running, or a create or assemble by hand that does not
 * end within a minute are no error. A member that comes back while its
 * array runs is re-added when the write-intent bitmap covers what it
 * missed (incremental_readd()); a refused re-add exits 1. A spare (its
 * superblock says so) counts for none of that: it is assembled with the
 * array once its members are there, and added to the array when that
 * runs already (incremental_spare()). Runs under the scan lock, so events
 * of several members at once assemble the array once.
 */
static int cmd_incremental(int argc, char **argv)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	char msg[PATH_MAX + 128];
	struct assemble_opts o = { 0 };
	struct lraid_sb_info sb;
	const char *why = "";
	int opt, ret;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "Rq", incremental_opts,
				  NULL)) != -1) {
		switch (opt) {
		case 'R':
			o.run = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		default:
			err("unknown option '%s'", argv[optind - 1]);
			return usage();
		}
	}
	if (optind != argc - 1)
		return usage();
	o.dev = argv[optind];
	ret = read_sb_block(o.dev, block, NULL, msg, sizeof(msg));
	/*
	 * --quiet (the udev rule): no medium, gone before its event ran,
	 * smaller than a superblock (an extended partition's stub) or not
	 * readable is not a device to assemble from, and no news
	 */
	if (ret && o.quiet)
		return 0;
	if (ret) {
		err("%s", msg);
		return 1;
	}
	if (!has_sb_magic(block)) {
		if (o.quiet)
			return 0;
		err("%s: no lraid superblock", o.dev);
		return 1;
	}
	ret = lraid_sb_decode(block, &sb, &why);
	if (ret) {
		err("%s: %s: %s%s", o.dev, why, strerror(-ret),
		    errno_hint(-ret));
		return 1;
	}
	o.uuid = sb.uuid;
	o.sb = &sb;
	load_module();
	return assemble_scan(NULL, &o);
}

/* Whether array @index answers busy because a create or assemble runs. */
static bool being_created(int ctl, unsigned int index)
{
	struct lraid_ioc_info c;

	memset(&c, 0, sizeof(c));
	c.index = index;
	return ioctl(ctl, LRAID_IOC_INFO, &c) && errno == EBUSY;
}

/*
 * Stop array @index: 0, or the errno (said, but for ENODEV if @quiet_gone:
 * stopped meanwhile, by another stop --scan say). A busy array is tried
 * again for up to five seconds: udev and blkid open a new disk briefly
 * right after it appears, and again after its change uevent (a member
 * failed), so a stop straight after create, assemble or fail would
 * otherwise fail now and then.
 */
static int stop_one(int ctl, uint32_t index, bool quiet_gone)
{
	struct lraid_ioc_stop c = { .index = index };
	int tries = 0;

	while (ioctl(ctl, LRAID_IOC_STOP, &c)) {
		int e = errno;

		if (e == EBUSY && being_created(ctl, c.index)) {
			err("stop lraid%u failed: %s (" BEING_CREATED "; wait, or interrupt that command)",
			    c.index, strerror(e));
			return e;
		}
		if (e == EBUSY && ++tries < 25) {
			usleep(200000);
			continue;
		}
		if (e != ENODEV || !quiet_gone)
			err("stop lraid%u failed: %s%s", c.index, strerror(e),
			    e == EBUSY ? " (in use: mounted, open, or part of another device)" :
			    e == ENODEV ? " (array not running)" :
			    errno_hint(e));
		return e;
	}
	return 0;
}

/*
 * The control device, with the arrays running (and being created) listed
 * by list_arrays(); -1 (said) if either fails.
 */
static int open_listing(uint8_t *running, uint8_t *creating)
{
	int ctl = open_control();

	if (ctl >= 0 && list_arrays(ctl, running, creating, NULL)) {
		close(ctl);
		ctl = -1;
	}
	return ctl;
}

/*
 * stop --scan: every running array, as mdadm --stop --scan; each one
 * stopped is named on stderr, as mdadm does, and each one that cannot be
 * (in use) said why. lraid arrays are never members of one another, so
 * no order is needed. Arrays still being created or assembled are named
 * and left alone.
 */
static int stop_all(void)
{
	uint8_t todo[LRAID_MAX_ARRAYS / 8], busy[LRAID_MAX_ARRAYS / 8];
	int ctl, i, e, ret = 0;

	ctl = open_listing(todo, busy);
	if (ctl < 0)
		return 1;
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		if (bit_set(busy, i)) {
			err("lraid%d not stopped: " BEING_CREATED, i);
			ret = 1;
		}
		if (!bit_set(todo, i))
			continue;
		e = stop_one(ctl, i, true);
		if (!e)
			err("stopped /dev/lraid%d", i);
		else if (e != ENODEV)	/* ENODEV: stopped meanwhile */
			ret = 1;
	}
	close(ctl);
	return ret;
}

static int cmd_stop(int argc, char **argv)
{
	uint32_t index;
	int ctl, ret;

	if (argc == 2 && is_scan(argv[1]))
		return stop_all();
	if (argc != 2)
		return usage();
	if (parse_array(argv[1], &index))
		return 1;
	ctl = open_control();
	if (ctl < 0)
		return 1;
	ret = stop_one(ctl, index, false);
	close(ctl);
	return ret ? 1 : 0;
}

/*
 * "lraidN MEMBER" of fail and remove into @c (struct lraid_ioc_remove has
 * the same fields). 0, or 1 when refused (said).
 */
static int member_args(char **argv, struct lraid_ioc_fail *c)
{
	struct stat st;

	if (parse_array(argv[1], &c->index))
		return 1;
	if (stat(argv[2], &st)) {
		err("%s: %s", argv[2], strerror(errno));
		return 1;
	}
	if (!S_ISBLK(st.st_mode)) {
		err("%s is not a block device: %s", argv[2], strerror(ENOTBLK));
		return 1;
	}
	c->major = major(st.st_rdev);
	c->minor = minor(st.st_rdev);
	return 0;
}

static bool is_spare_of(int ctl, uint32_t index, const char *path);

static int cmd_fail(int argc, char **argv)
{
	struct lraid_ioc_fail c = { 0 };
	int ctl, tries = 0;

	if (argc != 3)
		return usage();
	if (member_args(argv, &c))
		return 1;
	ctl = open_control();
	if (ctl < 0)
		return 1;
	/*
	 * Busy: the array cannot lose the member, or a create or assemble
	 * of the index runs. That may have ended before being_created()
	 * asks, so a busy answer is tried once more (a refused fail
	 * changes nothing) before it is taken for the former.
	 */
	while (ioctl(ctl, LRAID_IOC_FAIL, &c)) {
		int e = errno;

		if (e == EBUSY && !being_created(ctl, c.index) && !tries++)
			continue;
		if (e == EBUSY && being_created(ctl, c.index))
			err("fail %s in lraid%u failed: %s (" BEING_CREATED ")",
			    argv[2], c.index, strerror(e));
		else if (e == EBUSY && is_spare_of(ctl, c.index, argv[2]))
			err("fail %s in lraid%u refused: %s (%s is a spare of lraid%u, not a member: `lraidctl remove` takes it out)",
			    argv[2], c.index, strerror(e), argv[2], c.index);
		else if (e == EBUSY)
			err("fail %s in lraid%u refused: %s (the array cannot lose another member)",
			    argv[2], c.index, strerror(e));
		else if (e == ENODEV)
			err("fail %s in lraid%u failed: %s (no such array, or not one of its members)",
			    argv[2], c.index, strerror(e));
		else if (e == ENOTTY)
			err("fail: %s (kernel module without degraded mode)",
			    strerror(e));
		else
			err("fail %s in lraid%u failed: %s%s", argv[2], c.index,
			    strerror(e), errno_hint(e));
		close(ctl);
		return 1;
	}
	close(ctl);
	return 0;
}

static void dev_path(unsigned int maj, unsigned int min, char *out, size_t len)
{
	char link[64], target[256];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		snprintf(out, len, "/dev/%s", strrchr(target, '/') + 1);
	} else {
		snprintf(out, len, "%u:%u", maj, min);
	}
}

/* A faulty role without a device: missing at assembly, or not fresh. */
static bool member_missing(const struct lraid_ioc_member *m)
{
	return m->state == LRAID_MEMBER_FAULTY && !m->major && !m->minor;
}

/* A member's state as detail --json names it */
static const char *member_state(const struct lraid_ioc_member *m)
{
	if (m->state == LRAID_MEMBER_SPARE)
		return "spare";
	if (member_missing(m))
		return "missing";
	if (m->state == LRAID_MEMBER_REBUILDING)
		return "rebuilding";
	return m->state == LRAID_MEMBER_FAULTY ? "faulty" : "active";
}

/* ... and in detail's table, in mdadm's words */
static const char *member_state_table(const struct lraid_ioc_member *m)
{
	if (m->state == LRAID_MEMBER_ACTIVE)
		return "active sync";
	if (m->state == LRAID_MEMBER_REBUILDING)
		return "spare rebuilding";
	return member_state(m);
}

static void member_path(const struct lraid_ioc_member *m, char *out,
			size_t len)
{
	if (member_missing(m))
		snprintf(out, len, "-");
	else
		dev_path(m->major, m->minor, out, len);
}

/*
 * detail's device counts, as mdadm --detail's: Total is every device the
 * array holds (not a missing role), Active the members in sync, Working
 * every device not failed (spares too), Failed the failed members still
 * held, Spare the spares and, as mdadm counts them, the devices being
 * rebuilt onto ("spare rebuilding").
 */
struct dev_counts {
	int total, active, working, failed, spare;
};

static void count_devices(const struct lraid_ioc_info *c, struct dev_counts *n)
{
	int i, end = c->nr_members + info_spares(c);

	memset(n, 0, sizeof(*n));
	for (i = 0; i < end && i < LRAID_MAX_MEMBERS_ABI; i++) {
		const struct lraid_ioc_member *m = &c->members[i];

		if (member_missing(m))
			continue;
		n->total++;
		if (m->state == LRAID_MEMBER_FAULTY) {
			n->failed++;
			continue;
		}
		n->working++;
		if (m->state == LRAID_MEMBER_ACTIVE)
			n->active++;
		else
			n->spare++;	/* a spare, or rebuilding */
	}
}

/*
 * The roles of @c without a working member (bit r: role r): failed,
 * missing, or being rebuilt onto an added device, which the array does
 * not read before the rebuild ends (mdadm counts such a device a spare,
 * not an active one).
 */
static uint32_t roles_down(const struct lraid_ioc_info *c)
{
	uint32_t mask = 0;
	int i;

	for (i = 0; i < c->nr_members && i < LRAID_MAX_MEMBERS_ABI; i++)
		if ((c->members[i].state == LRAID_MEMBER_FAULTY ||
		     c->members[i].state == LRAID_MEMBER_REBUILDING) &&
		    c->members[i].role < 32)
			mask |= 1U << c->members[i].role;
	return mask;
}

/* As mdadm --detail: clean or active, then degraded or FAILED. */
static const char *array_state(const struct lraid_ioc_info *c)
{
	bool clean = c->state == LRAID_ARRAY_CLEAN;
	int faulty = __builtin_popcount(roles_down(c));

	if (faulty > (c->level == 6 ? 2 : 1))
		return clean ? "clean, FAILED" : "active, FAILED";
	if (faulty)
		return clean ? "clean, degraded" : "active, degraded";
	return clean ? "clean" : "active";
}

static void uuid_str(const uint8_t *u, char *out)
{
	sprintf(out,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* The INFO of array @index into @c: 0, or the errno (not said). */
static int array_info(int ctl, uint32_t index, struct lraid_ioc_info *c)
{
	memset(c, 0, sizeof(*c));
	c->index = index;
	return ioctl(ctl, LRAID_IOC_INFO, c) ? errno : 0;
}

/* array_info() through a control device opened for it: 0 or an errno */
static int array_info_once(uint32_t index, struct lraid_ioc_info *c)
{
	int ctl = open(CONTROL_PATH, O_RDWR | O_CLOEXEC), e;

	e = ctl < 0 ? errno : array_info(ctl, index, c);
	if (ctl >= 0)
		close(ctl);
	return e;
}

/* The member of @c whose device is @dev, or NULL */
static const struct lraid_ioc_member *
member_of(const struct lraid_ioc_info *c, dev_t dev)
{
	int i;

	for (i = 0; i < c->nr_members && i < LRAID_MAX_MEMBERS_ABI; i++)
		if (!member_missing(&c->members[i]) &&
		    c->members[i].major == major(dev) &&
		    c->members[i].minor == minor(dev))
			return &c->members[i];
	return NULL;
}

/* The spare of @c whose device is @dev, or NULL */
static const struct lraid_ioc_member *
spare_of(const struct lraid_ioc_info *c, dev_t dev)
{
	int i, end = c->nr_members + info_spares(c);

	for (i = c->nr_members; i < end; i++)
		if (c->members[i].major == major(dev) &&
		    c->members[i].minor == minor(dev))
			return &c->members[i];
	return NULL;
}

/* Whether the device @path is a spare of lraid@index now */
static bool is_spare_of(int ctl, uint32_t index, const char *path)
{
	struct lraid_ioc_info c;
	struct stat st;

	return !stat(path, &st) && S_ISBLK(st.st_mode) &&
	       !array_info(ctl, index, &c) && spare_of(&c, st.st_rdev);
}

/*
 * After array @index started with the spares @spaths[0..ns-1]: say how
 * many members and spares it runs with, as mdadm's "has been started
 * with N drives and M spares", and what the spares do: one may have
 * taken a role down at the start already, or the array is about to (it
 * gives a failed role a spare by itself, from a work item).
 */
static void spares_started(uint32_t index, int ns, char **spaths)
{
	dev_t sdev[LRAID_MAX_MEMBERS_ABI];
	char took[PATH_MAX + 128] = "", sp[32] = "", soon[96] = "";
	const struct lraid_ioc_member *m;
	struct lraid_ioc_info c;
	int e, i, k, members = 0, left = 0;
	uint32_t down = 0;
	size_t len = 0;
	struct stat st;

	e = array_info_once(index, &c);
	if (e) {
		err("/dev/lraid%u started, with %d spare%s given (what became of them is not known: %s)",
		    index, ns, ns > 1 ? "s" : "", strerror(e));
		return;
	}
	for (k = 0; k < ns; k++)
		sdev[k] = stat(spaths[k], &st) ? 0 : st.st_rdev;
	for (i = 0; i < c.nr_members && i < LRAID_MAX_MEMBERS_ABI; i++) {
		m = &c.members[i];
		if (m->state == LRAID_MEMBER_FAULTY && m->role < 32)
			down |= 1U << m->role;
		if (m->state != LRAID_MEMBER_ACTIVE &&
		    m->state != LRAID_MEMBER_REBUILDING)
			continue;
		for (k = 0; k < ns; k++)
			if (sdev[k] && sdev[k] == makedev(m->major, m->minor))
				break;
		if (k == ns)
			members++;
		else if (len < sizeof(took))
			len += snprintf(took + len, sizeof(took) - len,
					"; spare %s took role %u, rebuilding it",
					spaths[k], m->role);
	}
	for (; i < c.nr_members + info_spares(&c); i++)
		left += c.members[i].state == LRAID_MEMBER_SPARE;
	if (left)
		snprintf(sp, sizeof(sp), " and %d spare%s", left,
			 left == 1 ? "" : "s");
	if (left && down)
		snprintf(soon, sizeof(soon), "; the array rebuilds role%s %s onto %s",
			 down & (down - 1) ? "s" : "", roles_str(down),
			 down & (down - 1) && left > 1 ?
			 "spares, one at a time" : "a spare");
	err("/dev/lraid%u started with %d member%s%s%s%s%s", index, members,
	    members == 1 ? "" : "s", sp, took, soon,
	    took[0] || soon[0] ? " (lraidctl detail shows how far)" : "");
}

/*
 * Why add refused @path (@dev) with EBUSY, from what INFO and sysfs show
 * now, in the order the kernel looks: a pass runs, the device is an
 * active member, no role is down, else the device is in use elsewhere.
 * A module with spares (ABI 1.5) keeps the device a spare when a pass
 * runs or no role is down, unless it is a re-add (@readd), so there the
 * device itself is the reason: a spare, an active member or one being
 * rebuilt of this array already, the failed device of a role while a
 * pass runs (it is rebuilt in place, not kept a spare), or in use
 * elsewhere.
 */
static const char *add_busy_why(int ctl, uint32_t index, const char *path,
				dev_t dev, bool readd, char *buf, size_t len)
{
	const struct lraid_ioc_member *m;
	struct lraid_ioc_info c;
	struct sync_state st;
	bool spares = !readd && ctl_has_spares(ctl);

	if (array_info(ctl, index, &c)) {
		if (spares)
			return "the device is in use (mounted, a member of another array, a member or spare of this one) or, as the failed device of a role, waits for the pass running to end; the kernel log says which";
		return "the array is not degraded, a check, repair, resync or rebuild is running, or the device is in use (mounted, a member of another array, an active member of this one); the kernel log says which";
	}
	m = member_of(&c, dev);
	sync_state(index, &st);
	if (spare_of(&c, dev)) {
		snprintf(buf, len, "%s is a spare of lraid%u already", path,
			 index);
		return buf;
	}
	if (spares) {
		bool rec = st.running && !strcmp(st.action, "recover");

		if (m && m->state == LRAID_MEMBER_ACTIVE)
			snprintf(buf, len, "%s is an active member of lraid%u (role %u)",
				 path, index, m->role);
		else if (m && m->state == LRAID_MEMBER_REBUILDING && rec)
			snprintf(buf, len, "a rebuild is running (sync_action recover), onto %s already: role %u (lraidctl action --wait lraid%u waits for it)",
				 path, m->role, index);
		else if (m && m->state == LRAID_MEMBER_REBUILDING)
			snprintf(buf, len, "%s is being rebuilt as role %u of lraid%u already",
				 path, m->role, index);
		else if (m && st.running)
			snprintf(buf, len, "a %s%s is running (sync_action %s) and %s is the failed device of role %u, which an add rebuilds in place rather than keep as a spare: add it once the pass has ended (lraidctl action --wait lraid%u waits for it)",
				 rec ? "rebuild" : st.action,
				 rec ? "" : " pass", st.action, path, m->role,
				 index);
		else
			snprintf(buf, len, "%s is in use: mounted, a member of another array, or held open exclusively by some program",
				 path);
		return buf;
	}
	if (st.running && !strcmp(st.action, "recover"))
		snprintf(buf, len, "a rebuild is running (sync_action recover): add the next device once it has ended (lraidctl action --wait lraid%u waits for it)",
			 index);
	else if (st.running)
		snprintf(buf, len, "a %s pass is running (sync_action): wait for it to end, or stop it with 'lraidctl action idle lraid%u'",
			 st.action, index);
	else if (m && m->state == LRAID_MEMBER_ACTIVE)
		snprintf(buf, len, "%s is an active member of lraid%u (role %u)",
			 path, index, m->role);
	else if (!roles_down(&c))
		snprintf(buf, len, "lraid%u is not degraded: no role is failed or missing, so there is nothing to rebuild",
			 index);
	else
		snprintf(buf, len, "%s is in use: mounted, a member of another array, or held open exclusively by some program",
			 path);
	return buf;
}

/* Why add refused @path (@dev) with EINVAL, as far as one can tell. */
static const char *add_invalid_why(int ctl, uint32_t index, const char *path,
				   dev_t dev, char *buf, size_t len)
{
	struct dev_place place, mplace;
	struct lraid_ioc_info c;
	int i;

	if ((int)major(dev) == lraid_block_major()) {
		snprintf(buf, len, "%s is an lraid array, which cannot be a member",
			 path);
		return buf;
	}
	if (!array_info(ctl, index, &c) && dev_place(dev, &place)) {
		for (i = 0; i < c.nr_members + info_spares(&c); i++) {
			const struct lraid_ioc_member *m = &c.members[i];
			char p[300];

			if ((m->state != LRAID_MEMBER_ACTIVE &&
			     m->state != LRAID_MEMBER_SPARE) ||
			    !dev_place(makedev(m->major, m->minor), &mplace) ||
			    !dev_overlap(&place, &mplace))
				continue;
			member_path(m, p, sizeof(p));
			if (m->state == LRAID_MEMBER_SPARE)
				snprintf(buf, len, "%s overlaps spare %s: a disk and its own partition",
					 path, p);
			else
				snprintf(buf, len, "%s overlaps member %s (role %u): a disk and its own partition",
					 path, p, m->role);
			return buf;
		}
	}
	return "the device overlaps a member or is the same storage as one (two paths to one disk), or does not take what the array sends its members (larger logical blocks than the array's, say); the kernel log says which";
}

/*
 * Why add refused @path (open as @fd) with ENOSPC: its size, and the
 * need; or (ABI 1.5) no room for another spare: LRAID_MAX_MEMBERS_ABI
 * roles and spares already.
 */
static const char *add_nospace_why(int ctl, uint32_t index, const char *path,
				   int fd, char *buf, size_t len)
{
	struct lraid_ioc_info c;
	uint64_t bytes;
	int spares;

	if (array_info(ctl, index, &c) || ioctl(fd, BLKGETSIZE64, &bytes)) {
		if (ctl_has_spares(ctl))
			return "the device is smaller than the array's data offset plus the data size of a member, or the array has no room for another spare; the kernel log says which";
		return "the device is smaller than the array's data offset plus the data size of a member";
	}
	spares = info_spares(&c);
	if (c.nr_members + spares >= LRAID_MAX_MEMBERS_ABI &&
	    (bytes >> 9) >= c.data_offset + c.member_data_sectors) {
		snprintf(buf, len, "lraid%u has no room for another spare: %u members and %d spare%s, the %d devices an array can have",
			 index, c.nr_members, spares, spares == 1 ? "" : "s",
			 LRAID_MAX_MEMBERS_ABI);
		return buf;
	}
	snprintf(buf, len, "%s has %llu sectors; a member of lraid%u needs %llu: the data offset, %llu, and %llu of data",
		 path, (unsigned long long)(bytes >> 9), index,
		 (unsigned long long)(c.data_offset + c.member_data_sectors),
		 (unsigned long long)c.data_offset,
		 (unsigned long long)c.member_data_sectors);
	return buf;
}

/*
 * Whether the loaded module knows LRAID_ADD_READD: ABI 1.4 or later, and
 * not a 1.4 module from before re-add, which refuses the flag as unknown.
 * That one is told by an add with the flag and fd -1: the kernel checks
 * the flags before the fd, so a module that knows the flag answers EBADF
 * and changes nothing. *@v gets the ABI (zero if it cannot be asked).
 */
static bool add_knows_readd(int ctl, uint32_t index,
			    struct lraid_ioc_version *v)
{
	struct lraid_ioc_add probe = { 0 };

	memset(v, 0, sizeof(*v));
	if (ioctl(ctl, LRAID_IOC_VERSION, v))
		return true;	/* not known: say nothing about the ABI */
	if (v->major == 1 && v->minor < 4)
		return false;
	probe.index = index;
	probe.flags = LRAID_ADD_READD;
	probe.fd = -1;
	return ioctl(ctl, LRAID_IOC_ADD, &probe) == 0 || errno != EINVAL;
}

/*
 * Why re-add refused @path with ESTALE, where the tool can tell as the
 * kernel does (lraid_add_readd()): no superblock of the array on the
 * device, no bitmap on the array, a device not in sync (rebuilt part of
 * the way only). Its role not free, or it left before the bits were last
 * cleared (the array's bitmap_events, which INFO does not carry): the
 * kernel log says.
 */
static const char *readd_stale_why(int ctl, uint32_t index, const char *path,
				   char *buf, size_t len)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	struct lraid_sb_info sb;
	struct lraid_ioc_info c;
	char msg[PATH_MAX + 128];

	if (array_info(ctl, index, &c))
		goto generic;
	if (read_sb_block(path, block, NULL, msg, sizeof(msg)) ||
	    lraid_sb_decode(block, &sb, NULL) ||
	    memcmp(sb.uuid, c.uuid, sizeof(c.uuid))) {
		snprintf(buf, len, "%s carries no superblock of lraid%u, so it is not a member that left it; lraidctl add rebuilds it in full",
			 path, index);
		return buf;
	}
	if (lraid_sb_is_spare(&sb)) {
		snprintf(buf, len, "%s carries a spare's superblock of lraid%u, not a member's, so there is nothing to re-add; lraidctl add adds it",
			 path, index);
		return buf;
	}
	if (!c.bitmap_region_sectors) {
		snprintf(buf, len, "lraid%u has no write-intent bitmap to record what a member missed; lraidctl add rebuilds it in full",
			 index);
		return buf;
	}
	if (!lraid_sb_in_sync(&sb)) {
		snprintf(buf, len, "%s was not in sync when it left lraid%u (rebuilt only up to sector %llu of %llu); lraidctl add rebuilds it in full",
			 path, index, (unsigned long long)sb.recovery_offset,
			 (unsigned long long)sb.data_size);
		return buf;
	}
generic:
	snprintf(buf, len, "not a member that left lraid%u recently enough for its write-intent bitmap to cover what it missed; the kernel log says why; lraidctl add rebuilds it in full",
		 index);
	return buf;
}

/*
 * Say why the add of @path (open as @fd, device @dev) failed with @e;
 * @readd: it was a re-add (LRAID_ADD_READD).
 */
static void add_failed(int ctl, uint32_t index, const char *path, int fd,
		       dev_t dev, int e, bool readd)
{
	const char *verb = readd ? "re-add" : "add";
	char buf[PATH_MAX + 256];
	struct lraid_ioc_version v;

	if (e == EBUSY && being_created(ctl, index))
		err("%s %s to lraid%u failed: %s (" BEING_CREATED ")", verb,
		    path, index, strerror(e));
	else if (e == EBUSY)
		err("%s %s to lraid%u refused: %s (%s)", verb, path, index,
		    strerror(e), add_busy_why(ctl, index, path, dev, readd,
					      buf, sizeof(buf)));
	else if (e == ENOSPC)
		err("%s %s to lraid%u refused: %s (%s)", verb, path, index,
		    strerror(e),
		    add_nospace_why(ctl, index, path, fd, buf, sizeof(buf)));
	else if (e == ESTALE && readd)
		err("re-add %s to lraid%u refused: %s (%s)", path, index,
		    strerror(e),
		    readd_stale_why(ctl, index, path, buf, sizeof(buf)));
	else if (e == EINVAL && readd && !add_knows_readd(ctl, index, &v))
		err("re-add %s to lraid%u refused: %s (the lraid module loaded, ABI %u.%u, has no re-add: %s; lraidctl add rebuilds the device in full)",
		    path, index, strerror(e), v.major, v.minor,
		    v.major == 1 && v.minor < 4 ? "it needs ABI 1.4" :
		    "it predates LRAID_ADD_READD, load a newer lraid.ko");
	else if (e == EINVAL)
		err("%s %s to lraid%u refused: %s (%s)", verb, path, index,
		    strerror(e),
		    add_invalid_why(ctl, index, path, dev, buf, sizeof(buf)));
	else if (e == ENODEV)
		err("%s %s to lraid%u failed: %s (no such array: lraid%u is not running)",
		    verb, path, index, strerror(e), index);
	else if (e == EIO)
		err("%s %s to lraid%u failed: %s (the array has lost more members than its parity covers, so there is nothing to rebuild from, or %s failed a write; the kernel log says which)",
		    verb, path, index, strerror(e), path);
	else if (e == ENOTTY)
		err("%s: %s (kernel module without rebuild)", verb,
		    strerror(e));
	else
		err("%s %s to lraid%u failed: %s%s", verb, path, index,
		    strerror(e), errno_hint(e));
}

/*
 * Say what became of @path (@dev), just added to lraid@index: a spare
 * (ABI 1.5: no role was down, or a pass ran), or the role it is being
 * rebuilt as, which INFO shows; a small array may be rebuilt already,
 * and a rebuild may have stopped already. @readd: it
 * was added with LRAID_ADD_READD. Without the flag the kernel re-adds a
 * member that left recently enough for the bitmap by itself, and says so
 * only in its log; its superblock tells: a re-add keeps it, a full
 * rebuild erases it before the ioctl returns, and until the rebuild ends
 * no superblock pass writes the device (its role counts as failed). It
 * is read before the INFO that shows the device still rebuilding (or
 * stopped), so the pass at the end of the rebuild cannot have written
 * it yet; once rebuilt, the two look alike and nothing is claimed. A
 * spare's superblock (one kept a spare first, then taken for a role)
 * is no re-add.
 */
static void add_report(int ctl, uint32_t index, const char *path, dev_t dev,
		       bool readd)
{
	static uint8_t block[LRAID_SB_SIZE] __attribute__((aligned(4096)));
	const struct lraid_ioc_member *m, *sp;
	struct lraid_ioc_info c;
	char msg[PATH_MAX + 128];
	uint32_t others, failed = 0;
	bool got_sb;
	int e, i;

	/* the superblock before INFO: see above */
	got_sb = !readd && !read_sb_block(path, block, NULL, msg, sizeof(msg));
	e = array_info(ctl, index, &c);
	if (e) {
		err("%s %s to lraid%u (its role is not known: %s)",
		    readd ? "re-added" : "added", path, index, strerror(e));
		return;
	}
	m = member_of(&c, dev);
	sp = m ? NULL : spare_of(&c, dev);
	if (sp && sp->state != LRAID_MEMBER_SPARE) {
		err("added %s to lraid%u as a spare, but it is faulty now: its superblock write failed, and it is never used (the kernel log says why); lraidctl remove takes it out",
		    path, index);
		return;
	}
	if (sp) {
		/* roles failed, not being rebuilt: a pass runs (see above) */
		for (i = 0; i < c.nr_members && i < LRAID_MAX_MEMBERS_ABI; i++)
			if (c.members[i].state == LRAID_MEMBER_FAULTY &&
			    c.members[i].role < 32)
				failed |= 1U << c.members[i].role;
		if (failed)
			err("added %s to lraid%u as a spare; the array rebuilds role%s %s onto a spare once the pass running ends",
			    path, index, failed & (failed - 1) ? "s" : "",
			    roles_str(failed));
		else
			err("added %s to lraid%u as a spare", path, index);
		return;
	}
	if (!m) {
		err("%s %s to lraid%u, but it is not among its members or spares now (see the kernel log)",
		    readd ? "re-added" : "added", path, index);
		return;
	}
	if (got_sb && m->state != LRAID_MEMBER_ACTIVE) {
		struct lraid_sb_info sb;

		readd = !lraid_sb_decode(block, &sb, NULL) &&
			!memcmp(sb.uuid, c.uuid, sizeof(sb.uuid)) &&
			!lraid_sb_is_spare(&sb);
	}
	if (m->state == LRAID_MEMBER_FAULTY) {
		err("%s %s to lraid%u as role %u, but its rebuild has stopped already and the role stays failed (the kernel log says why); lraidctl add starts it over%s",
		    readd ? "re-added" : "added", path, index, m->role,
		    readd ? " (again only the regions its write-intent bitmap records)" : "");
		return;
	}
	if (m->state == LRAID_MEMBER_REBUILDING && readd)
		err("re-added %s to lraid%u: rebuilding role %u, only the regions its write-intent bitmap records",
		    path, index, m->role);
	else if (m->state == LRAID_MEMBER_REBUILDING)
		err("added %s to lraid%u: rebuilding role %u", path, index,
		    m->role);
	else
		err("%s %s to lraid%u: role %u, rebuilt already",
		    readd ? "re-added" : "added", path, index, m->role);
	others = roles_down(&c) & ~(m->role < 32 ? 1U << m->role : 0);
	if (others && ctl_has_spares(ctl))
		err("lraid%u: role%s %s still failed or missing: %sonce this rebuild has ended the array rebuilds %s",
		    index, others & (others - 1) ? "s" : "", roles_str(others),
		    info_spares(&c) ? "" :
		    "a device added now is kept as a spare, and ",
		    others & (others - 1) ?
		    "them onto spares, one at a time" : "it onto a spare");
	else if (others)
		err("lraid%u: role%s %s still failed or missing: add a device for %s once this rebuild has ended (lraidctl action --wait lraid%u waits for it)",
		    index, others & (others - 1) ? "s" : "", roles_str(others),
		    others & (others - 1) ? "them, one at a time," : "it",
		    index);
}

/* Why remove refused the member @maj:@min of lraid@index with EBUSY. */
static const char *remove_busy_why(int ctl, uint32_t index, unsigned int maj,
				   unsigned int min)
{
	const struct lraid_ioc_member *m;
	struct lraid_ioc_info c;

	if (array_info(ctl, index, &c))
		return "only a failed member can be removed, and not while its rebuild runs";
	m = member_of(&c, makedev(maj, min));
	if (m && m->state == LRAID_MEMBER_REBUILDING)
		return "it is being rebuilt: stop the rebuild first (lraidctl action idle)";
	if (m && m->state == LRAID_MEMBER_ACTIVE)
		return "it is active: only a failed member can be removed (lraidctl fail it first)";
	return "only a failed member can be removed, and not while its rebuild runs";
}

/*
 * mdadm --remove: close a failed member, its role then missing; or take
 * a spare out of the array (ABI 1.5), which erases its superblock so that
 * no later assembly takes it back.
 */
static int cmd_remove(int argc, char **argv)
{
	struct lraid_ioc_fail f = { 0 };
	struct lraid_ioc_remove c = { 0 };
	struct lraid_ioc_info info;
	bool spare;
	int ctl, e;

	if (argc != 3)
		return usage();
	if (member_args(argv, &f))
		return 1;
	c.index = f.index;
	c.major = f.major;
	c.minor = f.minor;
	ctl = open_control();
	if (ctl < 0)
		return 1;
	/* asked before: once removed, INFO no longer lists it */
	spare = !array_info(ctl, c.index, &info) &&
		spare_of(&info, makedev(f.major, f.minor));
	if (!ioctl(ctl, LRAID_IOC_REMOVE, &c)) {
		close(ctl);
		/* on stderr, as mdadm's "hot removed" */
		if (spare)
			err("removed spare %s from lraid%u (%s)", argv[2],
			    c.index, sb_gone(argv[2]) ? "its superblock erased" :
			    "its superblock could not be erased: see the kernel log");
		else
			err("removed %s from lraid%u", argv[2], c.index);
		return 0;
	}
	e = errno;
	if (e == EBUSY && being_created(ctl, c.index))
		err("remove %s from lraid%u failed: %s (" BEING_CREATED ")",
		    argv[2], c.index, strerror(e));
	else if (e == EBUSY)
		err("remove %s from lraid%u refused: %s (%s)", argv[2], c.index,
		    strerror(e), remove_busy_why(ctl, c.index, f.major, f.minor));
	else if (e == ENODEV)
		err("remove %s from lraid%u failed: %s (no such array, or not one of its members or spares)",
		    argv[2], c.index, strerror(e));
	else if (e == ENOTTY)
		err("remove: %s (kernel module without remove)", strerror(e));
	else
		err("remove %s from lraid%u failed: %s%s", argv[2], c.index,
		    strerror(e), errno_hint(e));
	close(ctl);
	return 1;
}

/*
 * Add @path to lraid@index with @flags (LRAID_ADD_*) and say what became
 * of it (add_report()) or why not (add_failed()). @path is opened with
 * @oflags: add opens it read-write, as create opens members; incremental
 * read-only, as udev sends a change event when a device it watches is
 * closed after a write, and a refused add would run the rule again
 * without end. The kernel takes the device by its dev_t and claims it
 * exclusively itself either way. Returns 0 when added, the errno of a
 * refused or failed add, or -1 when it did not get that far (printed).
 */
static int add_device(uint32_t index, const char *path, uint32_t flags,
		      int oflags)
{
	struct lraid_ioc_add c = { .index = index, .flags = flags };
	struct stat st;
	int ctl, fd, e = 0, tries = 0;

	fd = open(path, oflags | O_CLOEXEC);
	if (fd < 0) {
		err("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		err("cannot stat %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		err("%s is not a block device: %s", path, strerror(ENOTBLK));
		close(fd);
		return -1;
	}
	c.fd = fd;
	ctl = open_control();
	if (ctl < 0) {
		close(fd);
		return -1;
	}
	/*
	 * Busy: see add_busy_why(), or a create or assemble of the index
	 * runs. That may have ended before being_created() asks, so a busy
	 * answer is tried once more (a refused add changes nothing), as
	 * fail does.
	 */
	while (ioctl(ctl, LRAID_IOC_ADD, &c)) {
		e = errno;
		if (e == EBUSY && !being_created(ctl, index) && !tries++)
			continue;
		add_failed(ctl, index, path, fd, st.st_rdev, e,
			   flags & LRAID_ADD_READD);
		break;
	}
	if (!e)
		add_report(ctl, index, path, st.st_rdev,
			   flags & LRAID_ADD_READD);
	close(ctl);
	close(fd);
	return e;
}

/*
 * add lraidN DEVICE: as mdadm --add into a degraded array. The kernel
 * gives DEVICE the lowest failed or missing role (the role it failed in,
 * if it is that failed member) and rebuilds the role onto it from the
 * other members in a "recover" pass while the array serves I/O. A
 * member of the array that left it recently enough for the write-intent
 * bitmap to record what it missed is re-added instead: it goes back to
 * its own role, superblock kept, and only the regions whose bit is set
 * are rebuilt. re-add lraidN DEVICE (@flags LRAID_ADD_READD, mdadm
 * --re-add) refuses any other device (ESTALE). With spares (ABI 1.5),
 * DEVICE added to an array with no role down, or while a pass runs, is
 * kept as a spare, which the array rebuilds a role onto once one is down
 * (add_report() says which it became). DEVICE is opened read-write, as
 * create opens members; the kernel then claims it exclusively itself.
 */
static int cmd_add(int argc, char **argv, uint32_t flags)
{
	uint32_t index;

	if (argc != 3)
		return usage();
	if (parse_array(argv[1], &index))
		return 1;
	return add_device(index, argv[2], flags, O_RDWR) ? 1 : 0;
}

/*
 * incremental DEV of array @index, which runs: as mdadm --incremental
 * with its default policy (action=re-add), DEV is re-added
 * (LRAID_ADD_READD) when the array has a write-intent bitmap, DEV is not
 * one of its members and the role its superblock names is failed or
 * missing (not being rebuilt onto another device); the kernel decides
 * whether the bitmap covers what DEV missed. A refusal (ESTALE) leaves
 * DEV alone: a full rebuild is never started by itself (mdadm's
 * force-spare policy, which lraid has not), it takes lraidctl add. What
 * happened is said with --quiet too, as an assembly is. Returns -1 when
 * DEV is not one to re-add, nothing done (said unless quiet when only its
 * role stands in the way), 0 when re-added, 1 when the re-add was
 * refused or failed (printed).
 */
static int incremental_readd(int ctl, int index,
			     const struct assemble_opts *o)
{
	const struct lraid_ioc_member *m = NULL;
	struct lraid_ioc_info c;
	struct stat st;
	int i, e;

	if (array_info(ctl, index, &c) || !c.bitmap_region_sectors ||
	    stat(o->dev, &st) || !S_ISBLK(st.st_mode) ||
	    member_of(&c, st.st_rdev) || spare_of(&c, st.st_rdev))
		return -1;
	for (i = 0; i < c.nr_members && i < LRAID_MAX_MEMBERS_ABI; i++)
		if (c.members[i].role == o->sb->role)
			m = &c.members[i];
	if (!m || m->state != LRAID_MEMBER_FAULTY) {
		if (!o->quiet)
			err("%s: role %u of lraid%d, which its superblock names, is %s: not re-added",
			    o->dev, o->sb->role, index,
			    !m ? "not one of the array's" :
			    m->state == LRAID_MEMBER_REBUILDING ?
			    "being rebuilt onto another device" :
			    "held by another device that works");
		return -1;
	}
	e = add_device(index, o->dev, LRAID_ADD_READD, O_RDONLY);
	if (e == ESTALE && !o->quiet)
		err("%s: not added to lraid%d: incremental starts no full rebuild (lraidctl add lraid%d %s does one)",
		    o->dev, index, index, o->dev);
	return e ? 1 : 0;
}

/*
 * incremental DEV of array @index, which runs, where DEV carries a
 * spare's superblock of it: as mdadm --incremental does with a spare, DEV
 * is added (LRAID_IOC_ADD): kept a spare, or rebuilt at once onto a role
 * that is down, which the array would have done had the spare been there
 * when the role failed. Nothing is done when DEV is a member or spare of
 * the array already (the add that made it one wrote that superblock),
 * when something holds it (a device-mapper table over it, say, which
 * shows the superblock too: its own event is the one to add), or when
 * the module keeps no spares. What happened is said with --quiet too, as
 * an assembly is. Returns -1 when nothing was done, 0 when added, 1 when
 * the add was refused or failed (printed).
 */
static int incremental_spare(int ctl, int index,
			     const struct assemble_opts *o)
{
	struct lraid_ioc_info c;
	char holders[64];
	struct stat st;
	struct dirent *e;
	bool held = false;
	DIR *d;

	if (array_info(ctl, index, &c) || stat(o->dev, &st) ||
	    !S_ISBLK(st.st_mode) || member_of(&c, st.st_rdev) ||
	    spare_of(&c, st.st_rdev) || !ctl_has_spares(ctl))
		return -1;
	snprintf(holders, sizeof(holders), "/sys/dev/block/%u:%u/holders",
		 major(st.st_rdev), minor(st.st_rdev));
	d = opendir(holders);
	while (d && !held && (e = readdir(d)))
		held = e->d_name[0] != '.';
	if (d)
		closedir(d);
	if (held) {
		if (!o->quiet)
			err("%s: a spare of lraid%d, but something is built on it (%s); not added",
			    o->dev, index, holders);
		return -1;
	}
	return add_device(index, o->dev, 0, O_RDONLY) ? 1 : 0;
}

/* "[--json] NAME": 0, or -1 for a usage error */
static int parse_json_name(int argc, char **argv, int *json,
			   const char **name)
{
	int i;

	*json = 0;
	*name = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			*json = 1;
		else if (!*name)
			*name = argv[i];
		else
			return -1;
	}
	return *name ? 0 : -1;
}

/* Print @s as a JSON string: quotes, backslashes, control bytes escaped. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

/*
 * One line per array, as mdadm.conf's and mdadm --detail --scan's; as
 * theirs, spares=N only when there are spares.
 */
static void array_line(const char *dev, unsigned int level,
		       unsigned int members, unsigned int spares,
		       const uint8_t *uuid)
{
	char u[40], sp[32] = "";

	uuid_str(uuid, u);
	if (spares)
		snprintf(sp, sizeof(sp), " spares=%u", spares);
	printf("ARRAY %s level=raid%u num-devices=%u%s UUID=%s\n", dev, level,
	       members, sp, u);
}

/*
 * detail --scan: an ARRAY line per running array, lowest number first,
 * from list_arrays()'s one INFO call each (those being created are passed
 * over).
 */
static int detail_all(void)
{
	static struct array_brief briefs[LRAID_MAX_ARRAYS];
	uint8_t running[LRAID_MAX_ARRAYS / 8], creating[LRAID_MAX_ARRAYS / 8];
	char dev[32];
	int ctl, i;

	ctl = open_control();
	if (ctl < 0)
		return 1;
	if (list_arrays(ctl, running, creating, briefs)) {
		close(ctl);
		return 1;
	}
	close(ctl);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		if (!bit_set(running, i))
			continue;
		snprintf(dev, sizeof(dev), "/dev/lraid%d", i);
		array_line(dev, briefs[i].level, briefs[i].nr_members,
			   briefs[i].nr_spares, briefs[i].uuid);
	}
	return 0;
}

/*
 * How detail names the pass @action (sync_action): in its State line
 * (", checking") and in its progress line ("Check Status"), as mdadm
 * names md's.
 */
static void pass_words(const char *action, const char **state,
		       const char **status)
{
	static const struct {
		const char *action, *state, *status;
	} words[] = {
		{ "check", "checking", "Check Status" },
		{ "repair", "repairing", "Repair Status" },
		{ "resync", "resyncing", "Resync Status" },
		{ "recover", "recovering", "Rebuild Status" },
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strcmp(action, words[i].action)) {
			*state = words[i].state;
			*status = words[i].status;
			return;
		}
	}
	*state = action;	/* a pass newer than this tool */
	*status = "Sync Status";
}

/* One entry of detail --json's "devices" (a role) or "spares" (@spare). */
static void json_member(const struct lraid_ioc_member *m, bool first,
			bool spare)
{
	char p[300];

	if (spare)
		dev_path(m->major, m->minor, p, sizeof(p));
	else
		member_path(m, p, sizeof(p));
	printf("%s{\"role\": ", first ? "" : ", ");
	if (spare)
		printf("null");
	else
		printf("%u", m->role);
	printf(", \"device\": ");
	json_str(p);
	printf(", \"major\": %u, \"minor\": %u, \"state\": \"%s\", "
	       "\"read_errors\": %u}", m->major, m->minor, member_state(m),
	       m->read_errors);
}

static int cmd_detail(int argc, char **argv)
{
	struct lraid_ioc_info c;
	struct sync_state st;
	struct dev_counts cnt;
	const char *name, *sep, *pass_state = "", *pass_status = "";
	int json, ctl, i;
	char uuid[40], state[64];

	if (argc == 2 && is_scan(argv[1]))
		return detail_all();
	if (parse_json_name(argc, argv, &json, &name) || is_scan(name))
		return usage();
	memset(&c, 0, sizeof(c));
	if (parse_array(name, &c.index))
		return 1;
	ctl = open_control();
	if (ctl < 0)
		return 1;
	if (ioctl(ctl, LRAID_IOC_INFO, &c)) {
		int e = errno;

		err("detail lraid%u failed: %s%s", c.index, strerror(e),
		    e == ENODEV ? " (array not running)" :
		    e == EBUSY ? " (" BEING_CREATED ")" :
		    "");
		close(ctl);
		return 1;
	}
	close(ctl);
	uuid_str(c.uuid, uuid);
	sync_state(c.index, &st);
	if (st.running)
		pass_words(st.action, &pass_state, &pass_status);
	snprintf(state, sizeof(state), "%s%s%s", array_state(&c),
		 st.running ? ", " : "", pass_state);
	if (json) {
		printf("{\"device\": \"/dev/lraid%u\", \"level\": %u, \"chunk_bytes\": %u, "
		       "\"members\": %u, \"array_sectors\": %llu, \"size_bytes\": %llu, "
		       "\"member_data_sectors\": %llu, \"data_offset\": %llu, "
		       "\"state\": \"%s\", \"events\": %llu, \"uuid\": \"%s\", "
		       "\"bitmap\": \"%s\", \"bitmap_region_bytes\": %llu, "
		       "\"bitmap_regions\": %u, \"bitmap_dirty\": %u, "
		       "\"devices\": [",
		       c.index, c.level, c.chunk_bytes, c.nr_members,
		       (unsigned long long)c.array_sectors,
		       (unsigned long long)c.array_sectors * 512,
		       (unsigned long long)c.member_data_sectors,
		       (unsigned long long)c.data_offset,
		       array_state(&c), (unsigned long long)c.events, uuid,
		       c.bitmap_region_sectors ? "internal" : "none",
		       (unsigned long long)c.bitmap_region_sectors * 512,
		       c.bitmap_regions, c.bitmap_dirty);
		for (i = 0; i < c.nr_members; i++)
			json_member(&c.members[i], i == 0, false);
		/* spares apart: "devices" stays one per role, in role order */
		printf("], \"spares\": [");
		for (i = c.nr_members; i < c.nr_members + info_spares(&c); i++)
			json_member(&c.members[i], i == c.nr_members, true);
		printf("]");
		if (st.action[0]) {
			printf(", \"sync_action\": \"%s\", \"last_sync_action\": \"%s\", "
			       "\"mismatch_cnt\": %llu, \"sync_completed\": ",
			       st.action, st.last, st.mismatches);
			if (st.running)
				printf("[%llu, %llu]", st.done, st.total);
			else
				printf("null");
		}
		printf("}\n");
		return 0;
	}
	printf("/dev/lraid%u:\n", c.index);
	printf("        Raid Level : raid%u\n", c.level);
	printf("        Array Size : %llu sectors (%.2f GiB)\n",
	       (unsigned long long)c.array_sectors,
	       c.array_sectors / 2097152.0);
	printf("     Used Dev Size : %llu sectors\n",
	       (unsigned long long)c.member_data_sectors);
	printf("       Data Offset : %llu sectors\n",
	       (unsigned long long)c.data_offset);
	count_devices(&c, &cnt);
	printf("      Raid Devices : %u\n", c.nr_members);
	printf("     Total Devices : %d\n", cnt.total);
	/*
	 * as mdadm, nothing without a bitmap (a module before ABI 1.4 leaves
	 * the fields zero); its chunk as mdadm -X's, what is dirty as md's
	 * bitmap line
	 */
	if (c.bitmap_region_sectors) {
		printf("     Intent Bitmap : Internal\n");
		printf("      Bitmap Chunk : %lluK\n",
		       (unsigned long long)c.bitmap_region_sectors / 2);
		printf("      Bitmap Dirty : %u of %u regions\n",
		       c.bitmap_dirty, c.bitmap_regions);
	}
	printf("             State : %s\n", state);
	if (st.running)
		printf("%18s : %llu%% complete\n", pass_status,
		       st.total ? st.done * 100 / st.total : 0);
	printf("    Active Devices : %d\n", cnt.active);
	printf("   Working Devices : %d\n", cnt.working);
	printf("    Failed Devices : %d\n", cnt.failed);
	printf("     Spare Devices : %d\n", cnt.spare);
	/*
	 * what the running or last pass found; a rebuild compares nothing
	 * (and its start reset the count of the pass before)
	 */
	if ((st.running || (st.last[0] && strcmp(st.last, "none"))) &&
	    strcmp(st.running ? st.action : st.last, "recover"))
		printf("    Mismatch Count : %llu (%s%s%s)\n", st.mismatches,
		       st.running ? "" : "last ",
		       st.running ? st.action : st.last,
		       st.running ? " so far" : "");
	printf("            Layout : left-symmetric\n");
	printf("        Chunk Size : %uK\n", c.chunk_bytes >> 10);
	printf("              UUID : %s\n", uuid);
	printf("            Events : %llu\n", (unsigned long long)c.events);
	printf("\n    Number   Major   Minor   RaidDevice State\n");
	for (i = 0; i < c.nr_members; i++) {
		char p[300];

		member_path(&c.members[i], p, sizeof(p));
		printf("    %6d   %5u   %5u   %10u %-13s %s\n", i,
		       c.members[i].major, c.members[i].minor,
		       c.members[i].role, member_state_table(&c.members[i]), p);
	}
	/* as mdadm: spares after the roles, RaidDevice "-" */
	for (; i < c.nr_members + info_spares(&c); i++) {
		char p[300];

		dev_path(c.members[i].major, c.members[i].minor, p, sizeof(p));
		printf("    %6d   %5u   %5u   %10s %-13s %s\n", i,
		       c.members[i].major, c.members[i].minor, "-",
		       member_state_table(&c.members[i]), p);
	}
	/* devices with read errors (see max_read_errors), after a blank line */
	sep = "\n";
	for (i = 0; i < c.nr_members + info_spares(&c); i++) {
		char p[300];

		if (!c.members[i].read_errors)
			continue;
		member_path(&c.members[i], p, sizeof(p));
		if (i < c.nr_members)
			printf("%s       Read Errors : %u on %s (role %u)\n", sep,
			       c.members[i].read_errors, p, c.members[i].role);
		else
			printf("%s       Read Errors : %u on %s (spare)\n", sep,
			       c.members[i].read_errors, p);
		sep = "";
	}
	return 0;
}

/*
 * How many of the @regions bits of the bitmap area at sector @offset of
 * @path are set (bit r: bit r % 8 of byte r / 8), read around the page
 * cache as the superblock is (read_sb_block(): the kernel writes the
 * bitmap of a running array with direct bios). Returns the count, or -1
 * after saying why it could not be read.
 */
static long long bitmap_dirty_on(const char *path, uint64_t offset,
				 uint64_t regions)
{
	static uint8_t buf[1 << 20] __attribute__((aligned(4096)));
	uint64_t bytes = regions / 8 + !!(regions % 8), at = 0, i;
	int flags = O_RDONLY | O_CLOEXEC | O_DIRECT;
	long long dirty = 0;
	size_t len;
	ssize_t n;
	int fd;

	fd = open(path, flags);
	if (fd < 0 && errno == EINVAL) {
		flags &= ~O_DIRECT;
		fd = open(path, flags);
	}
	if (fd < 0) {
		err("%s: cannot read its write-intent bitmap: %s", path,
		    strerror(errno));
		return -1;
	}
	while (at < bytes) {
		/* whole 4 KiB blocks, which the area is made of */
		len = bytes - at < sizeof(buf) ? bytes - at : sizeof(buf);
		len = (len + 4095) & ~(size_t)4095;
		n = pread(fd, buf, len, (offset << 9) + at);
		if (n < 0 && errno == EINVAL && (flags & O_DIRECT)) {
			close(fd);
			flags &= ~O_DIRECT;
			fd = open(path, flags);
			if (fd >= 0)
				continue;
		}
		if (n != (ssize_t)len) {
			err("%s: cannot read its write-intent bitmap: %s", path,
			    n < 0 ? strerror(errno) : "short read");
			if (fd >= 0)
				close(fd);
			return -1;
		}
		for (i = 0; i < len && at + i < bytes; i++) {
			uint8_t b = buf[i];

			/* bits past the last region's are not in use */
			if (at + i == bytes - 1 && regions % 8)
				b &= (uint8_t)((1U << (regions % 8)) - 1);
			dirty += __builtin_popcount(b);
		}
		at += len;
	}
	close(fd);
	return dirty;
}

/*
 * Print one member's superblock, after a blank line if @sep; 0, or 1
 * after saying why it could not. With a bitmap, also how many of its
 * bits this member's copy has set (mdadm -X's "dirty").
 */
static int examine_one(const char *dev, int json, int sep)
{
	struct lraid_sb_info sb;
	const char *why = "";
	uint64_t regions = 0;
	long long dirty = -1;
	char uuid[40];
	int ret;

	ret = read_sb(dev, &sb, &why);
	if (ret == -EIO)
		return 1;
	if (ret) {
		err("%s: no valid lraid superblock: %s: %s", dev, why,
		    strerror(-ret));
		return 1;
	}
	uuid_str(sb.uuid, uuid);
	/* the decoder checked: a power of two, room for every bit */
	if (sb.bitmap_sectors) {
		regions = bitmap_bits(sb.data_size, sb.bitmap_region_sectors);
		dirty = bitmap_dirty_on(dev, sb.bitmap_offset, regions);
	}
	if (json) {
		printf("{\"device\": ");
		json_str(dev);
		printf(", \"version\": %u, \"uuid\": \"%s\", \"name\": ",
		       sb.version, uuid);
		json_str(sb.name);
		printf(", \"level\": %u, \"layout\": %u, "
		       "\"chunk_bytes\": %u, \"members\": %u, \"role\": ",
		       sb.level, sb.layout, sb.chunk_sectors * 512,
		       sb.nr_members);
		/* a spare holds no role: null, and "spare" says why */
		if (lraid_sb_is_spare(&sb))
			printf("null, \"spare\": true");
		else
			printf("%u, \"spare\": false", sb.role);
		printf(", \"state\": \"%s\", \"events\": %llu, \"failed_mask\": %u, "
		       "\"data_offset\": %llu, \"data_size\": %llu, "
		       "\"dev_sectors\": %llu, \"resync_offset\": %llu, "
		       "\"bitmap_offset\": %llu, \"bitmap_sectors\": %llu, "
		       "\"bitmap_region_sectors\": %llu, "
		       "\"bitmap_regions\": %llu, \"bitmap_dirty\": ",
		       sb.state & LRAID_SB_STATE_CLEAN ? "clean" : "active",
		       (unsigned long long)sb.events, sb.failed_mask,
		       (unsigned long long)sb.data_offset,
		       (unsigned long long)sb.data_size,
		       (unsigned long long)sb.dev_sectors,
		       (unsigned long long)sb.resync_offset,
		       (unsigned long long)sb.bitmap_offset,
		       (unsigned long long)sb.bitmap_sectors,
		       (unsigned long long)sb.bitmap_region_sectors,
		       (unsigned long long)regions);
		/* null without a bitmap, or when it could not be read */
		if (dirty < 0)
			printf("null");
		else
			printf("%lld", dirty);
		/* null without its feature bit (no bitmap, an older module) */
		if (sb.feature_compat & LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS)
			printf(", \"bitmap_events\": %llu",
			       (unsigned long long)sb.bitmap_events);
		else
			printf(", \"bitmap_events\": null");
		/*
		 * null when in sync: a number while part rebuilt, and 0 for
		 * a spare (which holds no data)
		 */
		if (lraid_sb_in_sync(&sb))
			printf(", \"recovery_offset\": null");
		else
			printf(", \"recovery_offset\": %llu",
			       (unsigned long long)sb.recovery_offset);
		printf(", \"ctime\": %llu, \"utime\": %llu}\n",
		       (unsigned long long)sb.ctime,
		       (unsigned long long)sb.utime);
		return 0;
	}
	printf("%s%s:\n", sep ? "\n" : "", dev);
	printf("          Magic : lraid-sb\n");
	printf("        Version : %u\n", sb.version);
	printf("     Array UUID : %s\n", uuid);
	printf("           Name : %s\n", sb.name);
	printf("     Raid Level : raid%u\n", sb.level);
	printf("   Raid Devices : %u\n", sb.nr_members);
	printf("         Layout : %s\n",
	       sb.layout == LRAID_LAYOUT_LEFT_SYMMETRIC ? "left-symmetric" :
	       "unknown");
	printf("     Chunk Size : %uK\n", sb.chunk_sectors / 2);
	if (lraid_sb_is_spare(&sb))
		printf("    Device Role : spare\n");	/* mdadm's words */
	else
		printf("    Device Role : %u\n", sb.role);
	printf("          State : %s\n",
	       sb.state & LRAID_SB_STATE_CLEAN ? "clean" : "active");
	printf("         Events : %llu\n", (unsigned long long)sb.events);
	printf("    Data Offset : %llu sectors\n",
	       (unsigned long long)sb.data_offset);
	printf(" Used Dev Size  : %llu sectors\n",
	       (unsigned long long)sb.data_size);
	printf("  Device Size   : %llu sectors\n",
	       (unsigned long long)sb.dev_sectors);
	if (sb.bitmap_sectors) {
		printf("  Bitmap Offset : %llu sectors\n",
		       (unsigned long long)sb.bitmap_offset);
		printf("    Bitmap Size : %llu sectors\n",
		       (unsigned long long)sb.bitmap_sectors);
		printf("   Bitmap Chunk : %lluK\n",
		       (unsigned long long)sb.bitmap_region_sectors / 2);
		if (dirty >= 0)
			printf("   Bitmap Dirty : %lld of %llu regions\n", dirty,
			       (unsigned long long)regions);
		/* the last pass with every role working: re-add from there */
		if (sb.feature_compat & LRAID_SB_FEAT_COMPAT_BITMAP_EVENTS)
			printf("  Bitmap Events : %llu\n",
			       (unsigned long long)sb.bitmap_events);
	}
	/* as mdadm: where an interrupted resync goes on */
	if (!(sb.state & LRAID_SB_STATE_CLEAN) &&
	    (sb.feature_compat & LRAID_SB_FEAT_COMPAT_RESYNC))
		printf("  Resync Offset : %llu sectors\n",
		       (unsigned long long)sb.resync_offset);
	/*
	 * as mdadm: how far a member was rebuilt (a stop interrupted it);
	 * a spare holds no data, and none is rebuilt onto it yet
	 */
	if (!lraid_sb_in_sync(&sb) && !lraid_sb_is_spare(&sb))
		printf("Recovery Offset : %llu sectors\n",
		       (unsigned long long)sb.recovery_offset);
	printf("    Failed Mask : 0x%x\n", sb.failed_mask);
	return 0;
}

/*
 * examine --scan: an ARRAY line per array whose superblock a device in
 * /proc/partitions carries (as mdadm --examine --scan), from the newest
 * copy of a member's (a spare's if only spares are found), under the name
 * it assembles as when that number is free; spares=N counts the devices
 * carrying a spare's superblock of the array (one under a device-mapper
 * table that shows it too counted once). Exit 1 when devices could not
 * be opened and nothing was found (not root).
 */
static int examine_all(void)
{
	struct scan_dev *devs;
	int n, i, j, best, denied;
	char dev[LRAID_SB_NAME_LEN + 8];
	unsigned int spares;

	n = scan_devices(&devs, &denied, false);
	if (n < 0)
		return 1;
	for (i = 0; i < n; i++) {
		const uint8_t *u = devs[i].sb.uuid;

		if (!first_copy(devs, i))
			continue;	/* each array once */
		best = -1;
		spares = 0;
		for (j = i; j < n; j++) {
			if (memcmp(devs[j].sb.uuid, u, 16))
				continue;
			if (lraid_sb_is_spare(&devs[j].sb))
				spares += !covered(devs, n, &devs[j]);
			else if (best < 0 ||
				 devs[j].sb.events > devs[best].sb.events)
				best = j;
		}
		if (best < 0)
			best = i;	/* spares only */
		snprintf(dev, sizeof(dev), "/dev/%s", devs[best].sb.name);
		array_line(dev, devs[best].sb.level, devs[best].sb.nr_members,
			   spares, u);
	}
	if (denied)
		err("warning: %d devices could not be opened (not root?)",
		    denied);
	free(devs);
	return denied && !n;
}

/*
 * examine [--json] MEMBER...: every member in turn, as mdadm --examine;
 * text blocks separated by a blank line, JSON one object per line. A
 * member that cannot be read is reported and the others still shown;
 * the exit status is 1 if any could not.
 */
static int cmd_examine(int argc, char **argv)
{
	int i, json = 0, n = 0, shown = 0, ret = 0;

	if (argc == 2 && is_scan(argv[1]))
		return examine_all();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (argv[i][0] == '-')
			return usage();
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			continue;
		n++;
		fflush(stdout);
		if (examine_one(argv[i], json, shown && !json))
			ret = 1;
		else
			shown++;
	}
	return n ? ret : usage();
}

/*
 * action ACTION [--wait] lraidN...: write ACTION to each array's
 * sync_action (mdadm --action=); with --wait, wait for the pass to end and
 * say what it found (mdadm --wait). action --wait lraidN... writes
 * nothing and waits for whatever pass runs: a rebuild after add, say.
 */
static const char *const sync_actions[] = { "check", "repair", "idle", "frozen" };

/* The roles of array @index being rebuilt now (bit r: role r); 0 if unknown */
static uint32_t roles_rebuilding(unsigned int index)
{
	struct lraid_ioc_info c;
	uint32_t mask = 0;
	int ctl, i;

	ctl = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return 0;
	if (!array_info(ctl, index, &c))
		for (i = 0; i < c.nr_members && i < LRAID_MAX_MEMBERS_ABI; i++)
			if (c.members[i].state == LRAID_MEMBER_REBUILDING &&
			    c.members[i].role < 32)
				mask |= 1U << c.members[i].role;
	close(ctl);
	return mask;
}

/*
 * After a rebuild of the roles @mask of array @index ended: say for each
 * whether it is in sync now. 0, or 1 when one stays failed.
 */
static int rebuild_outcome(unsigned int index, uint32_t mask)
{
	struct lraid_ioc_info c;
	int i, e, ret = 0;
	char p[300];

	e = array_info_once(index, &c);
	if (e) {
		err("lraid%u: recover ended, but the roles are not known: %s",
		    index, strerror(e));
		return 1;
	}
	if (!mask) {	/* it ended before the wait could ask which */
		printf("lraid%u: recover ended; the array is %s\n", index,
		       array_state(&c));
		return 0;
	}
	for (i = 0; i < c.nr_members && i < LRAID_MAX_MEMBERS_ABI; i++) {
		const struct lraid_ioc_member *m = &c.members[i];

		if (m->role >= 32 || !(mask & (1U << m->role)))
			continue;
		member_path(m, p, sizeof(p));
		if (m->state == LRAID_MEMBER_ACTIVE) {
			printf("lraid%u: recover ended: %s (role %u) is in sync\n",
			       index, p, m->role);
		} else {
			err("lraid%u: recover ended: %s (role %u) stays failed: the rebuild stopped (the kernel log says why); lraidctl add starts it over%s",
			    index, p, m->role, c.bitmap_region_sectors ?
			    " (for a re-added member, only over the regions the write-intent bitmap records)" :
			    "");
			ret = 1;
		}
	}
	return ret;
}

/*
 * Wait for array @index's pass to end and say how it went: what a check
 * or repair found (mismatch_cnt), whether a rebuild brought its role in
 * sync. With @any (--wait without an action), no pass running is said
 * as such. 0, or 1 (said) if the array vanished or a rebuild stopped
 * short.
 */
static int wait_pass(unsigned int index, bool any)
{
	struct sync_state st;
	uint32_t rebuilding = 0;
	bool first = true;
	char path[64];
	struct pollfd p;
	char buf[32];

	snprintf(path, sizeof(path), "/sys/block/lraid%u/lraid/sync_action",
		 index);
	p.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (p.fd < 0) {
		err("lraid%u: %s: %s (array stopped?)", index, path,
		    strerror(errno));
		return 1;
	}
	p.events = POLLPRI;
	for (;; first = false) {
		ssize_t n = pread(p.fd, buf, sizeof(buf) - 1, 0);

		if (n < 0) {
			err("lraid%u: %s: %s (array stopped?)", index, path,
			    strerror(errno));
			close(p.fd);
			return 1;
		}
		buf[n] = 0;
		if (!strcmp(buf, "idle\n"))
			break;
		/* which roles a rebuild is for: INFO says so only while it runs */
		if (!rebuilding && !strcmp(buf, "recover\n"))
			rebuilding = roles_rebuilding(index);
		/* sysfs_notify() when the pass ends; the timeout in case */
		poll(&p, 1, 1000);
	}
	close(p.fd);
	sync_state(index, &st);
	if (any && first) {
		printf("lraid%u: no pass running (the last: %s)\n", index,
		       st.last[0] ? st.last : "none");
		return 0;
	}
	if (!strcmp(st.last, "recover"))
		return rebuild_outcome(index, rebuilding);
	printf("lraid%u: %s ended: %llu mismatched sectors (mismatch_cnt)\n",
	       index, st.last, st.mismatches);
	return 0;
}

/* Whether @s names an array (lraidN, /dev/lraidN), quietly */
static bool is_array_name(const char *s)
{
	return name_index(strncmp(s, "/dev/", 5) ? s : s + 5) >= 0;
}

/*
 * The running arrays a --scan pass starts on: those that can take it now.
 * One degraded, or with a pass running, is passed over with a word, as
 * Debian's checkarray does; the array numbers go to @idx.
 */
static int action_scan(uint32_t *idx)
{
	uint8_t running[LRAID_MAX_ARRAYS / 8], creating[LRAID_MAX_ARRAYS / 8];
	struct sync_state st;
	char dir[64];
	int ctl, i, n = 0;

	ctl = open_listing(running, creating);
	if (ctl < 0)
		return -1;
	close(ctl);
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		if (!bit_set(running, i))
			continue;
		snprintf(dir, sizeof(dir), "/sys/block/lraid%d/lraid", i);
		sync_state(i, &st);
		if (st.running)
			printf("lraid%d: a %s pass is running: passed over\n", i,
			       st.action);
		else if (sys_number(dir, "degraded"))
			printf("lraid%d: degraded: passed over (a pass needs every member)\n",
			       i);
		else
			idx[n++] = i;
	}
	return n;
}

static int cmd_action(int argc, char **argv)
{
	const char *action = NULL;
	bool wait = false, first = true, scan = false;
	int i, n = 0, ret = 0;
	uint32_t idx[LRAID_MAX_ARRAYS];

	for (i = 1; i < argc; i++) {
		size_t a;

		if (!strcmp(argv[i], "--wait") || !strcmp(argv[i], "-W")) {
			wait = true;
			continue;
		}
		if (is_scan(argv[i])) {
			scan = true;
			continue;
		}
		if (first) {
			first = false;
			for (a = 0; a < sizeof(sync_actions) / sizeof(*sync_actions); a++)
				if (!strcmp(argv[i], sync_actions[a]))
					action = sync_actions[a];
			if (action)
				continue;
			if (!is_array_name(argv[i])) {
				err("unknown action '%s' (check, repair, idle or frozen)",
				    argv[i]);
				return 2;
			}
		}
		if (parse_array(argv[i], &idx[n]))
			return 2;
		if (n < LRAID_MAX_ARRAYS - 1)
			n++;
	}
	if (!action && !wait) {
		err("action needs check, repair, idle or frozen (or --wait alone, to wait for the pass running)");
		return usage();
	}
	if (scan && n) {
		err("action: --scan or array names, not both");
		return 2;
	}
	if (scan && (!action || (strcmp(action, "check") && strcmp(action, "repair")))) {
		err("action: --scan starts check or repair on every array that can take it");
		return 2;
	}
	if (scan) {
		n = action_scan(idx);
		if (n < 0)
			return 1;
		if (!n) {
			printf("no array to %s\n", action);
			return 0;
		}
	}
	if (!n)
		return usage();
	for (i = 0; i < n; i++) {
		struct sync_state st, before;
		uint32_t index = idx[i];
		char path[64];
		int fd, e;

		if (!action) {
			ret |= wait_pass(index, true);
			continue;
		}
		snprintf(path, sizeof(path),
			 "/sys/block/lraid%u/lraid/sync_action", index);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			snprintf(path, sizeof(path), "/sys/block/lraid%u", index);
			err("%s lraid%u failed: %s", action, index,
			    access(path, F_OK) ? "array not running" :
			    e == ENOENT ? "the module has no check or repair (older than lraidctl)" :
			    strerror(e));
			ret = 1;
			continue;
		}
		sync_state(index, &before);
		if (write(fd, action, strlen(action)) < 0) {
			e = errno;
			sync_state(index, &st);
			err("%s lraid%u failed: %s%s", action, index, strerror(e),
			    e != EBUSY ? "" :
			    st.running && !strcmp(st.action, "recover") ?
			    " (a rebuild is running: 'lraidctl action --wait' waits for it; 'lraidctl action idle' would stop it, and the next add would start it over)" :
			    st.running ? " (a pass is running: 'lraidctl action idle' stops it)" :
			    " (the array is degraded: a pass needs every member; see the kernel log)");
			close(fd);
			ret = 1;
			continue;
		}
		close(fd);
		if (before.running && !strcmp(before.action, "recover") &&
		    (!strcmp(action, "idle") || !strcmp(action, "frozen")))
			err("lraid%u: rebuild interrupted: its role stays failed; lraidctl add lraid%u DEVICE starts it over from the beginning%s",
			    index, index, array_has_bitmap(index) ?
			    " (for a re-added member, only over the regions the write-intent bitmap records)" :
			    "");
		if (wait && (!strcmp(action, "check") || !strcmp(action, "repair")))
			ret |= wait_pass(index, false);
	}
	return ret;
}

/*
 * list: every running array in /proc/mdstat's form, which md users read
 * at a glance and scripts parse:
 *
 *   lraid0 : active raid5 nullb4[1] nullb3[3] nullb2[2] nullb0[0]
 *         1572864 blocks level 5, 64k chunk, algorithm 2 [4/3] [U_UU]
 *         [==>..................]  recovery = 12.5% (65536/524288) finish=0.4min speed=21000K/sec
 *         bitmap: 3/8 regions dirty, 65536KB chunk
 *
 * A device's number in brackets is its role; (F) marks a failed one, and
 * one being rebuilt onto carries no mark but counts as down until its
 * rebuild ends, as md shows a spare in recovery. A spare is marked (S),
 * numbered after the roles, as md numbers its spares past raid_disks. Blocks are KiB. The
 * progress line appears while a pass runs, in member KiB, md's words:
 * recovery, resync, check, repair. The bitmap line, for an array with a
 * write-intent bitmap, comes last, as md's: md counts the pages of its
 * in-memory counters there, lraid the regions whose bit is set, and the
 * chunk is the data of a member one bit covers.
 */
static void list_progress(FILE *f, unsigned int index)
{
	struct sync_state st;
	char dir[64];
	const char *word;
	unsigned long long speed, pct, left;
	int bar, i;

	sync_state(index, &st);
	if (!st.running || !st.total)
		return;
	word = !strcmp(st.action, "recover") ? "recovery" : st.action;
	snprintf(dir, sizeof(dir), "/sys/block/lraid%u/lraid", index);
	speed = sys_number(dir, "sync_speed");
	pct = st.done * 1000 / st.total;	/* tenths of a percent */
	bar = (int)(st.done * 20 / st.total);
	fprintf(f, "      [");
	for (i = 0; i < 20; i++)
		fputc(i < bar ? '=' : i == bar ? '>' : '.', f);
	fprintf(f, "]  %s = %3llu.%llu%% (%llu/%llu)", word, pct / 10, pct % 10,
	       st.done / 2, st.total / 2);
	left = (st.total - st.done) / 2;
	if (speed)
		fprintf(f, " finish=%llu.%llumin speed=%lluK/sec",
		       left / speed / 60, left / speed % 60 / 6, speed);
	fputc('\n', f);
}

static void list_one(FILE *f, const struct lraid_ioc_info *c)
{
	uint32_t down = roles_down(c);
	char p[300], map[LRAID_MAX_MEMBERS_ABI + 1];
	int i, r;

	fprintf(f, "lraid%u : active raid%u", c->index, c->level);
	/* md lists the newest device first: here the highest slot */
	for (i = c->nr_members + info_spares(c) - 1; i >= 0; i--) {
		const struct lraid_ioc_member *m = &c->members[i];

		if (member_missing(m))
			continue;
		member_path(m, p, sizeof(p));
		fprintf(f, " %s[%u]%s", strncmp(p, "/dev/", 5) ? p : p + 5,
		       i < c->nr_members ? m->role : (unsigned int)i,
		       m->state == LRAID_MEMBER_FAULTY ? "(F)" :
		       m->state == LRAID_MEMBER_SPARE ? "(S)" : "");
	}
	for (r = 0; r < c->nr_members && r < LRAID_MAX_MEMBERS_ABI; r++)
		map[r] = down & (1U << r) ? '_' : 'U';
	map[r] = 0;
	fprintf(f, "\n      %llu blocks level %u, %uk chunk, algorithm 2 [%u/%u] [%s]\n",
	       (unsigned long long)c->array_sectors / 2, c->level,
	       c->chunk_bytes >> 10, c->nr_members,
	       c->nr_members - __builtin_popcount(down), map);
	list_progress(f, c->index);
	if (c->bitmap_region_sectors)
		fprintf(f, "      bitmap: %u/%u regions dirty, %lluKB chunk\n",
		       c->bitmap_dirty, c->bitmap_regions,
		       (unsigned long long)c->bitmap_region_sectors / 2);
}

static int cmd_list(int argc, char **argv)
{
	uint8_t running[LRAID_MAX_ARRAYS / 8], creating[LRAID_MAX_ARRAYS / 8];
	struct lraid_ioc_info c;
	int ctl, i, n = 0;

	(void)argv;
	if (argc != 1)
		return usage();
	ctl = open_control();
	if (ctl < 0)
		return 1;
	if (list_arrays(ctl, running, creating, NULL)) {
		close(ctl);
		return 1;
	}
	for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
		if (!bit_set(running, i))
			continue;
		/* stopped since the listing: passed over */
		if (array_info(ctl, i, &c))
			continue;
		printf("%s", n++ ? "\n" : "");
		list_one(stdout, &c);
	}
	close(ctl);
	return 0;
}

/*
 * set lraidN [--speed-min KIB|system] [--speed-max KIB|system]: the
 * array's pass speed limits (sysfs sync_speed_min and sync_speed_max,
 * md's per-array files), KiB/s per member; "system" follows the module's
 * speed_limit_min and speed_limit_max. Says what they are after.
 */
static int cmd_set(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "speed-min", required_argument, NULL, 'm' },
		{ "speed-max", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 }
	};
	const char *val[2] = { NULL, NULL };
	static const char *const file[2] = { "sync_speed_min", "sync_speed_max" };
	char dir[64], path[128], now[2][64];
	uint32_t index;
	int c, i, fd, ret = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c == 'm' || c == 'M') {
			val[c == 'M'] = optarg;
			continue;
		}
		err("set: unknown option '%s'", argv[optind - 1]);
		return usage();
	}
	if (optind != argc - 1 || (!val[0] && !val[1]))
		return usage();
	if (parse_array(argv[optind], &index))
		return 2;
	snprintf(dir, sizeof(dir), "/sys/block/lraid%u/lraid", index);
	if (access(dir, F_OK)) {
		err("set lraid%u failed: array not running", index);
		return 1;
	}
	for (i = 0; i < 2; i++) {
		if (!val[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, file[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, val[i], strlen(val[i])) < 0) {
			int e = errno;

			err("set lraid%u --%s %s failed: %s%s", index,
			    i ? "speed-max" : "speed-min", val[i], strerror(e),
			    e == EINVAL ? " (KiB/s per member, 1 or more, or 'system')" :
			    e == ENOENT ? " (the module has no speed limits: older than lraidctl)" :
			    "");
			ret = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	sys_line(dir, file[0], now[0], sizeof(now[0]));
	sys_line(dir, file[1], now[1], sizeof(now[1]));
	printf("lraid%u: sync_speed_min %s, sync_speed_max %s (KiB/s per member)\n",
	       index, now[0], now[1]);
	return ret;
}

/*
 * monitor (mdadm --monitor, -F): watch the arrays, all of them (--scan)
 * or those named, and report what changes as mdadm's events, with
 * mdadm's names, so that scripts written for mdadm's --program take
 * them unchanged:
 *   NewArray           an array appeared (not at the first look)
 *   DegradedArray      an array first seen with a role down
 *   DeviceDisappeared  an array went away (stopped)
 *   Fail               an active member failed (component: the device)
 *   FailSpare          a device being rebuilt, or a spare, failed
 *   SpareActive        a device rebuilt onto is in sync now
 *   RebuildStarted     a pass started: recover, resync, check, repair
 *                      (also one running in an array that just appeared)
 *   RebuildNN          the pass got to NN %, in steps of --increment
 *   RebuildFinished    the pass ended (done or stopped)
 *   TestMessage        --test: one per array at the first look
 *   MoveSpare          --spare-group: a spare moved to an array of its
 *                      group that had a role failed and no spare
 *                      (component: the array it came from)
 * Each goes to --program (run as PROGRAM EVENT /dev/lraidN [DEVICE],
 * waited for), --syslog (facility daemon; Fail, FailSpare,
 * DegradedArray and DeviceDisappeared critical, the passes warnings)
 * and --mail (Fail, FailSpare, DegradedArray and TestMessage, through
 * "sendmail -t" as found in PATH); with none of those, to standard
 * output. The arrays are looked at again when the kernel sends a
 * uevent for an lraid disk (a member failed, a spare taken or added, an
 * array started or stopped), when a pass starts or ends (sync_action
 * polled, as mdadm polls /proc/mdstat) and every --delay seconds (60),
 * which is when pass progress is seen. Nothing is held open between
 * looks that would keep the module from unloading.
 */
struct mon_dev {
	dev_t dev;
	uint8_t state;		/* LRAID_MEMBER_* */
	char path[64];		/* as named when seen: gone later, maybe */
};

struct mon_array {
	bool present;
	uint8_t uuid[16];
	int ndev;
	struct mon_dev devs[LRAID_MAX_MEMBERS_ABI];
	uint32_t down;		/* roles_down() */
	char action[16];	/* the pass running, "" when none */
	unsigned long long done;
	unsigned int step;	/* its progress, in --increment steps */
};

struct mon_opts {
	const char *program, *mail, *pidfile;
	bool syslog, oneshot, test, scan, daemon;
	unsigned int delay, increment;
	uint8_t named[LRAID_MAX_ARRAYS / 8];
	bool any_named;
	uint8_t group[LRAID_MAX_ARRAYS];	/* --spare-group: 1.., 0 none */
	unsigned int groups;
};

/* A spare the monitor could not move to an array (too small, say) */
struct mon_refused {
	dev_t dev;
	unsigned int to;
};

static volatile sig_atomic_t mon_quit;

static void mon_signal(int sig)
{
	(void)sig;
	mon_quit = 1;
}

static bool mon_mailed(const char *event)
{
	return !strcmp(event, "Fail") || !strcmp(event, "FailSpare") ||
	       !strcmp(event, "DegradedArray") || !strcmp(event, "TestMessage");
}

static int mon_priority(const char *event)
{
	if (mon_mailed(event) && strcmp(event, "TestMessage"))
		return LOG_CRIT;
	if (!strcmp(event, "DeviceDisappeared"))
		return LOG_CRIT;
	return strncmp(event, "Rebuild", 7) ? LOG_INFO : LOG_WARNING;
}

static void mon_program(const char *program, const char *event,
			const char *dev, const char *comp)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		err("monitor: cannot run %s for %s on %s: %s", program, event,
		    dev, strerror(errno));
		return;
	}
	if (!pid) {
		execlp(program, program, event, dev, comp, (char *)NULL);
		err("monitor: cannot run %s: %s", program, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static void mon_mail(const char *to, const char *event, unsigned int index,
		     const char *dev, const char *comp)
{
	struct lraid_ioc_info c;
	char host[256] = "";
	FILE *f;

	if (gethostname(host, sizeof(host) - 1))
		strcpy(host, "localhost");
	fflush(stdout);
	f = popen("sendmail -t", "w");
	if (!f) {
		err("monitor: cannot run sendmail for %s on %s: %s", event,
		    dev, strerror(errno));
		return;
	}
	fprintf(f, "From: lraidctl monitor <root>\nTo: %s\n", to);
	fprintf(f, "Subject: %s event on %s:%s\n\n", event, dev, host);
	fprintf(f, "lraidctl monitor on %s reports a %s event on %s", host,
		event, dev);
	if (comp)
		fprintf(f, ", device %s", comp);
	fprintf(f, ".\n\n");
	if (!array_info_once(index, &c)) {
		fprintf(f, "The array now (lraidctl list):\n\n");
		list_one(f, &c);
	} else {
		fprintf(f, "The array is not running now.\n");
	}
	if (pclose(f))
		err("monitor: sendmail failed for %s on %s", event, dev);
}

/* Report @event on array @index, about device @comp if not NULL. */
static void mon_event(const struct mon_opts *o, const char *event,
		      unsigned int index, const char *comp)
{
	char dev[32], when[32];
	time_t now;

	snprintf(dev, sizeof(dev), "/dev/lraid%u", index);
	if (o->program)
		mon_program(o->program, event, dev, comp);
	if (o->syslog) {
		if (comp)
			syslog(mon_priority(event), "%s event on %s, device %s",
			       event, dev, comp);
		else
			syslog(mon_priority(event), "%s event on %s", event,
			       dev);
	}
	if (o->mail && mon_mailed(event))
		mon_mail(o->mail, event, index, dev, comp);
	if (o->program || o->syslog || o->mail)
		return;
	now = time(NULL);
	strftime(when, sizeof(when), "%b %e %H:%M:%S", localtime(&now));
	printf("%s: %s on %s%s%s\n", when, event, dev, comp ? " " : "",
	       comp ? comp : "");
	fflush(stdout);
}

/* What array @index is now, into @now (not present if it is not running) */
static void mon_look(int ctl, unsigned int index, const struct mon_opts *o,
		     struct mon_array *now)
{
	struct lraid_ioc_info c;
	struct sync_state st;
	int i, end;

	memset(now, 0, sizeof(*now));
	/* EBUSY: being created or assembled, seen once it runs */
	if (ctl < 0 || array_info(ctl, index, &c))
		return;
	now->present = true;
	memcpy(now->uuid, c.uuid, sizeof(now->uuid));
	now->down = roles_down(&c);
	end = c.nr_members + info_spares(&c);
	for (i = 0; i < end && i < LRAID_MAX_MEMBERS_ABI; i++) {
		const struct lraid_ioc_member *m = &c.members[i];
		struct mon_dev *d;

		if (member_missing(m))
			continue;
		d = &now->devs[now->ndev++];
		d->dev = makedev(m->major, m->minor);
		d->state = m->state;
		member_path(m, d->path, sizeof(d->path));
	}
	sync_state(index, &st);
	if (st.running) {
		snprintf(now->action, sizeof(now->action), "%s", st.action);
		now->done = st.done;
		if (st.total)
			now->step = st.done * 100 / st.total / o->increment;
	}
}

static const struct mon_dev *mon_find(const struct mon_array *a, dev_t dev)
{
	int i;

	for (i = 0; i < a->ndev; i++)
		if (a->devs[i].dev == dev)
			return &a->devs[i];
	return NULL;
}

/*
 * The events between two looks at array @index: @was, then @now. A
 * device in sync before its rebuild has ended (the superblocks record it
 * a moment before sync_action reads idle) is held back as rebuilding in
 * @now, so that SpareActive follows RebuildFinished.
 */
static void mon_compare(const struct mon_opts *o, unsigned int index,
			const struct mon_array *was, struct mon_array *now,
			bool first)
{
	bool same = was->present && now->present &&
		    !memcmp(was->uuid, now->uuid, sizeof(now->uuid));
	bool ended, started;
	const struct mon_dev *d;
	struct mon_dev *n;
	char ev[16];
	int i;

	if (was->present && !same)
		mon_event(o, "DeviceDisappeared", index, NULL);
	if (!now->present)
		return;
	if (!same) {
		if (first && o->test)
			mon_event(o, "TestMessage", index, NULL);
		if (!first)
			mon_event(o, "NewArray", index, NULL);
		if (now->down)
			mon_event(o, "DegradedArray", index, NULL);
		/* a pass of an array started since the last look is new too */
		if (!first && now->action[0])
			mon_event(o, "RebuildStarted", index, NULL);
		return;
	}
	/* devices that failed, or left the array failing */
	for (i = 0; i < was->ndev; i++) {
		const struct mon_dev *m;

		d = &was->devs[i];
		m = mon_find(now, d->dev);
		if (m && m->state == d->state)
			continue;
		if (d->state == LRAID_MEMBER_ACTIVE &&
		    (!m || m->state == LRAID_MEMBER_FAULTY))
			mon_event(o, "Fail", index, d->path);
		else if ((d->state == LRAID_MEMBER_REBUILDING && !m) ||
			 (m && m->state == LRAID_MEMBER_FAULTY))
			mon_event(o, "FailSpare", index, d->path);
	}
	for (i = 0; i < now->ndev; i++) {
		n = &now->devs[i];
		if (n->state == LRAID_MEMBER_FAULTY && !mon_find(was, n->dev))
			mon_event(o, "FailSpare", index, n->path);
	}
	/* the pass: a new one when the action changed or went back */
	ended = was->action[0] &&
		(strcmp(was->action, now->action) || now->done < was->done);
	started = now->action[0] &&
		  (strcmp(was->action, now->action) || now->done < was->done);
	if (ended)
		mon_event(o, "RebuildFinished", index, NULL);
	/* devices in sync now that were not */
	for (i = 0; i < now->ndev; i++) {
		n = &now->devs[i];
		d = mon_find(was, n->dev);
		if (n->state != LRAID_MEMBER_ACTIVE ||
		    (d && d->state == LRAID_MEMBER_ACTIVE))
			continue;
		if (!strcmp(now->action, "recover") && !ended)
			n->state = LRAID_MEMBER_REBUILDING;	/* next look */
		else
			mon_event(o, "SpareActive", index, n->path);
	}
	if (started) {
		mon_event(o, "RebuildStarted", index, NULL);
	} else if (now->action[0] && now->step > was->step &&
		   now->step * o->increment < 100) {
		snprintf(ev, sizeof(ev), "Rebuild%02u",
			 now->step * o->increment);
		mon_event(o, ev, index, NULL);
	}
}

/* Whether array @a has a role failed or missing and no spare for it */
static bool mon_wants_spare(const struct mon_array *a)
{
	int i, rebuilding = 0;

	if (!a->present || a->action[0])
		return false;	/* a pass runs: its end takes a spare */
	for (i = 0; i < a->ndev; i++) {
		if (a->devs[i].state == LRAID_MEMBER_SPARE)
			return false;
		rebuilding += a->devs[i].state == LRAID_MEMBER_REBUILDING;
	}
	/* roles_down(): failed, missing (no device) or being rebuilt */
	return __builtin_popcount(a->down) > rebuilding;
}

/* A spare of another array of @to's group not refused by @to, or NULL */
static const struct mon_dev *
mon_group_spare(const struct mon_opts *o, const struct mon_array *now,
		unsigned int to, const struct mon_refused *refused,
		int nrefused, unsigned int *from)
{
	const struct mon_dev *sp;
	int i, k;

	for (*from = 0; *from < LRAID_MAX_ARRAYS; (*from)++) {
		if (*from == to || o->group[*from] != o->group[to])
			continue;
		for (i = 0; i < now[*from].ndev; i++) {
			sp = &now[*from].devs[i];
			if (sp->state != LRAID_MEMBER_SPARE)
				continue;
			for (k = 0; k < nrefused; k++)
				if (refused[k].dev == sp->dev &&
				    refused[k].to == to)
					break;
			if (k == nrefused)
				return sp;
		}
	}
	return NULL;
}

/* Remove spare @dev from array @index: 0, or -1 (said) */
static int mon_remove(unsigned int index, dev_t dev)
{
	struct lraid_ioc_remove c = {
		.index = index,
		.major = major(dev),
		.minor = minor(dev),
	};
	int ctl = open_control(), ret = 0;

	if (ctl < 0)
		return -1;
	if (ioctl(ctl, LRAID_IOC_REMOVE, &c)) {
		err("monitor: cannot take spare %u:%u from lraid%u: %s",
		    major(dev), minor(dev), index, strerror(errno));
		ret = -1;
	}
	close(ctl);
	return ret;
}

/*
 * mdadm's spare groups (--spare-group): an array of a group with a role
 * failed and no spare of its own gets one from another array of the
 * group: removed there (its superblock erased), added here, which
 * rebuilds the role onto it; MoveSpare. A spare the array refuses (too
 * small, say) goes back where it came from and is not offered to that
 * array again.
 */
static void mon_move_spares(const struct mon_opts *o, struct mon_array *now,
			    struct mon_refused *refused, int *nrefused)
{
	const struct mon_dev *sp;
	unsigned int to, from;
	char path[64], src[32];
	dev_t dev;

	for (to = 0; to < LRAID_MAX_ARRAYS; to++) {
		if (!o->group[to] || !mon_wants_spare(&now[to]))
			continue;
		sp = mon_group_spare(o, now, to, refused, *nrefused, &from);
		if (!sp)
			continue;
		snprintf(path, sizeof(path), "%s", sp->path);
		dev = sp->dev;
		if (mon_remove(from, dev))
			continue;
		if (!add_device(to, path, 0, O_RDWR)) {
			snprintf(src, sizeof(src), "/dev/lraid%u", from);
			mon_event(o, "MoveSpare", to, src);
			continue;
		}
		if (*nrefused < LRAID_MAX_ARRAYS) {
			refused[*nrefused].dev = dev;
			refused[(*nrefused)++].to = to;
		}
		if (add_device(from, path, 0, O_RDWR))
			err("monitor: %s, a spare of lraid%u, could not be moved to lraid%u nor put back",
			    path, from, to);
	}
}

static bool mon_wanted(const struct mon_opts *o, unsigned int index)
{
	return !o->any_named || bit_set(o->named, index);
}

/*
 * The kernel's uevents, to look again when one is about an lraid disk;
 * -1 when none can be had (then the delay and sync_action do).
 */
static int mon_uevents(void)
{
	struct sockaddr_nl sa = {
		.nl_family = AF_NETLINK,
		.nl_groups = 1,		/* the kernel's */
	};
	int fd;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read what came; whether any of it was about an lraid disk. */
static bool mon_uevents_read(int fd)
{
	char buf[8192];
	bool ours = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		buf[n] = 0;	/* "ACTION@DEVPATH", then KEY=VALUE strings */
		if (strstr(buf, "/block/lraid"))
			ours = true;
	}
	return ours;
}

static int mon_daemonise(void)
{
	pid_t pid;
	int fd;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		err("monitor: cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid) {
		printf("%d\n", (int)pid);
		exit(0);
	}
	setsid();
	if (chdir("/"))
		return -1;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

static int mon_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		err("monitor: cannot write the pid file %s: %s", path,
		    strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* Whether @cmd runs: a path to an executable, or one found in PATH */
static bool mon_runnable(const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	char full[PATH_MAX];

	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(full, sizeof(full), "%.*s/%s", (int)(end - p), p, cmd);
		if (end > p && !access(full, X_OK))
			return true;
	}
	return false;
}

/* --spare-group lraidA,lraidB[,...]: one more group of arrays */
static int mon_group(struct mon_opts *o, const char *list)
{
	char copy[1024], *name, *save = NULL;
	uint32_t index;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	o->groups++;
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save), n++) {
		if (parse_array(name, &index))
			return -1;
		if (o->group[index]) {
			err("monitor: --spare-group: lraid%u is in %s group already",
			    index, o->group[index] == o->groups ? "this" : "another");
			return -1;
		}
		o->group[index] = o->groups;
	}
	if (n < 2) {
		err("monitor: --spare-group %s: name two arrays or more, as lraid0,lraid1",
		    list);
		return -1;
	}
	return 0;
}

static int mon_args(int argc, char **argv, struct mon_opts *o)
{
	static const struct option opts[] = {
		{ "scan", no_argument, NULL, 's' },
		{ "program", required_argument, NULL, 'p' },
		{ "alert", required_argument, NULL, 'p' },
		{ "mail", required_argument, NULL, 'm' },
		{ "syslog", no_argument, NULL, 'y' },
		{ "delay", required_argument, NULL, 'd' },
		{ "increment", required_argument, NULL, 'r' },
		{ "oneshot", no_argument, NULL, '1' },
		{ "test", no_argument, NULL, 't' },
		{ "daemonise", no_argument, NULL, 'f' },
		{ "daemonize", no_argument, NULL, 'f' },
		{ "pid-file", required_argument, NULL, 'i' },
		{ "spare-group", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long v;
	uint32_t index;
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->delay = 60;
	o->increment = 20;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":sp:m:yd:r:1tfi:g:", opts,
				NULL)) != -1) {
		switch (c) {
		case 's': o->scan = true; break;
		case 'p': o->program = optarg; break;
		case 'm': o->mail = optarg; break;
		case 'y': o->syslog = true; break;
		case '1': o->oneshot = true; break;
		case 't': o->test = true; break;
		case 'f': o->daemon = true; break;
		case 'i': o->pidfile = optarg; break;
		case 'g':
			if (mon_group(o, optarg))
				return 2;
			break;
		case 'd':
		case 'r':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !v ||
			    v > (c == 'd' ? 86400UL : 99UL)) {
				err("monitor: --%s %s: %s", c == 'd' ? "delay" : "increment",
				    optarg, c == 'd' ? "seconds, 1 to 86400" :
				    "percent, 1 to 99");
				return 2;
			}
			if (c == 'd')
				o->delay = v;
			else
				o->increment = v;
			break;
		case ':':
			err("monitor: %s needs a value", argv[optind - 1]);
			return 2;
		default:
			err("monitor: unknown option '%s'", argv[optind - 1]);
			return usage();
		}
	}
	for (; optind < argc; optind++) {
		if (parse_array(argv[optind], &index))
			return 2;
		o->named[index / 8] |= 1 << (index % 8);
		o->any_named = true;
	}
	/* a group's arrays are watched, named or not */
	o->any_named |= o->groups && !o->scan;
	for (index = 0; o->any_named && index < LRAID_MAX_ARRAYS; index++)
		if (o->group[index])
			o->named[index / 8] |= 1 << (index % 8);
	if (!o->scan && !o->any_named) {
		err("monitor: name the arrays to watch, or give --scan for all of them");
		return 2;
	}
	if (o->program && !mon_runnable(o->program)) {
		err("monitor: --program %s: not found or not executable", o->program);
		return 2;
	}
	if (o->daemon && !o->program && !o->syslog && !o->mail) {
		err("monitor: --daemonise needs --program, --syslog or --mail: the events would go nowhere");
		return 2;
	}
	return 0;
}

static int cmd_monitor(int argc, char **argv)
{
	static struct mon_refused refused[LRAID_MAX_ARRAYS];
	struct mon_array *was, *now;
	int sfd[LRAID_MAX_ARRAYS], nrefused = 0;
	struct pollfd p[LRAID_MAX_ARRAYS + 1];
	struct sigaction sa;
	struct mon_opts o;
	bool first = true, said = false;
	int e, i, np, ctl, ev;
	struct timespec t;
	long long due;
	char buf[32];

	e = mon_args(argc, argv, &o);
	if (e)
		return e;
	/* what each array was at the last look, and is at this one */
	was = calloc(2 * LRAID_MAX_ARRAYS, sizeof(*was));
	if (!was) {
		err("monitor: out of memory");
		return 1;
	}
	now = was + LRAID_MAX_ARRAYS;
	if (o.daemon && mon_daemonise()) {
		free(was);
		return 1;
	}
	/* before the pid file: whoever reads it may signal at once */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mon_signal;	/* no SA_RESTART: poll() returns */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a sendmail that went away */
	if (o.pidfile && mon_pidfile(o.pidfile)) {
		free(was);
		return 1;
	}
	if (o.syslog)
		openlog("lraidctl", LOG_PID, LOG_DAEMON);
	ev = o.oneshot ? -1 : mon_uevents();
	for (i = 0; i < LRAID_MAX_ARRAYS; i++)
		sfd[i] = -1;
	while (!mon_quit) {
		/* all looks first: no event's program runs with it open */
		ctl = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
		if (ctl < 0 && !said && errno != ENOENT)
			err("monitor: %s: %s", CONTROL_PATH, strerror(errno));
		said |= ctl < 0;
		for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
			char path[64];

			if (!mon_wanted(&o, i))
				continue;
			/* armed before the look: a change after it wakes poll */
			snprintf(path, sizeof(path),
				 "/sys/block/lraid%d/lraid/sync_action", i);
			if (sfd[i] < 0 && !o.oneshot)
				sfd[i] = open(path, O_RDONLY | O_CLOEXEC);
			if (sfd[i] >= 0 && pread(sfd[i], buf, sizeof(buf), 0) < 0) {
				close(sfd[i]);	/* the array went away */
				sfd[i] = -1;
			}
			mon_look(ctl, i, &o, &now[i]);
		}
		if (ctl >= 0)
			close(ctl);
		np = 0;
		for (i = 0; i < LRAID_MAX_ARRAYS; i++) {
			if (!mon_wanted(&o, i))
				continue;
			mon_compare(&o, i, &was[i], &now[i], first);
			was[i] = now[i];
			if (sfd[i] >= 0 && !now[i].present) {
				close(sfd[i]);
				sfd[i] = -1;
			}
			if (sfd[i] >= 0) {
				p[np].fd = sfd[i];
				p[np++].events = POLLPRI;
			}
		}
		if (o.groups)
			mon_move_spares(&o, now, refused, &nrefused);
		first = false;
		if (o.oneshot)
			break;
		if (ev >= 0) {
			p[np].fd = ev;
			p[np++].events = POLLIN;
		}
		/* a wake that is not ours (another disk's uevent) waits on */
		clock_gettime(CLOCK_MONOTONIC, &t);
		due = t.tv_sec * 1000LL + t.tv_nsec / 1000000 + o.delay * 1000LL;
		for (;;) {
			long long left;
			int r;

			clock_gettime(CLOCK_MONOTONIC, &t);
			left = due - (t.tv_sec * 1000LL + t.tv_nsec / 1000000);
			r = left > 0 ? poll(p, np, (int)left) : 0;
			if (r <= 0 || mon_quit)
				break;
			if (ev < 0 || !(p[np - 1].revents & POLLIN) ||
			    mon_uevents_read(ev))
				break;
			for (i = 0; i < np - 1; i++)
				if (p[i].revents)
					break;
			if (i < np - 1)
				break;
		}
	}
	for (i = 0; i < LRAID_MAX_ARRAYS; i++)
		if (sfd[i] >= 0)
			close(sfd[i]);
	if (ev >= 0)
		close(ev);
	if (o.pidfile && !o.oneshot)
		unlink(o.pidfile);
	free(was);
	return 0;
}

static int cmd_version(void)
{
	struct lraid_ioc_version v = { 0 };
	int ctl;

	printf("lraidctl %s (ABI %d.%d)\n", TOOL_VERSION, LRAID_ABI_MAJOR,
	       LRAID_ABI_MINOR);
	ctl = open(CONTROL_PATH, O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		printf("kernel: not loaded (%s: %s)\n", CONTROL_PATH,
		       strerror(errno));
		return 0;
	}
	if (ioctl(ctl, LRAID_IOC_VERSION, &v)) {
		err("version query failed: %s", strerror(errno));
		close(ctl);
		return 1;
	}
	close(ctl);
	printf("kernel: ABI %u.%u, features 0x%llx\n", v.major, v.minor,
	       (unsigned long long)v.features);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "create"))
		return cmd_create(argc - 1, argv + 1);
	if (!strcmp(argv[1], "assemble"))
		return cmd_assemble(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stop"))
		return cmd_stop(argc - 1, argv + 1);
	if (!strcmp(argv[1], "fail"))
		return cmd_fail(argc - 1, argv + 1);
	if (!strcmp(argv[1], "add"))
		return cmd_add(argc - 1, argv + 1, 0);
	if (!strcmp(argv[1], "re-add"))
		return cmd_add(argc - 1, argv + 1, LRAID_ADD_READD);
	if (!strcmp(argv[1], "remove"))
		return cmd_remove(argc - 1, argv + 1);
	if (!strcmp(argv[1], "detail"))
		return cmd_detail(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "set"))
		return cmd_set(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check") || !strcmp(argv[1], "repair"))
		return cmd_action(argc, argv);	/* action check|repair ... */
	if (!strcmp(argv[1], "examine"))
		return cmd_examine(argc - 1, argv + 1);
	if (!strcmp(argv[1], "incremental") || !strcmp(argv[1], "-I"))
		return cmd_incremental(argc - 1, argv + 1);
	if (!strcmp(argv[1], "action"))
		return cmd_action(argc - 1, argv + 1);
	if (!strncmp(argv[1], "--action=", 9)) {
		/* mdadm's spelling: --action=check ARRAY... */
		argv[1] += 9;
		return cmd_action(argc, argv);
	}
	if (!strcmp(argv[1], "monitor") || !strcmp(argv[1], "--monitor") ||
	    !strcmp(argv[1], "-F"))
		return cmd_monitor(argc - 1, argv + 1);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version"))
		return cmd_version();
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		usage();
		return 0;
	}
	err("unknown command '%s'", argv[1]);
	return usage();
}
