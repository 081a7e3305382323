#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The write-intent bitmap (create --bitmap=internal --bitmap-chunk=1M):
# one bit per MiB of member data (a region), in the gap between the
# superblock and the data area (from byte 4096, 2040 sectors), bit r =
# bit r % 8 of byte r / 8, a copy on every member. On RAID5 x4 (64 KiB
# chunks) and RAID6 x5 (16 KiB) over 32 MiB null_blk members, with
# bitmap_delay 3600 (no bit cleared meanwhile):
#   - after create: the superblock fields (0xa0 8, 0xa8 2040, 0xb0 2048),
#     sysfs bitmap_region_kb 1024, bitmap_regions = ceil(data_size /
#     2048), bitmap_dirty 0, the bitmap area zero, detail names it;
#   - fio writes the first 4 MiB of the array (3 MiB of array per region
#     in both layouts: regions 0 and 1): bitmap_dirty 2, and on every
#     member exactly bits 0 and 1 set;
#   - the crash: the first MiB of every member (superblock and bitmap)
#     read while the array runs, the array stopped, the parity page (P,
#     RAID6 Q) of a stripe in region 0 and of one in region 10 (clear in
#     what was read) overwritten, the MiB written back. The assemble must
#     log "write-intent bitmap: M regions of 1024 KiB, 2 dirty" and
#     "resync: 2 of M bitmap regions dirty", the resync find 8 sectors
#     (region 0's page: region 10 was skipped), a check then find region
#     10's page (8), a repair rewrite it, a check find 0, the data verify,
#     both bits still be set (no pass takes or clears one) and the stop
#     be clean.
# On the RAID5 members then:
#   - a clean assemble with what the stop left on disk (it may clear the
#     bits) and bit 20 set by hand on every member: no resync, the bitmap
#     there (sysfs), those bits loaded (log, bitmap_dirty);
#   - bitmap_delay lowered to 1 on the running array: writes to region 5
#     every 0.25 s find its bit set right after each write and 0.1 s
#     later, and within 10 s of the last one bitmap_dirty is 0 and every
#     member's bitmap reads clear;
#   - role 1 failed: writes to region 6 set its bit on the working
#     members, and 3 s (three delays) later it is still set; a device added
#     and rebuilt, the bit clears within 10 s, on every member, a check
#     finds 0 and the data verifies;
#   - an array created over them with --bitmap=none, and one without the
#     option, has none: bitmap_region_kb 0, bitmap fields 0, the gap still
#     zero after 4 MiB written.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_need python3
lr_setup

d=/sys/block/lraid0/lraid
delay=/sys/module/lraid/parameters/bitmap_delay
[ -w "$delay" ] || lr_fail "no writable $delay"
MB=32		# member size, MiB
R=2048		# sectors per region (--bitmap-chunk=1M)
job=(--rw=randwrite --bsrange=4k-64k --size=4M --iodepth=8)

# is ATTR VALUE: lraid0's sysfs ATTR reads VALUE (read with no fork: a
# process start costs a good part of a second under TCG)
is() {
	local got
	read -r got <"$d/$1" || lr_fail "read $d/$1"
	[ "$got" = "$2" ] || lr_fail "$d/$1 reads '$got', expected '$2'"
}

# bm.py show SRC...: per SRC, a member (read around the page cache) or a
# saved image of one's first MiB, a line "OFFSET SECTORS REGION STATE
# BITS": the superblock's bitmap fields (0xa0, 0xa8, 0xb0), clean or
# active (0x74), and the bits set in the bitmap area (2040 sectors from
# byte 4096), "0,1" or "none". bm.py set R DEV...: bit R set on each DEV
# behind lraid's back. bm.py only R,R... IMAGE...: the bitmap area of
# each saved IMAGE holds exactly bits R,R... ("none": none). bm.py pulse BYTE
# COUNT: COUNT 4 KiB O_DIRECT writes to lraid0 at BYTE, 0.25 s apart;
# bitmap_dirty is read in the same process right after each write
# returns and right before the next, well inside the delay (1 s at
# least) before which no bit may be cleared; prints the lowest count
# read. (One process for many members: a Python start takes a second or
# more under TCG.)
cat >"$LR_TMP/bm.py" <<'PY'
import mmap, os, re, stat, struct, sys, time

def first_mib(path):
    size = 1 << 20
    if not stat.S_ISBLK(os.stat(path).st_mode):
        with open(path, "rb") as f:
            data = f.read(size)
    else:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        buf = mmap.mmap(-1, size)
        n = os.preadv(fd, [buf], 0)
        os.close(fd)
        data = bytes(buf)[:n]
    if len(data) != size:
        sys.exit(f"{path}: short read")
    return data

