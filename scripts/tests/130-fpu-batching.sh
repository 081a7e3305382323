#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parity runs in few FPU sections. A worker opens one kernel_fpu_begin/end
# section (lraid_gf_begin) for all the ops whose reads came back together,
# closing and reopening it once LRAID_FPU_BATCH (512 KiB) of member blocks
# have been computed, so preemption stays off for tens of microseconds at
# most. A kprobe event on lraid_gf_begin with a hist trigger counts the
# sections and the tasks that opened them, on RAID6 x6 (64 KiB chunk)
# over dm-delay members that hold reads for 50 ms. dm-delay releases
# what expires in one tick together, so the reads of many writes come
# back together, as completions do from a device that coalesces
# interrupts. (On null_blk alone, completing from a softirq or from a
# timer of 200 us or 1 ms per request, the workers here took each op as
# it completed, one per section: with nothing to batch, the first check
# below would prove nothing. parity.rst saw ops share sections with 20 us
# timers under the instruction clock; that depends on timing.)
#   - 4 KiB random writes (an op of 24 KiB of member blocks each): at
#     most one section per two writes (one per write if every op opened
#     its own);
#   - 60 KiB random writes, each inside one chunk (an op of 360 KiB of
#     member blocks, with reads): at least one section per two writes,
#     since the budget takes two such ops at most (one section for a whole
#     batch if it did not hold);
#   - 1 MiB sequential writes (four full stripes of 384 KiB of member
#     blocks, no reads, each computed at once): between two and four
#     sections per write, not one per 4 KiB page;
#   - every section opened by one of lraid's worker threads (task
#     context, never an interrupt or the submitter).
# Needs kprobe events (the stock Debian kernels have them; the test
# kernel does not).
# kernels: stock-6.12 stock-6.1
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio dmsetup
lr_setup
modprobe -q dm_delay 2>/dev/null || true
tr=/sys/kernel/tracing
mountpoint -q "$tr" || mount -t tracefs nodev "$tr" 2>/dev/null ||
	lr_skip "no tracefs"
[ -w "$tr/kprobe_events" ] || lr_skip "no kprobe events in this kernel"
ev=lraid_fpu_$$
trig=$tr/events/kprobes/$ev/trigger
hist='hist:keys=common_pid.execname:vals=hitcount'
unprobe() {
	echo "!$hist" >>"$trig" 2>/dev/null
	echo "-:$ev" >>"$tr/kprobe_events" 2>/dev/null
	lr_cleanup
}
echo "p:$ev lraid:lraid_gf_begin" >>"$tr/kprobe_events" ||
	lr_fail "kprobe on lraid_gf_begin"
trap unprobe EXIT

members=()
for i in $(seq 0 5); do
	lr_nullb "nullb$i" 96
	lr_dm "lrdelay$i" \
		"0 $(blockdev --getsz "$LR_DEV") delay $LR_DEV 0 50 $LR_DEV 0 0" ||
		lr_skip "no dm-delay target (dmsetup create lrdelay$i)"
	members+=("$LR_DEV")
done
lr_create lraid0 --level 6 --chunk 64K --assume-clean "${members[@]}"

# sections NAME FIO-ARGS...: run fio, set WRITES (writes fio issued) and
# SECTIONS (lraid_gf_begin calls meanwhile); fails if a task other than
# an lraid worker opened one
sections() {
	local name=$1 out
	shift
	echo "$hist" >>"$trig" || lr_fail "hist trigger"
	fio --name="$name" --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
		--rw=write --randrepeat=0 --norandommap \
		--output="$LR_TMP/fio.out" "$@" ||
		{ cat "$LR_TMP/fio.out"; lr_fail "fio $name"; }
	out=$(cat "$tr/events/kprobes/$ev/hist")
	echo "!$hist" >>"$trig"
	WRITES=$(sed -n 's/.*issued rwts: total=[0-9]*,\([0-9]*\),.*/\1/p' \
		"$LR_TMP/fio.out")
	[ "${WRITES:-0}" -gt 0 ] ||
		{ cat "$LR_TMP/fio.out"; lr_fail "$name: no write count from fio"; }
	SECTIONS=$(awk '/hitcount:/ { n += $NF } END { print n + 0 }' <<<"$out")
	[ "$SECTIONS" -gt 0 ] || { echo "$out"; lr_fail "$name: no FPU section counted"; }
	if grep '^{' <<<"$out" | grep -vEq 'execname: lraid0/[0-9]+ |common_pid: lraid0/[0-9]+ '; then
		echo "$out"
		lr_fail "$name: an FPU section opened outside lraid0's workers"
	fi
	lr_log "$name: $WRITES writes, $SECTIONS FPU sections"
}

sections rand4k --rw=randwrite --bs=4k --iodepth=32 --numjobs=2 \
	--io_size=8M --group_reporting
[ $((2 * SECTIONS)) -le "$WRITES" ] ||
	lr_fail "4 KiB writes: $SECTIONS FPU sections for $WRITES writes (no batching)"

sections rand60k --rw=randwrite --bs=60k --blockalign=64k --iodepth=32 \
	--numjobs=2 --io_size=64M --group_reporting
[ $((2 * SECTIONS)) -ge "$WRITES" ] ||
	lr_fail "60 KiB writes: $SECTIONS FPU sections for $WRITES writes (no budget)"

sections seq1m --bs=1M --iodepth=8 --size=256M
if [ "$SECTIONS" -lt $((2 * WRITES)) ] || [ "$SECTIONS" -gt $((4 * WRITES)) ]; then
	lr_fail "1 MiB writes: $SECTIONS FPU sections for $WRITES writes"
fi
echo "PASS: parity batched in FPU sections within the budget, in lraid's workers"
