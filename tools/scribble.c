// SPDX-License-Identifier: GPL-2.0
/*
 * scribble: O_DIRECT writes from a buffer that another thread keeps
 * changing while they are in flight, the way some programs and VM hosts
 * reuse buffers before a write completes. What lands on the device is
 * undefined, but an array's parity must still agree with whatever it
 * wrote (scripts/tests/124-copy-writes.sh).
 *
 *   scribble DEV BYTES COUNT [SEED]
 *
 * COUNT writes of BYTES (a multiple of 512) at random aligned offsets
 * over all of DEV. Prints the writes done; exits non-zero on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static atomic_int stop;

struct scribbler {
	uint64_t *words;
	size_t nr;
};

static void *scribble(void *arg)
{
	const struct scribbler *s = arg;
	uint64_t v = 1;

	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		size_t i;

		for (i = 0; i < s->nr; i++)
			__atomic_store_n(&s->words[i], v * (i + 1),
					 __ATOMIC_RELAXED);
		v++;
	}
	return NULL;
}

static unsigned long long num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s) {
		fprintf(stderr, "scribble: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned long long bytes, count, seed = 1, done;
	uint64_t size, slots;
	struct scribbler s;
	pthread_t t;
	void *buf;
	int fd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: scribble DEV BYTES COUNT [SEED]\n");
		return 2;
	}
	bytes = num(argv[2], "BYTES");
	count = num(argv[3], "COUNT");
	if (argc == 5)
		seed = num(argv[4], "SEED");
	if (!bytes || bytes % 512 || bytes > (1ULL << 30)) {
		fprintf(stderr, "scribble: BYTES must be a multiple of 512\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size)) {
		perror(argv[1]);
		return 1;
	}
	slots = size / bytes;
	if (!slots) {
		fprintf(stderr, "scribble: %s is smaller than %llu bytes\n",
			argv[1], bytes);
		return 1;
	}
	if (posix_memalign(&buf, 4096, bytes)) {
		perror("posix_memalign");
		return 1;
	}
	memset(buf, 0, bytes);
	s.words = buf;
	s.nr = bytes / sizeof(uint64_t);
	if (pthread_create(&t, NULL, scribble, &s)) {
		fprintf(stderr, "scribble: cannot start the thread\n");
		return 1;
	}
	srandom(seed);
	for (done = 0; done < count; done++) {
		uint64_t slot = ((uint64_t)random() << 31 | random()) % slots;
		ssize_t n = pwrite(fd, buf, bytes, slot * bytes);

		if (n != (ssize_t)bytes) {
			fprintf(stderr, "scribble: write at %llu: %s\n",
				(unsigned long long)(slot * bytes),
				n < 0 ? strerror(errno) : "short write");
			break;
		}
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	if (fsync(fd)) {
		perror("fsync");
		return 1;
	}
	close(fd);
	printf("%llu writes of %llu bytes\n", done, bytes);
	return done == count ? 0 : 1;
}
