# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers for lraid's data-path scenarios (scripts/tests/1NN-*.sh).
# Sourced; expects root in a guest, cwd = repository root, and
#   LRAIDCTL  path to lraidctl     LRAID_KO  path to lraid.ko
# Every helper cleans up after itself through lr_cleanup (set as EXIT trap).

LR_TMP=
LR_NULLB=()
LR_LOOPS=()
LR_LOOP_DIR=
LR_MOUNTS=()
LR_ARRAYS=()
LR_DEV=
LR_M=()
LR_BAD=()
LR_BAD_DM=()
LR_BAD_LEFT=
LR_TARGET_MODS=()
LR_DM=()
LR_TRACE=
LR_PIDS=()

lr_skip() {
	echo "SKIP: $*"
	exit 77
}

lr_fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# lr_full: true in make check-full (LRAID_TEST_LEVEL=full); make check runs
# the quick level, with fewer rounds where a scenario repeats itself
lr_full() {
	[ "${LRAID_TEST_LEVEL:-quick}" = full ]
}

lr_log() {
	echo "== [${SECONDS}s] $*"
}

# The kernel log is never cleared by a scenario: scenarios.sh reads all
# of it for splats afterwards. lr_klog_mark marks where a step starts;
# lr_klog prints the log from the last mark on (all of it before any mark),
# lr_klog_has [GREP-OPTION...] PATTERN looks for PATTERN in that part.
LR_KLOG_MARK=
lr_klog_mark() {
	LR_KLOG_MARK="lraid-test: mark $$.$RANDOM.$SECONDS"
	echo "$LR_KLOG_MARK" >/dev/kmsg
}

# A log that cannot be read, or that lost the mark (wrapped), fails: a
# check that something is *not* in the log would pass on nothing.
lr_klog() {
	local all
	all=$(dmesg) || { echo "lr_klog: dmesg failed" >&2; return 1; }
	if [ -n "$LR_KLOG_MARK" ]; then
		grep -qF "$LR_KLOG_MARK" <<<"$all" ||
			{ echo "lr_klog: the mark is no longer in the kernel log" >&2; return 1; }
		awk -v m="$LR_KLOG_MARK" 'f; index($0, m) { f = 1 }' <<<"$all"
	else
		printf '%s\n' "$all"
	fi
}

# (read whole before grep: `dmesg | grep -q` under pipefail fails when
# grep stops early and dmesg dies of SIGPIPE)
lr_klog_has() {
	local log
	log=$(lr_klog) || lr_fail "cannot read the kernel log from the mark"
	grep -q "$@" <<<"$log"
}

# lr_klog_wait ERE [TENTHS]: the kernel log since the mark has ERE within
# TENTHS tenths of a second (50)
lr_klog_wait() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		lr_klog_has -E "$1" && return 0
		sleep 0.1
	done
	lr_fail "no '$1' in the kernel log: $(lr_klog | tail -5)"
}

# lr_wait_idle WHAT SECONDS: lraid0's sync_action reads idle within
# SECONDS, else WHAT fails with the pass's progress
lr_wait_idle() {
	local a f=/sys/block/lraid0/lraid end=$((SECONDS + $2))
	while read -r a <"$f/sync_action" && [ "$a" != idle ]; do
		[ $SECONDS -lt $end ] ||
			lr_fail "$1: still '$a' after $2 s ($(cat "$f/sync_completed")); log: $(lr_klog | tail -5)"
		sleep 0.2
	done
}

lr_need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || lr_skip "$c not installed"
	done
}

# lr_need_faults: skips unless the kernel's fault injection for slab and
# page allocations is there (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, built
# into the test and debug kernels only); mounts debugfs, whose path it
# leaves in LR_DEBUGFS
LR_DEBUGFS=/sys/kernel/debug
lr_need_faults() {
	local f
	mountpoint -q "$LR_DEBUGFS" ||
		mount -t debugfs none "$LR_DEBUGFS" 2>/dev/null || true
	for f in failslab fail_page_alloc; do
		[ -d "$LR_DEBUGFS/$f" ] ||
			lr_skip "no $f in this kernel (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC)"
	done
}

