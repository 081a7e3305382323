#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write errors that leave the array with less than it needs, and
# superblocks that cannot be written. Members sit behind device-mapper
# tables swapped for dm-flakey's error_writes (reads work, writes fail):
#  - RAID5 with one member failed, then a write fails on another: that
#    member is marked failed all the same (as md does), the write fails,
#    and so do reads that would need either member: the failed write left
#    parity and data disagreeing, and a rebuild from them would return
#    wrong bytes. Blocks on the other members read back right. The array
#    then refuses to assemble; --force brings the second member back,
#    and its stop leaves the array marked not clean (the member it took
#    back missed writes that parity holds; nothing resynced it), so the
#    next degraded assemble is refused again without --force.
#  - A member that cannot take its superblock at stop is marked failed
#    and the others are still written: the array assembles degraded.
#  - Every member fails every write: writes fail, and a flush fails too
#    instead of waiting for ever (it had no member left to go to).
#  - A member that cannot take its superblock at assemble fails the
#    assemble, but every other member is written all the same: none is
#    more than one event from the others, so once the member takes writes
#    again the array assembles whole, not degraded.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need dmsetup
lr_setup
modprobe -q dm-flakey 2>/dev/null || true
dmsetup targets 2>/dev/null | grep -q '^flakey' || lr_skip "no dm-flakey"

# wrap NAME DEV: LR_DEV = a device-mapper device passing through to DEV
wrap() {
	lr_dm "$1" "0 $(blockdev --getsz "$2") linear $2 0" ||
		lr_fail "dmsetup create $1"
}

# writes_fail NAME DEV 0|1: swap NAME's table to failing writes (1) or back
writes_fail() {
	local sz
	sz=$(blockdev --getsz "$2")
	if [ "$3" = 1 ]; then
		echo "0 $sz flakey $2 0 0 3600 1 error_writes"
	else
		echo "0 $sz linear $2 0"
	fi | dmsetup load "$1" || lr_fail "dmsetup load $1"
	dmsetup suspend --noudevsync "$1" || lr_fail "dmsetup suspend $1"
	dmsetup resume --noudevsync "$1" || lr_fail "dmsetup resume $1"
}

# rd OFF_K LEN_K: O_DIRECT read of lraid0 into $LR_TMP/got
rd() {
	dd if=/dev/lraid0 of="$LR_TMP/got" iflag=direct,skip_bytes \
		skip=$(($1 * 1024)) bs=$(($2 * 1024)) count=1 status=none 2>/dev/null
}

# same OFF_K LEN_K: what rd read is what was written there
same() {
	cmp -s "$LR_TMP/got" <(head -c $((($1 + $2) * 1024)) "$LR_TMP/data" |
		tail -c $(($2 * 1024)))
}

# array ROLE: RAID5 x4 on fresh null_blk members (raw[]), role ROLE behind
# device-mapper device lrwROLE, the first MiB written with $LR_TMP/data
array() {
	lr_members nullb 4 32
	raw=("${LR_M[@]}")
	wrap "lrw$1" "${raw[$1]}"
	LR_M[$1]=$LR_DEV
	lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
	dd if="$LR_TMP/data" of=/dev/lraid0 bs=1M oflag=direct status=none ||
		lr_fail "write"
}

head -c 1M /dev/urandom >"$LR_TMP/data"
lr_log "RAID5 x4, role 0 failed, then a write fails on role 1"
array 1
"$LRAIDCTL" fail lraid0 "${LR_M[0]}" || lr_fail "fail role 0"
writes_fail lrw1 "${raw[1]}" 1
lr_klog_mark
# stripe 0: bytes 0-64K on role 0, 64K-128K on role 1, 128K-192K on role 2
if dd if=/dev/urandom of=/dev/lraid0 bs=4k seek=16 count=1 oflag=direct \
	conv=notrunc status=none 2>/dev/null; then
	lr_fail "a write that failed on role 1 with role 0 failed succeeded"
fi
if rd 0 4; then
	same 0 4 && lr_fail "role 0's block read back although it cannot be rebuilt"
	lr_fail "role 0's block read back wrong bytes as a success (rebuilt from a stale role 1)"
fi
lr_klog_has "role 1): member marked failed, more members failed than parity covers" ||
	lr_fail "role 1 not marked failed past what parity covers: $(lr_klog | grep lraid0 | tail -3)"
rd 128 64 || lr_fail "role 2's chunk does not read"
same 128 64 || lr_fail "role 2's chunk reads other bytes"
"$LRAIDCTL" detail lraid0 | grep -q "FAILED" ||
	lr_fail "detail does not say FAILED: $("$LRAIDCTL" detail lraid0)"
if dd if=/dev/urandom of=/dev/lraid0 bs=4k seek=32 count=1 oflag=direct \
	conv=notrunc status=none 2>/dev/null; then
	lr_fail "a write to a failed array succeeded"
fi
"$LRAIDCTL" stop lraid0 || lr_fail stop
writes_fail lrw1 "${raw[1]}" 0

lr_log "assemble refuses it; --force takes role 1 back"
if "$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null 2>&1; then
	lr_fail "assembled with two of four roles failed"
