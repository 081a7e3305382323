#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What stable writes cost a buffered writer: ext4 on lraid RAID5 x4
# (chunk 64K, memory-backed null_blk members), mounted with the array's
# queue/stable_writes at 1 and then at 0 (a file system takes the flag at
# mount), background writeback kept running (dirty_background_bytes
# 256 KiB, writeback every 50 ms). fio rewrites 4 KiB blocks of an 8 MiB
# file: buffered (write(2)), buffered with fdatasync every 16 writes, and
# through mmap. With stable writes a write to a page under writeback waits
# for that write to finish. lraid copies every write either way (an array
# started with copy_writes=Y), so only the wait differs.
#
# Run in a guest, from the repository root:
#   LRAID_VM_QEMU_OPTS="-icount shift=2,sleep=on" scripts/vm-run --mem 3G \
#     -- env LRAIDCTL=$PWD/tools/lraidctl \
#     LRAID_KO=$PWD/build/stock-6.12/module/lraid.ko \
#     scripts/bench/stable-writes.sh [ROUNDS [default]]
# "default" leaves the kernel's dirty limits and writeback interval as
# they are (nothing of so small a file is written back during a run).
set -euo pipefail

lraidctl=${LRAIDCTL:?}
ko=${LRAID_KO:?}
rounds=${1:-2}
writeback=${2:-running}
mnt=$(mktemp -d)

cleanup() {
	umount "$mnt" 2>/dev/null || true
	"$lraidctl" stop lraid0 >/dev/null 2>&1 || true
	rmmod lraid 2>/dev/null || true
	rmdir "$mnt"
}
trap cleanup EXIT

modprobe null_blk nr_devices=4 gb=1 memory_backed=1 bs=4096
for i in 0 1 2 3; do
	dd if=/dev/zero of=/dev/nullb$i bs=1M count=400 oflag=direct status=none
done
modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c 2>/dev/null || true
insmod "$ko" copy_writes=Y
"$lraidctl" create lraid0 --run --level 5 --chunk 64K --assume-clean \
	/dev/nullb0 /dev/nullb1 /dev/nullb2 /dev/nullb3 >/dev/null
udevadm settle 2>/dev/null || true
# inode tables and journal written now, not by a thread during the runs
mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/lraid0
if [ "$writeback" != default ]; then
	sysctl -q vm.dirty_background_bytes=262144 \
		vm.dirty_writeback_centisecs=5 vm.dirty_expire_centisecs=5
fi

# job TAG FIO-OPTION...: one 10 s run, its write IOPS, mean and p99
# completion latency
job() {
	local tag=$1
	shift
	fio --name=stable --filename="$mnt/f" --size=8M --rw=randwrite --bs=4k \
		--ioengine=psync --direct=0 --time_based --runtime=10 \
		--ramp_time=2 "$@" --output-format=json |
		python3 -c '
import json, sys
w = json.load(sys.stdin)["jobs"][0]["write"]
c = w["clat_ns"]
print("%-34s IOPS %7.0f  clat mean %7.1f us  p99 %8.1f us" %
      (sys.argv[1], w["iops"], c["mean"] / 1e3,
       c["percentile"]["99.000000"] / 1e3))' "$tag"
}

for ((r = 1; r <= rounds; r++)); do
	for st in 1 0; do
		echo "$st" >/sys/block/lraid0/queue/stable_writes
		mount /dev/lraid0 "$mnt"
		job "round $r stable_writes=$st buffered"
		job "round $r stable_writes=$st fdatasync/16" --fdatasync=16
		job "round $r stable_writes=$st mmap" --ioengine=mmap
		umount "$mnt"
	done
done
