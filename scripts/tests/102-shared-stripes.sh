#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Several fio jobs writing interleaved 16 KiB zones of the same stripes at
# once (RAID6 on 5 loop members, RAID5 on 4 null_blk members), odd block
# sizes, sequential and random; then stop, assemble, verify again. Then
# many small writes into one stripe of members that complete synchronously.
# Then threads whose writes race for the same blocks (overlap.py), with
# every member and with members failed.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

# shared ZONE_K ARGS...: job j owns zones j, j+4, j+8, ... of ZONE_K KiB,
# so every stripe is written by all four jobs at once
shared() {
	local z=$1 j args=()
	shift
	for j in 0 1 2 3; do
		args+=(--name="z$j" --offset=$((j * z))k --zonemode=strided
			--zonesize="${z}k" --zoneskip=$((3 * z))k --size=6M "$@")
	done
	fio --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output="$LR_TMP/fio.out" "${args[@]}" ||
		{ cat "$LR_TMP/fio.out"; lr_fail "fio shared $*"; }
	if grep -Eq "err= *[1-9]" "$LR_TMP/fio.out"; then
		cat "$LR_TMP/fio.out"
		lr_fail "fio shared errors"
	fi
}

for cfg in "loop 6 5 64K" "nullb 5 4 4K"; do
	read -r kind level n chunk <<<"$cfg"
	lr_log "RAID$level on $n $kind members, chunk $chunk"
	lr_members "$kind" "$n" 96
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	shared 16 --rw=randwrite --bsrange=512-12k --blockalign=512 --iodepth=8
	shared 14 --rw=write --bs=3584 --iodepth=4
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail assemble
	shared 14 --rw=write --bs=3584 --iodepth=4 --verify_only
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
# Members that complete a bio inside submit_bio (null_blk irqmode=0): a
# window handed from piece to piece must not nest on the worker's stack
# (this overflowed it once). Four jobs of 512 B writes into one stripe.
lr_log "RAID5 on 4 null_blk members completing in submit_bio, chunk 4K"
LR_M=()
for i in 0 1 2 3; do
	lr_nullb "syncnull$i" 16 irqmode=0
	LR_M+=("$LR_DEV")
done
lr_create lraid0 --level 5 --chunk 4K "${LR_M[@]}"
# 15 s of overlapping writes piles pieces up behind each window (on the
# module before the fix, the stack overflowed within 30 s), then verify
fio --name=pile --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=512 --size=12k --numjobs=4 --iodepth=64 \
	--time_based --runtime=15 --output="$LR_TMP/fio.out" ||
	{ cat "$LR_TMP/fio.out"; lr_fail "fio pile"; }
lr_fio /dev/lraid0 sync --rw=randwrite --bs=512 --size=3k \
	--offset_increment=3k --numjobs=4 --iodepth=32 --loops=100
"$LRAIDCTL" stop lraid0 || lr_fail stop

# race write|check ARGS...: overlap.py on lraid0, state in $LR_TMP/race
race() {
	local op=$1
	shift
	python3 "$(dirname "$0")/overlap.py" "$op" /dev/lraid0 "$LR_TMP/race" \
		"$@" || lr_fail "overlap.py $op ($what)"
}

# Four threads of synchronous writes of 4 KiB to over two stripes, at
# random into a few stripes, so that they race for the same stripes and
# blocks: partial-stripe writes (read-modify-write, reconstruct-write) and
# full ones. Every block must then hold one whole write that covered it:
# read straight, then rebuilt from parity once members failed (a stripe
# whose writes interleaved would have parity that matches neither), then
# after racing writes while degraded. Sizes in KiB.
for cfg in "5 4 16K 512 4,8,12,20,48,100,144" "6 6 64K 1024 4,8,60,64,68,256,520"; do
	read -r level n chunk region sizes <<<"$cfg"
	what="RAID$level on $n null_blk members, chunk $chunk"
	lr_log "$what: racing writes to the same blocks"
	rm -f "$LR_TMP/race"
	# members that take 0.2 ms per request (timer completion), so that
	# the writes stay in flight long enough to meet
	LR_M=()
	for ((i = 0; i < n; i++)); do
		lr_nullb "race$level$i" 16 irqmode=2 completion_nsec=200000
		LR_M+=("$LR_DEV")
	done
	lr_create lraid0 --level "$level" --chunk "$chunk" --assume-clean \
		"${LR_M[@]}"
	race write 0 "$region" 8 100 "$sizes" 1
	race check
	failed=("${LR_M[1]}")
	[ "$level" = 6 ] && failed+=("${LR_M[$((n - 1))]}")
	for d in "${failed[@]}"; do
		"$LRAIDCTL" fail lraid0 "$d" >/dev/null || lr_fail "fail $d"
		lr_noise "$d"
	done
	what="$what, ${#failed[@]} failed"
	race check
	race write 0 "$region" 8 100 "$sizes" 2
	race check
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
echo "PASS: shared stripes"
