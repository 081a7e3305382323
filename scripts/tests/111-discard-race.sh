#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Discards racing writes to the same stripes must leave parity right.
# A read-modify-write reads old data and parity, then writes new ones; a
# full-stripe discard landing between the two would zero the stripe and
# leave the write's parity computed from data that is no longer there.
# lraid orders full-stripe discards against writes to the same stripes.
#
# 1. Deterministic: members are null_blk with every I/O taking 200 ms. A
#    4 KiB write into a full stripe of random data is started; once its
#    reads are in flight on the members, the stripe is discarded. After
#    both, parity on the members must match their data (RAID5, RAID6).
#    Without the ordering the discard zeroes the stripe under the write,
#    whose parity then covers data no longer there: this part fails.
# 2. Stress: fio runs 4 KiB random writes and full-stripe random trims
#    over a few stripes at once; then md, assembled over the same members
#    with --assume-clean, must read the same bytes and its check must
#    report mismatch_cnt 0. Once with real discards
#    (devices_handle_discard_safely=Y, loop punches holes), once with
#    write-zeroes (the default). This part mostly exercises writes parked
#    behind discards and requeued; it caught the unordered code in about
#    half the runs only, part 1 always.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio mdadm python3
lr_setup

param=/sys/module/lraid/parameters/devices_handle_discard_safely
runtime=${LRAID_RACE_SECONDS:-4}
rounds=${LRAID_RACE_ROUNDS:-1}

# round LEVEL CHUNK_K: one race on fresh lraid0 over LR_M, then md's check
round() {
	local level=$1 chunk=$2 ndata sw region sectors sha
	ndata=$((${#LR_M[@]} - level + 4))
	sw=$((ndata * chunk))
	region=$((16 * sw))
	sectors=$((region * 2))

	lr_create lraid0 --level "$level" --chunk "${chunk}K" "${LR_M[@]}"
	[ "$(cat /sys/block/lraid0/queue/discard_max_bytes)" != 0 ] ||
		lr_fail "no discard on lraid0"
	# start from random data, so a stale parity update shows
	fio --name=fill --filename=/dev/lraid0 --direct=1 --rw=write \
		--bs="${sw}k" --size="${region}k" --ioengine=libaio \
		--output="$LR_TMP/fill.out" ||
		{ cat "$LR_TMP/fill.out"; lr_fail "fill"; }
	fio --filename=/dev/lraid0 --direct=1 --size="${region}k" \
		--time_based --runtime="$runtime" --output="$LR_TMP/race.out" \
		--name=write --rw=randwrite --bs=4k --ioengine=libaio \
		--iodepth=32 --numjobs=2 \
		--name=trim --rw=randtrim --bs="${sw}k" --ioengine=sync \
		--numjobs=4 ||
		{ cat "$LR_TMP/race.out"; lr_fail "fio race"; }
	grep -Eq "trim: IOPS=[1-9]" "$LR_TMP/race.out" ||
		{ cat "$LR_TMP/race.out"; lr_fail "no trims ran"; }
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	LR_ARRAYS=()
	lr_md_check "$level" "$chunk" "$sectors" "$sha" "${LR_M[@]}"
}

# race LEVEL N DISCARD_SAFELY: $rounds rounds on N loop members
race() {
	local level=$1 n=$2 _r
	lr_log "RAID$level x$n, devices_handle_discard_safely=$3: $rounds rounds"
	echo "$3" >"$param"
	lr_members loop "$n" 48
	for _r in $(seq "$rounds"); do
		round "$level" 16
	done
}

# ordered LEVEL N: a discard of stripe 0 while a 4 KiB write is reading it
ordered() {
	local level=$1 n=$2 chunk=16 ndata sw i
	ndata=$((n - level + 4))
	sw=$((ndata * chunk))
	lr_log "RAID$level x$n: discard while a 4K write to its stripe reads"
	LR_M=()
	for i in $(seq "$n"); do
		# every I/O completes after 200 ms
		lr_nullb "slow$level$i" 16 irqmode=2 completion_nsec=200000000
		LR_M+=("$LR_DEV")
	done
	lr_create lraid0 --level "$level" --chunk "${chunk}K" "${LR_M[@]}"
	dd if=/dev/urandom of=/dev/lraid0 bs="${sw}K" count=1 oflag=direct \
		status=none || lr_fail "fill stripe 0"
	# Start the write, and discard from the process that watches, the
	# moment a member reads (a new process would start too late in TCG).
	python3 - "$((sw * 1024))" "${LR_M[@]}" <<-'EOF' ||
		import fcntl, os, struct, subprocess, sys, time
		length, members = int(sys.argv[1]), sys.argv[2:]
		stats = ["/sys/block/%s/inflight" % os.path.basename(m) for m in members]
		fd = os.open("/dev/lraid0", os.O_WRONLY)
		dd = subprocess.Popen(["dd", "if=/dev/urandom", "of=/dev/lraid0", "bs=4K",
		                       "count=1", "oflag=direct", "status=none"])
		end = time.monotonic() + 20
		while time.monotonic() < end:
		    if any(int(open(s).read().split()[0]) for s in stats):
		        break
		else:
		    sys.exit("the 4K write read nothing")
		fcntl.ioctl(fd, 0x1277, struct.pack("QQ", 0, length))  # BLKDISCARD
		sys.exit(dd.wait())
	EOF
		lr_fail "4K write and discard"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	LR_ARRAYS=()
	# P of stripe 0 is on the last member, Q (RAID6) on the first
	python3 - "$level" "$((chunk * 1024))" "${LR_M[@]}" <<-'EOF' ||
		import sys
		level, size, members = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
		if level == 6:
		    members = members[1:]
		acc = 0
		for m in members:
		    with open(m, "rb") as f:
		        f.seek(2048 * 512)
		        acc ^= int.from_bytes(f.read(size), "little")
		sys.exit(1 if acc else 0)
	EOF
		lr_fail "stripe 0: P does not match the data after the discard"
}

echo Y >"$param"
ordered 5 4
ordered 6 5
race 5 4 Y
race 6 5 N

echo "PASS"
