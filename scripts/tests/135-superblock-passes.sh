#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What a crash in the middle of a superblock pass leaves on the members:
#  - a stop writes the clean state only once every member has flushed its
#    write cache. RAID5 x4, chunk 16K, each member null_blk behind
#    tests/badblk's lraid-wcache (a volatile 16 MiB cache). Data is
#    written without a flush, then role 1 stops answering (its table
#    suspended with --noflush: its I/O queues) and lraid0 is stopped.
#    The stop must wait on role 1 before any member is marked clean. Then
#    the power is cut (every table swapped for an error table: the caches
#    are lost, the queued I/O fails) and the stop ends. Role 1 lost cached
#    writes, so no member may say clean: a degraded assemble of the other
#    three must be refused (EUCLEAN) as not stopped cleanly. (A member
#    flushed and marked clean before role 1 was flushed made it look
#    clean, and the degraded start was accepted.)
#  - every member one pass writes gets the same event count, also when a
#    member fails its superblock write in the middle of the pass. RAID6
#    x5 over lraid-bad: role 1 fails writes, role 4 keeps back writes to
#    its superblock, and role 3 is failed by `lraidctl fail`. While that
#    pass waits on role 4, roles 0 and 2 must hold the same event count;
#    a crash then must not leave role 4 two events behind the newest (it
#    missed nothing, yet assembly would take it for stale). (The count
#    used to be raised at the failed write, so role 2 went one further.)
#    Once role 4's write goes, the fail succeeds and records roles 1 and 3
#    failed on roles 0, 2 and 4, all at one event count.
#  - a member that fails its flush at stop (RAID5 x4 over lraid-bad on
#    loop, which has a write cache: "fail_flushes") is marked failed and
#    recorded, as for a failed write; the others are written clean, and
#    the array assembles degraded without --force and reads back.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need dmsetup
lr_setup
modprobe -q dm-mod 2>/dev/null || true

# on a failure, nothing may stay held: the cleanup's stop would wait on it
bg=
passes_cleanup() {
	set +e
	local i
	for i in 0 1 2 3; do
		dmsetup resume --noudevsync "lrsbp$i" >/dev/null 2>&1
	done
	[ "${#LR_BAD_DM[@]}" -lt 5 ] ||
		dmsetup message "${LR_BAD_DM[4]}" 0 release 2>/dev/null
	[ -z "$bg" ] || wait "$bg" 2>/dev/null
	lr_cleanup
}
trap passes_cleanup EXIT

lr_log "RAID5 x4 with volatile caches: a stop that waits on role 1"
lr_target lraid-wcache
lr_members nullb 4 64
raw=("${LR_M[@]}")
dm=()
for i in 0 1 2 3; do
	lr_dm "lrsbp$i" "0 $(blockdev --getsz "${raw[i]}") lraid-wcache ${raw[i]} 16" ||
		lr_fail "dmsetup create lrsbp$i"
	dm+=("$LR_DEV")
done
lr_create lraid0 --level 5 --chunk 16K "${dm[@]}"
# a clean start: the superblocks on the devices say active, with the
# caches written back by the create's superblock passes
[ "$(lr_sb_state "${raw[0]}")" = active ] || lr_fail "running, yet not active on disk"
head -c 6M /dev/urandom >"$LR_TMP/data"
dd if="$LR_TMP/data" of=/dev/lraid0 bs=192k oflag=direct status=none ||
	lr_fail "write"
dmsetup suspend --noflush --nolockfs --noudevsync lrsbp1 ||
	lr_fail "dmsetup suspend lrsbp1"
"$LRAIDCTL" stop lraid0 >"$LR_TMP/stop" 2>&1 &
stopper=$!
bg=$stopper
if lr_wait_end "$stopper" 3; then
	cat "$LR_TMP/stop"
	lr_fail "the stop did not wait on the suspended role 1"
fi
# the cut: every cache is lost, every I/O from now on fails
for i in 0 2 3; do
	dmsetup suspend --nolockfs --noudevsync "lrsbp$i" ||
		lr_fail "dmsetup suspend lrsbp$i"
done
for i in 0 1 2 3; do
	echo "0 $(blockdev --getsz "${raw[i]}") error" | dmsetup load "lrsbp$i" ||
		lr_fail "dmsetup load lrsbp$i error"
	dmsetup resume --noudevsync "lrsbp$i" || lr_fail "dmsetup resume lrsbp$i"
done
lr_wait_end "$stopper" 60 || lr_fail "the stop still waits after the cut"
wait "$stopper" || true	# its superblock writes failed: either answer
bg=
LR_ARRAYS=()
for i in 0 1 2 3; do
	dmsetup remove --noudevsync "lrsbp$i" || lr_fail "dmsetup remove lrsbp$i"
done
LR_DM=()
for i in 0 1 2 3; do
	s=$(lr_sb_state "${raw[i]}")
	[ "$s" = active ] ||
		lr_fail "after the cut, role $i says $s although role 1 lost its cache"