def show(paths):
    for p in paths:
        h = first_mib(p)
        fields = struct.unpack_from("<QQQ", h, 0xa0)
        state = "clean" if struct.unpack_from("<I", h, 0x74)[0] & 1 else "active"
        area = h[4096:4096 + 2040 * 512]
        bits = [8 * m.start() + b for m in re.finditer(rb"[^\x00]", area)
                for b in range(8) if area[m.start()] >> b & 1]
        print(*fields, state, ",".join(map(str, bits)) or "none")

def setbit(r, devs):
    off = 4096 + r // 8 // 4096 * 4096
    buf = mmap.mmap(-1, 4096)
    for dev in devs:
        fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
        if os.preadv(fd, [buf], off) != 4096:
            sys.exit(f"{dev}: short read")
        buf[r // 8 % 4096] |= 1 << r % 8
        if os.pwritev(fd, [buf], off) != 4096:
            sys.exit(f"{dev}: short write")
        os.fsync(fd)
        os.close(fd)

def only(bits, image):
    area = bytearray(2040 * 512)
    for r in bits:
        area[r // 8] |= 1 << r % 8
    with open(image, "r+b") as f:
        f.seek(4096)
        f.write(area)

def pulse(off, count):
    buf = mmap.mmap(-1, 4096)
    buf.write(os.urandom(4096))
    fd = os.open("/dev/lraid0", os.O_WRONLY | os.O_DIRECT)
    low = None
    for _ in range(count):
        if os.pwritev(fd, [buf], off) != 4096:
            sys.exit("short write")
        for pause in (0.25, 0):
            with open("/sys/block/lraid0/lraid/bitmap_dirty") as f:
                v = int(f.read())
            low = v if low is None else min(low, v)
            time.sleep(pause)
    os.close(fd)
    print(low)

cmd, args = sys.argv[1], sys.argv[2:]
if cmd == "show":
    show(args)
elif cmd == "set":
    setbit(int(args[0]), args[1:])
elif cmd == "only":
    for bits, image in zip(args[::2], args[1::2]):
        only([int(r) for r in bits.split(",") if r != "none"], image)
else:
    pulse(int(args[0]), int(args[1]))
PY
bm() {
	python3 "$LR_TMP/bm.py" "$@" || lr_fail "bm.py $*"
}

# expect_bm PATTERN WHAT SRC...: bm.py show's line of every SRC matches
# the glob PATTERN ("8 2040 2048 active 0,1", "* * * * none")
expect_bm() {
	local pat=$1 what=$2 out i=0 line
	shift 2
	out=$(bm show "$@")
	while read -r line; do
		i=$((i + 1))
		# shellcheck disable=SC2053 # a glob
		[[ $line == $pat ]] ||
			lr_fail "$what: ${!i}: '$line', expected '$pat'"
	done <<<"$out"
	i=$(wc -l <<<"$out")
	[ "$i" = $# ] || lr_fail "$what: $i lines for $# members: $out"
}

# wait_dirty N SECS [WHAT]: bitmap_dirty reads N within SECS seconds; sets
# WAITED to the seconds it took
wait_dirty() {
	local v start=$SECONDS
	while read -r v <"$d/bitmap_dirty" && [ "$v" != "$1" ]; do
		[ $((SECONDS - start)) -lt "$2" ] ||
			lr_fail "bitmap_dirty still $v after $2 s, expected $1${3:+ ($3)}"
		sleep 0.2
	done
	WAITED=$((SECONDS - start))
}

# wait_idle: until no pass runs (120 s at most)
wait_idle() {
	local a end=$((SECONDS + 120))
	while read -r a <"$d/sync_action" && [ "$a" != idle ]; do
		[ $SECONDS -lt $end ] ||
			lr_fail "the pass did not end: $a $(cat $d/sync_completed)"
		sleep 0.1
	done
}

# start: assemble lraid0 from the members in m, lraidctl's word in
# $LR_TMP/asm, the kernel log marked before
start() {
	lr_klog_mark
	"$LRAIDCTL" assemble lraid0 "${m[@]}" >"$LR_TMP/asm" 2>&1 ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble"; }
	LR_ARRAYS=(lraid0)
	lr_settle
}

# stopped_as STATE: stop lraid0; every superblock must then read STATE
stopped_as() {
	lr_klog_mark
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	expect_bm "* * * $1 *" "after the stop" "${m[@]}"
}

# pass ACTION N: a check or repair to its end finds N mismatched sectors
pass() {
	local got
	"$LRAIDCTL" action "$1" --wait lraid0 >/dev/null || lr_fail "$1"
	read -r got <"$d/mismatch_cnt"
	[ "$got" = "$2" ] || lr_fail "$1 found $got mismatched sectors, not $2"
}

# parity_role N NP S: the role that holds P (NP 1) or Q (NP 2) of stripe
# S of N members (left-symmetric, lr_role)
parity_role() {
	local r want=P
	[ "$2" = 2 ] && want=Q
	for ((r = 0; r < $1; r++)); do
		if [ "$(lr_role "$1" "$2" "$3" "$r")" = "$want" ]; then
			echo "$r"
			return 0
		fi
	done
	lr_fail "no $want in stripe $3"
}

echo 3600 >"$delay" || lr_fail "bitmap_delay 3600 refused"
for cfg in "6 5 16" "5 4 64"; do
	read -r level n ck <<<"$cfg"
	np=$((level - 4))		# parity chunks per stripe
	k=$((n - np))			# data chunks per stripe
	spr=$((R / (ck * 2)))		# stripes per region
	lr_log "RAID$level x$n, chunk ${ck}K, bitmap chunk 1M"
	lr_nullb_drop || lr_fail "null_blk still held"
	lr_members nullb "$n" "$MB"
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk "${ck}K" \
		--bitmap=internal --bitmap-chunk=1M "${m[@]}"
	size=$(lr_sb_num "${m[0]}" data_size)
	regions=$(((size + R - 1) / R))
	[ "$regions" -gt 20 ] || lr_fail "data_size $size: only $regions regions"
	is bitmap_region_kb 1024
	is bitmap_regions "$regions"
	is bitmap_dirty 0
	expect_bm "8 2040 $R active none" "after create" "${m[@]}"
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" || lr_fail "detail lraid0"
	for l in "Intent Bitmap : Internal" "Bitmap Chunk : 1024K" \
		"Bitmap Dirty : 0 of $regions regions"; do
		grep -q "^ *$l\$" "$LR_TMP/detail" ||
			lr_fail "detail: no '$l': $(cat "$LR_TMP/detail")"
	done

	# the last byte of the 4 MiB written is in stripe 4M / (k * chunk),
	# which is in region 1 here
	last=$(((4 * 1024 * 1024 - 1) / (k * ck * 1024) / spr))
	[ "$last" = 1 ] || lr_fail "4 MiB end in region $last, not 1"
	lr_fio /dev/lraid0 data "${job[@]}"
	is bitmap_dirty 2
	expect_bm "8 2040 $R active 0,1" "after 4 MiB written" "${m[@]}"

	# the crash, with a stale parity page in a dirty region and one in a
	# clean one
	ds=5 cs=$((10 * spr + 3))
	dr=$(parity_role "$n" "$np" "$ds")
	cr=$(parity_role "$n" "$np" "$cs")
	rm -f "$LR_TMP"/head.*
	for i in "${!m[@]}"; do
		dd if="${m[$i]}" of="$LR_TMP/head.$i" bs=1M count=1 iflag=direct \
			status=none || lr_fail "read the first MiB of ${m[$i]}"
	done
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	expect_bm "8 2040 $R active 0,1" "read while the array ran" "$LR_TMP"/head.*
	# as a crash in the middle of writing the bits could leave them
	# (role 0 has region 1's, role 1 region 0's, the rest none): the
	# resync must take their OR
	args=(1 "$LR_TMP/head.0" 0 "$LR_TMP/head.1")
	for ((i = 2; i < n; i++)); do
		args+=(none "$LR_TMP/head.$i")
	done
	bm only "${args[@]}"
	dd if=/dev/urandom of="${m[$dr]}" bs=4096 seek=$((256 + ds * ck / 4)) \
		count=1 oflag=direct conv=notrunc status=none || lr_fail "overwrite ${m[$dr]}"
	dd if=/dev/urandom of="${m[$cr]}" bs=4096 seek=$((256 + cs * ck / 4)) \
		count=1 oflag=direct conv=notrunc status=none || lr_fail "overwrite ${m[$cr]}"
	for i in "${!m[@]}"; do
		dd if="$LR_TMP/head.$i" of="${m[$i]}" bs=1M count=1 oflag=direct \
			conv=fsync,notrunc status=none || lr_fail "write back the first MiB of ${m[$i]}"
	done
	start
	is bitmap_dirty 2
	# the OR is on every member from the start
	expect_bm "8 2040 $R active 0,1" "assembled" "${m[@]}"
	wait_idle
	is last_sync_action resync
	is mismatch_cnt 8
	log=$(lr_klog) || lr_fail "cannot read the kernel log"
	for l in "not stopped cleanly" \
		"lraid0: write-intent bitmap: $regions regions of 1024 KiB, 2 dirty" \
		"lraid0: resync: 2 of $regions bitmap regions dirty" \
		"lraid0: resync done: 8 mismatched sectors rewritten; parity resynced"; do
		grep -qF "$l" <<<"$log" ||
			lr_fail "no '$l' in the kernel log: $(grep lraid0 <<<"$log")"
	done
	lr_log "resync of 2 regions of $regions: 8 sectors (stripe $ds, role $dr)"
	pass check 8
	pass repair 8
	pass check 0
	lr_log "stripe $cs (region 10, role $cr) left to the check and the repair"
	lr_fio /dev/lraid0 data "${job[@]}" --verify_only
	# passes take no bits, none was cleared (delay 3600)
	is bitmap_dirty 2
	stopped_as clean
	lr_klog_has "left marked not clean" && lr_fail "left marked not clean after the resync"
done

lr_log "RAID5 x4: a clean assemble loads the bits on disk"
# (whether a clean stop clears the bits is the module's choice; only
# regions 0 and 1 were written)
read -r _ _ _ _ left <<<"$(bm show "${m[0]}")"
expect_bm "8 2040 $R clean $left" "after a clean stop" "${m[@]}"
case $left in
none) want=1 with20=20 ;;
0 | 1) want=2 with20=$left,20 ;;
0,1) want=3 with20=0,1,20 ;;
*) lr_fail "bits $left on disk after a clean stop; only 0 and 1 were written" ;;
esac
bm set 20 "${m[@]}"
expect_bm "8 2040 $R clean $with20" "bit 20 set by hand" "${m[@]}"
start
is bitmap_region_kb 1024
is bitmap_regions "$regions"
is bitmap_dirty "$want"
is last_sync_action none
log=$(lr_klog) || lr_fail "cannot read the kernel log"
grep -qF "lraid0: write-intent bitmap: $regions regions of 1024 KiB, $want dirty" <<<"$log" ||
	lr_fail "no 'write-intent bitmap: $regions regions of 1024 KiB, $want dirty': $(grep lraid0 <<<"$log")"
