#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A write is not acknowledged while a member it left out is failed but no
# superblock says so yet, as md holds writes while a superblock change is
# pending. Acknowledged earlier, a crash before the record lands would let
# the next assemble trust that member again, with the block it missed.
# Every member is an lraid-bad device over loop (lr_bad_setup), which has
# write-zeroes, so full stripes are discarded with it. RAID6 x5, chunk 64K:
#  - role 1 starts failing writes and the survivors keep back writes to
#    their superblock. A direct write into role 1's chunk fails there, so
#    role 1 is marked failed and the write stands on the others; it must
#    not finish while the superblock write waits (`lraidctl detail` still
#    answers). Once the superblock write goes, the write succeeds, every
#    survivor records role 1 failed, and the block reads back.
#  - the same for a discard of whole stripes (sent to every member as one
#    write-zeroes) that role 2 fails: role 2 is failed as for a write (md
#    does the same), the discard waits for the record, then succeeds, and
#    the stripes read zeroes. (Not BLKZEROOUT: the kernel answers its
#    failure by writing zero pages, which would test the write path.)
# Then the array assembles without roles 1 and 2 and reads the same.
#  - on a new array over the same members, role 3 fails a flush (as a drive
#    that lost its write cache): role 3 is failed as for a write, and the
#    flush (fsync of /dev/lraid0) waits for the record, then succeeds
#    (md only logs member flush errors). With roles 0 and 1 failing
#    flushes too, one more than RAID6 covers, the flush fails, and so
#    does a discard of whole stripes (as a write would).
#  - RAID5 x5: a write held for the record of role 1 (as above) fails if
#    role 2 fails a write before the record lands: the block it left to
#    parity for role 1 cannot be read back any more (md fails the writes
#    of a failed array's stripes). So does, with role 1 already failed, a
#    write into role 1's block whose P write role 4 keeps back while role
#    2 fails.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need dmsetup blkdiscard
lr_setup

lr_bad_setup 5 loop
lr_create lraid0 --level 6 --chunk 64K "${LR_BAD[@]}"
[ "$(cat /sys/block/lraid0/queue/discard_max_bytes)" != 0 ] ||
	lr_skip "no discard on lraid0 (loop without write-zeroes here)"

keep=()
# hold ROLES...: those roles keep back writes to their superblock
hold() {
	local i
	keep=("$@")
	for i in "$@"; do
		dmsetup message "${LR_BAD_DM[i]}" 0 hold 0 8 ||
			lr_fail "${LR_BAD_DM[i]}: hold"
	done
}
# release: the held writes go, nothing is held any more
release() {
	local i
	for i in "${keep[@]}"; do
		dmsetup message "${LR_BAD_DM[i]}" 0 release ||
			lr_fail "${LR_BAD_DM[i]}: release"
	done
	keep=()
}
# held: writes kept back now
held() {
	local i n=0 h
	for i in "${keep[@]}"; do
		h=$(dmsetup status "${LR_BAD_DM[i]}" |
			awk '$3 == "lraid-bad" { print $9 }')
		n=$((n + h))
	done
	echo "$n"
}
writer=
held_cleanup() {
	set +e
	release 2>/dev/null
	[ -n "$writer" ] && wait "$writer" 2>/dev/null
	lr_cleanup
}
trap held_cleanup EXIT

