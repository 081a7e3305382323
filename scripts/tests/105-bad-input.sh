#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad input is refused with a clear error, leaves members untouched and the
# kernel clean (vm-run checks dmesg for splats). Among it: members whose
# array would be larger than a block device may be (dm-zero, where the
# kernel has it), and two members that are one storage under two names
# (two loop devices over one file: create's probe of the first block
# finds them, having written it).
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup

lr_members loop 5 64
m=("${LR_M[@]}")
lr_loop 1
tiny=$LR_DEV
for d in "${m[@]}" "$tiny"; do
	dd if=/dev/urandom of="$d" bs=64k count=1 conv=fsync 2>/dev/null
done
before=$(for d in "${m[@]}" "$tiny"; do head -c 65536 "$d" | sha256sum; done)

refuse() {
	local what=$1 out
	shift
	if out=$("$LRAIDCTL" "$@" 2>&1); then
		lr_fail "$what: accepted: lraidctl $*"
	fi
	echo "$out" | grep -q "lraidctl: " || lr_fail "$what: no error message"
	echo "ok: $what: $out"
	[ ! -e /dev/lraid0 ] || lr_fail "$what: /dev/lraid0 exists"
}

# refuse_with TEXT WHAT ARGS...: refuse, and lraidctl's message says TEXT
refuse_with() {
	local text=$1 out
	shift
	out=$(refuse "$@")
	grep -qi -- "$text" <<<"$out" || lr_fail "$1: not \"$text\": $out"
	echo "$out"
}

refuse "RAID5 with 2 members" create lraid0 --level 5 "${m[@]:0:2}"
refuse "RAID6 with 3 members" create lraid0 --level 6 "${m[@]:0:3}"
refuse "duplicate member" create lraid0 --level 5 "${m[0]}" "${m[1]}" "${m[0]}"
refuse "chunk not a power of two" create lraid0 --level 5 --chunk 48K "${m[@]:0:3}"
refuse "chunk too small" create lraid0 --level 5 --chunk 2K "${m[@]:0:3}"
refuse "chunk too big" create lraid0 --level 5 --chunk 2M "${m[@]:0:3}"
refuse "bad level" create lraid0 --level 4 "${m[@]:0:3}"
refuse "no level" create lraid0 "${m[@]:0:3}"
refuse "member count not --raid-devices" create lraid0 -l5 -n 4 "${m[@]:0:3}"
refuse "chunk (KiB) not a power of two" create lraid0 --level=5 --chunk=48 "${m[@]:0:3}"
refuse "chunk with a bare i" create lraid0 --level=5 --chunk=4096i "${m[@]:0:3}"
refuse "chunk with an unknown unit" create lraid0 --level=5 --chunk=64X "${m[@]:0:3}"
refuse "unknown option" create lraid0 --level 5 --write-mostly "${m[@]:0:3}"
refuse_with "internal or none" "--bitmap neither internal nor none" \
	create lraid0 --level 5 --bitmap=bogus "${m[@]:0:3}"
refuse_with "power of two" "--bitmap-chunk not a power of two" \
	create lraid0 --level 5 --bitmap=internal --bitmap-chunk=3M "${m[@]:0:3}"
refuse_with "at least the chunk" "--bitmap-chunk smaller than the chunk" \
	create lraid0 --level 5 --chunk 64K --bitmap=internal --bitmap-chunk=32K "${m[@]:0:3}"
refuse_with "bitmap=internal" "--bitmap-chunk with --bitmap=none" \
	create lraid0 --level 5 --bitmap=none --bitmap-chunk=1M "${m[@]:0:3}"
refuse "layout md has but lraid not" create lraid0 -l5 --layout=right-asymmetric "${m[@]:0:3}"
refuse "option without its value" create lraid0 "${m[@]:0:3}" --level
refuse "member too small" create lraid0 --level 5 "${m[0]}" "${m[1]}" "$tiny"
refuse "not a block device" create lraid0 --level 5 "${m[0]}" "${m[1]}" /dev/null
refuse "bad array name" create md0 --level 5 "${m[@]:0:3}"

# a member in use: held open exclusively by another opener
python3 - "${m[2]}" "$LR_TMP/held" <<'PY' &
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_EXCL)
open(sys.argv[2], "w").close()
time.sleep(60)
PY
holder=$!
for _ in $(seq 100); do
	[ -e "$LR_TMP/held" ] && break
	sleep 0.2
done
[ -e "$LR_TMP/held" ] || lr_fail "could not hold ${m[2]}"
refuse "member in use" create lraid0 --run --level 5 "${m[@]:0:3}"
kill "$holder" 2>/dev/null || true
wait "$holder" 2>/dev/null || true

