#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Where the guest's CPU goes during one bench-quick job: system-wide
# perf profile (cpu-clock, call graphs) of md or lraid on null_blk members.
#
#   scripts/vm-run --mem 3G -- scripts/bench/profile.sh lraid|md 5|6 JOB [N]
#     JOB: randread | randwrite | seqwrite (as in bench-quick), N members
#     LRAID_PARAMS="parity=avx2" in the environment: lraid.ko parameters
#
# Prints the hottest symbols (self time) and keeps perf.data under
# results/profile-*/.
set -euo pipefail

what=${1:?usage: profile.sh lraid|md LEVEL JOB [MEMBERS]}
level=${2:?}
job=${3:?}
n=${4:-$([ "$level" = 6 ] && echo 6 || echo 4)}
top=${LRAID_ROOT:?run me through scripts/vm-run}
lraidctl=$top/tools/lraidctl
out=$top/results/profile-$what-r$level-$job-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
nullbs=()

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local d
	set +e
	[ -e /dev/lraid0 ] && "$lraidctl" stop lraid0 >/dev/null 2>&1
	[ -e /dev/md127 ] && mdadm --stop /dev/md127 >/dev/null 2>&1
	for d in "${nullbs[@]}"; do
		echo 0 >"/sys/kernel/config/nullb/$d/power"
		rmdir "/sys/kernel/config/nullb/$d"
	done
	return 0
}
trap cleanup EXIT

command -v perf >/dev/null || { echo "SKIP: perf not installed"; exit 77; }
# Kernel symbols for perf.
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
modprobe -q null_blk nr_devices=0
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
m=()
for ((i = 0; i < n; i++)); do
	d=/sys/kernel/config/nullb/lrprof$i
	mkdir "$d"
	nullbs+=("lrprof$i")
	echo 256 >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 4096 >"$d/blocksize"
	nproc >"$d/submit_queues"
	echo 1 >"$d/power"
	sleep 0.2
	dd if=/dev/zero of="/dev/lrprof$i" bs=1M count=256 oflag=direct status=none
	m+=("/dev/lrprof$i")
done
if [ "$what" = md ]; then
	modprobe -q raid456
	mdadm --create /dev/md127 --run --quiet --level="$level" --chunk=64 \
		--metadata=1.2 --assume-clean --bitmap=none \
		--raid-devices="$n" "${m[@]}"
	dev=/dev/md127
else
	if [ ! -e /dev/lraid-control ]; then
		modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c
		# shellcheck disable=SC2086 # a list of key=value
		insmod "${LRAID_KDIR:?}/module/lraid.ko" ${LRAID_PARAMS:-}
	fi
	"$lraidctl" create lraid0 --level "$level" --chunk 64K --assume-clean "${m[@]}" >/dev/null
	dev=/dev/lraid0
	dmesg | grep 'lraid: parity'
	sleep 0.5
fi
case $job in
randread) RW=randread BS=4k ;;
randwrite) RW=randwrite BS=4k ;;
seqwrite) RW=write BS=1M ;;
*) echo "unknown job $job"; exit 2 ;;
esac
export RW BS DEVS=$dev RUNTIME=12 RAMP=2 ENGINE=libaio
fio --output="$out/fio.txt" "$top/scripts/bench/common.fio" &
fiopid=$!
sleep 4
perf record -q -a -g -F 499 -o "$out/perf.data" -- sleep 6 2>/dev/null
wait "$fiopid"
grep -E 'IOPS|BW' "$out/fio.txt" | head -2
# Idle time (swapper) says how much of the guest waited rather than worked.
perf report -q -i "$out/perf.data" --no-children --sort comm \
	-g none 2>/dev/null | head -12 | tee "$out/comm.txt"
perf report -q -i "$out/perf.data" --no-children --sort comm,sym \
	--percent-limit 0.7 -g none 2>/dev/null | grep -v swapper |
	head -40 | tee "$out/top.txt"
if [ "$what" = lraid ]; then
	"$lraidctl" stop lraid0
	for x in "${m[@]}"; do
		dd if=/dev/zero of="$x" bs=1M count=1 oflag=direct status=none
	done
fi
echo "profile in $out"
