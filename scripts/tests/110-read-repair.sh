#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read errors are repaired, as md does: member 1 of a RAID5 is a scsi_debug
# disk whose sectors in a range fail reads with MEDIUM ERROR (writes
# succeed). That range is first overwritten with garbage behind lraid's
# back, so only a rewrite can make it right again. Reads through lraid
# must return the right data, the kernel log must say "read error
# corrected", and with the error injection off and another member failed,
# the data read through member 1 must be right: the rebuilt blocks were
# written back. Then max_read_errors: with it at 3, more read errors mark
# the member failed and reads stay right.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

sdebug=0
cleanup() {
	echo 20 >/sys/module/lraid/parameters/max_read_errors 2>/dev/null
	lr_cleanup
	if [ $sdebug = 1 ]; then
		echo 0 >/sys/bus/pseudo/drivers/scsi_debug/opts 2>/dev/null
		udevadm settle 2>/dev/null
		modprobe -r scsi_debug 2>/dev/null
	fi
	return 0
}
trap cleanup EXIT

modprobe -q scsi_debug dev_size_mb=64 delay=0 opts=0 2>/dev/null ||
	lr_skip "no scsi_debug module"
sdebug=1
udevadm settle 2>/dev/null
sd=
for _ in $(seq 50); do
	for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*:*/block/*; do
		[ -e "$b" ] && sd=/dev/${b##*/}
	done
	[ -n "$sd" ] && [ -b "$sd" ] && break
	sleep 0.2
done
[ -b "$sd" ] || lr_fail "no scsi_debug disk"
par=/sys/module/scsi_debug/parameters
opts=/sys/bus/pseudo/drivers/scsi_debug/opts
if [ ! -w "$par/medium_error_start" ] || [ ! -w "$opts" ]; then
	lr_skip "scsi_debug without writable medium error parameters"
fi

# member sectors 6144..6271 (3 MiB in, past the 1 MiB data offset)
bad0=6144
badn=128

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
echo $bad0 >"$par/medium_error_start"
echo $badn >"$par/medium_error_count"
echo 2 >"$opts"
if dd if="$sd" of=/dev/null bs=4k skip=$((bad0 / 8 + 4)) count=1 \
	iflag=direct status=none 2>/dev/null; then
	lr_fail "the medium error range of $sd reads fine"
fi

dmesg -C
lr_log "4 KiB reads over the bad range: rebuilt and written back"
[ "$(sha 4K)" = "$before" ] || lr_fail "reads differ after read errors"
dmesg | grep -q "read error .* reconstructing" ||
	lr_fail "no read error in the kernel log"
dmesg | grep -q "read error corrected .* on ${sd#/dev/}" ||
	lr_fail "no corrected read error in the kernel log"
if "$LRAIDCTL" detail lraid0 | grep -q "faulty"; then
	lr_fail "a corrected read error failed the member"
fi
fill --verify_only

lr_log "member 1 holds the right data again (another member failed)"
echo 0 >"$opts"
"$LRAIDCTL" fail lraid0 "${m[3]}" >/dev/null || lr_fail "fail ${m[3]}"
[ "$(sha 1M)" = "$before" ] || lr_fail "member 1 was not repaired"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
LR_ARRAYS=()

lr_log "max_read_errors=3: the fourth read error fails the member"
for d in "${m[@]}"; do
	dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none
done
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
fill
before=$(sha 1M)
echo 3 >/sys/module/lraid/parameters/max_read_errors
echo 2 >"$opts"
dmesg -C
[ "$(sha 4K)" = "$before" ] || lr_fail "reads differ with read errors"
dmesg | grep -q "more than max_read_errors 3: member marked failed" ||
	lr_fail "no read error limit message in the kernel log"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
grep -Eq "faulty *$sd\$" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "$sd not faulty after too many read errors"; }
fill --verify_only
echo "PASS: read errors are rewritten; too many fail the member"
