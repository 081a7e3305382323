#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make bench-quick` (run through scripts/vm-run by
# scripts/bench-quick.sh): on one set of preconditioned memory-backed
# null_blk members, run the same fio jobs on
#   raw   the members themselves (the ceiling),
#   md    mdadm RAID5/RAID6 over them,
#   lraid lraidctl RAID5/RAID6 over them,
# and leave one fio JSON file per run in OUT/fio/ plus a log of every step
# in OUT/steps.log (OK/FAIL lines read by scripts/bench/report.py).
#
# usage: guest.sh OUT     (settings come from BENCH_* in the environment)
set -uo pipefail

out=${1:?usage: guest.sh OUTDIR}
top=${LRAID_ROOT:?run me through scripts/vm-run}
here=$top/scripts/bench
lraidctl=${LRAIDCTL:-$top/tools/lraidctl}
ko=${LRAID_KO:-${LRAID_KDIR:?}/module/lraid.ko}

levels=${BENCH_LEVELS:-5 6}
n5=${BENCH_R5_MEMBERS:-4}
n6=${BENCH_R6_MEMBERS:-6}
size_mb=${BENCH_MEMBER_MB:-512}
bsz=${BENCH_BLOCKSIZE:-4096}
chunk_k=${BENCH_CHUNK_K:-64}
export RUNTIME=${BENCH_RUNTIME:-8} RAMP=${BENCH_RAMP:-2}
export ENGINE=${BENCH_ENGINE:-libaio}
md_threads=${BENCH_MD_THREADS:-0}
iostats=${BENCH_IOSTATS:-1}
# none, or internal: both md and lraid with a write-intent bitmap of
# BENCH_BITMAP_CHUNK (64M, md's and lraid's default) per bit
bitmap=${BENCH_BITMAP:-none}
bitmap_opts=(--bitmap="$bitmap")
[ "$bitmap" = none ] || bitmap_opts+=(--bitmap-chunk="${BENCH_BITMAP_CHUNK:-64M}")
# Each level runs raw, md, lraid this many times in turn; the report takes
# the best of the rounds (other load on the host only ever slows a run).
rounds=${BENCH_ROUNDS:-2}
jobs=(randread randwrite seqwrite)
# A run that takes longer than this is stuck (lraid under development).
fio_limit=$((RUNTIME + RAMP + 90))

mkdir -p "$out/fio"
log=$out/steps.log
: >"$log"
nullbs=()
md=/dev/md127
lraid_ok=1

say() {
	echo "== $*"
}

# step RESULT NAME [detail]: one machine-readable line per measured step
step() {
	printf '%s %s %s\n' "$1" "$2" "${3:-}" >>"$log"
	[ "$1" = OK ] || echo "   $1 $2 ${3:-}"
}

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local d
	set +e
	[ -e /dev/lraid0 ] && timeout 60 "$lraidctl" stop lraid0 >/dev/null 2>&1
	[ -e "$md" ] && mdadm --stop "$md" >/dev/null 2>&1
	for d in "${nullbs[@]}"; do
		echo 0 >"/sys/kernel/config/nullb/$d/power" 2>/dev/null
		rmdir "/sys/kernel/config/nullb/$d" 2>/dev/null
	done
	grep -q '^lraid ' /proc/modules && rmmod lraid 2>/dev/null
	return 0
}
trap cleanup EXIT

# fio_run NAME JOB DEVS...: one job from common.fio, JSON to $out/fio/NAME.json
fio_run() {
	local name=$1 job=$2 devs rc
	shift 2
	devs=$(
		IFS=:
		echo "$*"
	)
	case $job in
	randread) RW=randread BS=4k ;;
	randwrite) RW=randwrite BS=4k ;;
	randrw) RW=randrw BS=4k ;;
	seqwrite) RW=write BS=1M ;;
	esac
	export RW BS DEVS=$devs
	timeout -k 10 "$fio_limit" fio --output-format=json \
		--output="$out/fio/$name.json" "$here/common.fio" \
		>"$out/fio/$name.err" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		step FAIL "$name" "fio exit $rc: $(tr '\n' ' ' <"$out/fio/$name.err" | cut -c1-200)"
		# what a killed or failing fio wrote is no result: out of
		# report.py's way (it reads NAME-ROUND.json)
		[ -e "$out/fio/$name.json" ] &&
			mv "$out/fio/$name.json" "$out/fio/$name.json.failed"
		return 1
	fi
	[ -s "$out/fio/$name.err" ] || rm -f "$out/fio/$name.err"
	step OK "$name"
	# read IOPS, write IOPS, write MB/s (python is slow to start under TCG)
	awk -F: '/"iops" :/ { v[++n] = $2 + 0 }
		/"bw_bytes" :/ { b[++m] = $2 + 0 }
		END { printf "   %s:", name
			if (v[1]) printf " read %.0f IOPS %.0f MB/s", v[1], b[1] / 1e6
			if (v[2]) printf " write %.0f IOPS %.0f MB/s", v[2], b[2] / 1e6
			printf "\n" }' name="$name" "$out/fio/$name.json"
}

