# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for lraid's data-path scenarios (scripts/tests/1NN-*.sh).
# Sourced; expects root in a guest, cwd = repository root, and
#   LRAIDCTL  path to lraidctl     LRAID_KO  path to lraid.ko
# Every helper cleans up after itself through lr_cleanup (set as EXIT trap).

LR_TMP=
LR_NULLB=()
LR_LOOPS=()
LR_ARRAYS=()
LR_DEV=
LR_M=()
LR_BAD=()
LR_BAD_KIND=
LR_DUST=()
LR_SDEBUG=/sys/bus/pseudo/drivers/scsi_debug

lr_skip() {
	echo "SKIP: $*"
	exit 77
}

lr_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

lr_log() {
	echo "== $*"
}

lr_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || lr_skip "$c not installed"
	done
}

lr_cleanup() {
	local a d l
	set +e
	for a in "${LR_ARRAYS[@]}"; do
		[ -e "/dev/$a" ] && "$LRAIDCTL" stop "$a" >/dev/null 2>&1
	done
	for d in /dev/md/lrtest /dev/md12[0-9]; do
		[ -e "$d" ] && mdadm --stop "$d" >/dev/null 2>&1
	done
	# bad-sector devices (lr_bad_setup): dust holds a null_blk below
	for d in "${LR_DUST[@]}"; do
		dmsetup remove --noudevsync "$d" 2>/dev/null
	done
	if [ "$LR_BAD_KIND" = sdebug ]; then
		echo 0 >"$LR_SDEBUG/opts"
		udevadm settle 2>/dev/null
		modprobe -r scsi_debug 2>/dev/null
	fi
	for l in "${LR_LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	for d in "${LR_NULLB[@]}"; do
		echo 0 >"/sys/kernel/config/nullb/$d/power" 2>/dev/null
		rmdir "/sys/kernel/config/nullb/$d" 2>/dev/null
	done
	[ -n "$LR_TMP" ] && rm -rf "$LR_TMP"
	# module parameters a scenario may have set back to their defaults
	a=/sys/module/lraid/parameters/devices_handle_discard_safely
	[ -w "$a" ] && echo N >"$a"
	a=/sys/module/lraid/parameters/max_read_errors
	[ -w "$a" ] && echo 20 >"$a"
	return 0
}

# Load lraid (and the crc32c library its superblock codec needs).
lr_setup() {
	[ "$(id -u)" = 0 ] || lr_skip "needs root"
	if [ -z "${LRAIDCTL:-}" ] || [ ! -x "$LRAIDCTL" ]; then
		lr_skip "LRAIDCTL not set"
	fi
	trap lr_cleanup EXIT
	LR_TMP=$(mktemp -d /tmp/lraid-test.XXXXXX)
	if [ ! -e /dev/lraid-control ]; then
		if [ -z "${LRAID_KO:-}" ] || [ ! -f "$LRAID_KO" ]; then
			lr_skip "LRAID_KO not set"
		fi
		modprobe -q libcrc32c 2>/dev/null || modprobe -q crc32c 2>/dev/null
		insmod "$LRAID_KO" || lr_fail "insmod $LRAID_KO"
	fi
	[ -e /dev/lraid-control ] || lr_fail "no /dev/lraid-control"
}

# lr_nullb NAME SIZE_MB [ATTR=VALUE...]: sets LR_DEV=/dev/NAME (memory
# backed, discard on, then the given configfs attributes)
lr_nullb() {
	local name=$1 mb=$2 d kv
	modprobe -q null_blk nr_devices=0 2>/dev/null || lr_skip "no null_blk"
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || lr_skip "no configfs"
	d=/sys/kernel/config/nullb/$name
	mkdir "$d" || lr_fail "null_blk $name"
	LR_NULLB+=("$name")
	echo "$mb" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 512 >"$d/blocksize"
	[ -e "$d/discard" ] && echo 1 >"$d/discard"
	for kv in "${@:3}"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || lr_fail "null_blk $name: $kv"
	done
	echo 1 >"$d/power"
	for _ in $(seq 50); do
		[ -b "/dev/$name" ] && break
		sleep 0.1
	done
	[ -b "/dev/$name" ] || lr_fail "/dev/$name did not appear"
	LR_DEV=/dev/$name
}

