#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Power cut under load: every write acknowledged before it is on the
# members, and every flush and FUA write honoured, whatever state the cut
# leaves. RAID5 x4 and RAID6 x5, chunk 16K, each member null_blk behind
# dm-linear; then the same with a volatile write cache in each member
# (tests/badblk's lraid-wcache target instead of dm-linear, 16 MiB).
# Eight threads write 4 KiB, 12 KiB (some across chunks) and full-stripe
# blocks, O_DIRECT, each to blocks of its own in shared stripes, and
# discard one full stripe in four
# (devices_handle_discard_safely=Y: memory-backed null_blk reads zeroes
# where it discarded). With the caches, half the blocks are written FUA
# and half plainly, flushed (fdatasync) after one write in four until a
# second before the cut. The writer is scripts/tests/powercut.py. Then:
#  - cut: every member's table is suspended (its writes so far finished,
#    the rest held), one after the other, as drives lose power at slightly
#    different moments; with caches, swapping the tables then throws
#    away what the caches held (the check requires that this lost some
#    plain writes); what the null_blk devices hold from then on is what
#    a crash would leave;
#  - the held writes and all later ones fail (error tables): every write
#    in flight fails with EIO, nothing hangs, and the array stops;
#  - the array assembles from the null_blk devices themselves, with the
#    "not stopped cleanly" warning: every block reads back, 4 KiB page by
#    page, as the last write known to be on the members (acknowledged;
#    with caches, FUA or flushed since; zeroes if none) or as a later one
#    that may be (in flight at the cut, or not flushed): no such write
#    lost or mixed up;
#  - one member (RAID6: two) failed and overwritten with noise: every block
#    outside the stripes with a write that may or may not be on the
#    members reads exactly as before, rebuilt from parity. (Those stripes
#    may have stale parity: the write hole the resync closes.) With
#    caches this checks that parity went FUA with the data.
# Then RAID5 x4 and RAID6 x5 (with the caches) again with a write-intent
# bitmap of 64 KiB regions (four stripes a bit, 1008 bits): the resync
# after the cut must go over some regions but not all ("resync: N of M
# bitmap regions dirty", 0 < N < M), and a check after it must find
# mismatch_cnt 0: every stripe the cut left with stale parity lay in a
# region whose bit was on the members (the bit goes FUA before the first
# write into its region).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need python3 dmsetup
lr_setup
modprobe -q dm-mod 2>/dev/null || true
echo Y >/sys/module/lraid/parameters/devices_handle_discard_safely
pc=$(dirname "$0")/powercut.py

# cut_off NAME DEV: NAME (suspended) fails all I/O from now on
cut_off() {
	echo "0 $(blockdev --getsz "$2") error" | dmsetup load "$1" ||
		lr_fail "dmsetup load $1 error"
	dmsetup resume --noudevsync "$1" || lr_fail "dmsetup resume $1"
}