# waits WHAT: the background $writer is kept waiting for the superblock
waits() {
	for _ in $(seq 300); do
		[ "$(held)" -gt 0 ] && break
		kill -0 "$writer" 2>/dev/null || break
		sleep 0.1
	done
	[ "$(held)" -gt 0 ] ||
		lr_fail "no superblock write after $1: $(lr_klog | grep lraid0 | tail -3)"
	# it must wait for the record, however long that takes
	sleep 2
	kill -0 "$writer" 2>/dev/null ||
		lr_fail "$1: finished before any superblock recorded the failed member"
	timeout 20 "$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" ||
		lr_fail "detail does not answer while a superblock write waits"
	grep -q "degraded" "$LR_TMP/detail" ||
		{ cat "$LR_TMP/detail"; lr_fail "detail does not say degraded"; }
}
# lands WHAT: let the superblock writes go; the $writer succeeds
lands() {
	local rc=0
	release
	wait "$writer" || rc=$?
	writer=
	[ "$rc" = 0 ] || lr_fail "$1 failed ($rc): $(cat "$LR_TMP/err")"
}
# recorded MASK ROLES...: those roles' superblocks record MASK failed
recorded() {
	local i
	for i in "${@:2}"; do
		dd if="${LR_BAD[i]}" of="$LR_TMP/sb" bs=4k count=1 iflag=direct \
			status=none || lr_fail "read superblock of role $i"
		"$LRAIDCTL" examine "$LR_TMP/sb" >"$LR_TMP/ex" ||
			lr_fail "examine role $i"
		grep -q "Failed Mask : $1$" "$LR_TMP/ex" ||
			{ cat "$LR_TMP/ex"; lr_fail "role $i's superblock does not record $1 failed"; }
	done
}
# same: the first 2 MiB of lraid0 read as $LR_TMP/want
same() {
	dd if=/dev/lraid0 of="$LR_TMP/got" bs=1M count=2 iflag=direct \
		status=none || lr_fail "read back"
	cmp -s "$LR_TMP/got" "$LR_TMP/want" || lr_fail "lraid0 reads back other bytes $1"
}

head -c 2M /dev/urandom >"$LR_TMP/want"
dd if="$LR_TMP/want" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write"

lr_log "role 1 fails a write while the superblock writes wait"
hold 0 2 3 4
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 1 || lr_fail "fail_writes"
lr_klog_mark
# stripe 0: P on role 4, Q on role 0, then data on roles 1, 2 and 3
head -c 4K /dev/urandom >"$LR_TMP/new"
dd if="$LR_TMP/new" of="$LR_TMP/want" bs=4k seek=4 conv=notrunc status=none
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=4 count=1 oflag=direct \
	conv=notrunc status=none 2>"$LR_TMP/err" &
writer=$!
waits "a write failed on role 1"
lands "the write"
recorded 0x2 0 2 3 4
same "after the write"

lr_log "role 2 fails a discard of whole stripes while the superblock writes wait"
hold 0 3 4
dmsetup message "${LR_BAD_DM[2]}" 0 fail_writes 1 || lr_fail "fail_writes"
# stripes 4-7 (192K each): 768K is a multiple of the discard granularity
# (256K), so the block layer sends the range in one bio
head -c 768K /dev/zero |
	dd of="$LR_TMP/want" bs=768k seek=1 conv=notrunc status=none
blkdiscard -o $((768 * 1024)) -l $((768 * 1024)) /dev/lraid0 \
	2>"$LR_TMP/err" &
writer=$!
waits "a discard failed on role 2"
lands "the discard"
recorded 0x6 0 3 4
same "after the discard"

lr_log "assembles without roles 1 and 2"
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 0
dmsetup message "${LR_BAD_DM[2]}" 0 fail_writes 0
"$LRAIDCTL" stop lraid0 || lr_fail stop
"$LRAIDCTL" assemble lraid0 "${LR_BAD[@]}" >/dev/null || lr_fail assemble
"$LRAIDCTL" detail lraid0 | grep -q degraded || lr_fail "not degraded"
same "after assemble"

lr_log "role 3 fails a flush while the superblock writes wait"
"$LRAIDCTL" stop lraid0 || lr_fail stop
lr_create lraid0 --level 6 --chunk 64K "${LR_BAD[@]}"
dd if="$LR_TMP/want" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write"
[ "$(cat /sys/block/lraid0/queue/write_cache)" = "write back" ] ||
	lr_skip "lraid0 has no write cache to flush (loop without one here)"
hold 0 1 2 4
dmsetup message "${LR_BAD_DM[3]}" 0 fail_flushes 1 || lr_fail "fail_flushes"
sync /dev/lraid0 2>"$LR_TMP/err" &
writer=$!
waits "a flush failed on role 3"
lands "the flush"
recorded 0x8 0 1 2 4
same "after the flush"

