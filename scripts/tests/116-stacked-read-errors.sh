#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lraid under a driver that splits reads and chains the pieces: an error on
# the other piece of a read must reach the caller, not be taken for an
# error of an lraid member and "repaired" into a success with garbage in
# the caller's buffer. An error of an lraid member under the same chained
# read is still read around. md raid0 without iostats on 6.1 passes the
# chained bio itself down (the module before the fix fails here); 6.12's
# md always sends a clone, so there this only guards against regressions.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mdadm dmsetup
lr_setup

md=/dev/md126
# LR_BAD[0]: md raid0's first member; LR_BAD[1..4]: lraid0's members
lr_bad_setup 5
lr_create lraid0 --level 5 --chunk 64K "${LR_BAD[@]:1:4}"
lr_md_raid0 "$md" 64 "${LR_BAD[0]}" /dev/lraid0
# raid0 chunk 0 (bytes 0-64K) on LR_BAD[0], chunk 1 (64K-128K) on lraid0
head -c 1M /dev/urandom >"$LR_TMP/data"
dd if="$LR_TMP/data" of="$md" bs=1M oflag=direct status=none || lr_fail "write $md"

# rd OFFSET_K LEN_K: O_DIRECT read of md126 into $LR_TMP/got, in one bio
rd() {
	dd if="$md" of="$LR_TMP/got" iflag=direct,skip_bytes skip=$(($1 * 1024)) \
		bs=$(($2 * 1024)) count=1 status=none 2>"$LR_TMP/dd.err"
}

lr_log "error on raid0's other member under a chained read"
rd 32 64 || lr_fail "healthy read failed: $(cat "$LR_TMP/dd.err")"
cmp -s "$LR_TMP/got" <(head -c 96K "$LR_TMP/data" | tail -c 64K) ||
	lr_fail "healthy read returned other bytes"
lr_klog_mark
lr_bad_on 1 0 128
if rd 32 64; then
	lr_fail "a read half on a failing device succeeded (the error was lost)"
fi
lr_klog_has "lraid0: read error" &&
	lr_fail "lraid took the other device's error for its member's: $(lr_klog | grep lraid0: | head -3)"
# lraid's half alone is fine
rd 64 32 || lr_fail "lraid's half: $(cat "$LR_TMP/dd.err")"
cmp -s "$LR_TMP/got" <(head -c 96K "$LR_TMP/data" | tail -c 32K) ||
	lr_fail "lraid's half returned other bytes"
lr_bad_off

lr_log "error on an lraid member under a chained read"
# lraid0 bytes 0-32K are role 0's first chunk, past the data offset; a
# bad range over its first 4 MiB covers them wherever the data area starts
lr_klog_mark
lr_bad_on 2 0 8192
dmsetup message "${LR_BAD_DM[0]}" 0 clear || lr_fail "clear ${LR_BAD_DM[0]}"
rd 32 64 || lr_fail "read with an lraid member failing: $(cat "$LR_TMP/dd.err")"
cmp -s "$LR_TMP/got" <(head -c 96K "$LR_TMP/data" | tail -c 64K) ||
	lr_fail "read around an lraid member returned other bytes"
lr_klog_has "lraid0: read error" ||
	lr_fail "no read error logged: the bad range missed lraid's member"
lr_bad_off
echo "PASS: errors under chained reads reach the caller, lraid's own are read around"
