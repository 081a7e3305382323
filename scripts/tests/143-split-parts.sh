#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parts of an array that ran apart. RAID6 on 4 null_blk members: written
# whole, stopped; then roles 0 and 1 are assembled alone (--run: roles 2
# and 3 recorded failed), written, stopped; then roles 2 and 3 alone, from
# the superblocks they kept, written, stopped. Both halves now stand at the
# same event count, each recording the other failed, and hold different
# data. Offered together, in either order, by name, with --force, by
# --scan, or straight through the assemble ioctl (the kernel's own check),
# they must be refused with the pair named and every superblock left as
# it was: before, whichever half came first was taken for the array and
# the other half's writes were silently dropped. Each half assembled
# alone still runs degraded and reads back exactly what it wrote.
# Then RAID5 on 4: role 0 records role 3 failed (as when the pass
# recording that reached role 0 only), roles 1 to 3, from their older
# superblocks, run without role 0 and reach the same count; role 0 and
# role 3 record each other failed, but role 0 missed the writes of roles
# 1-3, which record it failed while it records them working: it must not
# be used, and the array runs from roles 1-3, whichever order the members
# come in (roles 0-2 alone are one too few).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need python3
lr_setup

# write SEED: 8 MiB of data from SEED at the start of /dev/lraid0
write() {
	python3 -c 'import random,sys; r=random.Random(int(sys.argv[1])); sys.stdout.buffer.write(r.randbytes(8 << 20))' "$1" |
		dd of=/dev/lraid0 bs=1M oflag=direct status=none ||
		lr_fail "write $1"
}

# sha: of the first 8 MiB of /dev/lraid0, read around the page cache
sha() {
	dd if=/dev/lraid0 bs=1M count=8 iflag=direct status=none | sha256sum
}

stop() {
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
	LR_ARRAYS=()
}

# start ARGS...: lraidctl assemble lraid0 ARGS... must start it
start() {
	"$LRAIDCTL" assemble lraid0 "$@" >/dev/null 2>"$LR_TMP/asm" ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble $*"; }
	LR_ARRAYS=(lraid0)
	lr_settle
	[ -b /dev/lraid0 ] || lr_fail "/dev/lraid0 missing after assemble $*"
}

# refused WHAT TEXT ARGS...: lraidctl ARGS fails saying TEXT; no array
# runs and no superblock of $all changed
refused() {
	local what=$1 text=$2 before
	shift 2
	before=$(lr_sbsum "${all[@]}")
	if "$LRAIDCTL" "$@" >"$LR_TMP/out" 2>&1; then
		cat "$LR_TMP/out"
		"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 || :
		lr_fail "$what: accepted: lraidctl $*"
	fi
	grep -q -- "$text" "$LR_TMP/out" ||
		{ cat "$LR_TMP/out"; lr_fail "$what: no '$text' in the error"; }
	sed "s|^|    $what: |" "$LR_TMP/out"
	[ ! -e /sys/block/lraid0 ] || lr_fail "$what: lraid0 runs"
	[ "$(lr_sbsum "${all[@]}")" = "$before" ] ||
		lr_fail "$what: superblocks changed"
}

# raw_assemble MEMBER...: the assemble ioctl for lraid0 with MEMBERs, as is
# (lraidctl's own checks bypassed); prints the errno name, or 0
raw_assemble() {
	python3 - "$@" <<'EOF'
import array, errno, fcntl, os, struct, sys
fds = [os.open(d, os.O_RDWR) for d in sys.argv[1:]]
ids = array.array("i", fds)
arg = struct.pack("<IIB7xQ32x", 0, 0, len(fds), ids.buffer_info()[0])
nr = (1 << 30) | (len(arg) << 16) | (0xA7 << 8) | 0x02
ctl = os.open("/dev/lraid-control", os.O_RDWR)
try:
    fcntl.ioctl(ctl, nr, arg)
    print(0)
except OSError as e:
    print(errno.errorcode[e.errno])
EOF
}

# array LEVEL SEED: lraid0 on 4 new null_blk members (listed in all),
# written from SEED and stopped
array() {
	lr_members nullb 4 48
	all=("${LR_M[@]}")
	lr_create lraid0 --level "$1" --chunk 64K "${all[@]}"
	LR_ARRAYS=(lraid0)
	write "$2"
	stop
}

lr_log "RAID6 on 4 members, run as two halves apart"
array 6 1
half1=("${all[0]}" "${all[1]}")
half2=("${all[2]}" "${all[3]}")
start --run "${half1[@]}"
write 2
want1=$(sha)
stop
start --run "${half2[@]}"
[ "$(sha)" != "$want1" ] || lr_fail "half 2 shows half 1's writes"
write 3
want2=$(sha)
stop
[ "$want1" != "$want2" ] || lr_fail "the halves hold the same data"
ev=$(lr_sb_num "${all[0]}" events)
for i in 0 1 2 3; do
	[ "$(lr_sb_num "${all[$i]}" events)" = "$ev" ] ||
		lr_fail "role $i not at events $ev: the halves must tie"
	[ "$(lr_sb_num "${all[$i]}" failed_mask)" = $((i < 2 ? 12 : 3)) ] ||
		lr_fail "role $i: failed_mask $(lr_sb_num "${all[$i]}" failed_mask)"
