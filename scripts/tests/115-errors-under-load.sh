#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Read errors while the array is busy. fio writes 4 KiB to 128 KiB blocks
# at random and reads them back as it goes and at the end (crc32c,
# verify_backlog), two jobs at queue depth 16, three times over, while a
# reader streams over the same area and a loop marks random ranges of the
# bad members unreadable every 20 ms (lr_bad_setup: reads there fail until
# a write lands on them, as on a drive that remaps on write). Repairs,
# read backs and degraded restarts then run beside writes and reads of the
# same stripes. RAID5 x4 with one such member, RAID6 x6 with two. Every
# block fio reads back is right, no member is marked failed, reads did
# fail (the target counts them), and afterwards md over the members reads
# the same bytes and its check finds no parity mismatch.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio mdadm
lr_setup

mib=48
# errors are rewritten; the limit is 110's business
echo 0 >/sys/module/lraid/parameters/max_read_errors
lr_bad_setup 2

# inject END NBAD: until told to stop, mark 32-256 sectors of the member
# data area [2048, END) unreadable on one of the first NBAD bad members
inject() {
	local end=$1 nbad=$2 d s n
	while [ ! -e "$LR_TMP/stop" ]; do
		d=${LR_BAD_DM[RANDOM % nbad]}
		n=$((32 + RANDOM % 225))
		s=$((2048 + (RANDOM * 32768 + RANDOM) % (end - 2048 - n)))
		dmsetup message "$d" 0 bad "$s" "$n" || lr_fail "$d: bad $s $n"
		sleep 0.02
	done
}

# reader: stream over the array until told to stop (contents unchecked:
# fio writes there meanwhile; the reads are there to meet bad sectors)
reader() {
	while [ ! -e "$LR_TMP/stop" ]; do
		dd if=/dev/lraid0 of=/dev/null bs=64K count=$((mib * 16)) \
			iflag=direct status=none || lr_fail "reader: read error"
	done
}

# failed_reads: reads the bad members' target has failed so far
failed_reads() {
	local d sum=0
	for d in "${LR_BAD_DM[@]}"; do
		sum=$((sum + $(dmsetup status "$d" | awk '{ print $5 }')))
	done
	echo "$sum"
}

# run LEVEL NBAD NGOOD
run() {
	local level=$1 nbad=$2 ngood=$3 nd per end m pids f0 f1 sha seed
	nd=$((nbad + ngood - level + 4))
	per=$((mib / nd))
	# member sectors holding the first $mib MiB of the array
	end=$((2048 + per * 2048 + 128))
	lr_members nullb "$ngood" 64
	m=("${LR_BAD[@]:0:nbad}" "${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk 64K "${m[@]}"
	f0=$(failed_reads)
	lr_klog_mark
	rm -f "$LR_TMP/stop"
	inject "$end" "$nbad" &
	pids=($!)
	reader &
	pids+=($!)
	for seed in 1 2 3; do
		lr_fio /dev/lraid0 load --rw=randwrite --bsrange=4k-128k \
			--size=$((mib / 2))M --offset_increment=$((mib / 2))M \
			--numjobs=2 --iodepth=16 --verify_backlog=64 \
			--randseed=$seed
	done
	touch "$LR_TMP/stop"
	for p in "${pids[@]}"; do
		wait "$p" || lr_fail "RAID$level: a background loop failed"
	done
	f1=$(failed_reads)
	lr_log "RAID$level: $((f1 - f0)) member reads failed, $(lr_klog |
		grep -c "read error corrected") corrections logged"
	[ $((f1 - f0)) -ge 20 ] ||
		lr_fail "RAID$level: only $((f1 - f0)) reads met a bad sector"
	lr_klog_has "read error corrected" ||
		lr_fail "RAID$level: no corrected read error in the kernel log"
	if lr_klog_has "not corrected"; then
		lr_fail "RAID$level: a rewrite did not hold"
	fi
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	if grep -Eq "faulty|degraded" "$LR_TMP/detail"; then
		cat "$LR_TMP/detail"
		lr_fail "RAID$level: a member was marked failed"
	fi
	lr_bad_off
	sha=$(lr_sha /dev/lraid0 $((mib * 2048)))
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	lr_md_check "$level" 64 $((mib * 2048)) "$sha" "${m[@]}"
}

lr_log "RAID5 x4, one member with bad sectors coming and going"
run 5 1 3
lr_log "RAID6 x6, two members with bad sectors coming and going"
run 6 2 4
echo "PASS: read errors under load are repaired; data and parity stay right"
