#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench-quick: md vs lraid vs the raw members, in one QEMU boot.
#
# usage: scripts/bench-quick.sh [options]
#   --cpus N         guest vCPUs (default 2; 8 for the over-committed run)
#   --mem SIZE       guest memory (default 5G; members live in it)
#   --kernel K       stock-6.12 (default), stock-6.1, test (see vm-run)
#   --levels "5 6"   RAID levels to measure (default both)
#   --members5 N     RAID5 members (default 4)   --members6 N  RAID6 (default 6)
#   --size MB        each null_blk member (default 512)
#   --runtime S      seconds per fio run (default 8), --ramp S (default 2)
#   --rounds N       raw, md, lraid N times in turn, best kept (default 2)
#   --md-threads N   md's group_thread_cnt (default 0, md's default)
#   --iostats 0|1    queue/iostats of both md and lraid (default 1, both
#                    drivers' default: they count I/O for iostat)
#   --lraid-params P lraid.ko parameters, e.g. "parity=avx2"
#   --engine E       fio ioengine: libaio (default) or io_uring
#   --bitmap B       none (default) or internal: md and lraid both with a
#                    write-intent bitmap, 64M a bit (--bitmap-chunk SIZE)
#   --icount         clock the guest by instructions executed (QEMU -icount):
#                    ratios then measure CPU cost per I/O and do not depend
#                    on other load on the host (TCG only, one host thread)
#   --no-build       use the lraid.ko and lraidctl already built
#
# Results: a table on stdout, and results/bench-<time>-<N>cpu/ with
# table.txt, results.csv, results.json, env.txt and each fio JSON output.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cpus=2
mem=5G
kernel=stock-6.12
build=1
levels="5 6"
benv=()
icount=
cmdline=$(printf '%q ' "$0" "$@")

usage() {
	sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--kernel) kernel=$2; shift 2 ;;
	--levels) levels=$2; shift 2 ;;
	--members5) benv+=("BENCH_R5_MEMBERS=$2"); shift 2 ;;
	--members6) benv+=("BENCH_R6_MEMBERS=$2"); shift 2 ;;
	--size) benv+=("BENCH_MEMBER_MB=$2"); shift 2 ;;
	--runtime) benv+=("BENCH_RUNTIME=$2"); shift 2 ;;
	--ramp) benv+=("BENCH_RAMP=$2"); shift 2 ;;
	--rounds) benv+=("BENCH_ROUNDS=$2"); shift 2 ;;
	--lraid-params) benv+=("BENCH_LRAID_PARAMS=$2"); shift 2 ;;
	--md-threads) benv+=("BENCH_MD_THREADS=$2"); shift 2 ;;
	--iostats) benv+=("BENCH_IOSTATS=$2"); shift 2 ;;
	--engine) benv+=("BENCH_ENGINE=$2"); shift 2 ;;
	--bitmap) benv+=("BENCH_BITMAP=$2"); shift 2 ;;
	--bitmap-chunk) benv+=("BENCH_BITMAP_CHUNK=$2"); shift 2 ;;
	--icount) icount="-icount shift=2,sleep=on"; shift ;;
	--no-build) build=0; shift ;;
	-h | --help) usage 0 ;;
	*) echo "bench-quick: unknown option $1" >&2; usage 2 ;;
	esac
done

cd "$top"
if [ "$build" = 1 ]; then
	# an older lraid.ko would be measured as the tree's: stop
	scripts/build-for "$kernel" >/dev/null || {
		echo "bench-quick: building lraid for $kernel failed" >&2
		exit 1
	}
	make -s -C tools >/dev/null || {
		echo "bench-quick: building lraidctl failed" >&2
		exit 1
	}
fi

out=results/bench-$(date -u +%Y%m%d-%H%M%S)-${cpus}cpu${icount:+-icount}
mkdir -p "$out"
{
	echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	echo "host_cores=$(nproc)"
	echo "host_load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "lraid_commit=$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- module 2>/dev/null || echo +dirty)"
	echo "command=${cmdline% }"
	[ "$build" = 1 ] || echo "module=as built before (--no-build): the guest's env.txt has the sha256 of the lraid.ko it loaded (lraid_ko_sha256)"
	echo "qemu_clock=${icount:-host time}"
} >"$out/host.txt"
start=$(date +%s)
# Other work on the host slows the guest: keep its load next to the numbers.
while sleep 15; do cut -d' ' -f1 /proc/loadavg; done >"$out/host-load.txt" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || :' EXIT
set +e
# Guest paths are host paths: the repository is shared read-write.
# The guest does not inherit this environment: settings go on its command.
LRAID_VM_TIMEOUT=${LRAID_VM_TIMEOUT:-0} LRAID_VM_QEMU_OPTS=$icount \
	LRAID_VM_TCG_THREAD=multi scripts/vm-run --kernel "$kernel" --cpus "$cpus" --mem "$mem" -- \
	env BENCH_LEVELS="$levels" "${benv[@]}" scripts/bench/guest.sh "$top/$out"
rc=$?
set -e
kill "$sampler" 2>/dev/null || true
{
	echo "host_load_during=$(awk '{ s += $1; if ($1 > x) x = $1 } END { if (NR) printf "mean %.1f max %.1f", s / NR, x }' "$out/host-load.txt")"
	echo "host_load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "wall_seconds=$(($(date +%s) - start))"
	echo "vm_run_exit=$rc"
} >>"$out/host.txt"
echo
python3 scripts/bench/report.py "$out"
sed 's/^/  /' "$out/host.txt"
echo "results in $out/"
exit "$rc"
