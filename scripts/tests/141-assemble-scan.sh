#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# assemble --scan, as mdadm --assemble --scan without a config file: the
# members of every array are found among the block devices by their
# superblocks. With none in the guest, a scan finds nothing (exit 1).
# RAID5 x3 (lraid0) and RAID6 x4 (lraid1) on null_blk are
# written with crc32c verify and stopped; one RAID5 member sits under a
# device-mapper linear table, a spare device carries a copy of a
# superblock with one byte changed, and a suspended dm device (a read
# would wait) sits on a blank one. Then:
#  - a scan starts both arrays under their own numbers, through the dm
#    device (not the disk under it), names the corrupt superblock and
#    nothing else, and both read back what was written;
#  - a second scan finds both running and changes nothing;
#  - with lraid0 taken by the RAID6 array (assembled there by hand), the
#    RAID5 array is assembled as /dev/lraid255 (mdadm's md127) with its
#    data, and `--scan lraid0` refuses to put it anywhere but lraid0;
#  - a RAID6 member missing: the scan starts RAID5 and refuses RAID6
#    (exit 1), touching none of its superblocks, as does --no-degraded
#    with --run; `--scan --run /dev/lraid1` then starts only it, degraded,
#    with its data;
#  - a copy of a member taken before the array ran again (fewer events)
#    is named and not used; when the member itself is held by something
#    else (a dm table at an offset), both are named and the array is
#    refused without --run, not started from the old copy; a copy with
#    the same events makes the scan leave that array alone, naming both;
#  - two arrays named lraid1 (another array created under that name while
#    the RAID6 one was stopped): `--scan lraid1` refuses, a full scan
#    assembles neither as lraid1 and each with its own data;
#  - with the three running: detail --scan prints an ARRAY line per
#    running array, examine --scan one per array found on the devices
#    (under the name it carries), each once whatever the number of copies;
#    stop --scan with one array held open stops the other two, names the
#    busy one and exits 1; once it is closed, stops it; then has nothing
#    to do (exit 0, silent);
#  - an array name nothing carries, and --force without a name, are
#    errors.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_need dmsetup
lr_need python3
lr_setup

# sha lraidN: sha256 of the first 16 MiB, read around the page cache
sha() {
	dd if="/dev/$1" bs=1M count=16 iflag=direct status=none | sha256sum
}

# uuid DEV [detail]: the array UUID in DEV's superblock, or with detail
# the UUID of the running array DEV
uuid() {
	if [ "${2:-}" = detail ]; then
		"$LRAIDCTL" detail "$1" | awk '$1 == "UUID" { print $3 }'
	else
		"$LRAIDCTL" examine "$1" | awk '/Array UUID/ { print $4 }'
	fi
}

stop() {
	local a
	for a in "$@"; do
		"$LRAIDCTL" stop "$a" >/dev/null || lr_fail "stop $a"
	done
}

# scan WANT_RC [ARG...]: assemble --scan ARG... (once udev is done with
# what changed, so that nothing holds a device briefly) must exit WANT_RC
# within 120 s; the arrays it printed (sorted) are left in $LR_TMP/out, its
# messages in $LR_TMP/err
scan() {
	local want=$1 rc=0
	shift
	lr_settle
	timeout 120 "$LRAIDCTL" assemble "${LR_SCAN_OPT:---scan}" "$@" \
		>"$LR_TMP/out.raw" 2>"$LR_TMP/err" || rc=$?
	sort "$LR_TMP/out.raw" >"$LR_TMP/out"
	sed 's/^/    /' "$LR_TMP/err" "$LR_TMP/out"
	[ "$rc" = "$want" ] || lr_fail "assemble --scan $*: exit $rc, wanted $want"
	lr_settle
}

# started DEV...: the last scan started exactly DEV... (sorted)
started() {
	local got
	got=$(xargs <"$LR_TMP/out")
	[ "$got" = "$*" ] || lr_fail "scan started '$got', wanted '$*'"
}

# said TEXT: the last scan (or examine/stop --scan) said TEXT
said() {
	grep -qF -- "$1" "$LR_TMP/err" || lr_fail "scan did not say '$1'"
}

