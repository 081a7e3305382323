#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A member that refuses to unmap while zeroing is not a failed member.
# lraid discards whole stripes with member write-zeroes that may unmap.
# On a SCSI disk with LBPWS and LBPRZ, sd sends those as WRITE SAME with
# the UNMAP bit; a disk that rejects it makes sd withdraw discard, keep
# write-zeroes, and end the request with BLK_STS_TARGET (and send UNMAP
# again with every later write-zeroes that allows it). lraid used to fail
# such a member, so one fstrim could fail the array, and create, which
# zeroes the members, failed. tests/badblk's target refuses the same way
# ("refuse_unmap").
#  - Create over a member that refuses to unmap (and holds random bytes):
#    it succeeds, and md's check finds the parity right.
#  - Two of four members refuse to unmap a discard (RAID5: the old code
#    failed the array): it succeeds, no member is failed, each of the two
#    is asked again with REQ_NOUNMAP and zeroes the range (no zero pages
#    written), and the array stops offering discard (which would only
#    write zeroes there now) but keeps write-zeroes; a write-zeroes that
#    may unmap (fallocate --punch-hole on lraid0) then reaches the two
#    with REQ_NOUNMAP at once, the others without it.
#  - One member refuses to unmap and then to zero at all (sd on a disk
#    that rejects every WRITE SAME): it is written with zeroes there, not
#    failed, and the array stops offering discard and write-zeroes.
#  - Two members refuse to unmap while their writes are held: both are
#    asked again at once, not one after the other (which would keep the
#    stripes waiting for each in turn).
#  - One member refuses to unmap and then fails the write-zeroes asked
#    without unmapping (a write error): it is failed, and the stripes
#    read back from the others.
# Each part but the last ends with md's check over the same members.
# RAID5 x4, chunk 64K, lraid-bad over loop files on ext4 (which, unlike
# the guest's tmpfs, zeroes a range without unmapping it).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need blkdiscard cmp fallocate mdadm
lr_setup

stripe=$((3 * 64 * 1024))

# Status fields of lraid-bad (lr_bad_field) for DM...: write-zeroes
# received, received with REQ_NOUNMAP, refused for unmapping
wz() { lr_bad_field 11 "$@"; }
nu() { lr_bad_field 13 "$@"; }
ru() { lr_bad_field 12 "$@"; }

# grew WHAT COUNT BEFORE MIN: COUNT must exceed BEFORE by MIN or more
grew() {
	[ $(($2 - $3)) -ge "$4" ] ||
		lr_fail "$1: $(($2 - $3)), want at least $4"
}

# unchanged WHAT COUNT BEFORE: COUNT must not have moved from BEFORE
unchanged() {
	[ "$2" = "$3" ] || lr_fail "$1: $(($2 - $3)), want 0"
}

lr_loop_fs 512

lr_log "create over a member that refuses to unmap: it zeroes without"
lr_bad_setup 4 loop
LR_M=("${LR_BAD[@]}")
d=${LR_BAD_DM[$((LR_BAD_NEW + 1))]}
head -c $((8 << 20)) /dev/urandom |
	dd of="${LR_M[1]}" bs=1M oflag=direct status=none ||
	lr_fail "random bytes on role 1"
dmsetup message "$d" 0 refuse_unmap 1 || lr_fail "$d: refuse_unmap"
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
lr_log "role 1: $(ru "$d") unmapping write-zeroes refused, $(nu "$d") received with NOUNMAP"
grew "role 1: unmapping write-zeroes refused at create" "$(ru "$d")" 0 1
grew "role 1: write-zeroes with NOUNMAP at create" "$(nu "$d")" 0 1
lr_not_failed lraid0
lr_ref_write $((4 * stripe)) $stripe
lr_stop_md_check 5 64 768

lr_log "two of four members refuse to unmap: zeroed without, not failed"
lr_bad_raid5
refusing=("${LR_BAD_DM[@]:$((LR_BAD_NEW + 1)):2}")
took=("${LR_BAD_DM[$LR_BAD_NEW]}" "${LR_BAD_DM[$((LR_BAD_NEW + 3))]}")
for d in "${refusing[@]}"; do
	dmsetup message "$d" 0 refuse_unmap 1 || lr_fail "$d: refuse_unmap"
done
declare -A b_wz b_nu b_ru
for d in "${refusing[@]}" "${took[@]}"; do
	b_wz[$d]=$(wz "$d") b_nu[$d]=$(nu "$d") b_ru[$d]=$(ru "$d")