done
out=$("$LRAIDCTL" assemble --run lraid0 "${raw[0]}" "${raw[2]}" "${raw[3]}" 2>&1) && {
	"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 || true
	lr_fail "after the cut, assembled degraded as if clean: $out"
}
grep -q "Structure needs cleaning" <<<"$out" ||
	lr_fail "after the cut: degraded assemble not refused as unclean: $out"
lr_log "the stop waited on role 1 before marking anything clean"

lr_log "RAID6 x5: one event count per superblock pass"
lr_bad_setup 5
lr_create lraid0 --level 6 --chunk 64K "${LR_BAD[@]}"
e0=$(lr_sb_num "${LR_BAD[0]}" events)
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 1 || lr_fail "fail_writes"
dmsetup message "${LR_BAD_DM[4]}" 0 hold 0 8 || lr_fail "hold"
"$LRAIDCTL" fail lraid0 "${LR_BAD[3]}" >"$LR_TMP/fail" 2>&1 &
failer=$!
bg=$failer
held=0
for _ in $(seq 300); do
	held=$(dmsetup status "${LR_BAD_DM[4]}" |
		awk '$3 == "lraid-bad" { print $9 }')
	[ "$held" -gt 0 ] && break
	sleep 0.1
done
[ "$held" -gt 0 ] || lr_fail "role 4's superblock write never came"
lr_running "$failer" || lr_fail "the fail ended while role 4 held its write"
e0w=$(lr_sb_num "${LR_BAD[0]}" events)
e2w=$(lr_sb_num "${LR_BAD[2]}" events)
[ "$e0w" -gt "$e0" ] || lr_fail "role 0 not written by the pass ($e0 -> $e0w)"
[ "$e2w" = "$e0w" ] ||
	lr_fail "one pass wrote event $e0w to role 0 but $e2w to role 2 (role 4 at $(lr_sb_num "${LR_BAD[4]}" events))"
dmsetup message "${LR_BAD_DM[4]}" 0 release || lr_fail "release"
lr_wait_end "$failer" 60 || lr_fail "the fail still waits after the release"
bg=
wait "$failer" || { cat "$LR_TMP/fail"; lr_fail "lraidctl fail"; }
e=$(lr_sb_num "${LR_BAD[0]}" events)
for i in 0 2 4; do
	[ "$(lr_sb_num "${LR_BAD[i]}" events)" = "$e" ] ||
		lr_fail "role $i not at event $e after the fail"
	[ "$(lr_sb_num "${LR_BAD[i]}" failed_mask)" = 10 ] ||
		lr_fail "role $i does not record roles 1 and 3 failed"
done
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 0
lr_log "roles 0 and 2 at $e0w while role 4 waited; all at $e after it"

lr_log "RAID5 x4 on loop: a member fails its flush at stop"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop the RAID6"
LR_ARRAYS=()
lr_bad_setup 4 loop
fl=("${LR_BAD[@]}")
flush2=${LR_BAD_DM[LR_BAD_NEW + 2]}
# without a cache on the member, the block layer ends an empty flush
# before lraid-bad sees it, and the part would test nothing
[ "$(cat "/sys/block/${fl[2]#/dev/}/queue/write_cache")" = "write back" ] ||
	lr_fail "loop over a file has no write cache here: nothing to flush"
lr_create lraid0 --level 5 --chunk 64K "${fl[@]}"
head -c 2M /dev/urandom >"$LR_TMP/want"
dd if="$LR_TMP/want" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write"
dmsetup message "$flush2" 0 fail_flushes 1 || lr_fail "fail_flushes"
lr_klog_mark
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop with role 2 failing flushes"
LR_ARRAYS=()
dmsetup message "$flush2" 0 fail_flushes 0
for i in 0 1 3; do
	[ "$(lr_sb_state "${fl[i]}")" = clean ] ||
		lr_fail "a member failing its flush left the array not clean"
	[ "$(lr_sb_num "${fl[i]}" failed_mask)" = 4 ] ||
		lr_fail "role 2 not recorded failed after its flush failed"
done
lr_klog_has "role 2) marked failed: its write cache could not be flushed" ||
	lr_fail "role 2 not marked failed for its flush"
"$LRAIDCTL" assemble lraid0 "${fl[@]}" >"$LR_TMP/asm" 2>&1 ||
	lr_fail "assemble (degraded, clean) after role 2 failed its flush: $(cat "$LR_TMP/asm")"
LR_ARRAYS=(lraid0)
dd if=/dev/lraid0 of="$LR_TMP/got" bs=1M count=2 iflag=direct status=none ||
	lr_fail "read back after role 2 failed its flush"
cmp -s "$LR_TMP/got" "$LR_TMP/want" ||
	lr_fail "other bytes after role 2 failed its flush"
lr_log "role 2 failed and recorded, the array clean, degraded, and whole"

echo "PASS: a stop marks no member clean before all are flushed; one event count per pass"
