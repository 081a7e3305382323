# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced: maps lraid's kernel kinds to images and module build directories.
#   stock-6.1, stock-6.12   Debian's kernels (linux-image-*, linux-headers-*)
#   test, debug             built by scripts/build-kernel.sh

lraid_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Newest installed Debian kernel release of a series, e.g. 6.1 -> 6.1.0-56-amd64
lraid_stock_release() {
	local series=$1 f rel best=
	for f in /boot/vmlinuz-"$series".*-amd64; do
		[ -e "$f" ] || continue
		rel=${f#/boot/vmlinuz-}
		case $rel in *-rt-* | *-cloud-*) continue ;; esac
		[ -d "/usr/src/linux-headers-$rel" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$rel" | sort -V | tail -1)
	done
	[ -n "$best" ] || {
		echo "kernels: no Debian $series kernel with headers (run scripts/setup.sh)" >&2
		return 1
	}
	echo "$best"
}

# Kernel tree (KDIR) that modules for kernel kind $1 are built against.
lraid_kernel_kdir() {
	case $1 in
	stock-6.1) echo "/usr/src/linux-headers-$(lraid_stock_release 6.1)" ;;
	stock-6.12) echo "/usr/src/linux-headers-$(lraid_stock_release 6.12)" ;;
	test | debug) "$lraid_top/scripts/build-kernel.sh" "$1" ;;
	*)
		echo "kernels: unknown kernel kind '$1'" >&2
		return 1
		;;
	esac
}

# Where lraid is built for kernel kind $1 (inside the checkout, git-ignored).
lraid_kernel_builddir() {
	case $1 in
	stock-6.1 | stock-6.12 | test | debug) echo "$lraid_top/build/$1" ;;
	*) echo "" ;;
	esac
}

lraid_kernel_image() {
	case $1 in
	stock-6.1 | stock-6.12)
		local rel
		rel=$(lraid_stock_release "${1#stock-}") || return 1
		echo "/boot/vmlinuz-$rel"
		;;
	test | debug)
		local kdir
		kdir=$(lraid_kernel_kdir "$1") || return 1
		echo "$kdir/arch/x86/boot/bzImage"
		;;
	*)
		[ -f "$1" ] || {
			echo "kernels: no kernel image '$1'" >&2
			return 1
		}
		echo "$1"
		;;
	esac
}

# lraid_runs_on SCENARIO KIND: whether scripts/tests/SCENARIO runs on kernel
# kind KIND: its "# kernels: K..." line names KIND, or it has none (every
# kernel). The one reading of that line, for the guest's runner and the host.
lraid_runs_on() {
	local k
	k=$(sed -n 's/^# kernels: *//p' "$1" 2>/dev/null)
	[ -z "$k" ] || [[ " $k " == *" $2 "* ]]
}
