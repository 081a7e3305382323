#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# create without --assume-clean zeroes the members' data areas. On members
# with no write-zeroes offload that is a full write of every member, hours
# on a large array, so: all members are written at once; the other arrays
# stay manageable meanwhile (only that index is locked); the array being created
# answers "busy" to detail, stop and a second create; an interrupted create
# stops after the piece in flight, creates nothing and leaves no older
# superblock behind over data it partly zeroed, and the members are free.
# Members: null_blk without write-zeroes, throttled (mbps) so the zeroing
# is slow enough to watch. null_blk passes a request only while a tick's
# budget (mbps / 50) covers it whole: below 8 MB/s its 127.5 KiB requests
# never pass.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
modprobe -q null_blk nr_devices=0 2>/dev/null || lr_skip "no null_blk"
mountpoint -q /sys/kernel/config ||
	mount -t configfs none /sys/kernel/config || lr_skip "no configfs"
mkdir /sys/kernel/config/nullb/lrprobe
LR_NULLB+=(lrprobe)
[ -e /sys/kernel/config/nullb/lrprobe/mbps ] || lr_skip "null_blk has no mbps"

# slow_members PREFIX N MB MBPS: LR_M = N throttled null_blk members
slow_members() {
	local i
	LR_M=()
	for i in $(seq "$2"); do
		lr_nullb "$1$i" "$3" mbps="$4"
		LR_M+=("$LR_DEV")
	done
}

# written DEV: sectors written to DEV so far (field 7 of its stat)
written() {
	awk '{ print $7 }' "/sys/block/${1#/dev/}/stat"
}

# base DEV...: remember what every DEV has written so far
declare -A BASE=()
base() {
	local d
	for d in "$@"; do
		BASE[$d]=$(written "$d")
	done
}

# partly_zeroed MAX DEV...: every DEV has written more than its base plus
# create's probe of the first block and the superblock erase (8 sectors
# each) and the erase of the rest of the first MiB (2040; these members
# have no sectors past the data area), but less than MAX sectors more, in
# one sample: the zeroing of their data areas is under way at once
partly_zeroed() {
	local max=$1 d n
	shift
	for d in "$@"; do
		n=$(($(written "$d") - BASE[$d]))
		[ "$n" -gt $((16 + 2040)) ] && [ "$n" -lt "$max" ] || return 1
	done
}

# no_superblock DEV: examine reads DEV and finds no lraid superblock there
# (a device it cannot open or read is not that)
no_superblock() {
	local out
	out=$("$LRAIDCTL" examine "$1" 2>&1) && return 1
	grep -q "no valid lraid superblock" <<<"$out"
}

lr_log "another array, to manage while a create zeroes"
lr_members loop 4 16
lr_create lraid0 --level 5 --assume-clean "${LR_M[@]}"

lr_members loop 4 16
spare=("${LR_M[@]}")

# 160 MiB at 8 MB/s: 20 s of zeroing, so the checks below (seven
# processes, 2-3 s each on the debug kernel beside another guest) finish
# while it runs
lr_log "RAID5 on 4 null_blk members (160 MiB, 8 MB/s each)"
slow_members zs 4 160 8
slow=("${LR_M[@]}")
# an older array on the same members, with data
lr_create lraid1 --level 5 --assume-clean "${slow[@]}"
head -c 1M /dev/urandom >"$LR_TMP/old"
dd if="$LR_TMP/old" of=/dev/lraid1 bs=1M oflag=direct status=none
data=$(($(lr_sectors lraid1) / 3))	# data area of each member
"$LRAIDCTL" stop lraid1 >/dev/null || lr_fail "stop the older lraid1"
"$LRAIDCTL" examine "${slow[0]}" >/dev/null || lr_fail "no superblock on ${slow[0]}"

base "${slow[@]}"
"$LRAIDCTL" create lraid1 --run --level 5 "${slow[@]}" >"$LR_TMP/create.out" 2>&1 &
pid=$!
LR_ARRAYS+=(lraid1)
at_once=0
for _ in $(seq 200); do
	lr_running "$pid" || break
	# zeroed one after the other, at most one member is partly done
	if partly_zeroed "$data" "${slow[@]}"; then
		at_once=1
		break
	fi
	sleep 0.05
done
[ "$at_once" = 1 ] || lr_fail "the members were not zeroed at once"

