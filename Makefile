# SPDX-License-Identifier: GPL-2.0
#
# lraid: user entry point. Kernel objects are described in Kbuild files.
#
#   make                 build module/lraid.ko and tools/lraidctl for KDIR
#   make check           set up, build for 6.1 and 6.12, lint, all tests
#   make demo            set up, boot a guest and show lraid at work
#   make help            everything else

# Kernel to build against: the running kernel's build tree when there is
# one, else the newest installed Debian 6.12 headers.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64))))

.PHONY: all module tools clean setup compat lint check check-debug check-full demo \
	kunit test-kernel bench-gf bench-quick bench help install-udev \
	install-systemd

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run scripts/setup.sh or set KDIR"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

tools:
	$(MAKE) -C tools

setup:
	scripts/setup.sh

# lraidctl into $(SBINDIR) and the udev rule that assembles arrays as
# their members appear (lraidctl incremental) into $(UDEVDIR)
SBINDIR ?= /usr/local/sbin
UDEVDIR ?= /etc/udev/rules.d
install-udev: tools
	install -D -m 755 tools/lraidctl $(DESTDIR)$(SBINDIR)/lraidctl
	mkdir -p $(DESTDIR)$(UDEVDIR)
	sed 's|@LRAIDCTL@|$(SBINDIR)/lraidctl|' tools/udev/65-lraid-incremental.rules.in \
		>$(DESTDIR)$(UDEVDIR)/65-lraid-incremental.rules
	@test -n "$(DESTDIR)" || ! command -v udevadm >/dev/null || udevadm control --reload

# lraidctl into $(SBINDIR) and the systemd units into $(SYSTEMDDIR), none
# enabled: lraid-monitor.service ("lraidctl monitor --scan", as
# mdmonitor.service) and lraid-check.timer (a monthly "lraidctl check
# --scan", as Debian's checkarray cron job)
SYSTEMDDIR ?= /etc/systemd/system
install-systemd: tools
	install -D -m 755 tools/lraidctl $(DESTDIR)$(SBINDIR)/lraidctl
	mkdir -p $(DESTDIR)$(SYSTEMDDIR)
	for u in lraid-monitor.service lraid-check.service; do \
		sed 's|@LRAIDCTL@|$(SBINDIR)/lraidctl|' tools/systemd/$$u.in \
			>$(DESTDIR)$(SYSTEMDDIR)/$$u || exit 1; \
	done
	install -m 644 tools/systemd/lraid-check.timer $(DESTDIR)$(SYSTEMDDIR)/
	@test -n "$(DESTDIR)" || ! command -v systemctl >/dev/null || systemctl daemon-reload || true

# Module builds for Debian's 6.1 and 6.12 kernels, warnings are errors.
compat:
	scripts/build-for stock-6.1
	scripts/build-for stock-6.12

lint:
	scripts/lint.sh

test-kernel:
	scripts/build-kernel.sh test

check:
	scripts/check.sh

check-debug:
	scripts/check.sh --debug

check-full:
	scripts/check.sh --full

demo:
	scripts/demo.sh

bench-gf:
	scripts/setup.sh
	$(MAKE) -C tests/gf bench

bench-quick:
	scripts/setup.sh
	scripts/bench-quick.sh

bench: bench-gf bench-quick

clean:
	@if [ -n "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	-@$(MAKE) -C tools clean
	-@for d in tests/*/; do [ -f $$d/Makefile ] && $(MAKE) -C $$d clean; done
	rm -rf build .vm-run.*

help:
	@echo "make [all]      build module/lraid.ko and tools/lraidctl (KDIR=$(KDIR))"
	@echo "make check      set up, build for 6.1 and 6.12, lint, userspace tests,"
	@echo "                KUnit in the test kernel, QEMU scenarios on 6.12 and 6.1"
	@echo "make check-debug  the same on the debug kernel (KASAN, lockdep, kmemleak)"
	@echo "make check-full   every scenario combination and the geometry-vs-md images"
	@echo "make demo       boot QEMU on Debian's 6.12 and show lraid serving an array"
	@echo "make compat     build for Debian's 6.1 and 6.12 headers, warnings fatal"
	@echo "make install-udev  lraidctl into SBINDIR ($(SBINDIR)) and the udev rule that"
	@echo "                assembles arrays as their members appear into UDEVDIR"
	@echo "make install-systemd  lraidctl into SBINDIR, and into SYSTEMDDIR the units"
	@echo "                lraid-monitor.service (lraidctl monitor --scan) and"
	@echo "                lraid-check.timer (monthly lraidctl check --scan)"
	@echo "make lint       sparse, checkpatch --strict, shellcheck"
	@echo "make test-kernel  build (or reuse) the KUnit test kernel"
	@echo "make bench-gf   parity library throughput against ISA-L and lib/raid6"
	@echo "make bench-quick  md vs lraid vs raw members in one QEMU boot"
