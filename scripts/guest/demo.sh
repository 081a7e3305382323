#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`: lraid serving a RAID6 array on six memory-backed
# null_blk members, data written and verified with fio, a member failed and
# the data read back, a blank device added and rebuilt in its place (the
# data read back through it with another member failed), then a short fio
# comparison with md on the same members. Steps that the current lraid cannot do yet are said so, not faked.
set -uo pipefail

top=${LRAID_ROOT:?run me through scripts/vm-run}
ctl=$top/tools/lraidctl
ko=$LRAID_KDIR/module/lraid.ko
cfs=/sys/kernel/config/nullb
n=6
mb=256
work=$(mktemp -d)
members=()
spare=

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { echo "# $*"; "$@"; }
die() { echo "demo: $*" >&2; exit 1; }

cleanup() {
	set +e
	[ -b /dev/lraid0 ] && "$ctl" stop lraid0 >/dev/null 2>&1
	[ -b /dev/md/lrdemo ] && mdadm --stop /dev/md/lrdemo >/dev/null 2>&1
	for m in "${members[@]}" ${spare:+"$spare"}; do
		echo 0 >"$cfs/$(basename "$m")/power"
		rmdir "$cfs/$(basename "$m")"
	done
	grep -q '^lraid ' /proc/modules && rmmod lraid
	rm -rf "$work"
}
trap cleanup EXIT

fio_job() { # dev name extra-args... ; prints the one-line summary
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio \
		--output-format=terse --terse-version=3 "$@" >"$work/$name.terse" ||
		die "fio $name failed"
}
# The demo's data set: 128 MiB of 64 KiB random writes, crc32c per block.
data_fio() { # out-file extra-args...
	local out=$1
	shift
	run fio --name=write --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=64k --iodepth=16 --size=128M --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --output="$work/$out" "$@"
}
iops() { # terse v3: field 8 read iops, field 49 write iops
	awk -F';' -v f="$2" '{ print $f }' "$work/$1.terse"
}

step "Load lraid.ko ($(uname -r))"
modprobe -q libcrc32c 2>/dev/null || true
run insmod "$ko" || die "insmod failed"
dmesg | grep 'lraid:' | tail -3
run "$ctl" version

step "Six memory-backed null_blk members of $mb MiB"
modprobe -q null_blk nr_devices=0 2>/dev/null || true
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
for i in $(seq 0 $((n - 1))); do
	d=$cfs/demo$i
	mkdir "$d" || die "null_blk configfs"
	echo "$mb" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 4096 >"$d/blocksize"
	echo 1 >"$d/power"
	members+=("/dev/demo$i")
done
udevadm settle 2>/dev/null
ls -l "${members[@]}"

# spare_dev: one more blank null_blk device, in $spare
spare_dev() {
	local d=$cfs/demospare
	mkdir "$d" || die "null_blk configfs"
	echo "$mb" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 4096 >"$d/blocksize"
	echo 1 >"$d/power"
	udevadm settle 2>/dev/null
	spare=/dev/demospare
}

step "Create a RAID6 array, chunk 64 KiB"
run "$ctl" create lraid0 --level 6 --chunk 64K "${members[@]}" || die "create failed"
udevadm settle 2>/dev/null
run "$ctl" detail lraid0

step "Write 128 MiB with fio and verify it (crc32c)"
data_fio write.out --do_verify=1 || die "fio write/verify failed"
grep -E 'WRITE:|READ:|err=' "$work/write.out"
echo "verified: all blocks read back with matching crc32c"

step "Fail a member and read the data back"
if "$ctl" --help 2>&1 | grep -q ' fail '; then
	run "$ctl" fail lraid0 "${members[2]}" || die "fail member"
	run "$ctl" detail lraid0
	data_fio verify.out --verify_only || die "degraded read-back failed"
	grep -E 'READ:|err=' "$work/verify.out"
	echo "degraded read-back: every block verified"

	step "Add a blank device in its place: rebuilt while the array serves I/O"
	spare_dev
	run "$ctl" add lraid0 "$spare" || die "add"
	for _ in $(seq 600); do
		[ "$(cat /sys/block/lraid0/lraid/sync_action)" = idle ] && break
		sleep 0.1
	done
	run "$ctl" detail lraid0
	[ "$(cat /sys/block/lraid0/lraid/degraded)" = 0 ] || die "rebuild failed"
	dmesg | grep 'lraid0: recover' | tail -2
	run "$ctl" fail lraid0 "${members[4]}" || die "fail member"
	data_fio verify.out --verify_only || die "read-back with the rebuilt member failed"
	grep -E 'READ:|err=' "$work/verify.out"
	echo "read back through the rebuilt member: every block verified"
else
	echo "not yet: this lraid has no degraded mode (lraidctl fail). Instead the"
	echo "array is stopped, assembled again from its superblocks, and verified."
	run "$ctl" stop lraid0 || die "stop"
	run "$ctl" assemble lraid0 "${members[5]}" "${members[0]}" "${members[3]}" \
		"${members[1]}" "${members[4]}" "${members[2]}" || die "assemble"
	udevadm settle 2>/dev/null
	data_fio verify.out --verify_only || die "read-back after assemble failed"
	grep -E 'READ:|err=' "$work/verify.out"
	echo "read-back after stop/assemble: every block verified"
fi
run "$ctl" stop lraid0

step "Short comparison with md on the same members (4k random, iodepth 32, 10 s)"
for m in "${members[@]}"; do dd if=/dev/zero of="$m" bs=1M count=4 status=none; done
mdadm --create /dev/md/lrdemo --run --quiet --level=6 --chunk=64 \
	--raid-devices=$n --assume-clean --bitmap=none --metadata=1.2 \
	"${members[@]}" || die "mdadm create"
udevadm settle 2>/dev/null
md=$(readlink -f /dev/md/lrdemo)
common=(--iodepth=32 --numjobs=2 --group_reporting --time_based --runtime=10
	--ramp_time=2 --bs=4k --size=256M)
fio_job "$md" md-rr --rw=randread "${common[@]}"
fio_job "$md" md-rw --rw=randwrite "${common[@]}"
mdadm --stop /dev/md/lrdemo >/dev/null 2>&1
for m in "${members[@]}"; do mdadm --zero-superblock "$m" 2>/dev/null; done
"$ctl" create lraid0 --run --level 6 --chunk 64K --assume-clean "${members[@]}" >/dev/null ||
	die "create for comparison"
udevadm settle 2>/dev/null
fio_job /dev/lraid0 lr-rr --rw=randread "${common[@]}"
fio_job /dev/lraid0 lr-rw --rw=randwrite "${common[@]}"
"$ctl" stop lraid0

printf '\n%-16s %12s %12s %8s\n' "RAID6, 6 members" "md IOPS" "lraid IOPS" "lraid/md"
for j in rr:8:"4k randread" rw:49:"4k randwrite"; do
	IFS=: read -r k f label <<<"$j"
	a=$(iops "md-$k" "$f")
	b=$(iops "lr-$k" "$f")
	printf '%-16s %12.0f %12.0f %8.2f\n' "$label" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { print (a > 0) ? b / a : 0 }')"
done
echo "(QEMU, $(nproc) vCPUs, $(grep -m1 -o 'tcg\|kvm' /proc/cmdline 2>/dev/null || echo emulated); make bench-quick measures properly)"
