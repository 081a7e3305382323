#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Discards that do not start on the discard granularity. The kernel cuts
# such a discard at the first multiple of the granularity after its start
# (blkdev_issue_discard), and lraid can only discard whole stripes of each
# piece. Checks, for 3, 4, 5 and 6 data members (stripe widths that are and
# are not powers of two):
#  - the granularity is a power of two that divides the stripe width;
#  - every whole stripe inside an unaligned discard reads zeroes afterwards
#    and everything else (partial stripes, outside) keeps its data;
#  - unaligned write-zeroes zeroes exactly its range, served by lraid
#    itself (its whole stripes as the members' write-zeroes, the partial
#    ones as zero writes): one request in the array's statistics, the
#    offer kept, no refusal in the kernel log;
#  - the result reads back the same with members failed (parity is right).
# The loop files live on ext4 (lr_loop_fs): on tmpfs every member refuses
# write-zeroes, and the range would be written with zero pages, by lraid
# or by the block layer's fallback, which hides what lraid's own
# write-zeroes does.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need blkdiscard
lr_setup
lr_loop_fs 1024

K=1024
CHUNK=$((64 * K))
NSTRIPES=24

# expect IMG START LEN: zero [START, START+LEN) of IMG in place
expect_zero() {
	dd if=/dev/zero of="$1" bs=4k seek=$(($2 / 4096)) count=$(($3 / 4096)) \
		conv=notrunc status=none
}

# compare_img IMG WHAT: the array's first bytes must equal IMG
compare_img() {
	local size
	size=$(stat -c %s "$1")
	cmp <(dd if=/dev/lraid0 bs=64k count=$((size / 65536)) iflag=direct \
		status=none) "$1" >"$LR_TMP/cmp" 2>&1 ||
		lr_fail "$2: $(head -c 200 "$LR_TMP/cmp")"
}

for cfg in "5 4" "5 5" "6 7" "6 8"; do
	read -r level n <<<"$cfg"
	data=$((level == 5 ? n - 1 : n - 2))
	stripe=$((data * CHUNK))
	lr_log "RAID$level on $n loop members ($data data), chunk 64K"
	lr_members loop "$n" 48
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	q=/sys/block/lraid0/queue
	[ "$(cat $q/discard_max_bytes)" != 0 ] ||
		lr_skip "no discard over loop members (no write-zeroes?)"
	gran=$(cat $q/discard_granularity)
	[ $((gran & (gran - 1))) = 0 ] || lr_fail "granularity $gran not a power of two"
	[ $((stripe % gran)) = 0 ] ||
		lr_fail "granularity $gran does not divide the stripe width $stripe"

	img=$LR_TMP/img
	head -c $((NSTRIPES * stripe)) /dev/urandom >"$img"
	dd if="$img" of=/dev/lraid0 bs=64k oflag=direct status=none ||
		lr_fail "write the image"

	# starts 100K in: the first cut falls inside stripe 1 unless the
	# granularity divides the stripe width; 7 stripes plus 36K long
	start=$((100 * K))
	len=$((7 * stripe + 36 * K))
	blkdiscard -o $start -l $len /dev/lraid0 || lr_fail "blkdiscard $start+$len"
	s0=$(((start + stripe - 1) / stripe))
	s1=$(((start + len) / stripe))
	expect_zero "$img" $((s0 * stripe)) $(((s1 - s0) * stripe))
	compare_img "$img" "discard $start+$len (whole stripes $s0-$((s1 - 1)))"

	# write-zeroes: every byte, partial stripes included
	start=$((13 * stripe + 12 * K))
	len=$((3 * stripe + 200 * K))
	[ "$(cat $q/write_zeroes_max_bytes)" -ge $len ] ||
		lr_fail "write_zeroes_max_bytes $(cat $q/write_zeroes_max_bytes), below $len"
	writes=$(lr_stat 5)
	lr_klog_mark
	blkdiscard -z -o $start -l $len /dev/lraid0 ||
		lr_fail "blkdiscard -z $start+$len"
	writes=$(($(lr_stat 5) - writes))
	[ "$writes" = 1 ] ||
		lr_fail "write-zeroes $start+$len: $writes writes counted, want 1 (written as zero pages?)"
	lr_zeroes_served
	expect_zero "$img" $start $len
	compare_img "$img" "write-zeroes $start+$len"

	# parity: the same bytes with one (RAID5) or two (RAID6) members failed
	"$LRAIDCTL" fail lraid0 "${LR_M[1]}" >/dev/null || lr_fail "fail ${LR_M[1]}"
	lr_noise "${LR_M[1]}"
	if [ "$level" = 6 ]; then
		"$LRAIDCTL" fail lraid0 "${LR_M[n - 1]}" >/dev/null ||
			lr_fail "fail ${LR_M[n - 1]}"
		lr_noise "${LR_M[n - 1]}"
	fi
	compare_img "$img" "degraded read after discard and write-zeroes"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	for l in "${LR_M[@]}"; do
		losetup -d "$l"
	done
	rm -f "$LR_LOOP_DIR"/loop.*
	LR_ARRAYS=()
done
echo PASS
