#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A/B two lraid.ko builds in one QEMU boot, on the instruction clock.
#
# usage: scripts/bench-ab.sh [options] A.ko B.ko
#   --kernel K       kernel kind both modules were built for (default
#                    stock-6.12; see scripts/vm-run)
#   --levels "5 6"   RAID levels (default both: RAID5 on 4, RAID6 on 6)
#   --rw RW          fio job: randwrite (default), randread, write, ...
#   --bs SIZE        fio block size (default 4k)
#   --rounds N       A then B, B then A, ... N times (default 2)
#   --runtime S      seconds per fio run (default 12, plus 2 of ramp)
#   --nullb OPTS     extra null_blk module options for the members, e.g.
#                    "irqmode=2 completion_nsec=20000" (completion by timer
#                    rather than inside submit_bio)
#   --params-a P, --params-b P
#                    lraid module parameters to load A or B with, e.g.
#                    --params-b copy_writes=Y (A and B may be one .ko)
#   --create-a O, --create-b O
#                    extra lraidctl create options for A or B, e.g.
#                    --create-b "--bitmap=internal" (the cost of a bitmap)
#
# The guest runs with QEMU's -icount (see Documentation/benchmarks.rst):
# its clock counts instructions, so the IOPS compare CPU cost per I/O and
# repeat to within about 0.5 % whatever else the host does. For each level
# and round, A and B are loaded in turn (insmod/rmmod) over the same
# preconditioned null_blk members. Prints each run, then per level the
# mean IOPS (and MiB/s) of A and B and B/A (of IOPS). A failed fio run
# stops it.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=stock-6.12
levels="5 6"
rw=randwrite
bs=4k
rounds=2
runtime=12
nullb=
params_a=
params_b=
create_a=
create_b=

usage() {
	sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--levels) levels=$2; shift 2 ;;
	--rw) rw=$2; shift 2 ;;
	--bs) bs=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--nullb) nullb=$2; shift 2 ;;
	--params-a) params_a=$2; shift 2 ;;
	--params-b) params_b=$2; shift 2 ;;
	--create-a) create_a=$2; shift 2 ;;
	--create-b) create_b=$2; shift 2 ;;
	-h | --help) usage 0 ;;
	-*) echo "bench-ab: unknown option $1" >&2; usage 2 ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage 2
a=$(realpath "$1")
b=$(realpath "$2")
for ko in "$a" "$b"; do
	[ -f "$ko" ] || { echo "bench-ab: no module $ko" >&2; exit 1; }
done
[ -x "$top/tools/lraidctl" ] || make -s -C "$top/tools"
"$top/scripts/setup.sh"

cd "$top"
LRAID_VM_TIMEOUT=${LRAID_VM_TIMEOUT:-0} \
	LRAID_VM_QEMU_OPTS="-icount shift=2,sleep=on" \
	scripts/vm-run --kernel "$kernel" --mem 3G -- \
	env AB_LEVELS="$levels" AB_RW="$rw" AB_BS="$bs" AB_ROUNDS="$rounds" \
	AB_RUNTIME="$runtime" AB_NULLB="$nullb" AB_PARAMS_A="$params_a" \
	AB_PARAMS_B="$params_b" AB_CREATE_A="$create_a" \
	AB_CREATE_B="$create_b" LRAIDCTL="$top/tools/lraidctl" \
	scripts/bench/ab-guest.sh "$a" "$b"