# lr_loop SIZE_MB: sets LR_DEV=/dev/loopN backed by a sparse file
lr_loop() {
	local mb=$1 f l
	modprobe -q loop 2>/dev/null
	f=$(mktemp "$LR_TMP/loop.XXXXXX")
	truncate -s "${mb}M" "$f"
	l=$(losetup -f --show "$f") || lr_fail "losetup"
	LR_LOOPS+=("$l")
	LR_DEV=$l
}

# lr_members KIND N SIZE_MB: fills LR_M with N fresh members
lr_members() {
	local kind=$1 n=$2 mb=$3
	LR_M=()
	for _ in $(seq "$n"); do
		if [ "$kind" = nullb ]; then
			lr_nullb "nullb${#LR_NULLB[@]}" "$mb"
		else
			lr_loop "$mb"
		fi
		LR_M+=("$LR_DEV")
	done
}

# lr_create NAME ARGS... (remembers the array for cleanup)
lr_create() {
	local name=$1
	shift
	"$LRAIDCTL" create "$name" "$@" >/dev/null || lr_fail "create $name $*"
	LR_ARRAYS+=("$name")
	udevadm settle 2>/dev/null
	[ -b "/dev/$name" ] || lr_fail "/dev/$name missing after create"
}

# lr_fio DEV NAME ARGS...: fio with crc32c verify, fails on any error
lr_fio() {
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
		--output="$LR_TMP/fio.out" "$@" ||
		{ cat "$LR_TMP/fio.out"; lr_fail "fio $name on $dev"; }
	if grep -Eq "err= *[1-9]" "$LR_TMP/fio.out"; then
		cat "$LR_TMP/fio.out"
		lr_fail "fio $name reported errors"
	fi
}