lr_cleanup() {
	local a d l m p
	set +e
	# background processes a scenario started (LR_PIDS): first, so that
	# none acts on what is taken down below (a monitor moving spares)
	for p in "${LR_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	[ ${#LR_PIDS[@]} = 0 ] || wait "${LR_PIDS[@]}" 2>/dev/null
	# md arrays may sit below lraid or above it (lr_md_raid0): the upper
	# one stops first, the lower one on the second pass
	for _ in 1 2; do
		for a in "${LR_ARRAYS[@]}"; do
			[ -e "/dev/$a" ] && "$LRAIDCTL" stop "$a" >/dev/null 2>&1
		done
		for d in /dev/md/lrtest /dev/md12[0-9]; do
			[ -e "$d" ] && mdadm --stop "$d" >/dev/null 2>&1
		done
	done
	# device-mapper devices (lr_dm, lr_bad_setup): each holds a null_blk or
	# loop below
	for d in "${LR_DM[@]}"; do
		dmsetup remove --noudevsync "$d" 2>/dev/null
	done
	# a tracing instance (mkdir "$LR_TRACE" under instances/)
	if [ -n "$LR_TRACE" ] && [ -d "$LR_TRACE" ]; then
		echo 0 >"$LR_TRACE/events/enable"
		rmdir "$LR_TRACE"
	fi
	for m in "${LR_TARGET_MODS[@]}"; do
		rmmod "$m" 2>/dev/null
	done
	for l in "${LR_LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	# file systems under loop files (lr_loop_fs), on null_blk: a loop
	# device still open somewhere (udev) lets its file go a little later
	for m in "${LR_MOUNTS[@]}"; do
		for _ in $(seq 50); do
			umount "$m" 2>/dev/null && break
			sleep 0.1
		done
	done
	lr_nullb_drop || true
	[ -n "$LR_TMP" ] && rm -rf "$LR_TMP"
	# module parameters a scenario may have set back to their defaults
	a=/sys/module/lraid/parameters/devices_handle_discard_safely
	[ -w "$a" ] && echo N >"$a"
	a=/sys/module/lraid/parameters/max_read_errors
	[ -w "$a" ] && echo 20 >"$a"
	a=/sys/module/lraid/parameters/copy_writes
	[ -w "$a" ] && echo Y >"$a"
	a=/sys/module/lraid/parameters/auto_resync
	[ -w "$a" ] && echo Y >"$a"
	a=/sys/module/lraid/parameters/speed_limit_min
	[ -w "$a" ] && echo 1000 >"$a"
	a=/sys/module/lraid/parameters/speed_limit_max
	[ -w "$a" ] && echo 200000 >"$a"
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
	lr_nullb_wait "/dev/$name"
	LR_DEV=/dev/$name
}

# lr_nullb_wait DEV: wait up to 5 s for DEV's node (a null_blk device after its
# power went to 1, a partition the kernel just read)
lr_nullb_wait() {
	for _ in $(seq 50); do
		[ -b "$1" ] && return 0
		sleep 0.1
	done
	lr_fail "$1 did not appear"
}

# lr_loop SIZE_MB [LOSETUP_OPTION...]: sets LR_DEV=/dev/loopN backed by a
# sparse file (SIZE_MB may also carry truncate's unit, 65728K say; -P lets
# the kernel read partition tables on it)
lr_loop() {
	local size=$1 f l
	shift
	if [[ "$size" =~ ^[0-9]+$ ]]; then
		size=${size}M
	fi
	modprobe -q loop 2>/dev/null
	f=$(mktemp "${LR_LOOP_DIR:-$LR_TMP}/loop.XXXXXX")
	truncate -s "$size" "$f"
	l=$(losetup -f --show "$@" "$f") || lr_fail "losetup"
	LR_LOOPS+=("$l")
	LR_DEV=$l
}

# lr_loop_fs SIZE_MB: later lr_loop files live on ext4 on a null_blk
# device of SIZE_MB, not on the guest's tmpfs. ext4 zeroes a range without
# unmapping it (FALLOC_FL_ZERO_RANGE) and tmpfs does not; loop on 6.12
# stops offering write-zeroes after the first such refusal (mkfs.ext4
# sends one), and lraid over it then has no discard.
lr_loop_fs() {
	lr_need mkfs.ext4
	lr_nullb lrloopfs "$1"
	mkfs.ext4 -q -F "$LR_DEV" || lr_fail "mkfs.ext4 $LR_DEV"
	LR_LOOP_DIR=$LR_TMP/loopfs
	mkdir -p "$LR_LOOP_DIR"
	mount "$LR_DEV" "$LR_LOOP_DIR" || lr_fail "mount $LR_DEV"
	LR_MOUNTS+=("$LR_LOOP_DIR")
}