lr_log "flushes fail on roles 0 and 1 as well: past RAID6, the flush fails"
dmsetup message "${LR_BAD_DM[0]}" 0 fail_flushes 1 || lr_fail "fail_flushes"
dmsetup message "${LR_BAD_DM[1]}" 0 fail_flushes 1 || lr_fail "fail_flushes"
if sync /dev/lraid0 2>/dev/null; then
	lr_fail "a flush that failed on three RAID6 members succeeded"
fi
"$LRAIDCTL" detail lraid0 | grep -q "FAILED" ||
	lr_fail "detail does not say FAILED: $("$LRAIDCTL" detail lraid0)"
# whole stripes 4-7, as above: the failed members' blocks cannot be zeroed
if blkdiscard -o $((768 * 1024)) -l $((768 * 1024)) /dev/lraid0 2>/dev/null; then
	lr_fail "a discard of whole stripes succeeded on a FAILED array"
fi
for i in 0 1 3; do
	dmsetup message "${LR_BAD_DM[i]}" 0 fail_flushes 0
done

# fails WHAT: the background $writer fails once the held writes go
fails() {
	local rc=0
	release
	wait "$writer" || rc=$?
	writer=
	[ "$rc" != 0 ] || lr_fail "$1 succeeded"
}
# fresh: a new RAID5 x5 (chunk 64K) over the same members, holding $want;
# stripe 0 has P on role 4 and data on roles 0-3, stripe 1 P on role 3
# and data on roles 4, 0, 1 and 2 (role 2's chunk at 448K)
fresh() {
	local i
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	for i in 0 1 2 3 4; do
		dmsetup message "${LR_BAD_DM[i]}" 0 fail_writes 0
	done
	lr_create lraid0 --level 5 --chunk 64K "${LR_BAD[@]}"
	dd if="$LR_TMP/want" of=/dev/lraid0 bs=1M oflag=direct status=none ||
		lr_fail "write"
}

lr_log "RAID5: a write held for the record of role 1 fails once role 2 fails too"
fresh
hold 0 2 3 4
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 1 || lr_fail "fail_writes"
# role 1's chunk of stripe 0: the write stands on P for role 1's block
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=16 count=1 oflag=direct \
	conv=notrunc status=none 2>"$LR_TMP/err" &
writer=$!
waits "a write failed on role 1"
dmsetup message "${LR_BAD_DM[2]}" 0 fail_writes 1 || lr_fail "fail_writes"
# role 2's chunk of stripe 1: fails there, and waits for the record too
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=112 count=1 oflag=direct \
	conv=notrunc status=none 2>/dev/null &
second=$!
failed() {
	for _ in $(seq 300); do
		"$LRAIDCTL" detail lraid0 | grep -q "FAILED" && return
		sleep 0.1
	done
	lr_fail "detail does not say FAILED: $("$LRAIDCTL" detail lraid0)"
}
failed
fails "a write that stood on parity for role 1, answered after role 2 failed,"
if wait "$second"; then
	lr_fail "a write that failed on role 2 with role 1 failed succeeded"
fi

lr_log "RAID5, role 1 failed: a write that stands on P fails when role 2 fails before it is answered"
fresh
"$LRAIDCTL" fail lraid0 "${LR_BAD[1]}" || lr_fail "fail role 1"
# role 4 keeps back the writes to stripe 0's P (its data area from 1 MiB)
keep=(4)
dmsetup message "${LR_BAD_DM[4]}" 0 hold 2048 128 || lr_fail "hold"
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=16 count=1 oflag=direct \
	conv=notrunc status=none 2>"$LR_TMP/err" &
writer=$!
for _ in $(seq 300); do
	[ "$(held)" -gt 0 ] && break
	sleep 0.1
done
[ "$(held)" -gt 0 ] || lr_fail "the write to role 1's block never reached P"
dmsetup message "${LR_BAD_DM[2]}" 0 fail_writes 1 || lr_fail "fail_writes"
if dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=112 count=1 oflag=direct \
	conv=notrunc status=none 2>/dev/null; then
	lr_fail "a write that failed on role 2 with role 1 failed succeeded"
fi
failed
fails "a write whose block only P held, answered after role 2 failed,"
echo "PASS: writes, discards and flushes wait until the failed member is recorded, and fail if the array is lost meanwhile"
