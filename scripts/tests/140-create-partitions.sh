#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# create drops the kernel's partitions of whole-disk members, as mdadm's
# create does. create erases the partition table (139), but the partition
# devices the kernel read from it used to stay: the array's claim on the
# disk refuses a re-read of the table, and a write through a stale
# partition lands in the array's data. Round 1: RAID5 x4 on loop disks
# that each hold a GPT with two partitions; one partition is held open
# across the create and must stay, named in a warning with the delpart
# command that drops it later; every other partition must be gone, the
# array must work, and a re-read of the members' tables after stop must
# find none. Round 2: RAID5 on three partitions of one disk: the fourth
# partition, not a member, must stay (only whole-disk members lose theirs).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need sfdisk delpart blockdev
lr_setup

# parts DEV: the kernel's partitions of DEV, one name per line
parts() {
	local p
	for p in /sys/class/block/"${1#/dev/}"/*/partition; do
		[ -e "$p" ] || continue
		basename "$(dirname "$p")"
	done
}

# gpt DEV SIZE...: a GPT on DEV with partitions of those sizes, read by
# the kernel (sfdisk asks it to), their nodes there
gpt() {
	local dev=$1 n
	shift
	{
		echo "label: gpt"
		for n in "$@"; do
			echo ",$n"
		done
	} | sfdisk -q "$dev" >/dev/null || lr_fail "sfdisk $dev"
	lr_settle
	[ "$(parts "$dev" | wc -l)" = $# ] ||
		lr_fail "precondition: $dev has not $# partitions: $(parts "$dev" | xargs)"
	for n in $(seq $#); do
		lr_nullb_wait "${dev}p$n"
	done
}

# round 1
LR_M=()
for _ in 1 2 3 4; do
	lr_loop 64 -P
	gpt "$LR_DEV" 16M 16M
	LR_M+=("$LR_DEV")
done
held=${LR_M[3]}p2
exec 8<"$held"
LR_ARRAYS+=(lraid0)
out=$("$LRAIDCTL" create --run lraid0 --level 5 "${LR_M[@]}" 2>&1) ||
	lr_fail "create: $out"
exec 8<&-
lr_settle
for m in "${LR_M[@]:0:3}"; do
	[ -z "$(parts "$m")" ] ||
		lr_fail "create left $m's partitions: $(parts "$m" | xargs)"
done
[ "$(parts "${LR_M[3]}")" = "${held#/dev/}" ] ||
	lr_fail "${LR_M[3]}: expected only the open ${held#/dev/} to stay, have: $(parts "${LR_M[3]}" | xargs)"
grep -qF "partition ${held#/dev/} of member ${LR_M[3]} is open and stays" <<<"$out" ||
	lr_fail "no warning about the open ${held#/dev/}: $out"
grep -qF "delpart ${LR_M[3]} 2" <<<"$out" ||
	lr_fail "the warning does not give the delpart command: $out"
[ "$(grep -c "warning:" <<<"$out")" = 1 ] ||
	lr_fail "expected one warning: $out"
# (udev may hold it a moment for the change event of the close above)
for _ in $(seq 50); do
	delpart "${LR_M[3]}" 2 2>/dev/null && break
	sleep 0.1
done
[ -z "$(parts "${LR_M[3]}")" ] ||
	lr_fail "delpart left ${LR_M[3]}'s partitions: $(parts "${LR_M[3]}" | xargs)"

# the array works; the members carry no partition table any more
head -c 16M /dev/urandom >"$LR_TMP/data"
dd if="$LR_TMP/data" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write lraid0"
want=$(lr_sha "$LR_TMP/data" 32768)
[ "$(lr_sha /dev/lraid0 32768)" = "$want" ] || lr_fail "lraid0 read back differs"
"$LRAIDCTL" stop lraid0 || lr_fail "stop lraid0"
for m in "${LR_M[@]}"; do
	blockdev --rereadpt "$m" || lr_fail "blockdev --rereadpt $m"
done
lr_settle
for m in "${LR_M[@]}"; do
	[ -z "$(parts "$m")" ] ||
		lr_fail "a re-read found partitions on $m: $(parts "$m" | xargs)"
done
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail "assemble lraid0"
[ "$(lr_sha /dev/lraid0 32768)" = "$want" ] || lr_fail "lraid0 differs after assemble"
"$LRAIDCTL" stop lraid0 || lr_fail "stop lraid0 again"

# round 2: the members are partitions; their disk keeps its table's
# partitions
lr_loop 128 -P
disk=$LR_DEV
gpt "$disk" 24M 24M 24M 24M
LR_ARRAYS+=(lraid1)
out=$("$LRAIDCTL" create --run lraid1 --level 5 --assume-clean \
	"${disk}p1" "${disk}p2" "${disk}p3" 2>&1) || lr_fail "create lraid1: $out"
lr_settle
d=${disk#/dev/}
[ "$(parts "$disk" | xargs)" = "${d}p1 ${d}p2 ${d}p3 ${d}p4" ] ||
	lr_fail "create on partitions changed $disk's: $(parts "$disk" | xargs)"
! grep -q "warning:" <<<"$out" || lr_fail "create on partitions warned: $out"
"$LRAIDCTL" stop lraid1 || lr_fail "stop lraid1"
echo "140-create-partitions: ok"