refuse "stop of a missing array" stop lraid0
out=$("$LRAIDCTL" stop lraid0 2>&1) || true
grep -qF "(array not running)" <<<"$out" ||
	lr_fail "stop of a missing array: not said so: $out"
refuse "detail of a missing array" detail lraid0
refuse "assemble without superblocks" assemble lraid0 "${m[@]:0:3}"
refuse "examine without superblock" examine "${m[0]}"

after=$(for d in "${m[@]}" "$tiny"; do head -c 65536 "$d" | sha256sum; done)
[ "$before" = "$after" ] || lr_fail "refused commands modified members"

# members so large that the array's size in bytes would not fit a loff_t,
# the most a block device may hold: RAID5 over three dm-zero devices of
# 2^53 + 4096 sectors (4 EiB) each would have 2^54 + 4096 sectors (the
# data area starts at 2048 on each), the limit being 2^54 - 1
modprobe -q dm-zero 2>/dev/null || true
bigt="0 $(((1 << 53) + 4096)) zero"
if lr_dm lrbig0 "$bigt" 2>/dev/null; then
	big=("$LR_DEV")
	for i in 1 2; do
		lr_dm "lrbig$i" "$bigt" || lr_fail "dm-zero lrbig$i"
		big+=("$LR_DEV")
	done
	lr_klog_mark
	out=$("$LRAIDCTL" create lraid0 --level 5 --assume-clean --run \
		"${big[@]}" 2>&1) &&
		lr_fail "an array of 2^54 + 4096 sectors accepted: $out"
	grep -q "larger than a block device can be" <<<"$out" ||
		lr_fail "an array too large: not said so: $out"
	echo "ok: array too large: $out"
	[ ! -e /dev/lraid0 ] || lr_fail "array too large: /dev/lraid0 exists"
	lr_klog_has "create: members too large" ||
		lr_fail "an array too large: nothing in the kernel log"
else
	echo "no dm-zero target here: an array too large not tried"
fi

# two names for one storage: a second loop device over the first one's
# file passes every check on the devices, and the two roles would
# overwrite each other; create writes each member a block naming its
# role and reads them all back
lr_loop 64
dup=("$LR_DEV")
dup+=("$(losetup -f --show "$(losetup -n -O BACK-FILE "${dup[0]}")")") ||
	lr_fail "a second loop device over the file of ${dup[0]}"
LR_LOOPS+=("${dup[1]}")
lr_loop 64
dup+=("$LR_DEV")
lr_klog_mark
refuse "two names for one storage" create lraid0 --level 5 --run "${dup[@]}"
lr_klog_has "${dup[0]##*/} and ${dup[1]##*/} are the same storage" ||
	lr_fail "two names for one storage: not named in the kernel log"
for d in "${dup[@]}"; do
	"$LRAIDCTL" examine "$d" >/dev/null 2>&1 &&
		lr_fail "two names for one storage: a superblock left on $d"
done

# two arrays, then a mixed set, a missing member and a member twice
# mdadm's spellings: --level=N, -n, --chunk in KiB, options after names
lr_create lraid1 --level=5 -n 3 "${m[0]}" "${m[1]}" "${m[2]}" --chunk=128 \
	--layout=left-symmetric --assume-clean
"$LRAIDCTL" detail lraid1 | grep -q "Chunk Size : 128K" ||
	lr_fail "--chunk=128 did not give 128 KiB chunks"
"$LRAIDCTL" stop lraid1 || lr_fail stop
lr_loop 64
m+=("$LR_DEV")
lr_create lraid2 --level 5 --assume-clean "${m[3]}" "${m[4]}" "${m[5]}"
"$LRAIDCTL" stop lraid2 || lr_fail stop
refuse "mixed set" assemble lraid1 "${m[0]}" "${m[1]}" "${m[3]}"
refuse "missing member with --no-degraded" assemble --no-degraded lraid1 "${m[0]}" "${m[1]}"
refuse "two of three members missing" assemble lraid1 "${m[0]}"
sb3=$(for d in "${m[@]:0:3}"; do head -c 4096 "$d" | sha256sum; done)
out=$("$LRAIDCTL" assemble lraid1 "${m[0]}" "${m[1]}" 2>&1) &&
	lr_fail "started without a member last recorded working, no --run: $out"
grep -q "role 2, last recorded working.*--run" <<<"$out" ||
	lr_fail "a missing member without --run: not named, or no word of --run: $out"
