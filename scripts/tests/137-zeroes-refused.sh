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
#  - Two members refuse a discard while their writes are held: the zeroes
#    are written to both at once, not to one after the other (which
#    would keep the stripes waiting for each in turn).
#  - A member refuses a discard and then fails the zeroes written to it:
#    it alone is failed, and the stripes read back degraded.
#  - All four refuse a discard (what fstrim sends): nothing changed, so it
#    ends "not supported" (which blkdev_issue_discard() reports as
#    success), every byte reads as before, and the array stops offering
#    discard: the next blkdiscard is refused at once.
# Each but the degraded one ends with md's check over the same members:
# mismatch_cnt 0.
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

lr_log "two of four members refuse write-zeroes: zeroed there, not failed"
lr_bad_raid5
# a device stacked on lraid keeps the limits it read when it was made
lr_dm lrtop "0 $(blockdev --getsz /dev/lraid0) linear /dev/lraid0 0" ||
	lr_fail "dm-linear over lraid0"
top=$LR_DEV
[ "$(lr_qmax "$top" write_zeroes_max_bytes)" != 0 ] ||
	lr_fail "dm-linear over lraid0 offers no write-zeroes"
for d in "${LR_BAD_DM[@]:1:2}"; do
	dmsetup message "$d" 0 refuse_zeroes 1 || lr_fail "$d: refuse_zeroes"
done
took=("${LR_BAD_DM[0]}" "${LR_BAD_DM[3]}")
before=$(lr_bad_field 11 "${took[@]}") # create zeroed the members with them
lr_klog_mark
# (-f: dm-linear holds lraid0, which blkdiscard would open exclusively)
blkdiscard -f -o 0 -l $((20 * stripe)) /dev/lraid0 || lr_fail "blkdiscard failed"
for d in "${LR_BAD_DM[@]:1:2}"; do
	[ "$(lr_bad_field 10 "$d")" -ge 1 ] || lr_fail "$d refused nothing"
done
[ "$(lr_bad_field 11 "${took[@]}")" -ge $((before + 2)) ] ||
	lr_fail "roles 0 and 3 got no write-zeroes for the discard"
lr_not_failed lraid0
lr_klog_has "refused write-zeroes: the array no longer offers discard or write-zeroes" ||
	lr_fail "no kernel log line for the refusal"
lr_klog_has "writing zeroes to sectors" ||
	lr_fail "no kernel log line for the zeroes written"
lr_offers /dev/lraid0 0 0
lr_ref_zero 0 $((20 * stripe))
lr_ref_reads "after the discard"
# the block layer now writes zeroes through lraid: a partial stripe too
blkdiscard -f -z -o $((20 * stripe + 4096)) -l $((2 * stripe)) /dev/lraid0 ||
	lr_fail "blkdiscard -z after the refusal"
lr_ref_zero $((20 * stripe + 4096)) $((2 * stripe))
lr_ref_reads "after blkdiscard -z"
# through the stacked device, which kept the old limits: the block layer
# refuses its write-zeroes and discards at lraid0's queue, the kernel
# writes zeroes instead for the first, and blkdev_issue_discard() reports
# the second as done
if [ "$(lr_qmax "$top" write_zeroes_max_bytes)" = 0 ]; then
	lr_log "dm-linear took lraid0's new limits: no stale requests to send"
else
	# no more write-zeroes reach the members: roles 0 and 3 receive none
	before=$(lr_bad_field 11 "${took[@]}")
	blkdiscard -z -o $((23 * stripe)) -l $((2 * stripe)) "$top" ||
		lr_fail "blkdiscard -z through dm-linear"
	lr_ref_zero $((23 * stripe)) $((2 * stripe))
	lr_ref_reads "after blkdiscard -z through dm-linear"
	blkdiscard -o $((26 * stripe)) -l $((2 * stripe)) "$top" ||
		lr_log "blkdiscard through dm-linear failed"
	lr_ref_reads "after blkdiscard through dm-linear"
	[ "$(lr_bad_field 11 "${took[@]}")" = "$before" ] ||
		lr_fail "members received write-zeroes after the array withdrew them"
fi
dmsetup remove --noudevsync lrtop || lr_fail "dmsetup remove lrtop"
lr_not_failed lraid0
lr_stop_md_check 5 64 768

lr_log "two members refuse write-zeroes, their writes held: zeroed at once"
# 24 stripes: 1.5 MiB per member, two zero-page writes each
lr_bad_discard_held refuse_zeroes 24 "the zero-page writes"
lr_stop_md_check 5 64 768

lr_log "a member refuses write-zeroes, then fails the zeroes written: failed"
lr_bad_discard_fails refuse_zeroes 24
[ "$(lr_bad_field 8 "$LR_BAD_D")" -ge 1 ] || lr_fail "$LR_BAD_D failed no write"
"$LRAIDCTL" stop lraid0 || lr_fail "stop lraid0"

lr_log "all four members refuse a discard: not supported, nothing changed"
lr_bad_raid5
for d in "${LR_BAD_DM[@]:${LR_BAD_NEW}}"; do
	dmsetup message "$d" 0 refuse_zeroes 1 || lr_fail "$d: refuse_zeroes"
done
lr_klog_mark
blkdiscard -o 0 -l $((4 * stripe)) /dev/lraid0 ||
	lr_log "blkdiscard failed (the kernel reported 'not supported')"
for d in "${LR_BAD_DM[@]:${LR_BAD_NEW}}"; do
	[ "$(lr_bad_field 10 "$d")" -ge 1 ] || lr_fail "$d refused nothing"
done
lr_not_failed lraid0
lr_klog_has "refused write-zeroes: the array no longer offers discard or write-zeroes" ||
	lr_fail "no kernel log line for the refusal"
if lr_klog_has "writing zeroes to sectors"; then
	lr_fail "zeroes written although no member took the discard"
fi
lr_offers /dev/lraid0 0 0
if out=$(blkdiscard -o 0 -l $((4 * stripe)) /dev/lraid0 2>&1); then
	lr_fail "a second blkdiscard was accepted"
fi
grep -q "not supported" <<<"$out" ||
	lr_fail "blkdiscard: expected 'not supported', got: $out"
lr_ref_reads "after the refused discards"
lr_stop_md_check 5 64 768
echo "PASS: members that refuse write-zeroes are zeroed or left alone, never failed"
