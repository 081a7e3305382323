#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How long md and lraid take to rebuild one member onto an added device,
# on the same memory-backed null_blk members in one boot: RAID5 x4 and
# RAID6 x6, chunk 64K, members of SIZE_MB (default 512), every member
# written end to end first. md: mdadm --create --assume-clean
# --bitmap=none, --fail and --remove one member, --add a blank device,
# wait for the recovery to end. lraid: create --assume-clean, fail,
# add, wait. Each rebuilds the member's whole data area (md's
# component_size, lraid's), whose size over the time is the rate. Both with their speed limits raised out of the way
# (speed_limit_min/max 1000000 KiB/s), the array idle otherwise. Prints
# seconds, MiB of member rebuilt per second, and lraid/md of the rates.
#
# Run in a guest, from the repository root:
#   scripts/vm-run --mem 4G -- env LRAIDCTL=$PWD/tools/lraidctl \
#     LRAID_KO=$PWD/build/stock-6.12/module/lraid.ko \
#     scripts/bench/rebuild.sh [SIZE_MB]
set -euo pipefail

lraidctl=${LRAIDCTL:?}
ko=${LRAID_KO:?}
mb=${1:-512}

cleanup() {
	"$lraidctl" stop lraid0 >/dev/null 2>&1 || true
	mdadm --stop /dev/md0 >/dev/null 2>&1 || true
	rmmod lraid 2>/dev/null || true
}
trap cleanup EXIT

modprobe null_blk nr_devices=0
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
for i in $(seq 0 6); do
	d=/sys/kernel/config/nullb/nullb$i
	mkdir "$d"
	echo "$mb" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 4096 >"$d/blocksize"
	echo 1 >"$d/power"
done
modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c 2>/dev/null || true
insmod "$ko"
modprobe -q raid456
echo 1000000 >/proc/sys/dev/raid/speed_limit_max
echo 1000000 >/proc/sys/dev/raid/speed_limit_min
echo 1000000 >/sys/module/lraid/parameters/speed_limit_max
echo 1000000 >/sys/module/lraid/parameters/speed_limit_min
udevadm settle 2>/dev/null || true
for i in $(seq 0 6); do
	dd if=/dev/zero of="/dev/nullb$i" bs=1M count="$mb" oflag=direct \
		status=none
done

# now: seconds since the epoch, to the microsecond
now() { echo "$EPOCHREALTIME"; }

# md_time LEVEL N: seconds md takes to recover one member, and its
# size in KiB
md_time() {
	local level=$1 n=$2 devs=() t0 t1 i
	for ((i = 0; i < n; i++)); do devs+=("/dev/nullb$i"); done
	mdadm --create /dev/md0 --run --quiet --level="$level" --chunk=64 \
		--raid-devices="$n" --metadata=1.2 --assume-clean \
		--bitmap=none "${devs[@]}" >/dev/null 2>&1
	mdadm /dev/md0 --fail /dev/nullb1 --remove /dev/nullb1 >/dev/null 2>&1
	mdadm --zero-superblock /dev/nullb6 >/dev/null 2>&1 || true
	t0=$(now)
	mdadm /dev/md0 --add /dev/nullb6 >/dev/null 2>&1
	sleep 0.2
	while grep -qE 'recovery|resync' /proc/mdstat; do sleep 0.1; done
	t1=$(now)
	size=$(cat /sys/block/md0/md/component_size)
	mdadm --stop /dev/md0 >/dev/null 2>&1
	for i in 0 1 2 3 4 5 6; do
		mdadm --zero-superblock "/dev/nullb$i" >/dev/null 2>&1 || true
	done
	echo "$(echo "$t1 - $t0" | bc -l) $size"
}

# lraid_time LEVEL N: the same for lraid
lraid_time() {
	local level=$1 n=$2 devs=() t0 t1 i a=/sys/block/lraid0/lraid
	for ((i = 0; i < n; i++)); do devs+=("/dev/nullb$i"); done
	"$lraidctl" create --run --assume-clean lraid0 --level "$level" \
		--chunk 64K "${devs[@]}" >/dev/null 2>&1
	"$lraidctl" fail lraid0 /dev/nullb1 >/dev/null
	t0=$(now)
	"$lraidctl" add lraid0 /dev/nullb6 >/dev/null 2>&1
	while [ "$(cat "$a/sync_action")" != idle ]; do sleep 0.1; done
	t1=$(now)
	[ "$(cat "$a/degraded")" = 0 ] || {
		echo "lraid rebuild failed" >&2
		exit 1
	}
	size=$(cat "$a/component_size")
	"$lraidctl" stop lraid0 >/dev/null
	echo "$(echo "$t1 - $t0" | bc -l) $size"
}

printf '%-9s %9s %9s %10s %10s %9s\n' level "md s" "lraid s" "md MiB/s" \
	"lraid MiB/s" lraid/md
for spec in "5 4" "6 6"; do
	read -r level n <<<"$spec"
	read -r m mk < <(md_time "$level" "$n")
	read -r l lk < <(lraid_time "$level" "$n")
	mr=$(echo "$mk / 1024 / $m" | bc -l)
	lr=$(echo "$lk / 1024 / $l" | bc -l)
	printf '%-9s %9.2f %9.2f %10.0f %10.0f %9.2f\n' "RAID$level x$n" \
		"$m" "$l" "$mr" "$lr" "$(echo "$lr / $mr" | bc -l)"
done
