#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read errors are repaired, as md does: member 1 of a RAID5 has a range of
# sectors whose reads fail while writes succeed, like a drive that remaps a
# bad sector on write (lr_bad_setup). That range is first overwritten with
# garbage behind lraid's back, so only a rewrite can make it right again.
# Reads through lraid must return the right data, the kernel log must say
# "read error corrected", and with the error injection off and another
# member failed, the data read through member 1 must be right: the rebuilt
# blocks were written back. A drive that cannot remap (sticky bad sectors)
# fails the read back after the rewrite: the member is marked failed, as
# md does, after a read and after a write alike, and the data stays right.
# Then max_read_errors: with it at 3, more read errors mark the member
# failed and reads stay right.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

# member sectors 6144..6271 (3 MiB in, past the 1 MiB data offset)
bad0=6144
badn=128

lr_bad_setup 1
sd=${LR_BAD[0]}
lr_members nullb 3 64
m=("${LR_M[0]}" "$sd" "${LR_M[1]}" "${LR_M[2]}")
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=4k-192k --size=24M \
		--iodepth=8 "$@"
}
sha() {
	dd if=/dev/lraid0 bs="$1" count=$((24 * 1048576 / $(numfmt --from=iec "$1"))) \
		iflag=direct status=none | sha256sum
}
fill
before=$(sha 1M)

# garbage behind lraid's back, then reads there fail
head -c $((badn * 512)) /dev/urandom |
	dd of="$sd" bs=512 seek=$bad0 oflag=direct status=none
lr_bad_on 1 $bad0 $badn
if dd if="$sd" of=/dev/null bs=4k skip=$((bad0 / 8 + 4)) count=1 \
	iflag=direct status=none 2>/dev/null; then
	lr_fail "the medium error range of $sd reads fine"
fi

lr_klog_mark
lr_log "64 KiB reads, split by member 1 into 4 KiB pieces: rebuilt"
# a read the member splits comes back chained; its retry must not end early
mskb=$(cat "/sys/block/${sd#/dev/}/queue/max_sectors_kb")
echo 4 >"/sys/block/${sd#/dev/}/queue/max_sectors_kb" ||
	lr_fail "cannot limit ${sd#/dev/} to 4 KiB requests"
[ "$(sha 64K)" = "$before" ] || lr_fail "split reads differ after read errors"
echo "$mskb" >"/sys/block/${sd#/dev/}/queue/max_sectors_kb" 2>/dev/null || true
lr_log "4 KiB reads over the bad range: rebuilt and written back"
[ "$(sha 4K)" = "$before" ] || lr_fail "reads differ after read errors"
lr_klog_has "read error .* reconstructing" ||
	lr_fail "no read error in the kernel log"
lr_klog_has "read error corrected .* on ${sd#/dev/}" ||
	lr_fail "no corrected read error in the kernel log"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
if grep -q "faulty" "$LR_TMP/detail"; then
	lr_fail "a corrected read error failed the member"
fi
grep -Eq "Read Errors : [1-9][0-9]* on $sd \(role 1\)" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "detail shows no read errors on $sd"; }
"$LRAIDCTL" detail --json lraid0 | grep -Eq '"role": 0, [^}]*"read_errors": 0}' ||
	lr_fail "detail --json: role 0 should have no read errors"
"$LRAIDCTL" detail --json lraid0 | grep -Eq '"role": 1, [^}]*"read_errors": [1-9]' ||
	lr_fail "detail --json shows no read errors on role 1"
fill --verify_only

lr_log "member 1 holds the right data again (another member failed)"
lr_bad_off
left=$(lr_bad_left)
[ "$left" = 0 ] || lr_fail "$left bad sectors left after the rewrites"
"$LRAIDCTL" fail lraid0 "${m[3]}" >/dev/null || lr_fail "fail ${m[3]}"
[ "$(sha 1M)" = "$before" ] || lr_fail "member 1 was not repaired"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
LR_ARRAYS=()

# fresh: a new array over the members, filled; its contents in img, their
# hash in before
fresh() {
	local d
	for d in "${m[@]}"; do
		dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none
	done
	lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
	fill
	dd if=/dev/lraid0 of="$LR_TMP/img" bs=1M count=24 iflag=direct \
		status=none
	before=$(sha256sum <"$LR_TMP/img")
}

# uncorrected HOW: after HOW met the sticky bad sectors, member 1 is
# failed for a read error not corrected, and nothing said corrected
uncorrected() {
	lr_klog_has "read error not corrected (.*) on ${sd#/dev/} (role 1): member marked failed" ||
		lr_fail "$1: no uncorrected read error in the kernel log"
	if lr_klog_has "read error corrected"; then
		lr_fail "$1: a read error that stayed was reported corrected"
	fi
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	grep -Eq "faulty *$sd\$" "$LR_TMP/detail" ||
		{ cat "$LR_TMP/detail"; lr_fail "$1: $sd not faulty"; }
	[ "$(sha 1M)" = "$before" ] || lr_fail "$1: reads differ"
	fill --verify_only
	lr_bad_sticky 1 0
	lr_bad_off
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
}

lr_log "sticky bad sectors: the read back after a read's rewrite fails"
fresh
lr_bad_sticky 1 1
lr_bad_on 1 $bad0 $badn
lr_klog_mark
[ "$(sha 4K)" = "$before" ] || lr_fail "reads differ with sticky read errors"
uncorrected "reads"

lr_log "sticky bad sectors: the read back after a write's rewrite fails"
fresh
lr_bad_sticky 1 1
lr_bad_on 1 $bad0 $badn
lr_klog_mark
# 4 KiB writes of the bytes already there into the bad rows of stripe 32,
# at data index 1 (member 1) and 0: one of them reads member 1, whether
# read-modify-write or reconstruct-write wins their tie (2 reads each)
[ "$(lr_role 4 1 32 1)" = 1 ] || lr_fail "unexpected RAID5 layout"
for di in 1 0; do
	blk=$((((32 * 3 + di) * 128 + 8) / 8))
	dd if="$LR_TMP/img" of=/dev/lraid0 bs=4k skip=$blk seek=$blk count=1 \
		oflag=direct status=none || lr_fail "write into the bad rows"
done
lr_klog_has "read error .* rebuilding it from the others" ||
	lr_fail "the write met no read error"
uncorrected "writes"

lr_log "max_read_errors=3: the fourth read error fails the member"
fresh
echo 3 >/sys/module/lraid/parameters/max_read_errors
lr_bad_on 1 $bad0 $badn
lr_klog_mark
[ "$(sha 4K)" = "$before" ] || lr_fail "reads differ with read errors"
lr_klog_has "more than max_read_errors 3: member marked failed" ||
	lr_fail "no read error limit message in the kernel log"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
grep -Eq "faulty *$sd\$" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "$sd not faulty after too many read errors"; }
fill --verify_only
echo "PASS: read errors are rewritten; too many fail the member"
