#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lraid.copy_writes: parity agrees with the data even when the writer
# changes its buffer while the write is in flight. tools/scribble writes
# with O_DIRECT from a buffer another thread rewrites without pause:
# full-stripe writes, 4 KiB read-modify-writes and 68 KiB writes that mix
# the modes, on RAID5 x4 and RAID6 x5 (chunk 64 KiB, null_blk). md, built
# over the same members afterwards (lr_md_mismatch), reads what lraid read
# and counts the sectors whose parity disagrees.
#   - the default is Y (md copies too, unless its skip_copy is set);
#   - copy_writes=N (zero-copy) first, to show the workload
#     provokes the race here: parity computed from the caller's pages
#     before the member copied them in disagrees. Were no mismatch seen in
#     any configuration the checks below would prove nothing: SKIP (after
#     running them all).
#   - copy_writes=Y on fresh members: md's check must find none;
#   - RAID5: copy_writes=N, but stable writes turned off in sysfs
#     (queue/stable_writes 0: the page cache may then change pages under
#     writeback too, and lraid copies every write): none either.
#   - RAID5: started with copy_writes=Y (no stable writes declared), then
#     set to N: lraid must go on copying until the array stops (a mount
#     meanwhile would not wait for writes in flight): none either.
#   - RAID6: copy_writes=N, stable writes turned off, the disk opened (as
#     a mount would, taking the flag as it is then), stable writes turned
#     back on: lraid must go on copying (what was opened meanwhile does
#     not wait for writes in flight), and say so once: none either.
# Then copy_writes=N under fio's crc32c verify with sizes 512 B..2 MiB on
# RAID6 x5, healthy and with two members failed (reconstruct-writes from
# the caller's pages): every other scenario runs the default, Y, so this
# is where the zero-copy paths are verified.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio mdadm
lr_setup
modprobe -q raid456 2>/dev/null || lr_skip "no raid456 module"
scribble=$(dirname "$LRAIDCTL")/scribble
[ -x "$scribble" ] || lr_fail "no $scribble (make -C tools)"
param=/sys/module/lraid/parameters/copy_writes
[ -w "$param" ] || lr_fail "no $param"
[ "$(cat "$param")" = Y ] ||
	lr_fail "copy_writes defaults to $(cat "$param"), not Y"

unstable="lraid0: stable writes are off: every write is copied until the array stops"

# stable_is 0|1 WHY: queue/stable_writes of lraid0 reads so
stable_is() {
	[ "$(cat /sys/block/lraid0/queue/stable_writes)" = "$1" ] ||
		lr_fail "stable writes not $1 $2"
}

# stable 0|1: queue/stable_writes of lraid0 set and read back
stable() {
	echo "$1" >/sys/block/lraid0/queue/stable_writes ||
		lr_fail "cannot set stable writes to $1"
	stable_is "$1" "after setting them"
}

# race LEVEL N COPY: the scribbled writes on fresh members, then md's
# check; sets LR_MISMATCH. COPY: copy_writes Y or N, S for N with stable
# writes off, R for N with stable writes off while the disk is opened,
# then on again, L for Y at the start and N from then on
race() {
	local level=$1 n=$2 copy=$3 np=$(($1 - 4)) start sectors sha
	lr_members nullb "$n" 32
	start=${copy//[SR]/N}
	echo "${start/L/Y}" >"$param"
	lr_klog_mark
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	# declared for zero-copy only, as md with skip_copy
	if [ "${start/L/Y}" = Y ]; then
		stable_is 0 "on an array started with copy_writes=Y"
	else
		stable_is 1 "on an array started with copy_writes=N"
	fi
	# started either way and opened: nothing to say yet (an array that
	# never declared stable writes copies from the start)
	blockdev --getsize64 /dev/lraid0 >/dev/null || lr_fail "cannot open lraid0"
	if lr_klog_has -F "$unstable"; then
		lr_fail "lraid0 started with copy_writes=${start/L/Y} says: $unstable"
	fi
	case $copy in
	L) echo N >"$param" ;;
	S) stable 0 ;;
	R)
		stable 0
		blockdev --getsize64 /dev/lraid0 >/dev/null ||
			lr_fail "cannot open lraid0"
		stable 1
		lr_klog_has -F "$unstable" ||
			lr_fail "no word that lraid0 copies every write from now on"
		;;
	esac
	"$scribble" /dev/lraid0 $(((n - np) * 65536)) 300 1 >/dev/null ||
		lr_fail "scribble full stripes"
	"$scribble" /dev/lraid0 4096 3000 2 >/dev/null || lr_fail "scribble 4K"
	"$scribble" /dev/lraid0 69632 600 3 >/dev/null || lr_fail "scribble 68K"
	if [ "$copy" = L ] && lr_klog_has -F "$unstable"; then
		lr_fail "lraid0 started with copy_writes=Y says after its writes: $unstable"
	fi
	sectors=$(lr_sectors lraid0)
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
	lr_md_mismatch "$level" 64 "$sectors" "$sha" "${LR_M[@]}"
}

seen=0
for cfg in "5 4" "6 5"; do
	read -r level n <<<"$cfg"
	race "$level" "$n" N
	lr_log "RAID$level x$n, copy_writes=N: md mismatch_cnt $LR_MISMATCH"
	[ "$LR_MISMATCH" = 0 ] || seen=1
	race "$level" "$n" Y
	lr_log "RAID$level x$n, copy_writes=Y: md mismatch_cnt $LR_MISMATCH"
	[ "$LR_MISMATCH" = 0 ] ||
		lr_fail "RAID$level: parity disagrees with the data with copy_writes=Y"
done
race 5 4 S
lr_log "RAID5 x4, copy_writes=N, stable_writes 0: md mismatch_cnt $LR_MISMATCH"
[ "$LR_MISMATCH" = 0 ] ||
	lr_fail "RAID5: parity disagrees with the data with stable writes off"
race 5 4 L
lr_log "RAID5 x4, copy_writes=Y at the start, then N: md mismatch_cnt $LR_MISMATCH"
[ "$LR_MISMATCH" = 0 ] ||
	lr_fail "RAID5: parity disagrees with the data after copy_writes was set to N on a running array"
race 6 5 R
lr_log "RAID6 x5, copy_writes=N, stable_writes 0 at an open, then 1: md mismatch_cnt $LR_MISMATCH"
[ "$LR_MISMATCH" = 0 ] ||
	lr_fail "RAID6: parity disagrees with the data after stable writes were off at an open"

echo N >"$param"
lr_members nullb 5 64
lr_create lraid0 --level 6 --chunk 64K "${LR_M[@]}"
lr_fio /dev/lraid0 healthy --rw=randwrite --bsrange=512-2m --blockalign=512 \
	--iodepth=8 --numjobs=2 --size=24M --offset_increment=24M
"$LRAIDCTL" fail lraid0 "${LR_M[1]}" || lr_fail "fail ${LR_M[1]}"
"$LRAIDCTL" fail lraid0 "${LR_M[3]}" || lr_fail "fail ${LR_M[3]}"
lr_fio /dev/lraid0 degraded --rw=randwrite --bsrange=512-2m --blockalign=512 \
	--iodepth=8 --numjobs=2 --size=24M --offset_increment=24M
echo Y >"$param"
# the verdict on the race last, after the checks that do not depend on it
[ $seen = 1 ] ||
	lr_skip "buffers changed in flight never left parity wrong without copy_writes either"
echo "PASS: with copy_writes parity matches the data written from changing buffers"