echo "ok: a missing member without --run: $out"
[ "$(for d in "${m[@]:0:3}"; do head -c 4096 "$d" | sha256sum; done)" = "$sb3" ] ||
	lr_fail "a refused assemble changed a superblock"
refuse "same member twice" assemble lraid1 "${m[0]}" "${m[1]}" "${m[1]}"
[ ! -e /dev/lraid1 ] || lr_fail "lraid1 exists after refused assemble"
"$LRAIDCTL" assemble lraid1 "${m[2]}" "${m[0]}" "${m[1]}" >/dev/null ||
	lr_fail "good assemble refused"
LR_ARRAYS+=(lraid1)
refuse "member of a running array" create lraid3 --run --level 5 "${m[0]}" "${m[3]}" "${m[4]}"
refuse "array number in use" assemble lraid1 "${m[3]}" "${m[4]}" "${m[5]}"

# create looks at what the members hold, as mdadm does, and without --run
# refuses to overwrite it: here another array's members, a file system and
# an md superblock (its magic at 4 KiB, metadata 1.2); nothing is written
lr_loop 64
fs=$LR_DEV
mkfs.ext4 -q -F "$fs" >/dev/null 2>&1 || lr_fail "mkfs.ext4 $fs"
lr_loop 64
md=$LR_DEV
printf '\xfc\x4e\x2b\xa9' | dd of="$md" bs=1 seek=4096 conv=notrunc,fsync \
	status=none
# heads DEV...: a hash of each DEV's first MiB, one per line
heads() {
	local d
	for d in "$@"; do
		head -c 1M "$d" | sha256sum
	done
}
held() {
	heads "${m[3]}" "${m[4]}" "$fs" "$md"
}
before_held=$(held)
for what in "an lraid array's members:is role 0 of lraid array" \
	"a file system:${fs} holds an ext2/ext3/ext4 file system" \
	"an md member:${md} holds an md superblock (metadata 1.2)"; do
	case $what in
	an\ lraid*) set -- "${m[3]}" "${m[4]}" "${m[5]}" ;;
	a\ file*) set -- "${m[3]}" "${m[4]}" "$fs" ;;
	*) set -- "$md" "${m[4]}" "${m[5]}" ;;
	esac
	out=$("$LRAIDCTL" create lraid3 --level 5 --assume-clean "$@" 2>&1 </dev/null) &&
		lr_fail "create over ${what%%:*} accepted: $out"
	grep -qF "${what#*:}" <<<"$out" ||
		lr_fail "create over ${what%%:*}: not named: $out"
	grep -q -- "--run creates anyway" <<<"$out" ||
		lr_fail "create over ${what%%:*}: no word of --run: $out"
	echo "ok: create over ${what%%:*}: $out"
	[ ! -e /dev/lraid3 ] || lr_fail "create over ${what%%:*}: lraid3 exists"
done
[ "$(held)" = "$before_held" ] || lr_fail "a refused create changed a member"
# on a terminal (script(1) gives it one) create asks instead: no keeps
# the members as they are, yes creates
if command -v script >/dev/null; then
	cmd="$LRAIDCTL create lraid3 --level 5 --assume-clean ${m[3]} ${m[4]} $fs"
	out=$(echo n | script -qec "$cmd" /dev/null 2>&1) &&
		lr_fail "create over a file system, answered no: accepted: $out"
	grep -q "continue creating the array over them" <<<"$out" ||
		lr_fail "create on a terminal did not ask: $out"
	[ ! -e /dev/lraid3 ] || lr_fail "answered no: lraid3 exists"
	[ "$(held)" = "$before_held" ] || lr_fail "answered no: a member changed"
	out=$(echo y | script -qec "$cmd" /dev/null 2>&1) ||
		lr_fail "create over a file system, answered yes: refused: $out"
	echo "ok: create on a terminal asks, and takes the answer"
else
	"$LRAIDCTL" create lraid3 --run --level 5 --assume-clean "${m[3]}" \
		"${m[4]}" "$fs" >/dev/null 2>&1 ||
		lr_fail "create --run over a file system refused"
fi
lr_settle
[ -b /dev/lraid3 ] || lr_fail "no /dev/lraid3 after the create over a file system"
"$LRAIDCTL" stop lraid3 || lr_fail "stop lraid3"
"$LRAIDCTL" create lraid3 --run --level 5 --assume-clean "${m[3]}" "${m[4]}" \
	"$fs" >/dev/null 2>&1 || lr_fail "create --run over an lraid array refused"