# lr_nullb_drop: power off and remove every null_blk device made so far
# (fails if one would not go: still held)
lr_nullb_drop() {
	local d rc=0
	for d in "${LR_NULLB[@]}"; do
		echo 0 >"/sys/kernel/config/nullb/$d/power" 2>/dev/null
		rmdir "/sys/kernel/config/nullb/$d" 2>/dev/null || rc=1
	done
	LR_NULLB=()
	return $rc
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

# lr_reversed ARG...: LR_REV holds the arguments in reverse order (members
# handed to assemble in another order than create's)
lr_reversed() {
	local i
	LR_REV=()
	for ((i = $#; i > 0; i--)); do
		LR_REV+=("${!i}")
	done
}

# Wait for udev to finish with new devices. The device nodes themselves
# come from devtmpfs: a udev that does not settle (a queue left stopped,
# a worker stuck) is reported and waited out no longer.
lr_settle() {
	udevadm settle --timeout=60 2>/dev/null ||
		lr_log "udev still busy after 60 s (udevadm settle); going on"
}

# lr_create NAME ARGS... (remembers the array for cleanup); with --run, as
# scenarios reuse members (105 tests the refusal without it)
lr_create() {
	local name=$1
	shift
	"$LRAIDCTL" create --run "$name" "$@" >/dev/null ||
		lr_fail "create $name $*"
	LR_ARRAYS+=("$name")
	lr_settle
	[ -b "/dev/$name" ] || lr_fail "/dev/$name missing after create"
}

# lr_dm NAME TABLE: device-mapper device NAME with TABLE (one line), removed
# by lr_cleanup; sets LR_DEV to its node. Returns 1 if dmsetup refuses the
# table (a target this kernel lacks, say), for the caller to fail or skip.
lr_dm() {
	echo "$2" | dmsetup create --noudevsync "$1" || return 1
	LR_DM+=("$1")
	# no udev synchronisation: the node is the kernel's dm-N
	LR_DEV=/dev/$(dmsetup info -c --noheadings -o blkdevname "$1")
	[ -b "$LR_DEV" ] || lr_fail "no block device for $1"
}

# lr_md_raid0 MD CHUNK_K DEV...: md raid0 MD (/dev/md120 to md129, which
# lr_cleanup stops) over DEV... without a superblock and with iostats off,
# so that md hands bios down as they come where it can; skips without md
# raid0
lr_md_raid0() {
	local md=$1 chunk=$2
	lr_need mdadm
	modprobe -q raid0 2>/dev/null || true
	grep -q raid0 /proc/mdstat 2>/dev/null || lr_skip "no md raid0 in this kernel"
	mdadm --build "$md" --run --level=0 --raid-devices=$(($# - 2)) \
		--chunk="$chunk" "${@:3}" >/dev/null 2>&1 ||
		lr_fail "mdadm --build $md"
	lr_settle
	echo 0 >"/sys/block/${md#/dev/}/queue/iostats"
}

# lr_fio DEV NAME ARGS...: fio with crc32c verify, fails on any error;
# through libaio unless LR_FIO_ENGINE names another engine
lr_fio() {
	local dev=$1 name=$2
	shift 2
	fio --name="$name" --filename="$dev" --direct=1 \
		--ioengine="${LR_FIO_ENGINE:-libaio}" \
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
# SECTORS hash to SHA (sha256 of what lraid read), run a parity check to
# its end (md idle again, the check its last action, no member lost on the
# way) and require mismatch_cnt 0.
lr_md_check() {
	lr_md_mismatch "$@"
	[ "$LR_MISMATCH" = 0 ] || lr_fail "md check: mismatch_cnt $LR_MISMATCH"
}

# lr_md_mismatch ARGS...: lr_md_check without the verdict on parity: sets
# LR_MISMATCH to md's mismatch_cnt.
lr_md_mismatch() {
	local level=$1 chunk=$2 sectors=$3 sha=$4 md=/dev/md127 mm got
	local sys=/sys/block/md127/md action progress last idle=0 t
	shift 4
	lr_need mdadm
	mdadm --create "$md" --run --quiet --level="$level" \
		--layout=left-symmetric --chunk="$chunk" --metadata=1.2 \
		--data-offset=1024 --assume-clean --bitmap=none \
		--raid-devices=$# "$@" >"$LR_TMP/mdadm.out" 2>&1 ||
		{ cat "$LR_TMP/mdadm.out"; lr_fail "mdadm --create"; }
	got=$(head -c $((sectors * 512)) "$md" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$sha" ] || lr_fail "md reads different bytes than lraid"
	echo check >"$sys/sync_action" || lr_fail "md: cannot start a check"
	# Done: idle, no progress shown, and the check md's last action (the
	# array is new: "none" until one ran; a kernel without the file is
	# taken at its word). Idle but no check yet may be md between taking
	# the request and starting it; for 10 s it is the check not running.
	for ((t = 0; t < 1200; t++)); do
		sleep 0.5
		action=$(cat "$sys/sync_action")
		progress=$(cat "$sys/sync_completed")
		last=check
		[ -e "$sys/last_sync_action" ] && last=$(cat "$sys/last_sync_action")
		if [ "$action" = idle ] && [ "$progress" = none ]; then
			[ "$last" = check ] && break
			idle=$((idle + 1))
			[ $idle -lt 20 ] || break
		fi
	done
	[ "$action" = idle ] ||
		lr_fail "md check: sync_action still '$action' after 10 minutes"
	[ "$progress" = none ] ||
		lr_fail "md check: sync_action idle, but sync_completed '$progress'"
	[ "$last" = check ] ||
		lr_fail "md check did not run: last_sync_action '$last'"
	t=$(cat "$sys/degraded")
	[ "$t" = 0 ] || lr_fail "md check: $t member(s) failed during the check"
	mm=$(cat "$sys/mismatch_cnt")
	mdadm --stop "$md" >/dev/null 2>&1
	[[ "$mm" =~ ^[0-9]+$ ]] || lr_fail "md check: mismatch_cnt '$mm'"
	LR_MISMATCH=$mm
}

# lr_sha DEV SECTORS: sha256 of the first SECTORS of DEV
lr_sha() {
	head -c $(($2 * 512)) "$1" | sha256sum | cut -d' ' -f1
}

# lr_qmax DEV ATTR: queue/ATTR of DEV's disk in sysfs (DEV a path or link)
lr_qmax() {
	cat "/sys/block/$(basename "$(readlink -f "$1")")/queue/$2"
}

# lr_offers DEV DISCARD WZEROES: DEV offers discard if DISCARD is 1, not
# if 0, and write-zeroes likewise (its queue limits in sysfs)
lr_offers() {
	local dev=$1 a want got
	shift
	for a in discard_max_bytes write_zeroes_max_bytes; do
		want=$1
		shift
		got=$(lr_qmax "$dev" $a) && [[ $got =~ ^[0-9]+$ ]] ||
			lr_fail "$dev: cannot read queue/$a"
		if [ "$want" = 1 ] && [ "$got" = 0 ]; then
			lr_fail "$dev: $a is 0"
		elif [ "$want" = 0 ] && [ "$got" != 0 ]; then
			lr_fail "$dev: $a is $got, want 0"
		fi
	done
}

# lr_zeroes_served: the write-zeroes since lr_klog_mark was served by
# lraid's members, none refused it (lraid would then write zero pages, and
# stop offering write-zeroes), and /dev/lraid0 still offers both
lr_zeroes_served() {
	! lr_klog_has "refused" || lr_fail "a member refused: $(lr_klog)"
	lr_offers /dev/lraid0 1 1
}

# lr_stat FIELD [DISK]: field FIELD (1-based, Documentation/block/stat.rst:
# 1 reads, 5 writes, 9 in flight, ...) of /sys/block/DISK/stat (lraid0)
lr_stat() {
	awk -v f="$1" '{ print $f }' "/sys/block/${2:-lraid0}/stat"
}

# lr_not_failed NAME: no member of array NAME is failed or missing, and
# its state says neither degraded nor FAILED
lr_not_failed() {
	local out
	out=$("$LRAIDCTL" detail "$1") || lr_fail "lraidctl detail $1"
	if grep -Eq '^ +[0-9].* (faulty|missing)( |$)' <<<"$out" ||
		! grep -Eq '^ +State : (clean|active)$' <<<"$out"; then
		lr_fail "a member was failed or missing: $out"
	fi
}

# lr_failed_role ROLE: role ROLE of lraid0 (LR_M) is faulty, no other
# member is
lr_failed_role() {
	local d
	d=$("$LRAIDCTL" detail lraid0)
	grep -Eq "faulty *($(readlink -f "${LR_M[$1]}")|${LR_M[$1]})\$" <<<"$d" ||
		lr_fail "role $1 not faulty: $d"
	[ "$(grep -c faulty <<<"$d")" = 1 ] || lr_fail "more than one faulty: $d"
}

# A reference copy of what lraid0 must read, for scenarios that zero
# parts of what they wrote (discard, write-zeroes), in $LR_TMP/ref.
# lr_ref_write BYTES BS: BYTES random bytes written to lraid0 from its
# start, in O_DIRECT writes of BS bytes
lr_ref_write() {
	head -c "$1" /dev/urandom >"$LR_TMP/ref"
	dd if="$LR_TMP/ref" of=/dev/lraid0 bs="$2" oflag=direct status=none ||
		lr_fail "write to lraid0"
}

# lr_ref_zero OFFSET LENGTH: bytes lraid0 must now read as zeroes
# (multiples of 4 KiB)
lr_ref_zero() {
	dd if=/dev/zero of="$LR_TMP/ref" bs=4096 seek=$(($1 / 4096)) \
		count=$(($2 / 4096)) conv=notrunc status=none
}

# lr_ref_reads WHAT: lraid0 must read as the reference copy
lr_ref_reads() {
	dd if=/dev/lraid0 bs=64K count="$(stat -c %s "$LR_TMP/ref")" \
		iflag=direct,count_bytes status=none |
		cmp -s - "$LR_TMP/ref" || lr_fail "$1: lraid0 reads other bytes"
}

# fio's crc32c verify with --verify_only checks that each block is
# self-consistent and carries its own offset, not which write it came
# from: a block an older fio run left (a member rebuilt from stale data,
# a region a re-add skipped) passes. A scenario that can go stale takes a
# snapshot of what the array reads while it is known right and compares
# later reads with it byte for byte (a copy in the guest's tmpfs: for
# arrays of tens of MiB).
# lr_snap NAME [DEV]: what DEV (lraid0) reads, in $LR_TMP/snap.NAME
lr_snap() {
	dd if="${2:-/dev/lraid0}" of="$LR_TMP/snap.$1" bs=1M iflag=direct \
		status=none || lr_fail "read ${2:-/dev/lraid0} for snapshot $1"
	[ -s "$LR_TMP/snap.$1" ] || lr_fail "snapshot $1 is empty"
}

# lr_snap_cmp NAME WHAT [DEV]: DEV (lraid0) reads as when snapshot NAME
# was taken; else WHAT fails, naming the first byte that differs
lr_snap_cmp() {
	local dev=${3:-/dev/lraid0} out
	out=$(dd if="$dev" bs=1M iflag=direct status=none |
		cmp - "$LR_TMP/snap.$1" 2>&1) ||
		lr_fail "$2: $dev reads other bytes than at snapshot $1: ${out:-read failed}"
}

# lr_bad_raid5: lraid0, RAID5 x4 with 64 KiB chunks, over four new
# lraid-bad members on loop (LR_M); each must offer discard and
# write-zeroes (else the scenario is skipped), and so must lraid0. It
# then holds 32 random stripes (lr_ref_write).
lr_bad_raid5() {
	local d a
	lr_bad_setup 4 loop
	for d in "${LR_BAD[@]}"; do
		for a in write_zeroes_max_bytes discard_max_bytes; do
			[ "$(lr_qmax "$d" $a)" != 0 ] ||
				lr_skip "$d: $a is 0 (the loop files' file system?)"
		done
	done
	LR_M=("${LR_BAD[@]}")
	lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
	lr_offers /dev/lraid0 1 1
	lr_ref_write $((32 * 3 * 64 * 1024)) $((3 * 64 * 1024))
}

# lr_bad_discard_fails MODE STRIPES: lr_bad_raid5, then role 2 (LR_BAD_D)
# gets MODE and fail_writes on; a discard of STRIPES stripes from stripe 4
# must succeed with role 2 alone failed, and the stripes read back
# degraded, zeroes there (lr_ref_zero)
lr_bad_discard_fails() {
	local s=$((3 * 64 * 1024))
	lr_bad_raid5
	lr_bad_modes 2 "$1" fail_writes
	blkdiscard -o $((4 * s)) -l $(($2 * s)) /dev/lraid0 ||
		lr_fail "blkdiscard failed"
	lr_failed_role 2
	lr_ref_zero $((4 * s)) $(($2 * s))
	lr_ref_reads "degraded, after the discard"
}

# lr_bad_modes ROLE MODE...: turn each MODE on ("MODE 1") in the lraid-bad
# target of role ROLE of the newest lr_bad_raid5, named in LR_BAD_D
lr_bad_modes() {
	local m
	LR_BAD_D=${LR_BAD_DM[$((LR_BAD_NEW + $1))]}
	for m in "${@:2}"; do
		dmsetup message "$LR_BAD_D" 0 "$m" 1 || lr_fail "$LR_BAD_D: $m"
	done
}

# lr_bad_discard_held MODE STRIPES WHAT: lr_bad_raid5, then roles 1 and 2
# (LR_HELD) get MODE on ("MODE 1") and hold their writes back; a discard
# of STRIPES stripes from stripe 4 must reach both with WHAT at once
# (lr_bad_held_together), then succeed once they are let go, with no
# member failed and the stripes reading zeroes there (lr_ref_zero)
lr_bad_discard_held() {
	local d pid s=$((3 * 64 * 1024))
	lr_bad_raid5
	LR_HELD=("${LR_BAD_DM[@]:$((LR_BAD_NEW + 1)):2}")
	for d in "${LR_HELD[@]}"; do
		dmsetup message "$d" 0 "$1" 1 || lr_fail "$d: $1"
		dmsetup message "$d" 0 hold 0 $((64 * 2048)) || lr_fail "$d: hold"
	done
	blkdiscard -o $((4 * s)) -l $(($2 * s)) /dev/lraid0 &
	pid=$!
	lr_bad_held_together "$3" "${LR_HELD[@]}"
	lr_wait_end $pid 120 || lr_fail "blkdiscard still runs after the release"
	wait $pid || lr_fail "blkdiscard failed"
	lr_not_failed lraid0
	lr_ref_zero $((4 * s)) $(($2 * s))
	lr_ref_reads "after the discard"
}

# lr_stop_md_check LEVEL CHUNK_KB ROUND: stop lraid0, then md's check over
# LR_M finds the parity right (lr_md_check) over lraid0's first sectors,
# as many as a multiple of ROUND (sectors of whole stripes) holds
lr_stop_md_check() {
	local sectors sha
	sectors=$(($(blockdev --getsz /dev/lraid0) / $3 * $3))
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail "stop lraid0"
	lr_md_check "$1" "$2" "$sectors" "$sha" "${LR_M[@]}"
}

# lr_running PID: the process is alive and not a zombie (one that ended
# but was not waited for yet)
lr_running() {
	local st
	st=$(grep '^State:' "/proc/$1/status" 2>/dev/null) || return 1
	[[ $st != *Z* ]]
}

# lr_wait_end PID SECS: wait up to SECS seconds for PID to end; 1 if it
# still runs then
lr_wait_end() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		lr_running "$1" || return 0
		sleep 0.1
	done
	! lr_running "$1"
}

# lr_sectors lraidN: array size in sectors
lr_sectors() {
	cat "/sys/block/$1/size"
}

# lr_is FILE VALUE: /sys/block/lraid0/lraid/FILE reads VALUE
lr_is() {
	local v
	v=$(cat "/sys/block/lraid0/lraid/$1")
	[ "$v" = "$2" ] || lr_fail "$1 reads '$v', not '$2'"
}

# lr_wait_line FILE LINE [SECONDS]: FILE gets a line LINE (fixed string)
# within SECONDS (LRAID_REBUILD_TIMEOUT, 240)
lr_wait_line() {
	local end=$((SECONDS + ${3:-${LRAID_REBUILD_TIMEOUT:-240}}))
	until grep -qxF "$2" "$1" 2>/dev/null; do
		[ $SECONDS -lt $end ] ||
			lr_fail "no '$2' in $1 after ${3:-${LRAID_REBUILD_TIMEOUT:-240}} s: $(cat "$1" 2>/dev/null)"
		sleep 0.2
	done
}

# lr_name DEV: the kernel's name of DEV (nullb4 for /dev/nullb4, or for a
# link to it)
lr_name() {
	basename "$(readlink -f "$1")"
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
# Devices whose reads fail over chosen sectors while writes succeed:
# lr_sb_save DEV...: each member's superblock block (its first 4 KiB, read
# around the page cache) kept in $LR_TMP; lr_sb_restore DEV...: those
# blocks written back onto the same members in the same order, behind
# lraid's back (a crash, or a superblock from before)
lr_sb_save() {
	local i=0 d
	for d; do
		dd if="$d" of="$LR_TMP/sb.$i" bs=4096 count=1 iflag=direct \
			status=none || lr_fail "read the superblock of $d"
		i=$((i + 1))
	done
}

lr_sb_restore() {
	local i=0 d
	for d; do
		dd if="$LR_TMP/sb.$i" of="$d" bs=4096 count=1 oflag=direct \
			conv=fsync,notrunc status=none ||
			lr_fail "write the superblock of $d"
		i=$((i + 1))
	done
}

# lr_sbsum DEV...: one hash of the members' superblock blocks, read around
# the page cache (to show that a refused command wrote none of them)
lr_sbsum() {
	local d
	for d; do
		dd if="$d" bs=4096 count=1 iflag=direct status=none
	done | sha256sum
}

# lr_sb_num DEV FIELD: a number from DEV's superblock (lraidctl examine
# --json; read around the page cache), e.g. events or failed_mask
lr_sb_num() {
	"$LRAIDCTL" examine --json "$1" | sed "s/.*\"$2\": \([0-9]*\).*/\1/"
}

# lr_sb_state DEV: the state in DEV's superblock, clean or active
lr_sb_state() {
	"$LRAIDCTL" examine --json "$1" |
		sed 's/.*"state": "\([a-z]*\)".*/\1/'
}

# lr_noise DEV [MIB]: random bytes over DEV's data area (its first MIB MiB,
# all of it by default), behind lraid's back. After `lraidctl fail DEV` a
# read that still came from DEV rather than from the survivors' parity
# would return them.
lr_noise() {
	local dev=$1 off mib
	off=$(lr_sb_num "$dev" data_offset)
	[ -n "$off" ] || lr_fail "no superblock on $dev"
	mib=${2:-$((($(blockdev --getsz "$dev") - off) / 2048))}
	dd if=/dev/urandom of="$dev" bs=1M count="$mib" seek=$((off * 512)) \
		oflag=direct,seek_bytes conv=fsync status=none ||
		lr_fail "noise on $dev"
}

# lr_check_roles ARRAY: lraidctl detail lists the members in role order,
# each with its own role, and every member present carries that role in
# its superblock (a member assembled into the wrong slot would not)
lr_check_roles() {
	local out
	out=$("$LRAIDCTL" detail --json "$1") || lr_fail "detail $1"
	python3 - "$LRAIDCTL" "$out" <<'PY' || lr_fail "detail $1: roles wrong"
import json, subprocess, sys
ctl, d = sys.argv[1], json.loads(sys.argv[2])
ok = len(d["devices"]) == d["members"]
for i, m in enumerate(d["devices"]):
    if m["role"] != i:
        print(f"    slot {i} reports role {m['role']}")
        ok = False
    if m["device"] != "-":
        sb = json.loads(subprocess.check_output([ctl, "examine", "--json",
                                                 m["device"]]))
        if sb["role"] != i:
            print(f"    slot {i}: {m['device']} has role {sb['role']}")
            ok = False
sys.exit(0 if ok else 1)
PY
}

# tests/badblk's device-mapper target over null_blk or loop, built with
# lraid for every kernel kind. By default a write over a bad sector makes
# it good again, as a drive that remaps it does; "sticky" ones stay bad, as
# on a drive with no spare sectors left.

# lr_target NAME: loads tests/badblk's target NAME (lraid-bad,
# lraid-wcache) unless loaded, built with lraid.ko; lr_cleanup unloads it
lr_target() {
	local mod=${1//-/_} ko
	command -v dmsetup >/dev/null 2>&1 || lr_skip "no dmsetup"
	modprobe -q dm-mod 2>/dev/null || true
	dmsetup targets 2>/dev/null | grep -q "^$1 " && return 0
	ko=${LRAID_KO%/module/lraid.ko}/tests/badblk/$mod.ko
	[ -f "$ko" ] || lr_skip "no $ko (a kernel without device-mapper?)"
	insmod "$ko" || lr_fail "insmod $ko"
	LR_TARGET_MODS+=("$mod")
}

# lr_bad_setup N [nullb|loop]: sets LR_BAD to N such devices of 64 MiB, no
# sector bad, over null_blk (the default; discard, no write-zeroes) or
# over loop on a file (discard and write-zeroes where the file system has
# them). LR_BAD_DM keeps the names of every call's tables, LR_BAD_NEW
# the index in it of this call's first
lr_bad_setup() {
	local n=$1 kind=${2:-nullb} i j
	LR_BAD=()
	LR_BAD_NEW=${#LR_BAD_DM[@]}
	lr_target lraid-bad
	for ((i = 0; i < n; i++)); do
		j=${#LR_BAD_DM[@]}
		if [ "$kind" = loop ]; then
			lr_loop 64
		else
			lr_nullb "lrbadnull$j" 64
		fi
		lr_dm "lrbad$j" "0 $((64 * 2048)) lraid-bad $LR_DEV 0" ||
			lr_fail "dmsetup create lrbad$j"
		LR_BAD_DM+=("lrbad$j")
		LR_BAD+=("$LR_DEV")
	done
}

# lr_bad_field N DM...: the sum of lraid-bad status field N over the
# targets DM... (awk's numbering of the dmsetup status line: the target
# name is $3, its first field $4; see tests/badblk/lraid_bad.c)
lr_bad_field() {
	local f=$1 d n=0 v
	shift
	for d in "$@"; do
		v=$(dmsetup status "$d" |
			awk -v f="$f" '$3 == "lraid-bad" { print $f }')
		[[ $v =~ ^[0-9]+$ ]] || lr_fail "$d: no lraid-bad field $f in its status"
		n=$((n + v))
	done
	echo $n
}

# lr_bad_held_together WHAT DM...: the lraid-bad targets DM..., told to
# "hold" writes, soon all have a write waiting at once (status field 9),
# as when lraid sends WHAT to them together rather than one after
# another; then each lets its writes go, whatever was seen
lr_bad_held_together() {
	local what=$1 d v waiting end=$((SECONDS + 60))
	shift
	while :; do
		waiting=
		for d in "$@"; do
			v=$(lr_bad_field 9 "$d") || lr_fail "$d: status unreadable"
			waiting+=" $v"
		done
		grep -qw 0 <<<"$waiting" || break
		[ $SECONDS -lt $end ] || break
		sleep 0.2
	done
	for d in "$@"; do
		dmsetup message "$d" 0 release || lr_fail "$d: release"
	done
	if grep -qw 0 <<<"$waiting"; then
		lr_fail "$what: not in flight on $* at once (writes waiting:$waiting)"
	fi
}

# lr_bad_on N START COUNT...: reads of those sector ranges fail from now
# on, on the first N of LR_BAD
lr_bad_on() {
	local n=$1 r=("${@:2}") i d
	LR_BAD_LEFT=
	for d in "${LR_BAD_DM[@]:0:n}"; do
		for ((i = 0; i < ${#r[@]}; i += 2)); do
			dmsetup message "$d" 0 bad "${r[i]}" "${r[i + 1]}" ||
				lr_fail "$d: bad ${r[i]} ${r[i + 1]}"
		done
	done
}

# lr_bad_sticky N 0|1: on the first N of LR_BAD, writes leave bad sectors
# bad (1) or make them good (0, the default)
lr_bad_sticky() {
	local d
	for d in "${LR_BAD_DM[@]:0:$1}"; do
		dmsetup message "$d" 0 sticky "$2" || lr_fail "$d: sticky $2"
	done
}

# lr_bad_off: no sector fails any more; lr_bad_left then prints how many
# were still bad (no write had reached them)
lr_bad_off() {
	local d n sum=0
	for d in "${LR_BAD_DM[@]}"; do
		n=$(dmsetup status "$d" | awk '$3 == "lraid-bad" { print $4 }')
		[ -n "$n" ] || lr_fail "$d: no status"
		sum=$((sum + n))
		dmsetup message "$d" 0 clear || lr_fail "$d: clear"
	done
	LR_BAD_LEFT=$sum
}

lr_bad_left() {
	[ -n "$LR_BAD_LEFT" ] || lr_fail "lr_bad_left before lr_bad_off"
	echo "$LR_BAD_LEFT"
}