fi
"$LRAIDCTL" assemble --force lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1 ||
	{ cat "$LR_TMP/asm"; lr_fail "assemble --force"; }
grep -q "with --force" "$LR_TMP/asm" || lr_fail "no --force warning: $(cat "$LR_TMP/asm")"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
grep -q "clean, degraded\|active, degraded" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "forced array not degraded"; }
rd 68 60 || lr_fail "role 1 after --force"
same 68 60 || lr_fail "role 1 reads other bytes after --force"
rd 128 64 || lr_fail "role 2 after --force"
same 128 64 || lr_fail "role 2 reads other bytes after --force"
rd 0 4 || lr_fail "role 0 rebuilt after --force"
lr_klog_mark
"$LRAIDCTL" stop lraid0 || lr_fail stop
# role 1 missed writes that parity holds: nothing resynced it, so the
# stop must not mark the array clean
[ "$(lr_sb_state "${LR_M[2]}")" = active ] ||
	lr_fail "a --force run that took role 1 back stopped marked clean"
lr_klog_has "left marked not clean" ||
	lr_fail "a --force run stopped: no word in the kernel log"
# so the next degraded start needs --force again
if "$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1; then
	lr_fail "assembled degraded without --force after a --force run"
fi
grep -q "Structure needs cleaning" "$LR_TMP/asm" ||
	lr_fail "not refused as not clean: $(cat "$LR_TMP/asm")"

lr_log "RAID5 x4, role 2 cannot take its superblock at stop"
array 2
writes_fail lrw2 "${raw[2]}" 1
lr_klog_mark
"$LRAIDCTL" stop lraid0 || lr_fail stop
lr_klog_has "role 2) marked failed: its superblock cannot be written" ||
	lr_fail "role 2 not marked failed: $(lr_klog | grep lraid | tail -3)"
writes_fail lrw2 "${raw[2]}" 0
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1 ||
	{ cat "$LR_TMP/asm"; lr_fail "assemble after a failed superblock write"; }
"$LRAIDCTL" detail lraid0 | grep -Eq " (missing|faulty|removed) " ||
	lr_fail "role 2 not left out: $("$LRAIDCTL" detail lraid0)"
rd 0 1024 || lr_fail "read after the failed superblock write"
same 0 1024 || lr_fail "other bytes after the failed superblock write"
"$LRAIDCTL" stop lraid0 || lr_fail stop
lr_log "RAID5 x4, role 0 cannot take its superblock at assemble"
array 0
"$LRAIDCTL" stop lraid0 || lr_fail stop
writes_fail lrw0 "${raw[0]}" 1
if "$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1; then
	lr_fail "assembled although role 0's superblock write failed"
fi
[ ! -e /dev/lraid0 ] || lr_fail "/dev/lraid0 left after a failed assemble"
e0=$(lr_sb_num "${LR_M[0]}" events)
for r in 1 2 3; do
	[ "$(lr_sb_num "${LR_M[$r]}" events)" = $((e0 + 1)) ] ||
		lr_fail "role $r at events $(lr_sb_num "${LR_M[$r]}" events), role 0 at $e0: the pass stopped at the failed member"
done
writes_fail lrw0 "${raw[0]}" 0
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1 ||
	{ cat "$LR_TMP/asm"; lr_fail "assemble once role 0 takes writes"; }
"$LRAIDCTL" detail lraid0 | grep -q "degraded" &&
	lr_fail "role 0 left out: $("$LRAIDCTL" detail lraid0)"
rd 0 1024 || lr_fail "read after the failed assemble"
same 0 1024 || lr_fail "other bytes after the failed assemble"
"$LRAIDCTL" stop lraid0 || lr_fail stop
lr_log "RAID5 x4 on loop, every member fails every write: a flush fails, not hangs"
lr_members loop 4 32
raw=("${LR_M[@]}")
for i in 0 1 2 3; do
	wrap "lrx$i" "${raw[$i]}"
	LR_M[i]=$LR_DEV
done
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
[ "$(cat /sys/block/lraid0/queue/write_cache)" = "write back" ] ||
	lr_fail "no write cache on lraid0: a flush would not reach it"
for i in 0 1 2 3; do
	writes_fail "lrx$i" "${raw[$i]}" 1
done
# a full stripe (3 x 64 KiB): a write to every member, each fails
if dd if=/dev/urandom of=/dev/lraid0 bs=192k count=1 oflag=direct \
	status=none 2>/dev/null; then
	lr_fail "a full-stripe write to members that fail every write succeeded"
fi
n=$("$LRAIDCTL" detail lraid0 | grep -c faulty || true)
[ "$n" = 4 ] || lr_fail "$n of 4 members failed: $("$LRAIDCTL" detail lraid0)"
# fsync of the disk sends an empty flush (blkdev_issue_flush)
sync /dev/lraid0 2>/dev/null &
pid=$!
for _ in $(seq 30); do
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
kill -0 $pid 2>/dev/null && lr_fail "a flush with every member failed still waits after 30 s"
if wait $pid; then
	lr_fail "a flush with every member failed succeeded"
fi
"$LRAIDCTL" stop lraid0 || lr_fail stop
echo "PASS: write errors past parity fail I/O, not data; --force; superblock write errors"