"$LRAIDCTL" stop lraid3 || lr_fail "stop lraid3"
# members more than 1% apart in size (of the largest, mdadm's threshold): the larger one
# named, refused without --run (the smallest sets the size, the rest of
# the others goes unused), nothing written; within 1%, no word
lr_loop 64
sz=("$LR_DEV")
lr_loop 64
sz+=("$LR_DEV")
lr_loop 72
sz+=("$LR_DEV")
lr_loop 66048K
sz+=("$LR_DEV")
before_sz=$(heads "${sz[@]}")
LR_ARRAYS+=(lraid3)
out=$("$LRAIDCTL" create lraid3 --level 5 "${sz[@]:0:3}" 2>&1 </dev/null) &&
	lr_fail "create over members of 64, 64 and 72 MiB accepted: $out"
grep -qF "${sz[2]} (73728K) is more than 1% larger than the smallest member, ${sz[0]} (65536K)" <<<"$out" ||
	lr_fail "create over members of odd sizes: the larger not named: $out"
grep -q -- "differ in size; --run creates anyway" <<<"$out" ||
	lr_fail "create over members of odd sizes: no word of --run: $out"
[ ! -e /dev/lraid3 ] || lr_fail "create over members of odd sizes: lraid3 exists"
[ "$(heads "${sz[@]}")" = "$before_sz" ] ||
	lr_fail "a create refused for odd sizes changed a member"
echo "ok: create over members of odd sizes: $out"
out=$("$LRAIDCTL" create lraid3 --level 5 --assume-clean "${sz[0]}" "${sz[1]}" "${sz[3]}" 2>&1 </dev/null) ||
	lr_fail "create over members of 64, 64 and 64.5 MiB refused: $out"
[ "$out" = /dev/lraid3 ] || lr_fail "create within 1% of sizes said more: $out"
lr_settle
"$LRAIDCTL" stop lraid3 || lr_fail "stop lraid3"
refuse "fail of a non-member" fail lraid1 "${m[3]}"
refuse "fail of a non-device" fail lraid1 /dev/null
refuse "fail in a missing array" fail lraid7 "${m[0]}"
exec 8</dev/lraid1
if out=$("$LRAIDCTL" stop lraid1 2>&1); then
	lr_fail "stop of an open array accepted"
fi
echo "ok: stop of an open array: $out"
exec 8<&-
"$LRAIDCTL" stop lraid1 || lr_fail stop

# a whole disk and its own partition: lraidctl refuses by sysfs, the kernel
# (fds handed straight to the ioctl) by its own check, -EINVAL, not -EBUSY
img=$LR_TMP/parted.img
truncate -s 64M "$img"
python3 - "$img" <<'PY' || lr_fail "partition table"
import struct, sys
mbr = bytearray(512)
for i, (start, sectors) in enumerate([(2048, 40960), (43008, 40960)]):
    mbr[446 + 16 * i:462 + 16 * i] = struct.pack("<B3sB3sII", 0, bytes(3), 0x83,
                                                  bytes(3), start, sectors)
mbr[510:512] = b"\x55\xaa"
with open(sys.argv[1], "r+b") as f:
    f.write(mbr)
PY
pd=$(losetup -fP --show "$img") || lr_fail "losetup -P"
LR_LOOPS+=("$pd")
# udev rereads the table whenever the disk is closed after a write open:
# wait for the partitions to be back before every step
parts() {
	lr_settle
	for _ in $(seq 50); do
		[ -b "${pd}p1" ] && [ -b "${pd}p2" ] && return 0
		sleep 0.1
	done
	return 1
}
parts || lr_fail "no partitions on $pd (losetup -P)"
LR_ARRAYS+=(lraid0)
refuse "a disk and its own partition" create lraid0 --run --level 5 "$pd" "${pd}p1" "${m[0]}"
parts || lr_fail "partitions gone"
refuse "a partition and its disk" create lraid0 --run --level 5 "${pd}p2" "${m[0]}" "$pd"
parts || lr_fail "partitions gone"
python3 - "$pd" "${pd}p1" "${m[0]}" <<'PY' || lr_fail "kernel overlap check"
import array, errno, fcntl, os, struct, subprocess, sys, time
ctl = os.open("/dev/lraid-control", os.O_RDWR)
disk, part, other = sys.argv[1:4]
for order in ([disk, part, other], [part, other, disk]):
    subprocess.run(["udevadm", "settle"], check=False)
    for _ in range(50):
        if os.path.exists(part):
            break
        time.sleep(0.1)
    fds = array.array("i", [os.open(p, os.O_RDWR) for p in order])
    c = struct.pack("<IIBBHIQQ32x", 0, 1, 5, len(fds), 0, 65536,
                    fds.buffer_info()[0], 0)
    try:
        fcntl.ioctl(ctl, (1 << 30) | (64 << 16) | (0xA7 << 8) | 1, c)
        err = 0
    except OSError as e:
        err = e.errno
    for fd in fds:
        os.close(fd)
    assert err == errno.EINVAL, f"{order}: errno {err}, wanted EINVAL"
    print(f"ok: kernel refuses {order}: {os.strerror(err)}")
