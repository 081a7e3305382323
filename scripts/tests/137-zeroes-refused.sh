#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A member that refuses a write-zeroes it had offered is not a failed
# member. SCSI disks that claim WRITE SAME and then reject it make sd
# withdraw write-zeroes and end the request with BLK_STS_TARGET; lraid,
# which discards whole stripes with member write-zeroes, used to fail
# every such member, so one fstrim could fail the array. tests/badblk's
# target refuses the same way ("refuse_zeroes").
#  - Two of four members refuse a discard (RAID5: the old code failed the
#    array): it succeeds, no member is failed, the two are written with
#    zeroes where the others zeroed, the array stops offering discard and
#    write-zeroes, and a later blkdiscard -z is written as zeroes; so is
#    one through dm-linear stacked on lraid beforehand, which keeps the
#    old limits (the block layer refuses its write-zeroes at lraid0's
#    queue, and the kernel writes zeroes instead); no member receives
#    write-zeroes after the withdrawal.
#  - All four refuse a discard (what fstrim sends): nothing changed, so it
#    ends "not supported" (which blkdev_issue_discard() reports as
#    success), every byte reads as before, and the array stops offering
#    discard: the next blkdiscard is refused at once.
# Both end with md's check over the same members: mismatch_cnt 0.
# RAID5 x4, chunk 64K, lraid-bad over loop (write-zeroes offered; on the
# guest's tmpfs, loop carries out only those without REQ_NOUNMAP, which
# discard sends and blkdiscard -z does not).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need blkdiscard cmp mdadm
lr_setup

stripe=$((3 * 64 * 1024))

# qmax DEV ATTR: /sys/block/DEV/queue/ATTR
qmax() {
	cat "/sys/block/$(basename "$(readlink -f "$1")")/queue/$2"
}

# refused DM: write-zeroes DM's lraid-bad target has refused
refused() {
	dmsetup status "$1" | awk '$3 == "lraid-bad" { print $10 }'
}

# received DM...: write-zeroes the lraid-bad targets DM... have received
received() {
	local d n=0
	for d in "$@"; do
		n=$((n + $(dmsetup status "$d" | awk '$3 == "lraid-bad" { print $11 }')))
	done
	echo $n
}

# setup: RAID5 x4 over four new lraid-bad members holding 32 random
# stripes, in LR_M, with a copy in $LR_TMP/rand
setup() {
	local d
	lr_bad_setup 4 loop
	for d in "${LR_BAD[@]}"; do
		[ "$(qmax "$d" write_zeroes_max_bytes)" != 0 ] ||
			lr_skip "$d offers no write-zeroes (loop file system?)"
	done
	LR_M=("${LR_BAD[@]}")
	lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
	[ "$(qmax /dev/lraid0 write_zeroes_max_bytes)" != 0 ] ||
		lr_fail "no write-zeroes over write-zeroes members"
	[ "$(qmax /dev/lraid0 discard_max_bytes)" != 0 ] ||
		lr_fail "no discard over write-zeroes members"
	head -c $((32 * stripe)) /dev/urandom >"$LR_TMP/rand"
	dd if="$LR_TMP/rand" of=/dev/lraid0 bs=$stripe oflag=direct \
		status=none || lr_fail "write"
}

# not_failed: no member failed, the array still taking writes
not_failed() {
	if "$LRAIDCTL" detail lraid0 | grep -q faulty; then
		lr_fail "a member was failed: $("$LRAIDCTL" detail lraid0)"
	fi
}

# zeroed OFFSET LENGTH: bytes lraid0 must now read as zeroes
zeroed() {
	dd if=/dev/zero of="$LR_TMP/rand" bs=4096 seek=$(($1 / 4096)) \
		count=$(($2 / 4096)) conv=notrunc status=none
}

# reads WHAT: the 32 stripes must read as $LR_TMP/rand
reads() {
	dd if=/dev/lraid0 bs=$stripe count=32 iflag=direct status=none |
		cmp -s - "$LR_TMP/rand" || lr_fail "$1: the stripes read other bytes"
}

# parity_check: stop lraid0, md's check over its members finds parity right
parity_check() {
	local sectors sha
	sectors=$(($(blockdev --getsz /dev/lraid0) / 768 * 768))
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	lr_md_check 5 64 "$sectors" "$sha" "${LR_M[@]}"
}

lr_log "two of four members refuse write-zeroes: zeroed there, not failed"
setup
# a device stacked on lraid keeps the limits it read when it was made
lr_dm lrtop "0 $(blockdev --getsz /dev/lraid0) linear /dev/lraid0 0" ||
	lr_fail "dm-linear over lraid0"
top=$LR_DEV
[ "$(qmax "$top" write_zeroes_max_bytes)" != 0 ] ||
	lr_fail "dm-linear over lraid0 offers no write-zeroes"
