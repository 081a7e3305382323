#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Cross-check lraid's geometry against real md. Needs root, mdadm, loop and
# md raid456, so run it in a guest:
#   scripts/vm-run -- tests/geom/md-crosscheck.sh
#
# For each level/member count/chunk, mdimage writes member images laid out
# by lraid_geom (data, P, Q at 1 MiB) and the expected array contents; md is
# created over them with --assume-clean and must read the array back byte
# for byte, and its "check" must find mismatch_cnt 0. One flipped parity
# byte must make check find mismatches (proves the check looks).
# Prints PASS/FAIL/SKIP lines; exits 1 on any FAIL.
set -u

here=$(cd "$(dirname "$0")" && pwd)
md=/dev/md/lraidx
fails=0

skip_all() {
	echo "SKIP: geom_md_crosscheck ($1)"
	exit 0
}

[ "$(id -u)" = 0 ] || skip_all "needs root"
command -v mdadm >/dev/null || skip_all "mdadm not installed"
modprobe raid456 2>/dev/null
modprobe loop 2>/dev/null
grep -q raid6 /proc/mdstat 2>/dev/null || skip_all "no md raid456 in this kernel"
make -s -C "$here" mdimage || exit 1

work=$(mktemp -d /tmp/lraid-mdx.XXXXXX 2>/dev/null) ||
	work=$(mktemp -d "$here/.mdx.XXXXXX") || exit 1
mount -t tmpfs -o size=256m lraid-mdx "$work" || exit 1
loops=()

cleanup() {
	mdadm --stop "$md" >/dev/null 2>&1
	for l in "${loops[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	loops=()
	rm -f "$work"/*.img
}
trap 'cleanup; umount "$work"; rmdir "$work"' EXIT

wait_idle() {
	local sysfs=$1

	for _ in $(seq 600); do
		[ "$(cat "$sysfs/sync_action")" = idle ] && return 0
		sleep 0.1
	done
	return 1
}

# one_case NAME LEVEL MEMBERS CHUNK_KIB [flip]
one_case() {
	local name=$1 level=$2 n=$3 chunk=$4 flip=${5:-} r dev sysfs mism
	local stripes=$((2 * n + 1))

	cleanup
	if ! "$here/mdimage" "$level" "$n" "$chunk" "$stripes" "$work"; then
		echo "FAIL: $name (mdimage)"
		fails=$((fails + 1))
		return
	fi
	if [ -n "$flip" ]; then
		# stripe 0: P on the last member, Q (RAID6) on member 0
		r=$((n - 1))
		[ "$level" = 6 ] && r=0
		printf '\x5a' | dd of="$work/member$r.img" bs=1 \
			seek=$((1024 * 1024 + 100)) conv=notrunc status=none
	fi
	for r in $(seq 0 $((n - 1))); do
		loops+=("$(losetup -f --show "$work/member$r.img")")
	done
	if ! mdadm --create "$md" --run --quiet --level="$level" \
		--layout=left-symmetric --chunk="$chunk" --metadata=1.2 \
		--data-offset=1024 --assume-clean --bitmap=none \
		--raid-devices="$n" "${loops[@]}" </dev/null >"$work/mdadm.log" 2>&1; then
		echo "# $(tr '\n' ' ' <"$work/mdadm.log")"
		echo "FAIL: $name (mdadm --create)"
		fails=$((fails + 1))
		return
	fi
	dev=$(readlink -f "$md")
	sysfs=/sys/block/$(basename "$dev")/md
	if [ "$(blockdev --getsize64 "$dev")" != "$(stat -c %s "$work/array.img")" ]; then
		echo "# md size $(blockdev --getsize64 "$dev"), expected $(stat -c %s "$work/array.img")"
		echo "FAIL: $name (array size)"
		fails=$((fails + 1))
		return
	fi
	if ! cmp "$dev" "$work/array.img"; then
		echo "FAIL: $name (md reads different data)"
		fails=$((fails + 1))
		return
	fi
	echo check >"$sysfs/sync_action"
	sleep 0.2
	if ! wait_idle "$sysfs"; then
		echo "FAIL: $name (check did not finish)"
		fails=$((fails + 1))
		return
	fi
	mism=$(cat "$sysfs/mismatch_cnt")
	if [ -n "$flip" ] && [ "$mism" != 0 ]; then
		echo "PASS: $name (mismatch_cnt $mism)"
	elif [ -z "$flip" ] && [ "$mism" = 0 ]; then
		echo "PASS: $name"
	else
		echo "FAIL: $name (mismatch_cnt $mism)"
		fails=$((fails + 1))
	fi
}

for chunk in 4 64 512; do
	for n in 3 4 5 8; do
		one_case "geom_md_raid5_n${n}_c${chunk}k" 5 "$n" "$chunk"
	done
	for n in 4 5 6 8; do
		one_case "geom_md_raid6_n${n}_c${chunk}k" 6 "$n" "$chunk"
	done
done
one_case geom_md_raid5_flipped_p 5 4 64 flip
one_case geom_md_raid6_flipped_q 6 5 64 flip

[ "$fails" = 0 ]