# lines N: the last scan (or examine/stop --scan) printed N lines of
# messages
lines() {
	local got
	got=$(wc -l <"$LR_TMP/err")
	[ "$got" = "$1" ] || lr_fail "scan printed $got lines of messages, wanted $1"
}

# same lraidN SHA: the array reads back SHA
same() {
	[ "$(sha "$1")" = "$2" ] || lr_fail "$1 does not read back what was written"
}


lr_log "nothing to find"
scan 1
said "no lraid arrays found: no device in /proc/partitions carries an lraid superblock"
lines 1
started

lr_log "RAID5 x3 as lraid0 and RAID6 x4 as lraid1, written and stopped"
lr_members nullb 3 64
r5=("${LR_M[@]}")
lr_members nullb 4 64
r6=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 64K "${r5[@]}"
lr_create lraid1 --level 6 --chunk 64K "${r6[@]}"
LR_ARRAYS+=(lraid255 lraid254)
lr_fio /dev/lraid0 w5 --rw=write --bs=60k --size=16M --iodepth=8
lr_fio /dev/lraid1 w6 --rw=write --bs=60k --size=16M --iodepth=8
sha5=$(sha lraid0)
sha6=$(sha lraid1)
u5=$(uuid "${r5[0]}")
u6=$(uuid "${r6[0]}")
stop lraid0 lraid1

# the last RAID5 member under dm-linear: the scan must take the dm device
sectors=$(blockdev --getsz "${r5[2]}")
lr_dm lrscan "0 $sectors linear ${r5[2]} 0" || lr_fail "dmsetup create"
dm=$LR_DEV
# a spare with a RAID5 member's superblock, one byte of its name changed
lr_nullb spare 64
bad=$LR_DEV
dd if="${r5[0]}" bs=4096 count=1 iflag=direct status=none |
	python3 -c 'import sys; b = bytearray(sys.stdin.buffer.read()); b[0x28] ^= 1; sys.stdout.buffer.write(b)' |
	dd of="$bad" bs=4096 count=1 oflag=direct status=none
# a blank one under a suspended dm device, which the scan must not read
lr_nullb blank 64
# (udev first done probing it; no udev cookies, as in lr_dm)
lr_dm lrsusp "0 2048 linear $LR_DEV 0" || lr_fail "dmsetup create"
lr_settle
dmsetup suspend --noudevsync lrsusp || lr_fail "dmsetup suspend"

lr_log "scan: both arrays under their own numbers"
scan 0
started /dev/lraid0 /dev/lraid1
said "warning: $bad has an lraid superblock that is not valid (superblock checksum mismatch"
said "lraid0 (UUID $u5, RAID5, 3 members) from ${r5[0]} ${r5[1]} $dm"
said "lraid1 (UUID $u6, RAID6, 4 members) from ${r6[*]}"
lines 3
dmsetup resume --noudevsync lrsusp || lr_fail "dmsetup resume"
"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
grep -q "$dm" "$LR_TMP/detail" || { cat "$LR_TMP/detail"; lr_fail "lraid0 does not run on $dm"; }
! grep -q "${r5[2]}\$" "$LR_TMP/detail" || lr_fail "lraid0 runs on ${r5[2]} under $dm"
lr_not_failed lraid0
lr_not_failed lraid1
same lraid0 "$sha5"
same lraid1 "$sha6"

lr_log "scan again (as -s): both already running, nothing changes"
LR_SCAN_OPT=-s scan 0
started
said "lraid0 (UUID $u5) is already running as /dev/lraid0"
said "lraid1 (UUID $u6) is already running as /dev/lraid1"
lines 3

lr_log "lraid0 taken by the RAID6 array: RAID5 assembled as lraid255"
stop lraid0 lraid1
"$LRAIDCTL" assemble lraid0 "${r6[@]}" >/dev/null || lr_fail "assemble RAID6 as lraid0"
lr_settle
scan 1 lraid0
started
said "lraid0 cannot be assembled as /dev/lraid0: that number is in use"
scan 0
started /dev/lraid255
said "lraid1 (UUID $u6) is already running as /dev/lraid0"
said "lraid0 (UUID $u5): that number is in use, so it is assembled as /dev/lraid255"
lines 4
same lraid255 "$sha5"
same lraid0 "$sha6"
stop lraid255 lraid0