if grep -Eq "not stopped cleanly|resync" <<<"$log"; then
	lr_fail "a clean stop taken for a crash: $(grep lraid0 <<<"$log")"
fi
lr_log "bits '$left' left by the stop and 20: $want dirty"

lr_log "bitmap_delay 1: bits cleared once writes stop"
echo 1 >"$delay" || lr_fail "bitmap_delay 1 refused"
low=$(bm pulse $((5 * spr * k * ck * 1024)) 12)
[ "$low" -gt 0 ] || lr_fail "bitmap_dirty read $low right after a write to region 5"
wait_dirty 0 10 "bitmap_delay lowered from 3600 to 1 while the array ran"
sleep 1	# (the clear pass writes the block after the count)
expect_bm "8 2040 $R active none" "bitmap_dirty 0" "${m[@]}"
lr_log "clear $WAITED s after the last write, on every member"

lr_log "degraded: bits stay set"
"$LRAIDCTL" fail lraid0 "${m[1]}" >/dev/null || lr_fail "fail ${m[1]}"
low=$(bm pulse $((6 * spr * k * ck * 1024)) 4)
[ "$low" -gt 0 ] || lr_fail "degraded: bitmap_dirty read $low right after a write"
sleep 3
is bitmap_dirty 1
expect_bm "8 2040 $R active 6" "degraded, 3 s after the writes" "${m[0]}" "${m[2]}" "${m[3]}"
lr_nullb "nullb${#LR_NULLB[@]}" "$MB"
lr_klog_mark
"$LRAIDCTL" add lraid0 "$LR_DEV" >"$LR_TMP/add" 2>&1 ||
	lr_fail "add $LR_DEV: $(cat "$LR_TMP/add")"
m[1]=$LR_DEV
wait_idle
lr_klog_has "recover done: .* (role 1) is in sync" ||
	lr_fail "no 'recover done' for role 1: $(lr_klog | grep lraid0 | tail -4)"
wait_dirty 0 10
sleep 1
expect_bm "8 2040 $R active none" "rebuilt, bitmap_dirty 0" "${m[@]}"
lr_log "rebuilt: clear $WAITED s after the rebuild"
pass check 0
lr_fio /dev/lraid0 data "${job[@]}" --verify_only
stopped_as clean

lr_log "no bitmap: --bitmap=none and no option"
echo 5 >"$delay"
for opt in --bitmap=none ""; do
	# shellcheck disable=SC2086 # no option: no word
	lr_create lraid0 --level 5 --chunk 64K $opt "${m[@]}"
	is bitmap_region_kb 0
	is bitmap_dirty 0
	dd if=/dev/urandom of=/dev/lraid0 bs=64K count=64 oflag=direct status=none ||
		lr_fail "write 4 MiB"
	expect_bm "* 0 0 active none" "${opt:-no option}, written" "${m[@]}"
	stopped_as clean
done
echo "PASS: the write-intent bitmap is set before writes, cleared after, kept while degraded, and limits the resync to its regions"
