#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parity on disk is md's: write through lraid (random sizes 512 B..1 MiB,
# RMW, RCW and full-stripe writes, partial and full discards, write-zeroes
# over unaligned ranges), stop lraid, build md over the same members and
# data area with --assume-clean: md must read the same bytes and its
# check must find mismatch_cnt 0. md overwrites each member's first 4 KiB,
# so this runs last on throw-away members. The loop files live on ext4
# (lr_loop_fs): on tmpfs the members refuse write-zeroes, and the range
# would be written as zero pages instead of by lraid's write-zeroes.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio mdadm blkdiscard
lr_setup
modprobe -q raid456 2>/dev/null || lr_skip "no raid456 module"
lr_loop_fs 512

for cfg in "nullb 5 4 64" "nullb 6 5 64" "loop 5 3 64" "loop 6 6 64"; do
	read -r kind level n chunk <<<"$cfg"
	lr_log "RAID$level on $n $kind members, chunk ${chunk}K vs md"
	lr_members "$kind" "$n" 64
	# null_blk reads zeroes after discard: let it take real discards (no
	# write-zeroes there); loop members get discard as write-zeroes
	if [ "$kind" = nullb ]; then safe=Y; else safe=N; fi
	echo $safe >/sys/module/lraid/parameters/devices_handle_discard_safely
	lr_create lraid0 --level "$level" --chunk "${chunk}K" "${LR_M[@]}"
	fio --name=w --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--rw=randwrite --bsrange=512-1m --blockalign=512 --iodepth=8 \
		--size=100% --io_size=24M --randrepeat=0 \
		--output="$LR_TMP/fio.out" || lr_fail "fio"
	fio --name=s --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--rw=write --bs=7k --iodepth=4 --offset=3M --size=2M \
		--output="$LR_TMP/fio.out" || lr_fail "fio"
	if [ "$(cat /sys/block/lraid0/queue/discard_max_bytes)" = 0 ]; then
		lr_fail "no discard on $kind members"
	else
		blkdiscard -o $((1000 * 1024)) -l $((5 * 1024 * 1024)) /dev/lraid0 ||
			lr_fail "blkdiscard"
	fi
	wz=$(cat /sys/block/lraid0/queue/write_zeroes_max_bytes)
	[ "$kind" = nullb ] || [ "$wz" != 0 ] || lr_fail "no write-zeroes on loop members"
	if [ "$wz" != 0 ]; then
		lr_klog_mark
		blkdiscard -z -o $((7 * 1024 * 1024 + 512)) -l $((3 * 1024 * 1024 + 1024)) \
			/dev/lraid0 || lr_fail "write zeroes"
		lr_zeroes_served
		z=$(dd if=/dev/lraid0 bs=512 skip=$((14 * 1024 + 1)) count=$((6 * 1024 + 2)) \
			iflag=direct 2>/dev/null | tr -d '\0' | wc -c)
		[ "$z" = 0 ] || lr_fail "write-zeroes range reads back non-zero"
	else
		lr_log "no write-zeroes on these null_blk members"
	fi
	sectors=$(lr_sectors lraid0)
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	lr_md_check "$level" "$chunk" "$sectors" "$sha" "${LR_M[@]}"
done
echo "PASS: md reads lraid's bytes and finds parity consistent"
