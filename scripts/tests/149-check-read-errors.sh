#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A check meets blocks a member cannot read, as md's check does: it
# rebuilds them from the other members, writes them back and reads them
# back, then compares the stripe. RAID5 x4 at 64 KiB, role 1 behind the
# lraid-bad target (tests/badblk: reads of a range fail, a write makes
# them good, like a drive that remaps on write): two pages of stripe 2's
# P and two of stripe 3's data on role 1 are overwritten with garbage
# behind lraid's back and made unreadable. Parity is never read while
# every member works, so only a pass finds the P pages.
#   - check: mismatch_cnt 0 (the rebuilt pages are what parity says),
#     "read error corrected" for both ranges and "corrected read errors
#     in 2 slices" in the kernel log, role 1 not failed and its read
#     error count up; no bad sector left (both were written); the data
#     verifies (fio crc32c: role 1's rewritten data is read), and a second
#     check finds 0 (role 1's rewritten P is right).
#   - with writes leaving the sectors bad (sticky), the read back after
#     the rewrite fails: role 1 is marked failed, the pass stops
#     ("a member failed"), and the data still verifies.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

d=/sys/block/lraid0/lraid
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=4k-192k --size=24M \
		--iodepth=8 "$@"
}

# garbage SD: 8 KiB of noise over stripe 2's P and stripe 3's data on SD
# (member sectors from the 1 MiB data offset, 128 sectors a chunk; RAID5
# x4 puts P of stripe s on role 3 - s % 4: role 1 holds stripe 2's P and
# data in stripe 3), then reads of both fail
p0=$((2048 + 2 * 128))
d0=$((2048 + 3 * 128))
garbage() {
	local s
	for s in $p0 $d0; do
		head -c 8192 /dev/urandom |
			dd of="$1" bs=512 seek="$s" oflag=direct status=none ||
			lr_fail "garbage on $1"
	done
	lr_bad_on 1 $p0 16 $d0 16
	if dd if="$1" of=/dev/null bs=4k skip=$((p0 / 8)) count=1 \
		iflag=direct status=none 2>/dev/null; then
		lr_fail "the bad range of $1 reads fine"
	fi
}

lr_log "check rebuilds what role 1 cannot read"
lr_bad_setup 1
sd=${LR_BAD[0]}
lr_members nullb 3 64
m=("${LR_M[0]}" "$sd" "${LR_M[1]}" "${LR_M[2]}")
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
fill
garbage "$sd"
lr_klog_mark
"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail "check"
[ "$(cat $d/mismatch_cnt)" = 0 ] ||
	lr_fail "check over rebuilt pages: mismatch_cnt $(cat $d/mismatch_cnt)"
for s in $p0 $d0; do
	lr_klog_has "check: read error corrected (128 sectors at $s on ${sd#/dev/}, role 1)" ||
		lr_fail "no corrected read error at $s: $(lr_klog | grep lraid0 | tail -5)"
done
lr_klog_has "check corrected read errors in 2 slices" ||
	lr_fail "no count of corrected slices: $(lr_klog | grep lraid0 | tail -3)"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
grep -q faulty "$LR_TMP/detail" && lr_fail "a corrected read error failed role 1"
grep -Eq "Read Errors : [1-9][0-9]* on $sd \(role 1\)" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "detail shows no read errors on $sd"; }
lr_bad_off
left=$(lr_bad_left)
[ "$left" = 0 ] || lr_fail "$left bad sectors left after the check"
fill --verify_only
"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail "second check"
[ "$(cat $d/mismatch_cnt)" = 0 ] ||
	lr_fail "second check: mismatch_cnt $(cat $d/mismatch_cnt)"
lr_log "a rewrite that does not read back fails role 1"
garbage "$sd"
lr_bad_sticky 1 1
lr_klog_mark
"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail "check"
lr_klog_has "read error not corrected" ||
	lr_fail "no uncorrected read error: $(lr_klog | grep lraid0 | tail -5)"
lr_klog_has "check stopped at stripe 2 .*a member failed" ||
	lr_fail "the check did not stop at stripe 2: $(lr_klog | grep lraid0 | tail -3)"
"$LRAIDCTL" detail lraid0 | grep -q "faulty .*$sd" ||
	lr_fail "role 1 not marked failed"
fill --verify_only
echo "PASS: check rebuilds unreadable blocks, and fails a member that cannot take them"