lr_log "a RAID6 member missing: refused without --run, superblocks untouched"
echo 0 >"/sys/kernel/config/nullb/${r6[3]#/dev/}/power"
before=$(lr_sbsum "${r6[@]:0:3}")
scan 1
started /dev/lraid0
said "lraid1 (UUID $u6, RAID6, 4 members) from ${r6[*]:0:3}"
said "assemble lraid1 refused: role 3, last recorded working, would be left out"
lines 4
[ "$(lr_sbsum "${r6[@]:0:3}")" = "$before" ] || lr_fail "the refused scan changed a RAID6 superblock"
[ ! -e /dev/lraid1 ] || lr_fail "lraid1 exists after the refusal"
same lraid0 "$sha5"
scan 1 --run --no-degraded lraid1
said "assemble lraid1 refused (--no-degraded): it would start without role 3"
started
lr_log "--scan --run /dev/lraid1: only the RAID6 array, degraded"
scan 0 --run /dev/lraid1
started /dev/lraid1
! grep -q "lraid0 (UUID" "$LR_TMP/err" || lr_fail "the scan for lraid1 looked at lraid0"
said "started degraded: 3 of 4 members in use, without role 3"
same lraid1 "$sha6"
stop lraid1 lraid0
# the missing member comes back: it is stale now, and lraid1 starts
# without it (its role is recorded failed)
echo 1 >"/sys/kernel/config/nullb/${r6[3]#/dev/}/power"
lr_nullb_wait "${r6[3]}"

lr_log "older copy of a RAID5 member: named, not used"
lr_nullb copy 64
copy=$LR_DEV
dd if="${r5[1]}" of="$copy" bs=1M count=64 iflag=direct oflag=direct status=none
# one more start and stop moves the array's events past the copy's
"$LRAIDCTL" assemble lraid0 "${r5[0]}" "${r5[1]}" "$dm" >/dev/null ||
	lr_fail "assemble lraid0"
lr_settle
stop lraid0
scan 0 lraid0
started /dev/lraid0
said "warning: $copy holds an older copy of role 1 of lraid0; not used"
said "from ${r5[0]} ${r5[1]} $dm"
lines 3
lr_not_failed lraid0
same lraid0 "$sha5"
stop lraid0

lr_log "the member itself held by something else: not started from the old copy"
lr_dm lrhold "0 1024 linear ${r5[1]} 8" || lr_fail "dmsetup create"
hold=${LR_DEV#/dev/}
scan 1 lraid0
started
said "warning: $copy holds an older copy of role 1 of lraid0; not used"
said "warning: ${r5[1]} (role 1 of lraid0) is in use by $hold; not used"
said "from ${r5[0]} $dm"
said "assemble lraid0 refused: role 1, last recorded working, would be left out"
[ ! -e /dev/lraid0 ] || lr_fail "lraid0 started without role 1"
dmsetup remove --noudevsync lrhold || lr_fail "dmsetup remove lrhold"

lr_log "a copy with the same events: that array is left alone"
dd if="${r5[1]}" of="$copy" bs=1M count=64 iflag=direct oflag=direct status=none
scan 1
started /dev/lraid1
grep -Eq "($copy and ${r5[1]}|${r5[1]} and $copy) both hold role 1 of lraid0 with the same events" "$LR_TMP/err" ||
	lr_fail "the scan did not name both copies of role 1"
said "${r6[3]} (role 3) is stale"
[ ! -e /dev/lraid0 ] || lr_fail "lraid0 started from two copies of role 1"
same lraid1 "$sha6"
stop lraid1
dd if=/dev/zero of="$copy" bs=4096 count=1 oflag=direct status=none

lr_log "two arrays named lraid1: neither assembled as lraid1"
lr_members nullb 3 32
rx=("${LR_M[@]}")
lr_create lraid1 --level 5 --chunk 16K "${rx[@]}"
lr_fio /dev/lraid1 wx --rw=write --bs=36k --size=16M --iodepth=8
shax=$(sha lraid1)
ux=$(uuid "${rx[0]}")
stop lraid1
scan 1 lraid1
started
said "lraid1 cannot be assembled as /dev/lraid1: another array found has that name too"
scan 0
started /dev/lraid0 /dev/lraid254 /dev/lraid255
said "lraid1 (UUID $u6): another array found has that name too, so it is assembled as /dev/lraid"
said "lraid1 (UUID $ux): another array found has that name too, so it is assembled as /dev/lraid"
same lraid0 "$sha5"
for a in lraid254 lraid255; do
	case $(uuid "$a" detail) in
	"$u6") same $a "$sha6" ;;
	"$ux") same $a "$shax" ;;
	*) lr_fail "$a runs neither lraid1" ;;
	esac