done
b_rz=$(lr_bad_field 10 "${refusing[@]}")
lr_klog_mark
blkdiscard -o 0 -l $((20 * stripe)) /dev/lraid0 || lr_fail "blkdiscard failed"
lr_not_failed lraid0
for d in "${refusing[@]}"; do
	grew "$d: unmapping write-zeroes refused" "$(ru "$d")" "${b_ru[$d]}" 1
	grew "$d: write-zeroes with NOUNMAP" "$(nu "$d")" "${b_nu[$d]}" 1
done
unchanged "roles 1, 2: write-zeroes refused outright" \
	"$(lr_bad_field 10 "${refusing[@]}")" "$b_rz"
for d in "${took[@]}"; do
	grew "$d: write-zeroes" "$(wz "$d")" "${b_wz[$d]}" 1
	unchanged "$d: write-zeroes with NOUNMAP" "$(nu "$d")" "${b_nu[$d]}"
done
lr_klog_has "refused to unmap while zeroing" ||
	lr_fail "no kernel log line for the members zeroing without unmapping"
lr_klog_has "refused to unmap: the array no longer offers discard\$" ||
	lr_fail "no kernel log line for the withdrawal of discard"
if lr_klog_has "writing zeroes to sectors"; then
	lr_fail "zero pages written although the members zeroed the range"
fi
lr_offers /dev/lraid0 0 1
lr_ref_zero 0 $((20 * stripe))
lr_ref_reads "after the discard"

# a write-zeroes that may unmap reaches roles 1 and 2 without unmapping
for d in "${refusing[@]}" "${took[@]}"; do
	b_wz[$d]=$(wz "$d") b_nu[$d]=$(nu "$d") b_ru[$d]=$(ru "$d")
done
fallocate -p -o $((22 * stripe)) -l $((4 * stripe)) /dev/lraid0 ||
	lr_fail "fallocate --punch-hole on lraid0"
for d in "${refusing[@]}"; do
	unchanged "$d: unmapping write-zeroes refused" "$(ru "$d")" "${b_ru[$d]}"
	grew "$d: write-zeroes with NOUNMAP" "$(nu "$d")" "${b_nu[$d]}" 1
done
for d in "${took[@]}"; do
	grew "$d: write-zeroes" "$(wz "$d")" "${b_wz[$d]}" 1
	unchanged "$d: write-zeroes with NOUNMAP" "$(nu "$d")" "${b_nu[$d]}"
done
lr_not_failed lraid0
lr_ref_zero $((22 * stripe)) $((4 * stripe))
lr_ref_reads "after the punch-hole"
if out=$(blkdiscard -o $((28 * stripe)) -l $((2 * stripe)) /dev/lraid0 2>&1); then
	lr_fail "blkdiscard accepted after the array withdrew discard"
fi
grep -q "not supported" <<<"$out" ||
	lr_fail "blkdiscard: expected 'not supported', got: $out"
lr_stop_md_check 5 64 768

lr_log "a member refuses to unmap, then to zero: written with zeroes"
lr_bad_raid5
lr_bad_modes 2 refuse_unmap refuse_zeroes
d=$LR_BAD_D
lr_klog_mark
blkdiscard -o $((4 * stripe)) -l $((8 * stripe)) /dev/lraid0 ||
	lr_fail "blkdiscard failed"
lr_not_failed lraid0
grew "$d: unmapping write-zeroes refused" "$(ru "$d")" 0 1
grew "$d: write-zeroes refused" "$(lr_bad_field 10 "$d")" 0 1
lr_klog_has "writing zeroes to sectors" ||
	lr_fail "no kernel log line for the zeroes written"
lr_klog_has "refused write-zeroes: the array no longer offers" ||
	lr_fail "no kernel log line for the withdrawal of write-zeroes"
lr_offers /dev/lraid0 0 0
lr_ref_zero $((4 * stripe)) $((8 * stripe))
lr_ref_reads "after the discard"
lr_stop_md_check 5 64 768

lr_log "two members refuse to unmap, their writes held: asked again at once"
lr_bad_discard_held refuse_unmap 8 "the write-zeroes without unmapping"
for d in "${LR_HELD[@]}"; do
	grew "$d: write-zeroes with NOUNMAP" "$(nu "$d")" 0 1
done
lr_stop_md_check 5 64 768

lr_log "a member refuses to unmap, then fails the write-zeroes: failed"
lr_bad_discard_fails refuse_unmap 8
grew "$LR_BAD_D: unmapping write-zeroes refused" "$(ru "$LR_BAD_D")" 0 1
echo "PASS: members that refuse to unmap zero without unmapping; only a failed write fails one"
