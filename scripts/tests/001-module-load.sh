#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# lraid.ko loads, exposes its control device, ioctl version and parity
# choice, survives odd ioctls on the control device, and unloads cleanly.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"

grep -q '^lraid ' /proc/modules && lr_fail "lraid already loaded"
lr_setup
grep -q '^lraid ' /proc/modules || lr_fail "lraid not in /proc/modules"
[ -c /dev/lraid-control ] || lr_fail "/dev/lraid-control is not a char device"

impl=$(cat /sys/module/lraid/parameters/parity)
lr_log "parity implementation: $impl"
case $impl in c | avx2 | avx512 | gfni) ;; *) lr_fail "parity param reads '$impl'" ;; esac
lr_klog_has 'lraid: parity' || lr_fail "no parity line in the load message"

"$LRAIDCTL" version | tee "$LR_TMP/version"
grep -Eq '^lraidctl .*ABI [0-9]+\.[0-9]+' "$LR_TMP/version" ||
	lr_fail "lraidctl version shows no ABI version"
grep -Eq '^kernel: ABI [0-9]+\.[0-9]+' "$LR_TMP/version" ||
	lr_fail "the module did not answer the version ioctl"

# Nothing to stop: a clear refusal, not a crash.
if "$LRAIDCTL" stop lraid99 2>"$LR_TMP/err"; then
	lr_fail "stopping a missing array succeeded"
fi
lr_log "refusal: $(cat "$LR_TMP/err")"
[ -s "$LR_TMP/err" ] || lr_fail "refusal printed nothing"

# Garbage ioctl numbers on the control device are refused.
python3 - <<'PY' || lr_fail "odd ioctls were not refused"
import errno, fcntl, os
fd = os.open("/dev/lraid-control", os.O_RDWR)
for cmd in (0, 0xdeadbeef & 0x7fffffff, 0xc0104c7f):
    try:
        fcntl.ioctl(fd, cmd, bytearray(64))
    except OSError as e:
        assert e.errno in (errno.ENOTTY, errno.EINVAL, errno.EFAULT), e
    else:
        raise SystemExit("ioctl %#x accepted" % cmd)
os.close(fd)
PY

trap - EXIT
lr_cleanup
rmmod lraid || lr_fail "rmmod lraid"
[ ! -e /dev/lraid-control ] || lr_fail "/dev/lraid-control left behind"
lr_log "load/unload clean"