done

lr_log "detail --scan, examine --scan, stop --scan"
# array LEVEL MEMBERS UUID DEV: the ARRAY line of that array as DEV
array() {
	echo "ARRAY $4 level=raid$1 num-devices=$2 UUID=$3"
}
{
	array 5 3 "$u5" /dev/lraid0
	for a in lraid254 lraid255; do
		case $(uuid "$a" detail) in
		"$u6") array 6 4 "$u6" /dev/$a ;;
		*) array 5 3 "$ux" /dev/$a ;;
		esac
	done
} >"$LR_TMP/want"
"$LRAIDCTL" detail --scan >"$LR_TMP/got" || lr_fail "detail --scan failed"
sed 's/^/    /' "$LR_TMP/got"
diff -u "$LR_TMP/want" "$LR_TMP/got" || lr_fail "detail --scan is not one line per running array"
{
	array 5 3 "$u5" /dev/lraid0
	array 5 3 "$ux" /dev/lraid1
	array 6 4 "$u6" /dev/lraid1
} | sort >"$LR_TMP/want"
"$LRAIDCTL" examine -s 2>"$LR_TMP/err" >"$LR_TMP/got.raw" ||
	lr_fail "examine --scan failed"
sed 's/^/    /' "$LR_TMP/err" "$LR_TMP/got.raw"
sort "$LR_TMP/got.raw" >"$LR_TMP/got"
diff -u "$LR_TMP/want" "$LR_TMP/got" || lr_fail "examine --scan is not one line per array found"
said "warning: $bad has an lraid superblock that is not valid"
lr_settle
held=/dev/lraid254
exec 7<"$held"
rc=0
"$LRAIDCTL" stop --scan 2>"$LR_TMP/err" || rc=$?
"$LRAIDCTL" detail -s >"$LR_TMP/got"
exec 7<&-
sed 's/^/    /' "$LR_TMP/err"
[ "$rc" = 1 ] || lr_fail "stop --scan with $held open: exit $rc, wanted 1"
said "stop ${held#/dev/} failed: Device or resource busy (in use: mounted, open, or part of another device)"
for a in /dev/lraid0 /dev/lraid254 /dev/lraid255; do
	[ "$a" = "$held" ] || said "stopped $a"
done
lines 3
[ "$(awk '{ print $2 }' "$LR_TMP/got" | xargs)" = "$held" ] ||
	lr_fail "after stop --scan, detail --scan lists $(xargs <"$LR_TMP/got"), wanted $held alone"
"$LRAIDCTL" stop -s 2>"$LR_TMP/err" || lr_fail "stop --scan of $held, closed: failed"
said "stopped $held"
lines 1
"$LRAIDCTL" stop --scan 2>"$LR_TMP/err" || lr_fail "stop --scan with none running failed"
lines 0
[ -z "$("$LRAIDCTL" detail --scan)" ] || lr_fail "detail --scan lists arrays after all stopped"

lr_log "no array of that name; --force without a name"
scan 1 lraid7
said "no array named lraid7 found"
started
scan 1 --force
said "assemble --scan --force takes the name of the array to force"
started
lr_log "done"