# lr_md_check LEVEL CHUNK_K SECTORS SHA MEMBERS...: assemble md over the
# same data area (destroys each member's first 4 KiB), check that its first
# SECTORS hash to SHA (sha256 of what lraid read), run a parity check.
lr_md_check() {
	local level=$1 chunk=$2 sectors=$3 sha=$4 md=/dev/md127 mm got
	shift 4
	lr_need mdadm
	mdadm --create "$md" --run --quiet --level="$level" \
		--layout=left-symmetric --chunk="$chunk" --metadata=1.2 \
		--data-offset=1024 --assume-clean --bitmap=none \
		--raid-devices=$# "$@" >"$LR_TMP/mdadm.out" 2>&1 ||
		{ cat "$LR_TMP/mdadm.out"; lr_fail "mdadm --create"; }
	got=$(head -c $((sectors * 512)) "$md" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$sha" ] || lr_fail "md reads different bytes than lraid"
	echo check >/sys/block/md127/md/sync_action
	sleep 1
	while grep -q check /sys/block/md127/md/sync_action; do sleep 0.5; done
	mm=$(cat /sys/block/md127/md/mismatch_cnt)
	mdadm --stop "$md" >/dev/null 2>&1
	[ "$mm" = 0 ] || lr_fail "md check: mismatch_cnt $mm"
}

# lr_sha DEV SECTORS: sha256 of the first SECTORS of DEV
lr_sha() {
	head -c $(($2 * 512)) "$1" | sha256sum | cut -d' ' -f1
}

# lr_sectors lraidN: array size in sectors
lr_sectors() {
	cat "/sys/block/$1/size"
}

# lr_role MEMBERS NR_PARITY STRIPE MEMBER: what MEMBER holds in STRIPE under
# the left-symmetric layout: P, Q or the data index
lr_role() {
	local n=$1 np=$2 s=$3 m=$4 dist
	dist=$(((m - (n - 1 - s % n) + n) % n))
	if [ "$dist" = 0 ]; then
		echo P
	elif [ "$np" = 2 ] && [ "$dist" = 1 ]; then
		echo Q
	else
		echo $((dist - np))
	fi
}

# ---- members with bad sectors ----
# Devices whose reads fail over chosen sectors while writes succeed, like
# a drive that remaps a bad sector when it is written: scsi_debug disks
# with MEDIUM ERROR injection (Debian's kernels; all of them fail one
# range, from the lowest to the highest sector given), or device-mapper's
# dust target over null_blk (the test and debug kernels, which have no
# scsi_debug; there a write clears the bad 4 KiB block it lands on).

# lr_bad_setup N: sets LR_BAD to N such devices of 64 MiB, errors off
lr_bad_setup() {
	local n=$1 b i
	LR_BAD=()
	if modprobe -q scsi_debug dev_size_mb=64 delay=0 opts=0 \
		add_host="$n" per_host_store=1 2>/dev/null; then
		LR_BAD_KIND=sdebug
		udevadm settle 2>/dev/null
		for _ in $(seq 50); do
			LR_BAD=()
			for b in "$LR_SDEBUG"/adapter*/host*/target*/*:*/block/*; do
				[ -b "/dev/${b##*/}" ] && LR_BAD+=("/dev/${b##*/}")
			done
			[ "${#LR_BAD[@]}" = "$n" ] && break
			sleep 0.2
		done
		[ "${#LR_BAD[@]}" = "$n" ] || lr_fail "no $n scsi_debug disks"
		if [ ! -w /sys/module/scsi_debug/parameters/medium_error_start ] ||
			[ ! -w "$LR_SDEBUG/opts" ]; then
			lr_skip "scsi_debug without writable medium error parameters"
		fi
		return
	fi
	command -v dmsetup >/dev/null 2>&1 || lr_skip "no scsi_debug, no dmsetup"
	modprobe -q dm-mod 2>/dev/null || true
	dmsetup targets 2>/dev/null | grep -q '^dust' ||
		lr_skip "neither scsi_debug nor the dm dust target"
	LR_BAD_KIND=dust
	for ((i = 0; i < n; i++)); do
		lr_nullb "lrbad$i" 64
		# no udev synchronisation: guests may run without udevd
		echo "0 $((64 * 2048)) dust $LR_DEV 0 4096" |
			dmsetup create --noudevsync "lrdust$i" ||
			lr_fail "dmsetup create lrdust$i"
		LR_DUST+=("lrdust$i")
		b=/dev/$(dmsetup info -c --noheadings -o blkdevname "lrdust$i")
		[ -b "$b" ] || lr_fail "no block device for lrdust$i"
		dmsetup message "lrdust$i" 0 quiet >/dev/null
		LR_BAD+=("$b")
	done
}

# lr_bad_on N START COUNT...: reads of those sector ranges (4 KiB aligned)
# fail from now on, on the first N of LR_BAD (scsi_debug: on all of them)
lr_bad_on() {
	local n=$1 r=("${@:2}") lo=-1 hi=0 i d b
	if [ "$LR_BAD_KIND" = sdebug ]; then
		for ((i = 0; i < ${#r[@]}; i += 2)); do
			((lo < 0 || r[i] < lo)) && lo=${r[i]}
			((r[i] + r[i + 1] > hi)) && hi=$((r[i] + r[i + 1]))
		done
		echo "$lo" >/sys/module/scsi_debug/parameters/medium_error_start
		echo $((hi - lo)) >/sys/module/scsi_debug/parameters/medium_error_count
		echo 2 >"$LR_SDEBUG/opts"
		return
	fi
	for d in "${LR_DUST[@]:0:n}"; do
		for ((i = 0; i < ${#r[@]}; i += 2)); do
			for ((b = r[i] / 8; b < (r[i] + r[i + 1]) / 8; b++)); do
				dmsetup message "$d" 0 addbadblock $b >/dev/null ||
					lr_fail "$d: addbadblock $b"
			done
		done
		dmsetup message "$d" 0 enable >/dev/null || lr_fail "$d: enable"
	done
}

lr_bad_off() {
	local d
	if [ "$LR_BAD_KIND" = sdebug ]; then
		echo 0 >"$LR_SDEBUG/opts"
		return
	fi
	for d in "${LR_DUST[@]}"; do
		dmsetup message "$d" 0 disable >/dev/null || lr_fail "$d: disable"
	done
}

# lr_bad_left: bad blocks no write has cleared yet, summed over the dust
# devices ("-" with scsi_debug, whose errors stay)
lr_bad_left() {
	local d n sum=0
	if [ "$LR_BAD_KIND" = sdebug ]; then
		echo -
		return
	fi
	for d in "${LR_DUST[@]}"; do
		n=$(dmsetup message "$d" 0 countbadblocks 2>&1 |
			sed -n 's/.*: \([0-9]*\) badblock.*/\1/p')
		[ -n "$n" ] || lr_fail "$d: countbadblocks"
		sum=$((sum + n))
	done
	echo "$sum"
}
