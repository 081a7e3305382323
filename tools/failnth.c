// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper, loaded with LD_PRELOAD into lraidctl: makes the
 * LRAIDCTL_FAIL_NTH-th fault-injection point (slab or page allocation, in
 * a kernel with CONFIG_FAILSLAB / CONFIG_FAIL_PAGE_ALLOC) that the calling
 * thread passes inside its create or assemble ioctl fail, through
 * /proc/thread-self/fail-nth. Afterwards it prints "fail-nth: fired",
 * "fail-nth: not reached, C points" (C: the points the ioctl passed) or
 * "fail-nth: not reached (...)" (C not known) to stderr, so that a
 * scenario can count the points and then fail each of them, or a sample,
 * in turn.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "uapi/lraid.h"

static int set_nth(const char *v)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* what is left of the count: 0 once the failure was injected */
static long left_nth(void)
{
	char buf[32] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	const char *nth = getenv("LRAIDCTL_FAIL_NTH");
	va_list ap;
	void *arg;
	int ret, err;
	long left;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (!nth || (req != LRAID_IOC_CREATE && req != LRAID_IOC_ASSEMBLE))
		return real(fd, req, arg);
	if (set_nth(nth)) {
		fprintf(stderr, "fail-nth: cannot set: %s\n", strerror(errno));
		exit(3);
	}
	ret = real(fd, req, arg);
	err = errno;
	left = left_nth();
	set_nth("0");
	/*
	 * Reading the count back allocates: a failure still armed, not
	 * reached inside the ioctl, fires there and the read fails. The
	 * points the ioctl passed are then not known, only that it passed
	 * fewer than asked.
	 */
	if (left < 0)
		fprintf(stderr, "fail-nth: not reached (it fired reading the count back)\n");
	else if (left == 0)
		fprintf(stderr, "fail-nth: fired\n");
	else
		fprintf(stderr, "fail-nth: not reached, %ld points\n",
			strtol(nth, NULL, 10) - left);
	errno = err;
	return ret;
}
