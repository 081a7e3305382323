#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A bio whose segments are not whole sectors, which only an in-kernel
# submitter can build (tests/badblk's lraid_oddseg module sends one: 512
# bytes in two segments of 256, or one segment of 512 bytes that crosses
# a page boundary 256 bytes in), is refused with EIO where lraid's
# workers would walk it: a write, and a read of a block on a failed
# member (rebuilt from parity). Nothing is written, the data reads back
# as before, and the array goes on working. (The workers step through a
# bio sector by sector: before the check, such a write put data and
# parity out of step or ran past the end of the bio.)
# RAID5 x4, chunk 16K, null_blk members.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need cmp
lr_setup
ko=${LRAID_KO%/module/lraid.ko}/tests/badblk/lraid_oddseg.ko
[ -f "$ko" ] || lr_skip "no $ko (a kernel without device-mapper?)"

# oddseg ARGS...: load lraid_oddseg for /dev/lraid0 with ARGS, print its
# result, unload it
oddseg() {
	local r
	insmod "$ko" "major=$((0x$(stat -c %t /dev/lraid0)))" \
		"minor=$((0x$(stat -c %T /dev/lraid0)))" "$@" ||
		lr_fail "insmod lraid_oddseg $*"
	r=$(cat /sys/module/lraid_oddseg/parameters/result)
	rmmod lraid_oddseg || lr_fail "rmmod lraid_oddseg"
	echo "$r"
}

# refused OP ARGS...: lraid_oddseg with ARGS must end with EIO, the
# kernel log must name OP, and lraid0 must still read what was written
refused() {
	local op=$1 r
	shift
	lr_klog_mark
	r=$(oddseg "$@")
	[ "$r" = -5 ] ||
		lr_fail "$op ($*): result $r, not -5 (EIO)"
	lr_klog_has "$op of a segment that is not whole sectors refused" ||
		lr_fail "the refused $op: no word in the kernel log"
	dd if=/dev/lraid0 of="$LR_TMP/got" bs=1M count=1 iflag=direct \
		status=none
	cmp -s "$LR_TMP/got" "$LR_TMP/want" ||
		lr_fail "lraid0 reads other bytes after the refused $op"
}

lr_members nullb 4 32
m=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 16K "${m[@]}"
head -c 1M /dev/urandom >"$LR_TMP/want"
dd if="$LR_TMP/want" of=/dev/lraid0 bs=48k oflag=direct status=none ||
	lr_fail "write"

lr_log "a write of two 256-byte segments"
refused write sector=8
lr_log "a write of 512 bytes from 256 bytes before a page's end"
refused write sector=8 cross=1

lr_log "a degraded read of two 256-byte segments"
"$LRAIDCTL" fail lraid0 "${m[0]}" >/dev/null || lr_fail "fail ${m[0]}"
lr_noise "${m[0]}" 4
# stripe 0 puts data chunk 0 (sectors 0-31) on role 0
refused read sector=8 write=0
refused read sector=8 write=0 cross=1

lr_log "the array still works"
head -c 1M /dev/urandom >"$LR_TMP/want"
dd if="$LR_TMP/want" of=/dev/lraid0 bs=12k oflag=direct status=none ||
	lr_fail "write after the refusals"
dd if=/dev/lraid0 of="$LR_TMP/got" bs=1M count=1 iflag=direct status=none
cmp -s "$LR_TMP/got" "$LR_TMP/want" || lr_fail "reads back other bytes"

echo "PASS: segments that are not whole sectors refused with EIO; nothing changed"
