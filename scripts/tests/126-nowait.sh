#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# REQ_NOWAIT: io_uring submits a read or write inline only when the block
# device takes REQ_NOWAIT; otherwise it hands every one to its worker
# threads (a thread switch per I/O). lraid takes it when all its members
# do, as md does. Each such hand-off fires the tracepoint
# io_uring:io_uring_queue_async_work, counted here over 4096 4 KiB I/Os:
#   - a raw member, for reference, then RAID5 x4 and RAID6 x5 on null_blk,
#     random reads and writes: lraid may hand off no more than 1 % more
#     than the member did;
#   - RAID5 with one member under dm-flakey (a target without REQ_NOWAIT,
#     passing everything through here): lraid must not offer it, and the
#     count shows nearly every I/O handed off (the counter sees hand-offs);
#   - a RAID5 member reloaded from dm-linear to dm-flakey while the array
#     runs: lraid no longer passes the flag to that member, which would
#     refuse it (BLK_STS_NOTSUPP): reads stay inline, and correct.
# Data through io_uring, verified with crc32c: sizes 512 B..1 MiB over
# 64 KiB chunks (reads of several chunks), healthy and with members
# failed; and on members with 2 tags each that complete after 5 ms,
# under iodepth 32: they refuse REQ_NOWAIT bios for want of tags, lraid
# passes that on at once (BLK_STS_AGAIN, before anything of the bio went
# out, never after) and io_uring submits the I/O again from a worker:
# required to have happened (a hand-off count above 0), and never to reach
# fio as an -EAGAIN error.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio dmsetup
lr_setup
modprobe -q dm_flakey 2>/dev/null || true
LR_FIO_ENGINE=io_uring
tr=/sys/kernel/tracing
mountpoint -q "$tr" || mount -t tracefs nodev "$tr" 2>/dev/null ||
	lr_skip "no tracefs"
[ -d "$tr/events/io_uring/io_uring_queue_async_work" ] ||
	lr_skip "no io_uring:io_uring_queue_async_work tracepoint"
LR_TRACE=$tr/instances/lraid-nowait-$$
mkdir "$LR_TRACE" || lr_fail "tracing instance"
echo 8192 >"$LR_TRACE/buffer_size_kb"
ev=$LR_TRACE/events/io_uring/io_uring_queue_async_work/enable
nios=4096

# trace_start; ...; trace_count: hand-offs in between, in $handed
trace_start() {
	echo 0 >"$ev"
	: >"$LR_TRACE/trace"
	echo 1 >"$ev"
}
trace_count() {
	echo 0 >"$ev"
	handed=$(grep -c io_uring_queue_async_work "$LR_TRACE/trace" || true)
}

# handoffs DEV RW: $handed during $nios 4 KiB io_uring I/Os
handoffs() {
	trace_start
	fio --name=nowait --filename="$1" --direct=1 --ioengine=io_uring \
		--rw="$2" --bs=4k --iodepth=16 --io_size=$((nios * 4))k \
		--norandommap --randrepeat=0 --output="$LR_TMP/fio.out" ||
		{ cat "$LR_TMP/fio.out"; lr_fail "fio $2 on $1"; }
	trace_count
}

# nowait_ok LABEL: lraid0's hand-offs against the raw member's ($raw_r/w)
nowait_ok() {
	local r w
	handoffs /dev/lraid0 randread
	r=$handed
	handoffs /dev/lraid0 randwrite
	w=$handed
	lr_log "$1: handed off $r of $nios reads, $w of $nios writes"
	[ "$r" -le $((raw_r + nios / 100)) ] ||
		lr_fail "$1: $r of $nios reads handed to io_uring's workers (member: $raw_r)"
	[ "$w" -le $((raw_w + nios / 100)) ] ||
		lr_fail "$1: $w of $nios writes handed to io_uring's workers (member: $raw_w)"
}

lr_members nullb 5 64
handoffs "${LR_M[0]}" randread
raw_r=$handed
handoffs "${LR_M[0]}" randwrite
raw_w=$handed
lr_log "member ${LR_M[0]}: handed off $raw_r of $nios reads, $raw_w of $nios writes"

lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]:0:4}"
nowait_ok "RAID5 x4"
lr_fio /dev/lraid0 r5 --rw=randwrite --bsrange=512-1m --blockalign=512 \
	--iodepth=16 --size=48M
"$LRAIDCTL" fail lraid0 "${LR_M[2]}" || lr_fail "fail ${LR_M[2]}"
nowait_ok "RAID5 x4, one failed"
lr_fio /dev/lraid0 r5-degraded --rw=randwrite --bsrange=512-1m \
	--blockalign=512 --iodepth=16 --size=48M
"$LRAIDCTL" stop lraid0 || lr_fail "stop"

