#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/bench-ab.sh: A.ko and B.ko in turn over the same
# null_blk members. Settings come from AB_* in the environment.
set -uo pipefail

ko_a=${1:?usage: ab-guest.sh A.ko B.ko}
ko_b=${2:?usage: ab-guest.sh A.ko B.ko}
lraidctl=${LRAIDCTL:?}
read -r -a levels <<<"${AB_LEVELS:-5 6}"
rw=${AB_RW:-randwrite}
bs=${AB_BS:-4k}
rounds=${AB_ROUNDS:-2}
runtime=${AB_RUNTIME:-12}
results=$(mktemp)

# shellcheck disable=SC2086 # AB_NULLB is a list of key=value options
modprobe null_blk nr_devices=6 gb=1 memory_backed=1 bs=4096 ${AB_NULLB:-} ||
	{ echo "ab: no null_blk"; exit 1; }
modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c 2>/dev/null
# Memory-backed null_blk allocates on first write: fill what fio touches.
for i in 0 1 2 3 4 5; do
	dd if=/dev/zero of=/dev/nullb$i bs=1M count=300 oflag=direct status=none
done

# run TAG KO LEVEL [PARAM=VALUE...]: prints and records the IOPS of one
# fio run, the module loaded with the given parameters
run() {
	local tag=$1 ko=$2 level=$3 n=4 m=() i iops
	[ "$level" = 6 ] && n=6
	for ((i = 0; i < n; i++)); do m+=("/dev/nullb$i"); done
	insmod "$ko" "${@:4}" || { echo "ab: insmod $ko ${*:4} failed"; exit 1; }
	if ! "$lraidctl" create lraid0 --run --level "$level" --chunk 64K \
		--assume-clean "${m[@]}" >/dev/null; then
		rmmod lraid
		echo "ab: create failed"
		exit 1
	fi
	udevadm settle 2>/dev/null
	iops=$(fio --name=ab --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--iodepth=32 --numjobs=2 --group_reporting --rw="$rw" --bs="$bs" \
		--size=256M --time_based --runtime="$runtime" --ramp_time=2 \
		--norandommap --randrepeat=0 --output-format=terse \
		--terse-version=3 | awk -F';' '{ print $8 + $49 }')
	"$lraidctl" stop lraid0 >/dev/null || { echo "ab: stop failed"; exit 1; }
	rmmod lraid || { echo "ab: rmmod failed"; exit 1; }
	echo "$tag RAID$level $rw $bs: $iops IOPS"
	echo "$tag $level $iops" >>"$results"
}

read -r -a params_a <<<"${AB_PARAMS_A:-}"
read -r -a params_b <<<"${AB_PARAMS_B:-}"
echo "A: $ko_a ${params_a[*]}"
echo "B: $ko_b ${params_b[*]}"
for ((r = 1; r <= rounds; r++)); do
	for level in "${levels[@]}"; do
		run A "$ko_a" "$level" "${params_a[@]}"
		run B "$ko_b" "$level" "${params_b[@]}"
	done
done
awk '{ s[$1 " " $2] += $3; n[$1 " " $2]++ }
	END {
		for (k in s) if (k ~ /^A /) {
			split(k, f, " ")
			a = s[k] / n[k]; bk = "B " f[2]; b = s[bk] / n[bk]
			printf "RAID%s mean: A %.0f  B %.0f  B/A %.4f\n", f[2], a, b, b / a
		}
	}' "$results" | sort
rm -f "$results"
