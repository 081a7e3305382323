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

read -r -a create_a <<<"${AB_CREATE_A:-}"
read -r -a create_b <<<"${AB_CREATE_B:-}"

# run TAG KO LEVEL [PARAM=VALUE...]: prints and records the IOPS of one
# fio run, the module loaded with the given parameters, the array created
# with TAG's create options
run() {
	local tag=$1 ko=$2 level=$3 n=4 m=() i out rc err iops mib span opts
	[ "$level" = 6 ] && n=6
	for ((i = 0; i < n; i++)); do m+=("/dev/nullb$i"); done
	if [ "$tag" = A ]; then opts=("${create_a[@]}"); else opts=("${create_b[@]}"); fi
	insmod "$ko" "${@:4}" || { echo "ab: insmod $ko ${*:4} failed"; exit 1; }
	if ! "$lraidctl" create lraid0 --run --level "$level" --chunk 64K \
		--assume-clean "${opts[@]}" "${m[@]}" >/dev/null; then
		rmmod lraid
		echo "ab: create failed"
		exit 1
	fi
	udevadm settle 2>/dev/null
	# sequential: each job its own 128 MiB, as bench-quick's halves
	case $rw in
	read | write) span=(--size=128M --offset_increment=128M) ;;
	*) span=(--size=256M) ;;
	esac
	out=$(fio --name=ab --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--iodepth=32 --numjobs=2 --group_reporting --rw="$rw" --bs="$bs" \
		"${span[@]}" --time_based --runtime="$runtime" --ramp_time=2 \
		--norandommap --randrepeat=0 --output-format=terse \
		--terse-version=3)
	rc=$?
	# terse v3: 5 error, 7/48 read/write KiB/s, 8/49 read/write IOPS
	read -r err iops mib <<<"$(awk -F';' 'NR == 1 {
		printf "%s %.0f %.1f\n", $5, $8 + $49, ($7 + $48) / 1024 }' <<<"$out")"
	if [ "$rc" != 0 ] || [ "${err:-x}" != 0 ] || [ "$iops" -le 0 ]; then
		echo "ab: fio on $tag RAID$level failed (exit $rc, error ${err:-?})"
		exit 1
	fi
	"$lraidctl" stop lraid0 >/dev/null || { echo "ab: stop failed"; exit 1; }
	rmmod lraid || { echo "ab: rmmod failed"; exit 1; }
	echo "$tag RAID$level $rw $bs: $iops IOPS, $mib MiB/s"
	echo "$tag $level $iops $mib" >>"$results"
}

read -r -a params_a <<<"${AB_PARAMS_A:-}"
read -r -a params_b <<<"${AB_PARAMS_B:-}"
echo "A: $ko_a ${params_a[*]} ${create_a[*]}"
echo "B: $ko_b ${params_b[*]} ${create_b[*]}"
# A first in odd rounds, B first in even ones: drift within the boot
# does not favour either
for ((r = 1; r <= rounds; r++)); do
	for level in "${levels[@]}"; do
		if ((r % 2)); then
			run A "$ko_a" "$level" "${params_a[@]}"
			run B "$ko_b" "$level" "${params_b[@]}"
		else
			run B "$ko_b" "$level" "${params_b[@]}"
			run A "$ko_a" "$level" "${params_a[@]}"
		fi
	done
done
awk '{ s[$1 " " $2] += $3; m[$1 " " $2] += $4; n[$1 " " $2]++ }
	END {
		for (k in s) if (k ~ /^A /) {
			split(k, f, " ")
			a = s[k] / n[k]; bk = "B " f[2]; b = s[bk] / n[bk]
			printf "RAID%s mean: A %.0f IOPS %.1f MiB/s  B %.0f IOPS %.1f MiB/s  B/A %.4f\n",
				f[2], a, m[k] / n[k], b, m[bk] / n[bk], b / a
		}
	}' "$results" | sort
rm -f "$results"