for cfg in "5 4 1 -" "6 5 2 -" "5 4 1 16" "6 5 2 16" "5 4 1 - bitmap" \
	"6 5 2 16 bitmap"; do
	read -r level n nfail cache bitmap <<<"$cfg"
	lr_members nullb "$n" 64
	raw=("${LR_M[@]}")
	dm=()
	if [ "$cache" = - ]; then
		lr_log "RAID$level x$n: power cut under load"
		mode=
	else
		lr_log "RAID$level x$n, $cache MiB volatile write cache per member: power cut under load"
		lr_target lraid-wcache
		mode=volatile
	fi
	for ((i = 0; i < n; i++)); do
		t="linear ${raw[i]} 0"
		[ "$cache" = - ] || t="lraid-wcache ${raw[i]} $cache"
		lr_dm "lrcut$level$i" "0 $(blockdev --getsz "${raw[i]}") $t" ||
			lr_fail "dmsetup create lrcut$level$i"
		dm+=("$LR_DEV")
	done
	[ "$cache" = - ] ||
		[ "$(cat "/sys/block/${dm[0]#/dev/}/queue/write_cache")" = "write back" ] ||
		lr_fail "lraid-wcache offers no write-back cache"
	bm=()
	[ -z "$bitmap" ] || bm=(--bitmap=internal --bitmap-chunk=64K)
	[ -z "$bitmap" ] || lr_log "... with a write-intent bitmap"
	lr_create lraid0 --level "$level" --chunk 16K "${bm[@]}" "${dm[@]}"
	stripe=$(((n - level + 4) * 16384))

	rm -f "$LR_TMP/state.ready" "$LR_TMP/state.cut"
	python3 "$pc" write /dev/lraid0 "$LR_TMP/state" "$stripe" $mode \
		>"$LR_TMP/writer" 2>&1 &
	writer=$!
	# started (slow on a debug kernel) and handling SIGUSR1
	for _ in $(seq 600); do
		if [ -e "$LR_TMP/state.ready" ] || ! kill -0 "$writer" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	sleep 5
	# no more flushes: the last second's plain writes stay in the caches
	kill -USR1 "$writer" 2>/dev/null
	sleep 1
	kill -0 "$writer" 2>/dev/null ||
		{ cat "$LR_TMP/writer"; lr_fail "the writer ended before the cut"; }
	# from here on, an I/O error the writer gets is the cut's
	touch "$LR_TMP/state.cut"
	for ((i = 0; i < n; i++)); do
		dmsetup suspend --nolockfs --noudevsync "lrcut$level$i" ||
			lr_fail "dmsetup suspend lrcut$level$i"
	done
	for ((i = 0; i < n; i++)); do
		cut_off "lrcut$level$i" "${raw[i]}"
	done

	# every write held or sent after the cut must fail, and soon
	for _ in $(seq 120); do
		kill -0 "$writer" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$writer" 2>/dev/null; then
		kill "$writer"
		lr_fail "writes still pending 2 min after every member failed"
	fi
	wait "$writer" || { cat "$LR_TMP/writer"; lr_fail "writer"; }
	cat "$LR_TMP/writer"
	"$LRAIDCTL" stop lraid0 >/dev/null ||
		lr_fail "stop after every member failed"
	LR_ARRAYS=()
	for ((i = 0; i < n; i++)); do
		dmsetup remove --noudevsync "lrcut$level$i" ||
			lr_fail "dmsetup remove lrcut$level$i"
	done
	LR_DM=()

	lr_klog_mark
	"$LRAIDCTL" assemble lraid0 "${raw[@]}" >/dev/null ||
		lr_fail "assemble after the cut"
	LR_ARRAYS=(lraid0)
	lr_settle
	lr_klog_has "not stopped cleanly" ||
		lr_fail "assembled after the cut without the unclean warning"
	python3 "$pc" check /dev/lraid0 "$LR_TMP/state" "$stripe" \
		"$LR_TMP/whole" || lr_fail "blocks after the cut"
	if [ -n "$bitmap" ]; then
		sa=/sys/block/lraid0/lraid/sync_action
		for _ in $(seq 1200); do
			[ "$(cat $sa)" = idle ] && break
			sleep 0.1
		done
		[ "$(cat $sa)" = idle ] || lr_fail "resync after the cut still runs"
		scope=$(dmesg | sed -n 's/.*lraid0: resync: \([0-9]*\) of \([0-9]*\) bitmap regions dirty.*/\1 \2/p' |
			tail -n 1)
		read -r dirty all <<<"$scope"
		if [ -z "$dirty" ] || [ "$dirty" -eq 0 ] || [ "$dirty" -ge "$all" ]; then
			lr_fail "resync after the cut: bitmap scope '$scope', wanted some regions of all"
		fi
		lr_log "resync went over $dirty of $all regions"
		echo check >$sa
		for _ in $(seq 1200); do
			[ "$(cat $sa)" = idle ] && break
			sleep 0.1
		done
		mm=$(cat /sys/block/lraid0/lraid/mismatch_cnt)
		[ "$mm" = 0 ] ||
			lr_fail "check after the bitmap resync: mismatch_cnt $mm"
	fi

	for ((i = 1; i <= nfail; i++)); do
		"$LRAIDCTL" fail lraid0 "${raw[2 * i - 1]}" ||
			lr_fail "fail ${raw[2 * i - 1]}"
		lr_noise "${raw[2 * i - 1]}"
	done
	python3 "$pc" check /dev/lraid0 "$LR_TMP/state" "$stripe" \
		"$LR_TMP/degraded" "$LR_TMP/whole" ||
		lr_fail "blocks rebuilt after the cut"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
	LR_ARRAYS=()
done
lr_log "acknowledged, flushed and FUA writes survived the cut on both levels"
