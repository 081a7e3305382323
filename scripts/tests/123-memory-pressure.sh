#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Allocations that fail. The kernel's fault injection (failslab and
# fail_page_alloc, built into the test and debug kernels only) makes
# the allocations that may not sleep fail in lraid's worker threads, and
# then also in fio's threads (the submitting path), while fio writes and
# reads back with crc32c: all of them in the workers alone, then a
# quarter in both. That is exactly the first attempt of
# every mempool_alloc() (which then takes a reserved element or waits for
# one) and every page an op takes when its worker's cache is empty
# (GFP_NOWAIT: the op waits on the retry list for pages). RAID5 x4
# healthy, then RAID6 x5 with a member failed, where every write is a
# reconstruct-write taking pages for every member. Every block reads back
# right, failures were injected (the fault attributes count them), and no
# member is failed for it.
# Then through io_uring, every non-sleeping allocation of fio's threads
# failing: io_uring submits with REQ_NOWAIT, so lraid's first allocation
# for a bio (GFP_NOWAIT) fails and lraid must refuse the whole bio at once
# (BLK_STS_AGAIN, nothing of it sent), which io_uring takes back and
# submits again from a worker thread. Required: those worker threads
# appeared (the refusals happened), fio saw no error (no -EAGAIN from a
# bio refused part-way, which io_uring cannot reissue), every block reads
# back right, and nothing stays in flight.
# kernels: test debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio

lr_need_faults
dbg=$LR_DEBUGFS
lr_setup

budget=100000000

# faults PROBABILITY: failslab and fail_page_alloc fail PROBABILITY % of the
# non-sleeping allocations of tasks marked make-it-fail, single pages too
faults() {
	local f
	for f in failslab fail_page_alloc; do
		echo 0 >"$dbg/$f/probability"
		echo Y >"$dbg/$f/task-filter"
		echo Y >"$dbg/$f/ignore-gfp-wait"
		echo 1 >"$dbg/$f/interval"
		echo 0 >"$dbg/$f/verbose"
		echo "$budget" >"$dbg/$f/times"
		echo "$1" >"$dbg/$f/probability"
	done
	echo 0 >"$dbg/fail_page_alloc/min-order"
}

# injected: failures injected since faults() set the budget
injected() {
	echo $((2 * budget - $(cat "$dbg/failslab/times") -
		$(cat "$dbg/fail_page_alloc/times")))
}

# mark_workers ARRAY: make lraid's worker threads of ARRAY fail allocations
mark_workers() {
	local p n=0
	for p in $(pgrep "^$1/[0-9]+\$"); do
		echo 1 >"/proc/$p/make-it-fail"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || lr_fail "no worker threads of $1 found"
}

# load NAME FIO-ARGS...: fio with verify, itself failing allocations too
load() {
	local name=$1
	shift
	(
		echo 1 >/proc/self/make-it-fail
		lr_fio /dev/lraid0 "$name" --rw=randwrite --bsrange=4k-256k \
			--size=24M --offset_increment=24M --numjobs=2 \
			--iodepth=32 "$@"
	)
}

# uring NAME FAIL FIO-ARGS...: fio through io_uring (with make-it-fail set
# if FAIL is 1); sets WORKERS to the most io_uring worker threads
# (iou-wrk-PID) seen in fio's processes at once while it ran; the job is
# ujob (also read back with --verify_only). The first
# worker of a ring, once started, stays until the ring is closed.
ujob=(--rw=randwrite --bsrange=512-128k --size=48M --offset_increment=48M
	--numjobs=2)