for d in "${LR_BAD_DM[@]:1:2}"; do
	dmsetup message "$d" 0 refuse_zeroes 1 || lr_fail "$d: refuse_zeroes"
done
took=("${LR_BAD_DM[0]}" "${LR_BAD_DM[3]}")
before=$(received "${took[@]}") # create zeroed the members with them
lr_klog_mark
# (-f: dm-linear holds lraid0, which blkdiscard would open exclusively)
blkdiscard -f -o 0 -l $((20 * stripe)) /dev/lraid0 || lr_fail "blkdiscard failed"
for d in "${LR_BAD_DM[@]:1:2}"; do
	[ "$(refused "$d")" -ge 1 ] || lr_fail "$d refused nothing"
done
[ "$(received "${took[@]}")" -ge $((before + 2)) ] ||
	lr_fail "roles 0 and 3 got no write-zeroes for the discard"
not_failed
lr_klog_has "refused write-zeroes: the array no longer offers discard or write-zeroes" ||
	lr_fail "no kernel log line for the refusal"
lr_klog_has "writing zeroes to sectors" ||
	lr_fail "no kernel log line for the zeroes written"
[ "$(qmax /dev/lraid0 write_zeroes_max_bytes)" = 0 ] ||
	lr_fail "lraid0 still offers write-zeroes"
[ "$(qmax /dev/lraid0 discard_max_bytes)" = 0 ] ||
	lr_fail "lraid0 still offers discard"
zeroed 0 $((20 * stripe))
reads "after the discard"
# the block layer now writes zeroes through lraid: a partial stripe too
blkdiscard -f -z -o $((20 * stripe + 4096)) -l $((2 * stripe)) /dev/lraid0 ||
	lr_fail "blkdiscard -z after the refusal"
zeroed $((20 * stripe + 4096)) $((2 * stripe))
reads "after blkdiscard -z"
# through the stacked device, which kept the old limits: the block layer
# refuses its write-zeroes and discards at lraid0's queue, the kernel
# writes zeroes instead for the first, and blkdev_issue_discard() reports
# the second as done
if [ "$(qmax "$top" write_zeroes_max_bytes)" = 0 ]; then
	lr_log "dm-linear took lraid0's new limits: no stale requests to send"
else
	# no more write-zeroes reach the members: roles 0 and 3 receive none
	before=$(received "${took[@]}")
	blkdiscard -z -o $((23 * stripe)) -l $((2 * stripe)) "$top" ||
		lr_fail "blkdiscard -z through dm-linear"
	zeroed $((23 * stripe)) $((2 * stripe))
	reads "after blkdiscard -z through dm-linear"
	blkdiscard -o $((26 * stripe)) -l $((2 * stripe)) "$top" ||
		lr_log "blkdiscard through dm-linear failed"
	reads "after blkdiscard through dm-linear"
	[ "$(received "${took[@]}")" = "$before" ] ||
		lr_fail "members received write-zeroes after the array withdrew them"
fi
dmsetup remove --noudevsync lrtop || lr_fail "dmsetup remove lrtop"
not_failed
parity_check

lr_log "all four members refuse a discard: not supported, nothing changed"
setup
for d in "${LR_BAD_DM[@]:${LR_BAD_NEW}}"; do
	dmsetup message "$d" 0 refuse_zeroes 1 || lr_fail "$d: refuse_zeroes"
done
lr_klog_mark
blkdiscard -o 0 -l $((4 * stripe)) /dev/lraid0 ||
	lr_log "blkdiscard failed (the kernel reported 'not supported')"
for d in "${LR_BAD_DM[@]:${LR_BAD_NEW}}"; do
	[ "$(refused "$d")" -ge 1 ] || lr_fail "$d refused nothing"
done
not_failed
lr_klog_has "refused write-zeroes: the array no longer offers discard or write-zeroes" ||
	lr_fail "no kernel log line for the refusal"
if lr_klog_has "writing zeroes to sectors"; then
	lr_fail "zeroes written although no member took the discard"
fi
[ "$(qmax /dev/lraid0 discard_max_bytes)" = 0 ] ||
	lr_fail "lraid0 still offers discard"
[ "$(qmax /dev/lraid0 write_zeroes_max_bytes)" = 0 ] ||
	lr_fail "lraid0 still offers write-zeroes"
if out=$(blkdiscard -o 0 -l $((4 * stripe)) /dev/lraid0 2>&1); then
	lr_fail "a second blkdiscard was accepted"
fi
grep -q "not supported" <<<"$out" ||
	lr_fail "blkdiscard: expected 'not supported', got: $out"
reads "after the refused discards"
parity_check
echo "PASS: members that refuse write-zeroes are zeroed or left alone, never failed"
