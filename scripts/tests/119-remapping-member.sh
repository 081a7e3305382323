#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A member whose driver sends lraid's own bio on with bi_bdev pointed at a
# device below it (md raid0 without iostats does on 6.1): an error there
# must still be charged to that member. Before, lraid found the member of
# a failed bio by its bi_bdev, did not find it, and failed the write
# without failing the member: the stripe's parity then disagreed with the
# block the member kept serving. Role 1 of a RAID5 x3 is an md raid0 whose
# first device (an lraid-bad device) starts failing writes; a write into
# role 1's chunk must mark role 1 failed and stand on the others, and read
# back. On 6.12, md sends a clone, so there this guards against
# regressions only.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mdadm dmsetup
lr_setup

md=/dev/md125
lr_bad_setup 1
lr_members nullb 3 64
# raid0 chunk 0 (the first 4 MiB: lraid's superblock and first stripes) on
# the lraid-bad device
lr_md_raid0 "$md" 4096 "${LR_BAD[0]}" "${LR_M[2]}"
lr_create lraid0 --level 5 --chunk 64K "${LR_M[0]}" "$md" "${LR_M[1]}"
head -c 1M /dev/urandom >"$LR_TMP/data"
head -c 4K /dev/urandom >"$LR_TMP/new"
dd if="$LR_TMP/data" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write"

lr_log "role 1 (md raid0) fails a write"
dmsetup message "${LR_BAD_DM[0]}" 0 fail_writes 1 || lr_fail "fail_writes"
lr_klog_mark
# stripe 0: bytes 64K-128K are role 1's chunk
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=20 count=1 oflag=direct \
	conv=notrunc status=none 2>"$LR_TMP/dd.err" ||
	lr_fail "the write failed instead of standing on the others: $(cat "$LR_TMP/dd.err") $(lr_klog | grep lraid0 | tail -2)"
lr_klog_has "lraid0: write error .*(role 1): member marked failed, array degraded" ||
	lr_fail "role 1 not marked failed: $(lr_klog | grep lraid0 | tail -3)"
"$LRAIDCTL" detail lraid0 | grep -q degraded || lr_fail "not degraded"
cp "$LR_TMP/data" "$LR_TMP/want"
dd if="$LR_TMP/new" of="$LR_TMP/want" bs=4k seek=20 conv=notrunc status=none
dd if=/dev/lraid0 of="$LR_TMP/got" bs=1M count=1 iflag=direct status=none ||
	lr_fail "read back"
cmp -s "$LR_TMP/got" "$LR_TMP/want" || lr_fail "reads back other bytes"
dmsetup message "${LR_BAD_DM[0]}" 0 fail_writes 0
echo "PASS: an error on a member that remaps in place fails that member"