nullb_make() {
	local name=$1 d=/sys/kernel/config/nullb/$1 i
	mkdir "$d" || return 1
	nullbs+=("$name")
	echo "$size_mb" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo "$bsz" >"$d/blocksize"
	# One hardware queue per vCPU, as a real multi-queue device has.
	[ -e "$d/submit_queues" ] && nproc >"$d/submit_queues"
	echo 1 >"$d/power"
	for i in $(seq 50); do
		[ -b "/dev/$name" ] && return 0
		sleep 0.1
	done
	return 1
}

# Write every block once, so reads find allocated pages, then the
# superblock areas stay written too (zeroes, parity-consistent).
precondition() {
	local m
	for m in "$@"; do
		dd if=/dev/zero of="$m" bs=1M count="$size_mb" oflag=direct status=none ||
			{ echo "precondition $m failed"; return 1; }
	done
}

members_for() {
	local n=$1 i
	for ((i = 0; i < n; i++)); do printf '/dev/%s ' "${nullbs[$i]}"; done
}

bench_raw() {
	local level=$1 k=$2 m=("${@:3}") n=$(($# - 2))
	say "RAID$level raw ceiling on $n members, round $round"
	fio_run "r$level-raw-randread-$round" randread "${m[@]}"
	fio_run "r$level-raw-randrw-$round" randrw "${m[@]}"
	# 1M sequential: what the data members can absorb.
	fio_run "r$level-raw-seqwrite-$round" seqwrite "${m[@]:0:$((n - k))}"
}

bench_md() {
	local level=$1 m=("${@:2}") j
	say "RAID$level md, round $round"
	if ! mdadm --create "$md" --run --quiet --level="$level" \
		--chunk="$chunk_k" --metadata=1.2 --assume-clean "${bitmap_opts[@]}" \
		--raid-devices=${#m[@]} "${m[@]}" >"$out/md$level.err" 2>&1; then
		step FAIL "r$level-md-create" "$(tr '\n' ' ' <"$out/md$level.err")"
		return 1
	fi
	udevadm settle 2>/dev/null
	local dev=$md sys=/sys/block/${md#/dev/}/md
	# --assume-clean: nothing to resync; anything running would cost md
	if [ "$(cat "$sys/sync_action")" != idle ]; then
		step FAIL "r$level-md-create" "sync_action $(cat "$sys/sync_action") after --assume-clean"
		mdadm --stop "$md" >/dev/null 2>&1
		mdadm --zero-superblock "${m[@]}"
		return 1
	fi
	[ "$md_threads" != 0 ] && echo "$md_threads" >"$sys/group_thread_cnt"
	echo "$iostats" >"/sys/block/${md#/dev/}/queue/iostats"
	echo "   $dev: $(cat "$sys/level") chunk $(cat "$sys/chunk_size") stripe_cache $(cat "$sys/stripe_cache_size") group_thread_cnt $(cat "$sys/group_thread_cnt") sync $(cat "$sys/sync_action") iostats $(cat "/sys/block/${md#/dev/}/queue/iostats")"
	for j in "${jobs[@]}"; do
		fio_run "r$level-md-$j-$round" "$j" "$dev"
	done
	mdadm --stop "$md" >/dev/null 2>&1
	mdadm --zero-superblock "${m[@]}"
}

bench_lraid() {
	local level=$1 m=("${@:2}") j x
	say "RAID$level lraid, round $round"
	if [ "$lraid_ok" != 1 ]; then
		step FAIL "r$level-lraid" "skipped: lraid is not usable in this boot"
		return 1
	fi
	if ! timeout 60 "$lraidctl" create lraid0 --run --level "$level" \
		--chunk "${chunk_k}K" --assume-clean "${bitmap_opts[@]}" "${m[@]}" \
		>"$out/lraid$level.err" 2>&1; then
		step FAIL "r$level-lraid-create" "$(tr '\n' ' ' <"$out/lraid$level.err")"
		return 1
	fi
	udevadm settle 2>/dev/null
	for x in $(seq 50); do
		[ -b /dev/lraid0 ] && break
		sleep 0.1
	done
	echo "$iostats" >/sys/block/lraid0/queue/iostats
	echo "   /dev/lraid0: iostats $(cat /sys/block/lraid0/queue/iostats)"
	for j in "${jobs[@]}"; do
		fio_run "r$level-lraid-$j-$round" "$j" /dev/lraid0 ||
			dmesg | tail -20 >"$out/fio/r$level-lraid-$j-$round.dmesg"
	done
	if ! timeout 60 "$lraidctl" stop lraid0 >"$out/lraid$level.err" 2>&1; then
		step FAIL "r$level-lraid-stop" "$(tr '\n' ' ' <"$out/lraid$level.err")"
		lraid_ok=0
		return 1
	fi
	# Forget lraid's superblocks: the members stay written (zeroes).
	for x in "${m[@]}"; do
		dd if=/dev/zero of="$x" bs=1M count=1 oflag=direct status=none
	done
}

# ---- setup ----
for c in fio mdadm python3; do
	command -v "$c" >/dev/null || { echo "bench: $c not installed"; exit 1; }
done
{
	echo "kernel=$(uname -r)"
	echo "cpus=$(nproc)"
	echo "mem_kb=$(awk '/MemTotal/ {print $2}' /proc/meminfo)"
	echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "members_mb=$size_mb"
	echo "blocksize=$bsz"
	echo "chunk_k=$chunk_k"
	echo "runtime=$RUNTIME"
	echo "ramp=$RAMP"
	echo "engine=$ENGINE"
	echo "md_group_thread_cnt=$md_threads"
	echo "iostats=$iostats"
	echo "rounds=$rounds"
	echo "lraid_params=${BENCH_LRAID_PARAMS:-}"
	echo "bitmap=${bitmap_opts[*]}"
	echo "fio=$(fio --version)"
	echo "mdadm=$(mdadm --version 2>&1)"
} >"$out/env.txt"

modprobe -q null_blk nr_devices=0 || { echo "bench: no null_blk"; exit 1; }
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# md's parity code (raid6_pq, xor) benchmarks itself at load: keep its lines.
modprobe -q raid456
pre=
[ -e /dev/lraid-control ] && pre=" (not loaded by bench: lraid was loaded before)"
if [ -e /dev/lraid-control ] || {
	modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c 2>/dev/null
	# shellcheck disable=SC2086 # BENCH_LRAID_PARAMS is a list of key=value
	insmod "$ko" ${BENCH_LRAID_PARAMS:-} >"$out/insmod.err" 2>&1
}; then
	:
else
	lraid_ok=0
	step FAIL lraid-load "insmod $ko: $(cat "$out/insmod.err")"
fi
# which lraid.ko was measured (the host's lraid_commit names the tree)
if [ "$lraid_ok" = 1 ]; then
	echo "lraid_ko_sha256=$(sha256sum <"$ko" | cut -d' ' -f1)$pre" >>"$out/env.txt"
fi
dmesg | grep -E 'raid6: |xor: |lraid: ' >"$out/parity.txt"
say "parity in this guest (kernel self-tests at load)"
sed 's/^/   /' "$out/parity.txt"

nmax=0
for level in $levels; do
	n=$n5
	[ "$level" = 6 ] && n=$n6
	[ "$n" -gt "$nmax" ] && nmax=$n
done
say "making $nmax null_blk members of $size_mb MiB, block size $bsz"
for ((i = 0; i < nmax; i++)); do
	nullb_make "lrbench$i" || { echo "bench: null_blk lrbench$i failed"; exit 1; }
done
say "preconditioning (writing every member once)"
t0=$(date +%s)
# shellcheck disable=SC2046 # word splitting of the member list is wanted
precondition $(members_for "$nmax") || exit 1
echo "   done in $(($(date +%s) - t0)) s"

# ---- per level: raw, md, lraid on the same members ----
for level in $levels; do
	n=$n5
	k=1
	[ "$level" = 6 ] && n=$n6 && k=2
	# shellcheck disable=SC2207 # device names have no spaces
	m=($(members_for "$n"))
	echo "r${level}_members=$n" >>"$out/env.txt"
	for ((round = 1; round <= rounds; round++)); do
		bench_raw "$level" "$k" "${m[@]}"
		bench_md "$level" "${m[@]}"
		bench_lraid "$level" "${m[@]}"
	done
done
dmesg >"$out/dmesg.txt"
exit 0