uring() {
	local name=$1 fail=$2 pid n p
	shift 2
	(
		echo "$fail" >/proc/self/make-it-fail
		LR_FIO_ENGINE=io_uring lr_fio /dev/lraid0 "$name" "${ujob[@]}" \
			--iodepth=128 "$@"
	) &
	pid=$!
	WORKERS=0
	while kill -0 "$pid" 2>/dev/null; do
		n=0
		for p in $(pgrep -x fio); do
			n=$((n + $(cat /proc/"$p"/task/*/comm 2>/dev/null |
				grep -c '^iou-wrk-'))) || true
		done
		[ "$n" -le "$WORKERS" ] || WORKERS=$n
		sleep 0.05
	done
	wait "$pid" || lr_fail "fio $name through io_uring"
}

# run LEVEL N FAIL_ONE KIND
run() {
	local level=$1 n=$2 degrade=$3 kind=$4 w a
	lr_members "$kind" "$n" 40
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	if [ "$degrade" = 1 ]; then
		"$LRAIDCTL" fail lraid0 "${LR_M[1]}" >/dev/null ||
			lr_fail "fail ${LR_M[1]}"
		lr_noise "${LR_M[1]}"
	fi
	# the workers alone first, every allocation that may not sleep
	# failing: pages come only from the worker's cache and the mempool's
	# reserve, bios only from the bio sets' reserves
	faults 100
	mark_workers lraid0
	lr_fio /dev/lraid0 workers --rw=randwrite --bsrange=4k-256k \
		--size=24M --offset_increment=24M --numjobs=2 --iodepth=32 \
		--randseed=1
	w=$(injected)
	[ "$w" -gt 0 ] ||
		lr_fail "RAID$level: no allocation of lraid's workers was failed"
	faults 25
	load both --randseed=2
	a=$(injected)
	faults 0
	lr_log "RAID$level: $w failures injected in the workers alone, $a with fio too"
	[ "$a" -gt 0 ] || lr_fail "RAID$level: nothing failed in the second run"
	# everything fio wrote, read back once more with nothing failing
	lr_fio /dev/lraid0 both --rw=randwrite --bsrange=4k-256k \
		--size=24M --offset_increment=24M --numjobs=2 --iodepth=32 \
		--randseed=2 --verify_only
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	if [ "$degrade" = 1 ]; then
		[ "$(grep -c faulty "$LR_TMP/detail")" = 1 ] || {
			cat "$LR_TMP/detail"
			lr_fail "RAID$level: another member was failed"
		}
	elif grep -Eq "faulty|degraded" "$LR_TMP/detail"; then
		cat "$LR_TMP/detail"
		lr_fail "RAID$level: a member was failed"
	fi
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
	LR_ARRAYS=()
}

# nowait LEVEL N FAIL_ONE CHUNK: the io_uring part, on members that
# complete after 50 ms (so that fio's 256 bios stay in flight and the
# mempools' reserves run dry) with tags enough for all of them (no refusal
# for want of a tag): first with nothing failing, where no bio may be
# refused, then with every non-sleeping allocation of fio's threads
# failing. A 4K chunk cuts a write into up to 11 pieces, more than the
# write-piece reserve holds for the bios in flight.
nowait() {
	local level=$1 n=$2 degrade=$3 chunk=$4 i
	LR_M=()
	for i in $(seq "$n"); do
		lr_nullb "slow$level$i" 128 irqmode=2 completion_nsec=50000000 \
			hw_queue_depth=1024
		LR_M+=("$LR_DEV")
	done
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	if [ "$degrade" = 1 ]; then
		"$LRAIDCTL" fail lraid0 "${LR_M[1]}" >/dev/null ||
			lr_fail "fail ${LR_M[1]}"
		lr_noise "${LR_M[1]}"
	fi
	uring calm 0 --randseed=3
	lr_log "RAID$level: io_uring, nothing failing: $WORKERS worker threads"
	[ "$WORKERS" = 0 ] ||
		lr_fail "RAID$level: REQ_NOWAIT bios refused with nothing failing"
	faults 100
	uring nomem 1 --randseed=4
	faults 0
	lr_log "RAID$level: io_uring, no memory without sleeping: up to $WORKERS worker threads took refused I/O"
	[ "$WORKERS" -gt 0 ] ||
		lr_fail "RAID$level: no REQ_NOWAIT bio was refused (no io_uring worker ran)"
	[ "$(tr -s ' \t' ' ' </sys/block/lraid0/inflight)" = " 0 0" ] || {
		cat /sys/block/lraid0/inflight
		lr_fail "RAID$level: I/O left in flight after the refusals"
	}
	lr_fio /dev/lraid0 nomem "${ujob[@]}" --iodepth=32 --randseed=4 \
		--verify_only
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
	LR_ARRAYS=()
}

trap 'faults 0 2>/dev/null; lr_cleanup' EXIT
lr_log "RAID5 x4, healthy"
run 5 4 0 nullb
lr_log "RAID6 x5 on loop devices, one member failed: reconstruct-writes"
run 6 5 1 loop
lr_log "io_uring (REQ_NOWAIT): RAID5 x4, healthy, chunk 4K"
nowait 5 4 0 4K
lr_log "io_uring (REQ_NOWAIT): RAID6 x5, one member failed"
nowait 6 5 1 64K
echo "PASS: failed allocations in the workers and the submitters lose nothing"