lr_create lraid0 --level 6 --chunk 64K "${LR_M[@]}"
nowait_ok "RAID6 x5"
r6=(--rw=randwrite --bsrange=512-1m --blockalign=512 --iodepth=16 --size=48M)
lr_fio /dev/lraid0 r6 "${r6[@]}"
"$LRAIDCTL" fail lraid0 "${LR_M[0]}" || lr_fail "fail ${LR_M[0]}"
"$LRAIDCTL" fail lraid0 "${LR_M[3]}" || lr_fail "fail ${LR_M[3]}"
lr_fio /dev/lraid0 r6 "${r6[@]}" --verify_only
nowait_ok "RAID6 x5, two failed"
"$LRAIDCTL" stop lraid0 || lr_fail "stop"

# Members out of tags answer REQ_NOWAIT bios with BLK_STS_AGAIN. They hold
# each tag 5 ms: at 100 us a guest on single-threaded TCG sends its I/O
# about as slowly as the members complete it, and 0-8 of the bios found
# both tags taken (0 in a CI run).
members=()
for i in 0 1 2 3; do
	lr_nullb "nullb$((5 + i))" 64 hw_queue_depth=2 irqmode=2 \
		completion_nsec=5000000
	members+=("$LR_DEV")
done
lr_create lraid0 --level 5 --chunk 64K "${members[@]}"
trace_start
lr_fio /dev/lraid0 few-tags --rw=randwrite --bsrange=4k-256k \
	--iodepth=32 --numjobs=2 --size=24M --offset_increment=24M
trace_count
lr_log "members with 2 tags: $handed I/Os handed off after BLK_STS_AGAIN"
[ "$handed" -gt 0 ] ||
	lr_fail "members with 2 tags never refused a bio: BLK_STS_AGAIN not exercised"
"$LRAIDCTL" stop lraid0 || lr_fail "stop"

# A member without REQ_NOWAIT: lraid does not offer it.
dm_table() { # TARGET DEV
	local s
	s=$(blockdev --getsz "$2")
	if [ "$1" = flakey ]; then
		echo "0 $s flakey $2 0 3600 0"
	else
		echo "0 $s linear $2 0"
	fi
}
dmsetup targets | grep -q '^flakey' || lr_skip "no dm-flakey"
# dm_member TARGET: lrnowait over ${LR_M[1]}, as $dmdev (no udev
# synchronisation: guests may run without udev's device-mapper rules)
dm_member() {
	dm_table "$1" "${LR_M[1]}" | dmsetup create --noudevsync lrnowait ||
		lr_fail "dmsetup create lrnowait ($1)"
	LR_DM+=(lrnowait)
	dmdev=/dev/$(dmsetup info -c --noheadings -o blkdevname lrnowait)
	[ -b "$dmdev" ] || lr_fail "no block device for lrnowait"
}
dm_member flakey
lr_create lraid0 --level 5 --chunk 64K "${LR_M[0]}" "$dmdev" "${LR_M[@]:2:2}"
handoffs /dev/lraid0 randread
lr_log "RAID5 x4 with a dm-flakey member: handed off $handed of $nios reads"
[ "$handed" -ge $((nios * 9 / 10)) ] ||
	lr_fail "with a member lacking REQ_NOWAIT only $handed of $nios reads were handed off"
"$LRAIDCTL" stop lraid0 || lr_fail "stop"
dmsetup remove --noudevsync lrnowait || lr_fail "dmsetup remove lrnowait"
LR_DM=()

# A member that stops taking REQ_NOWAIT while the array runs.
dm_member linear
lr_create lraid0 --level 5 --chunk 64K "${LR_M[0]}" "$dmdev" "${LR_M[@]:2:2}"
rl=(--rw=randwrite --bsrange=4k-256k --iodepth=16 --size=32M)
lr_fio /dev/lraid0 reload "${rl[@]}"
dm_table flakey "${LR_M[1]}" | dmsetup load lrnowait ||
	lr_fail "dmsetup load lrnowait"
dmsetup resume --noudevsync lrnowait || lr_fail "dmsetup resume lrnowait"
lr_klog_mark
lr_fio /dev/lraid0 reload "${rl[@]}" --verify_only
# Refused with EOPNOTSUPP, the reads would be handed off (6.12's io_uring
# submits those again from a worker; libaio's RWF_NOWAIT would fail).
handoffs /dev/lraid0 randread
lr_log "after the reload: handed off $handed of $nios reads"
[ "$handed" -le $((raw_r + nios / 100)) ] ||
	lr_fail "after the reload $handed of $nios reads were handed off"
lr_fio /dev/lraid0 after-reload "${rl[@]}"
if lr_klog_has -E "lraid0: (read|write) error"; then
	lr_fail "the reloaded member reported errors: $(lr_klog)"
fi
if "$LRAIDCTL" detail lraid0 | grep -q faulty; then
	lr_fail "a member was failed after its reload"
fi
echo "PASS: io_uring I/O on lraid is submitted inline, and is correct"