PY
# two partitions of one disk that do not overlap are fine
parts || lr_fail "partitions gone"
"$LRAIDCTL" create lraid0 --run --level 5 --assume-clean "${pd}p1" "${pd}p2" "${m[0]}" \
	>/dev/null || lr_fail "partitions of one disk refused"
"$LRAIDCTL" stop lraid0 || lr_fail stop

# the control ABI itself: reserved fields, unknown flags, short structs
python3 - <<'PY' || lr_fail "ioctl ABI checks"
import fcntl, os, struct, errno
fd = os.open("/dev/lraid-control", os.O_RDWR)
def ioc(dir, nr, size):
    return (dir << 30) | (size << 16) | (0xA7 << 8) | nr
W, RW = 1, 3
def expect(cmd, buf, err, what):
    try:
        fcntl.ioctl(fd, cmd, bytearray(buf))
    except OSError as e:
        assert e.errno == err, f"{what}: errno {e.errno}, wanted {err}"
        print(f"ok: {what}: {os.strerror(e.errno)}")
        return
    raise AssertionError(f"{what}: accepted")
# version with reserved set
v = bytearray(48); v[20] = 1
expect(ioc(RW, 0, 48), v, errno.EINVAL, "version with reserved != 0")
# create: unknown flag, pad, reserved, index out of range
c = struct.pack("<IIBBHIQQ32x", 0, 1 << 7, 5, 3, 0, 65536, 0, 0)
expect(ioc(W, 1, 64), c, errno.EINVAL, "create with unknown flag")
c = struct.pack("<IIBBHIQQ32x", 0, 0, 5, 3, 1, 65536, 0, 0)
expect(ioc(W, 1, 64), c, errno.EINVAL, "create with pad != 0")
c = bytearray(struct.pack("<IIBBHIQQ32x", 0, 0, 5, 3, 0, 65536, 0, 0)); c[40] = 1
expect(ioc(W, 1, 64), c, errno.EINVAL, "create with reserved != 0")
c = struct.pack("<IIBBHIQQ32x", 999, 0, 5, 3, 0, 65536, 0, 0)
expect(ioc(W, 1, 64), c, errno.EINVAL, "create with index 999")
c = struct.pack("<IIBBHIQQ32x", 0, 0, 5, 3, 0, 65536, 8, 0)
expect(ioc(W, 1, 64), c, errno.EFAULT, "create with bad fd pointer")
# a newer, longer struct with a non-zero tail
c = struct.pack("<IIBBHIQQ32xQ", 0, 0, 5, 3, 0, 65536, 0, 0, 1)
expect(ioc(W, 1, 72), c, errno.E2BIG, "create with non-zero unknown tail")
expect(ioc(W, 3, 24), struct.pack("<II16x", 0, 1), errno.EINVAL, "stop with flags")
expect(ioc(W, 2, 56), struct.pack("<IIB7xQ32x", 0, 2, 0, 0), errno.EINVAL,
       "assemble with unknown flag")
expect(ioc(W, 5, 32), struct.pack("<IIII16x", 0, 1, 7, 0), errno.EINVAL, "fail with flags")
f = bytearray(struct.pack("<IIII16x", 0, 0, 7, 0)); f[20] = 1
expect(ioc(W, 5, 32), f, errno.EINVAL, "fail with reserved != 0")
expect(ioc(W, 0x3f, 8), bytes(8), errno.ENOTTY, "unknown command")
# structs shorter than the first version's: refused, not zero-filled (a
# stop with no struct at all would otherwise stop array 0)
for nr, dir, size, name in ((0, RW, 48, "version"), (1, W, 64, "create"),
                            (2, W, 56, "assemble"), (3, W, 24, "stop"),
                            (4, RW, 872, "info"), (5, W, 32, "fail")):
    for short in (0, 8, size - 8):
        expect(ioc(dir, nr, short), bytes(max(short, 1)), errno.EINVAL,
               f"{name} with a {short}-byte struct")
PY
echo "PASS: bad input refused"
