#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Discard must not break parity. A discarded stripe keeps right parity only
# if every member reads zeroes there afterwards, which plain discard does
# not promise. Checks, as md's devices_handle_discard_safely does:
#  - by default lraid discards full stripes with write-zeroes: members
#    without write-zeroes (null_blk) get no discard at all, and members that
#    read 0xff after discard (as SCSI LBPRZ=2 allows; tests/badblk's target
#    in "discard ff" mode) still read back right in degraded mode after
#    small (read-modify-write) writes into the discarded stripes;
#  - with devices_handle_discard_safely=Y, members get real discards; a
#    member that stops taking them is written with zeroes where the others
#    discarded (parity stays right: another member rebuilt from it reads
#    back), and the array stops offering discard; the member is not
#    failed.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need blkdiscard fio
lr_setup

param=/sys/module/lraid/parameters/devices_handle_discard_safely
[ -w "$param" ] || lr_fail "no writable $param"
[ "$(cat "$param")" = N ] || lr_fail "$param is not N by default"

# discards DEV: discard requests DEV has completed (/sys/block/X/stat)
discards() {
	awk '{ print $12 }' "/sys/block/$(basename "$1")/stat"
}

# total discards over the members in LR_M
member_discards() {
	local m t=0
	for m in "${LR_M[@]}"; do
		t=$((t + $(discards "$m")))
	done
	echo $t
}

dmax() {
	lr_qmax "/dev/$1" discard_max_bytes
}

lr_log "null_blk members (discard, no write-zeroes): no discard by default"
lr_members nullb 4 32
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
[ "$(dmax lraid0)" = 0 ] || lr_fail "discard offered without write-zeroes"
if blkdiscard -o 0 -l 1M /dev/lraid0 2>/dev/null; then
	lr_fail "blkdiscard accepted without discard support"
fi
"$LRAIDCTL" stop lraid0 || lr_fail stop

lr_log "same members, devices_handle_discard_safely=Y: real discards"
echo Y >"$param"
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail assemble
lr_settle
[ "$(dmax lraid0)" != 0 ] || lr_fail "no discard with the parameter set"
before=$(member_discards)
blkdiscard -o 0 -l 1M /dev/lraid0 || lr_fail blkdiscard
after=$(member_discards)
[ "$after" -ge $((before + 4)) ] ||
	lr_fail "members saw $((after - before)) discards, expected 4 or more"

# A member that stops taking discards (its discard_max_bytes set to 0:
# the block layer then answers "not supported") skipped what the others
# did. lraid writes zeroes there on it, as the others read after their
# discards, so data and parity agree without failing the member, and
# stops offering discard, so that no later discard costs such a write.
lr_log "a member that stops taking discards is zeroed there, not failed"
stripe=$((3 * 64 * 1024))
head -c $((8 * stripe)) /dev/urandom >"$LR_TMP/rand"
dd if="$LR_TMP/rand" of=/dev/lraid0 bs=$stripe oflag=direct status=none ||
	lr_fail "write"
m1=$(basename "${LR_M[1]}")
echo 0 >"/sys/block/$m1/queue/discard_max_bytes" ||
	lr_fail "cannot turn off discard on $m1"
lr_klog_mark
blkdiscard -o 0 -l $((4 * stripe)) /dev/lraid0 ||
	lr_fail "blkdiscard failed: a member without discard left behind"
lr_not_failed lraid0
lr_klog_has "$m1 refused discard: the array no longer offers discard" ||
	lr_fail "no kernel log line for $m1's refusal"
lr_klog_has "$m1: writing zeroes to sectors" ||
	lr_fail "no kernel log line for the zeroes written to $m1"
[ "$(dmax lraid0)" = 0 ] || lr_fail "lraid0 still offers discard"
n=$(dd if=/dev/lraid0 bs=$stripe count=4 iflag=direct status=none |
	tr -d '\0' | wc -c)
[ "$n" = 0 ] || lr_fail "discarded stripes read $n non-zero bytes"
dd if=/dev/lraid0 bs=$stripe skip=4 count=4 iflag=direct status=none |
	cmp -s - <(tail -c $((4 * stripe)) "$LR_TMP/rand") ||
	lr_fail "stripes behind the discard read other bytes"
# the same bytes with role 0 rebuilt from the others, role 1 included:
# the zeroes written to role 1 agree with the parity
"$LRAIDCTL" fail lraid0 "${LR_M[0]}" || lr_fail "fail ${LR_M[0]}"
dd if=/dev/lraid0 bs=$stripe count=8 iflag=direct status=none |
	cmp -s - <(head -c $((4 * stripe)) /dev/zero;
		   tail -c $((4 * stripe)) "$LR_TMP/rand") ||
	lr_fail "without role 0, the stripes read other bytes"