done
lr_log "both halves at events $ev, each recording the other failed"

lr_reversed "${all[@]}"
for set in fwd rev; do
	if [ $set = fwd ]; then
		m=("${all[@]}")
	else
		m=("${LR_REV[@]}")
	fi
	refused "$set" "parts of the array ran apart" assemble lraid0 "${m[@]}"
	grep -q "records role . failed and .* records role . failed, both at events $ev" \
		"$LR_TMP/out" || lr_fail "$set: the pair is not named"
	refused "$set --force" "parts of the array ran apart" \
		assemble --force lraid0 "${m[@]}"
	refused "$set, one half plus one" "parts of the array ran apart" \
		assemble --run lraid0 "${m[0]}" "${m[1]}" "${m[3]}"
done
refused "--scan" "parts of the array ran apart" assemble --scan

lr_klog_mark
before=$(lr_sbsum "${all[@]}")
got=$(raw_assemble "${all[@]}") || lr_fail "raw assemble did not run"
if [ "$got" = 0 ]; then
	"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 || :
	lr_fail "the kernel assembled both halves"
fi
[ "$got" = EINVAL ] || lr_fail "the kernel refused with $got, not EINVAL"
lr_klog_has "record each other failed, both at events $ev" ||
	lr_fail "the kernel log does not name the pair"
lr_klog_has "parts of the array ran apart" ||
	lr_fail "the kernel log does not say why"
[ "$(lr_sbsum "${all[@]}")" = "$before" ] ||
	lr_fail "the refused ioctl changed a superblock"
[ ! -e /sys/block/lraid0 ] || lr_fail "lraid0 runs after the refused ioctl"
lr_log "the kernel refuses the pair itself (EINVAL)"

start "${half1[@]}"
[ "$(sha)" = "$want1" ] || lr_fail "half 1 alone does not read its data"
stop
start "${half2[@]}"
[ "$(sha)" = "$want2" ] || lr_fail "half 2 alone does not read its data"
stop
lr_log "each half alone starts degraded and reads back its own writes"

lr_log "RAID5 on 4: role 0 saw role 3 fail, then roles 1-3 ran without it"
array 5 4
rest=("${all[1]}" "${all[2]}" "${all[3]}")
lr_sb_save "${rest[@]}"
# roles 0-2 run without role 3 (recorded failed) and write nothing; then
# roles 1-3 get their superblocks back, as if that run had reached role 0
# only, and run without role 0 (recorded failed), writing
start --run "${all[0]}" "${all[1]}" "${all[2]}"
stop
lr_sb_restore "${rest[@]}"
start --run "${rest[@]}"
write 5
want=$(sha)
stop
ev=$(lr_sb_num "${all[0]}" events)
for i in 0 1 2 3; do
	[ "$(lr_sb_num "${all[$i]}" events)" = "$ev" ] ||
		lr_fail "role $i not at events $ev"
	[ "$(lr_sb_num "${all[$i]}" failed_mask)" = $((i ? 1 : 8)) ] ||
		lr_fail "role $i: failed_mask $(lr_sb_num "${all[$i]}" failed_mask)"
done
lr_log "role 0 records role 3 failed, roles 1-3 record role 0, all at events $ev"
lr_reversed "${all[0]}" "${all[1]}" "${all[2]}"
for m in "${all[0]} ${all[1]} ${all[2]}" "${LR_REV[*]}"; do
	# shellcheck disable=SC2086
	refused "roles 0-2 ($m)" "it survives at most 1" assemble --run lraid0 $m
	grep -q "(role 0) is stale: the array recorded it failed" "$LR_TMP/out" ||
		lr_fail "role 0 is not named recorded failed"
done
old0=$(lr_sbsum "${all[0]}")
lr_sb_save "${all[@]}"
for m in "${all[*]}" "${LR_REV[*]} ${all[3]}"; do
	# each order from the tie itself: the first start moved roles 1-3 on
	lr_sb_restore "${all[@]}"
	# shellcheck disable=SC2086
	start $m
	grep -q "(role 0) is stale: the array recorded it failed" "$LR_TMP/asm" ||
		{ cat "$LR_TMP/asm"; lr_fail "all four ($m): role 0 not named"; }
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	[ "$(awk '$5 == "missing" { print $4 }' "$LR_TMP/detail" | xargs)" = 0 ] ||
		{ cat "$LR_TMP/detail"; lr_fail "all four ($m): not without role 0"; }
	[ "$(sha)" = "$want" ] ||
		lr_fail "all four ($m): roles 1-3's writes do not read back"
	stop
done
[ "$(lr_sbsum "${all[0]}")" = "$old0" ] ||
	lr_fail "role 0's superblock was written"
lr_log "role 0 is never used in place of the writes it missed"
