#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Members that go away: a null_blk member powered off while the array is
# written (del_gendisk under lraid, as for a pulled NVMe drive or a loose
# cable), RAID5 x4 losing one and RAID6 x5 losing two, one after the other.
# fio writes with crc32c verify throughout and must see no error; the data
# then reads back by reconstruction, detail shows the array degraded with
# the member failed, and stop lets go of everything. The lost members then
# come back with their old contents (null_blk keeps a powered-off device's
# memory): offered to assemble with the others they are stale and not used,
# the array runs degraded on the survivors and reads back the same data.
# A member lost while the array is idle is noticed at the next write and
# stop still works.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

# load ARGS...: random writes of 4-64 KiB over the first 96 MiB, each
# block once, verified as it goes (verify_backlog) and again at the end
load() {
	lr_fio /dev/lraid0 load --rw=randwrite --bsrange=4k-64k \
		--blockalign=4k --size=96M --iodepth=16 --verify_backlog=64 --disk_util=0 "$@"
}

# power MEMBER 0|1: null_blk MEMBER (a /dev/nullbN path) off or back on
power() {
	local d=/sys/kernel/config/nullb/${1#/dev/}
	echo "$2" >"$d/power" || lr_fail "power $2 on $1"
	[ "$2" = 0 ] || lr_nullb_wait "$1"
}

# written: MiB written to lraid0 so far (its I/O statistics)
written() {
	awk '{ print int($7 / 2048) }' /sys/block/lraid0/stat
}

# sha of the first 96 MiB, read around the page cache
sha() {
	dd if=/dev/lraid0 bs=1M count=96 iflag=direct status=none | sha256sum
}

for cfg in "5 4 1" "6 5 1 3"; do
	read -r level n lost <<<"$cfg"
	read -r -a gone <<<"$lost"
	lr_log "RAID$level on $n null_blk members, losing ${#gone[@]} under writes"
	lr_members nullb "$n" 64
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk 64K "${m[@]}"
	load >"$LR_TMP/load.log" 2>&1 &
	pid=$!
	# each member goes once another 8 MiB of the 96 are written (polled:
	# it may go 15 MiB later on a busy host, so the load is long enough)
	for r in "${gone[@]}"; do
		w=$(($(written) + 8))
		while [ "$(written)" -lt $w ] && kill -0 "$pid" 2>/dev/null; do
			sleep 0.05
		done
		kill -0 "$pid" 2>/dev/null ||
			lr_fail "fio finished before ${m[$r]} went away: nothing was in flight"
		lr_log "powering off ${m[$r]} (role $r) at $(written) MiB written"
		power "${m[$r]}" 0
	done
	wait "$pid" || { cat "$LR_TMP/load.log"; lr_fail "fio while members went away"; }
	[ ! -b "${m[${gone[0]}]}" ] || lr_fail "${m[${gone[0]}]} still there"
	# every lost member's failure is recorded by the first write after it
	lr_fio /dev/lraid0 after --disk_util=0 --rw=write --bs=64k --offset=100M --size=4M
	load --verify_only
	want=$(sha)
	out=$("$LRAIDCTL" detail lraid0) || lr_fail "detail"
	grep -q "State : .*degraded" <<<"$out" ||
		lr_fail "detail does not show degraded: $out"
	mask=0
	for r in "${gone[@]}"; do
		mask=$((mask | 1 << r))
	done
	sb=$("$LRAIDCTL" examine --json "${m[0]}") || lr_fail "examine ${m[0]}"
	grep -q "\"failed_mask\": $mask," <<<"$sb" ||
		lr_fail "survivors do not record roles $mask failed: $sb"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop with members gone"
	LR_ARRAYS=()
	lr_settle
	for d in "${m[@]}"; do
		[ ! -e "/sys/block/${d#/dev/}" ] || [ -z "$(ls "/sys/block/${d#/dev/}/holders")" ] ||
			lr_fail "$d still held after stop"
	done

	lr_log "the lost members come back with what they held"
	for r in "${gone[@]}"; do
		power "${m[$r]}" 1
	done
	lr_settle
	rc=0
	out=$("$LRAIDCTL" assemble --run lraid0 "${m[@]}" 2>&1) || rc=$?
	[ "$rc" = 0 ] || lr_fail "assemble with the stale members: $out"
	LR_ARRAYS=(lraid0)
	lr_settle
	for r in "${gone[@]}"; do
		grep -q "${m[$r]}.*stale" <<<"$out" ||
			lr_fail "assemble did not report ${m[$r]} stale: $out"
	done
	out=$("$LRAIDCTL" detail lraid0) || lr_fail "detail"
	grep -q "State : .*degraded" <<<"$out" ||
		lr_fail "assembled with stale members, not degraded: $out"
	for r in "${gone[@]}"; do
		! grep -q "active .*${m[$r]}\$" <<<"$out" ||
			lr_fail "stale ${m[$r]} is in use: $out"
	done
	[ "$(sha)" = "$want" ] || lr_fail "reads other data after assembly"
	load --verify_only
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
	LR_ARRAYS=()
	lr_nullb_drop || lr_fail "null_blk members still held"
done

lr_log "RAID5 x4: a member lost while idle"
lr_members nullb 4 32
m=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
lr_fio /dev/lraid0 idle --disk_util=0 --rw=write --bs=128k --size=8M
power "${m[2]}" 0
lr_fio /dev/lraid0 idle --disk_util=0 --rw=write --bs=128k --size=8M
"$LRAIDCTL" detail lraid0 | grep -q "State : .*degraded" ||
	lr_fail "a write after losing a member did not mark it failed"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=()
echo "PASS: members that go away leave the array degraded and the data whole"