"$LRAIDCTL" stop lraid0 || lr_fail stop
echo N >"$param"

lr_log "members that read 0xff after discard (tests/badblk over loop)"
lr_bad_setup 7 loop
for d in "${LR_BAD_DM[@]}"; do
	dmsetup message "$d" 0 discard ff || lr_fail "$d: discard ff"
done
for d in "${LR_BAD[@]}"; do
	d=$(basename "$(readlink -f "$d")")
	[ "$(dmax "$d")" != 0 ] || lr_skip "$d offers no discard (loop file system?)"
	[ "$(cat "/sys/block/$d/queue/write_zeroes_max_bytes")" != 0 ] ||
		lr_skip "$d offers no write-zeroes (loop file system?)"
done
# the members really read back 0xff after discard (else this proves nothing)
d=${LR_BAD[0]}
head -c 1M /dev/urandom >"$LR_TMP/rand"
dd if="$LR_TMP/rand" of="$d" bs=1M seek=16 oflag=direct status=none
blkdiscard -o $((16 << 20)) -l $((1 << 20)) "$d" || lr_fail "blkdiscard $d"
n=$(dd if="$d" bs=1M skip=16 count=1 iflag=direct status=none | tr -d '\377' | wc -c)
[ "$n" = 0 ] || lr_fail "$d does not read 0xff after discard ($n other bytes)"
# and what is written over a discarded block reads back
dd if="$LR_TMP/rand" of="$d" bs=1M seek=16 oflag=direct status=none
cmp <(dd if="$d" bs=1M skip=16 count=1 iflag=direct status=none) \
	"$LR_TMP/rand" || lr_fail "$d: a write after discard does not read back"

# RAID5 on 5 and RAID6 on 7: 4 and 5 data members, so a 4 KiB write into
# one chunk is a read-modify-write, which trusts the parity on disk.
for cfg in "5 5" "6 7"; do
	read -r level n <<<"$cfg"
	lr_log "RAID$level on $n such members, chunk 64K"
	LR_M=()
	for d in "${LR_BAD[@]:0:$n}"; do
		dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none
		LR_M+=("$d")
	done
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	[ "$(dmax lraid0)" != 0 ] || lr_fail "no discard over write-zeroes members"
	lr_fio /dev/lraid0 fill --rw=write --bs=64k --size=8M --iodepth=4
	stripe=$(((level == 5 ? n - 1 : n - 2) * 64 * 1024)) # data bytes
	before=$(member_discards)
	# from 8 stripes in: aligned to the power-of-two discard granularity
	# too, so the kernel does not split the discard inside a stripe
	blkdiscard -o $((8 * stripe)) -l $((6 * stripe)) /dev/lraid0 ||
		lr_fail blkdiscard
	[ "$(member_discards)" = "$before" ] ||
		lr_fail "members got plain discards with the parameter N"
	n0=$(dd if=/dev/lraid0 bs=64k skip=$((8 * stripe / 65536)) \
		count=$((6 * stripe / 65536)) iflag=direct status=none |
		tr -d '\0' | wc -c)
	[ "$n0" = 0 ] || lr_fail "discarded stripes read back $n0 non-zero bytes"
	# 4 KiB at the start of every chunk of the discarded stripes
	rmw=(--rw=write:60k --bs=4k --offset=$((8 * stripe))
		--size=$((6 * stripe)) --iodepth=1)
	lr_fio /dev/lraid0 rmw "${rmw[@]}"
	want=$(dd if=/dev/lraid0 bs=1M count=8 iflag=direct status=none | sha256sum)
	"$LRAIDCTL" fail lraid0 "${LR_M[1]}" || lr_fail "fail ${LR_M[1]}"
	lr_noise "${LR_M[1]}" 8
	if [ "$level" = 6 ]; then
		"$LRAIDCTL" fail lraid0 "${LR_M[4]}" || lr_fail "fail ${LR_M[4]}"
		lr_noise "${LR_M[4]}" 8
	fi
	lr_fio /dev/lraid0 rmw "${rmw[@]}" --verify_only
	got=$(dd if=/dev/lraid0 bs=1M count=8 iflag=direct status=none | sha256sum)
	[ "$got" = "$want" ] || lr_fail "degraded RAID$level reads other bytes"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
echo "PASS: discard keeps parity right (write-zeroes by default, discard when promised)"
