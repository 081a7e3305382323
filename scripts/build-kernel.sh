#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) lraid's test kernel from Debian's linux-source-6.12.
#
#   scripts/build-kernel.sh [test|debug]   prints the build directory
#
# The kernel is allnoconfig plus scripts/kconfig/test.config (and debug.config
# for the debug variant), built out of tree in a cache directory keyed by the
# hash of the fragments and the source version, so it is rebuilt only when
# either changes. The build directory doubles as KDIR for lraid.ko and kunit/.
set -euo pipefail

variant=${1:-test}
case $variant in
test | debug) ;;
*)
	echo "usage: $0 [test|debug]" >&2
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
src=${LRAID_KSRC:-/usr/src/linux-source-6.12}
[ -f "$src/Makefile" ] || {
	echo "build-kernel: no kernel source at $src (run scripts/setup.sh)" >&2
	exit 1
}

frags=("$top/scripts/kconfig/test.config")
[ "$variant" = debug ] && frags+=("$top/scripts/kconfig/debug.config")

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null ||
	make -s -C "$src" kernelversion)
key=$({
	cat "${frags[@]}"
	echo "$srcver"
} | sha256sum | cut -c1-16)
cache=${LRAID_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lraid}
out=$cache/kernel-$variant-$key

if [ -f "$out/.lraid-built" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$out"
log=$out/build.log
echo "build-kernel: building $variant kernel in $out (log: $log)" >&2
cat "${frags[@]}" >"$out/lraid.config"
{
	make -C "$src" O="$out" KCONFIG_ALLCONFIG="$out/lraid.config" allnoconfig
	make -C "$src" O="$out" olddefconfig
} >"$log" 2>&1

# Every option the fragments ask for must have survived dependency checks.
missing=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF "$line" "$out/.config" || {
			echo "build-kernel: config did not take: $line" >&2
			missing=1
		}
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }
		opt=${opt%% *}
		if grep -q "^$opt=" "$out/.config"; then
			echo "build-kernel: config not disabled: $opt" >&2
			missing=1
		fi
		;;
	esac
done < <(cat "${frags[@]}")
[ $missing = 0 ] || exit 1

start=$(date +%s)
if ! make -C "$src" O="$out" -j"$(nproc)" bzImage modules >>"$log" 2>&1; then
	tail -30 "$log" >&2
	echo "build-kernel: build failed, see $log" >&2
	exit 1
fi
echo "build-kernel: built in $(($(date +%s) - start)) s" >&2
touch "$out/.lraid-built"
echo "$out"