# Everything below must answer while the zeroing runs
"$LRAIDCTL" detail lraid0 >/dev/null || lr_fail "detail lraid0 during the create"
lr_running "$pid" || lr_fail "detail lraid0 waited for the create of lraid1 to finish"
if "$LRAIDCTL" stop lraid1 >"$LR_TMP/s.out" 2>&1; then
	lr_running "$pid" || lr_fail "the create ended before stop was tried (members too fast?)"
	lr_fail "stop of the array being created succeeded"
fi
grep -q "busy" "$LR_TMP/s.out" || lr_fail "stop lraid1: $(cat "$LR_TMP/s.out")"
if "$LRAIDCTL" detail lraid1 >"$LR_TMP/d.out" 2>&1; then
	lr_fail "detail of the array being created succeeded"
fi
grep -q "busy.*being created" "$LR_TMP/d.out" || lr_fail "detail lraid1: $(cat "$LR_TMP/d.out")"
if "$LRAIDCTL" create lraid1 --run --level 5 --assume-clean "${spare[@]}" >"$LR_TMP/c.out" 2>&1; then
	lr_fail "a second create of lraid1 succeeded"
fi
grep -q "busy" "$LR_TMP/c.out" || lr_fail "second create: $(cat "$LR_TMP/c.out")"
no_superblock "${spare[0]}" || lr_fail "the refused create wrote ${spare[0]}"
no_superblock "${slow[0]}" || lr_fail "older superblock still on ${slow[0]} while zeroing"
lr_running "$pid" || lr_fail "the create ended before the checks did (members too fast?)"

wait "$pid" || { cat "$LR_TMP/create.out"; lr_fail "create lraid1"; }
lr_settle
[ -b /dev/lraid1 ] || lr_fail "/dev/lraid1 missing after create"
# zero_mib N: the first N MiB of lraid1 read zeroes (4 MiB direct reads,
# so the throttled members are read at once)
zero_mib() {
	cmp -n "$(($1 << 20))" /dev/zero \
		<(dd if=/dev/lraid1 bs=4M count=$(($1 / 4)) iflag=direct status=none)
}
zero_mib $(($(lr_sectors lraid1) / 2048 / 4 * 4)) || lr_fail "lraid1 not zero after create"
"$LRAIDCTL" fail lraid1 "${slow[1]}" >/dev/null || lr_fail "fail ${slow[1]}"
lr_noise "${slow[1]}" 8
zero_mib 24 || lr_fail "lraid1 degraded: parity not zero"
"$LRAIDCTL" detail lraid0 >/dev/null || lr_fail "detail lraid0 after the create"

lr_log "interrupted create: RAID6 on 4 null_blk members (160 MiB, 8 MB/s)"
slow_members zi 4 160 8
slow=("${LR_M[@]}")
lr_create lraid2 --level 6 --assume-clean "${slow[@]}"
"$LRAIDCTL" stop lraid2 >/dev/null || lr_fail "stop the older lraid2"
# a mark on each member past the first piece (128 MiB) of the zeroing
head -c 64K /dev/urandom >"$LR_TMP/mark"
for m in "${slow[@]}"; do
	dd if="$LR_TMP/mark" of="$m" bs=64K seek=2400 oflag=direct status=none
done
base "${slow[@]}"
"$LRAIDCTL" create lraid2 --run --level 6 "${slow[@]}" >"$LR_TMP/create.out" 2>&1 &
pid=$!
LR_ARRAYS+=(lraid2)
for _ in $(seq 200); do
	partly_zeroed 262144 "${slow[@]}" && break
	sleep 0.05
done
partly_zeroed 262144 "${slow[@]}" || lr_fail "the members were not zeroed at once"
kill -TERM "$pid"
lr_wait_end "$pid" 60 || lr_fail "create still running 60 s after SIGTERM"
if wait "$pid"; then
	lr_fail "the interrupted create succeeded"
fi
lr_settle
[ -e /dev/lraid2 ] && lr_fail "/dev/lraid2 exists after the interrupted create"
for m in "${slow[@]}"; do
	no_superblock "$m" || lr_fail "$m has a superblock after the interrupted create"
	cmp -n 65536 "$LR_TMP/mark" <(dd if="$m" bs=64K skip=2400 count=1 status=none) ||
		lr_fail "$m: zeroing went on past the piece in flight"
done
lr_klog_has "lraid2: create interrupted" || lr_fail "no 'create interrupted' in the log"
# the members are free again
lr_create lraid2 --level 6 --assume-clean "${slow[@]}"
"$LRAIDCTL" stop lraid2 >/dev/null || lr_fail "stop lraid2"
echo "PASS"
