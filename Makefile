# magnet: build, test and demo entry points. See README.md.
#
#   make                 module/magnet.ko for KVER, and the userspace tools
#   make KVER=<release>  the module for another installed kernel
#   make deps            install build and test dependencies (Debian 12),
#                        and the 5.10 and 7.2 kernels (scripts/extra-kernels.sh)
#   make deps-all        also the 6.1 PREEMPT_RT kernel
#   make check           lint of the test scripts, unit tests, VM tests on
#                        the oldest and the newest kernel line, packaging
#                        tests
#   make lint            the lint alone (tests/lint/run.sh: shellcheck and
#                        shpatterns.py, patterns that make a check unfailable)
#   make check-all       the same with the VM tests on all five lines
#   make check-fresh     make deps + make demo in a new minimal Debian 12 root
#   make check-stress    the stress suites in VMs (tests/vm/cases/92-stress.sh),
#                        results in docs/reliability.md
#   make check-wireshark-13  the Wireshark plugin with Debian 13's tshark
#   make wireshark-screenshot  Wireshark's window with the plugin, under Xvfb,
#                        as docs/wireshark.png
#   make demo            a short capture in a throwaway VM, with a summary
#   make install         module to /lib/modules/KVER/updates, tools to PREFIX,
#                        the Wireshark plugin to Wireshark's (WIRESHARK_LUA_DIR)
#   make uninstall       remove what make install installed
#   make dkms-install    register, build and install with DKMS for KVER
#   make dkms-uninstall  dkms remove, and the sources in /usr/src
#   make install-ttprobe-compat    ttprobe.ko for TEACUP (see README)
#   make uninstall-ttprobe-compat
#   make dist            magnet-VERSION.tar.gz in build/
#   make bench           throughput with and without magnet (bench/run.sh)
#   make bench-profile   where the instructions go, perf in the guest
#   make bench-insn      the same, every instruction counted (bench/insn.sh)
#   make bench-nsdrop    a drop's cost with few namespaces and with many
#   make bench-monarch   Monarch against real TCP: cost, accuracy (bench/monarch.sh)
#   make bench-analysis  magnet-exp analyse's records/s and peak memory on 1M,
#                        10M and 30M records, against BASE (bench/analysis.py)
#   make fuzz            each libFuzzer target to 10 million executions
#                        (FUZZ_RUNS) or an hour (FUZZ_TIME), tests/fuzz
#
# KVER defaults to the running kernel when its headers exist, else the
# newest /lib/modules/*/build. MAGNET_VM_KVM=1 lets the VM tests use KVM.

KVER ?= $(shell scripts/default-kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
VERSION := $(shell scripts/version.sh)
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
PYDIR = $(DESTDIR)$(PREFIX)/lib/magnet/python
DOCDIR = $(DESTDIR)$(PREFIX)/share/doc/magnet
MODDIR = $(DESTDIR)/lib/modules/$(KVER)
# Wireshark's global folder of Lua plugins, as its tshark says (Debian:
# /usr/lib/<triplet>/wireshark/plugins), else PREFIX's (docs/wireshark.md)
WIRESHARK_LUA_DIR ?= $(or $(shell tshark -G folders 2>/dev/null | \
	sed -n 's/^Global Lua Plugins:[[:space:]]*//p'),$(PREFIX)/lib/wireshark/plugins)
DKMS_SRC = /usr/src/magnet-$(VERSION)
TOOLS = magnet-record magnet-summary ttpb2ascii magnet-monarch-proxy
MODULE_SRC = module/Kbuild $(wildcard module/*.c module/*.h)
MODULE_UAPI = $(wildcard module/uapi/*.h)
MODULE_SHARED = $(wildcard module/shared/*.c module/shared/*.h)

all: module userspace

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR) (KVER=$(KVER)); run make deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

userspace:
	$(MAKE) -C userspace

# deps: Debian 12's packages, and Debian 11's 5.10 and unstable's 7.2 in
# build roots of their own (the oldest and the newest line make check
# tests); deps-all adds the 6.1 PREEMPT_RT kernel
deps:
	scripts/deps.sh
	scripts/extra-kernels.sh 5.10 7.2

deps-all: deps
	scripts/extra-kernels.sh rt

unit:
	$(MAKE) -C tests/unit check

lint:
	tests/lint/run.sh

vm: userspace
	tests/vm/run.sh

check: deps
	tests/run-all.sh

check-all: deps-all
	MAGNET_CHECK_ALL=1 tests/run-all.sh

check-fresh:
	tests/fresh/run.sh

demo:
	scripts/demo.sh

# docs/reliability.md from every suite's last run on this tree (a kernel
# with no run here keeps its section, a run the earlier runs it does not
# repeat)
RELIABILITY = scripts/reliability.sh -o docs/reliability.md build/stress \
	build/stress-hotplug build/debug build/debug-stress build/debug-stress-hotplug

# stress_runs DIR VARS: STRESS_CASES on 2 vCPUs into build/DIR, then
# STRESS_CASES_4CPUS (CPU hotplug, reset of full rings) on 4 vCPUs and 2 GiB
# into build/DIR-hotplug, each
# in a boot of its own; code is patched under traffic, so single-threaded
# TCG (tests/vm/cases/92-stress.sh). Sets rc=1 if either fails; $$t is the
# VM timeout.
stress_runs = \
	$(if $(STRESS_CASES),,$(error no stress cases: tests/vm/suite.sh stress)) \
	$(if $(STRESS_CASES_4CPUS),,$(error no stress cases: tests/vm/suite.sh stress-4cpus)) \
	$(2) MAGNET_VM_OUT=$(CURDIR)/build/$(1) MAGNET_TEST_CASES="$(STRESS_CASES)" \
		MAGNET_VM_QEMU_OPTS="-accel tcg,thread=single" \
		MAGNET_VM_TIMEOUT=$$t tests/vm/run.sh || rc=1; \
	$(2) MAGNET_VM_OUT=$(CURDIR)/build/$(1)-hotplug MAGNET_TEST_CASES="$(STRESS_CASES_4CPUS)" \
		MAGNET_VM_CPUS=4 MAGNET_VM_MEM=2G MAGNET_VM_QEMU_OPTS="-accel tcg,thread=single" \
		MAGNET_VM_TIMEOUT=$$t tests/vm/run.sh || rc=1

# the cases tagged "# suite: stress" and "# suite: stress-4cpus"
STRESS_CASES ?= $(shell tests/vm/suite.sh stress)
STRESS_CASES_4CPUS ?= $(shell tests/vm/suite.sh stress-4cpus)
check-stress: userspace
	t=$${MAGNET_VM_TIMEOUT:-3600}; rc=0; \
	$(call stress_runs,stress,); \
	$(RELIABILITY); \
	exit $$rc

# magnet-exp analyse on one connection of LONG_SEGMENTS data segments
# (tests/unit/longflow.py): loss places, IP IDs and one-way delays exact
# past the sequence space's and the IP IDs' wraps, with the analysis's own
# bounds; prints its time and peak memory
LONG_SEGMENTS ?= 2000000
check-long: userspace
	$(MAKE) -C tests/unit ttpb2ascii-asan
	/usr/bin/python3 tests/unit/longflow.py tests/unit/ttpb2ascii-asan \
		build/long $(LONG_SEGMENTS)

# the Wireshark plugin with Debian 13's tshark (4.4) in a debootstrapped
# root, as the unit line runs it with Debian 12's (docs/wireshark.md)
check-wireshark-13: userspace
	scripts/wireshark-debian13.sh

wireshark-screenshot: userspace
	scripts/wireshark-screenshot.sh

# the VM suite, then the stress suites, on a debug kernel (KASAN, lockdep,
# UBSAN, kmemleak) that scripts/debug-kernel.sh builds once (~25 min on 2
# cores) and caches outside the repository; any checker report fails it.
# Hours in all: MAGNET_TEST_CASES picks the suite's cases, DEBUG_STRESS=0
# leaves the stress suites out (docs/reliability.md adds the parts up)
DEBUG_STRESS ?= 1
check-debug: userspace
	ktree=$$(scripts/debug-kernel.sh) || exit 1; \
	t=$${MAGNET_VM_TIMEOUT:-14400}; rc=0; \
	MAGNET_VM_KTREE=$$ktree MAGNET_VM_OUT=$(CURDIR)/build/debug \
		MAGNET_VM_TIMEOUT=$$t tests/vm/run.sh || rc=1; \
	if [ "$(DEBUG_STRESS)" != 0 ]; then \
		$(call stress_runs,debug-stress,MAGNET_VM_KTREE=$$ktree); \
	fi; \
	$(RELIABILITY); \
	exit $$rc

bench:
	bench/run.sh

# where the instructions go: make bench's configurations under perf in the guest
bench-profile:
	bench/profile.sh

# the same, every kernel instruction counted by the emulator (a QEMU plugin)
bench-insn:
	bench/insn.sh

# a drop with no socket, with few network namespaces and with 1000 more
bench-nsdrop:
	bench/nsdrop.sh

# Monarch's cost (throughput ratio, the proxy's added delay) and accuracy
# against real TCP flows on the same path
bench-monarch:
	bench/monarch.sh

# magnet-exp analyse on long flows of 1M, 10M and 30M records (SIZES),
# this tree against BASE (default HEAD^) in the same run: records per
# second and peak memory, into bench/results/<date>-analysis.md
bench-analysis: userspace
	/usr/bin/python3 bench/analysis.py $(if $(BASE),--base $(BASE)) \
		$(if $(SIZES),--sizes $(SIZES))

FUZZ_RUNS ?= 10000000
FUZZ_TIME ?= 3600
fuzz:
	$(MAKE) -C tests/fuzz run FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_TIME=$(FUZZ_TIME); \
	rc=$$?; mkdir -p build; cp tests/fuzz/work/results build/fuzz-results; \
	$(RELIABILITY); exit $$rc

# depmod only for the real module tree, not for a staging DESTDIR
install: all
	install -D -m 0644 module/magnet.ko $(MODDIR)/updates/magnet.ko
	test -n "$(DESTDIR)" || depmod $(KVER)
	for t in $(TOOLS); do \
		install -D -m 0755 userspace/$$t $(BINDIR)/$$t; \
		install -D -m 0644 userspace/$$t.1 $(MAN1DIR)/$$t.1; \
	done
	install -D -m 0755 userspace/magnet-exp $(BINDIR)/magnet-exp
	# the analysis's per-record pass in C, which magnet-exp runs
	# (python/magnet_exp/cpass.py finds it beside its package)
	install -D -m 0755 userspace/magnet-pass $(DESTDIR)$(PREFIX)/lib/magnet/magnet-pass
	install -D -m 0644 wireshark/magnet.lua $(DESTDIR)$(WIRESHARK_LUA_DIR)/magnet.lua
	for f in python/magnet_exp/*.py; do \
		install -D -m 0644 $$f $(PYDIR)/magnet_exp/$$(basename $$f); \
	done
	install -D -m 0644 examples/modprobe.d/magnet.conf $(DOCDIR)/examples/modprobe.d/magnet.conf
	install -D -m 0644 README.md $(DOCDIR)/README.md
	install -D -m 0644 procfs-commands.md $(DOCDIR)/procfs-commands.md
	# every document, in docs/ as here: the README's links and theirs
	# (../procfs-commands.md) hold where they are installed
	for f in docs/*.md docs/*.png python/README.md; do \
		install -D -m 0644 $$f $(DOCDIR)/$$f; \
	done
	install -D -m 0644 examples/experiments/cc-compare.toml $(DOCDIR)/examples/experiments/cc-compare.toml
	install -D -m 0644 examples/experiments/relays.toml $(DOCDIR)/examples/experiments/relays.toml
	install -D -m 0644 examples/experiments/testbed.toml $(DOCDIR)/examples/experiments/testbed.toml

uninstall:
	rm -f $(MODDIR)/updates/magnet.ko
	test -n "$(DESTDIR)" || depmod $(KVER)
	for t in $(TOOLS); do rm -f $(BINDIR)/$$t $(MAN1DIR)/$$t.1; done
	rm -f $(BINDIR)/magnet-exp
	rm -f $(DESTDIR)$(WIRESHARK_LUA_DIR)/magnet.lua
	rm -rf $(DESTDIR)$(PREFIX)/lib/magnet
	rm -rf $(DOCDIR)

dkms-install:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/module/uapi $(DKMS_SRC)/module/shared
	install -m 0644 dkms.conf $(DKMS_SRC)/
	install -m 0644 $(MODULE_SRC) $(DKMS_SRC)/module/
	install -m 0644 $(MODULE_UAPI) $(DKMS_SRC)/module/uapi/
	install -m 0644 $(MODULE_SHARED) $(DKMS_SRC)/module/shared/
	dkms add -m magnet -v $(VERSION)
	dkms build -m magnet -v $(VERSION) -k $(KVER)
	dkms install -m magnet -v $(VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove -m magnet -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# TEACUP loads `ttprobe` and checks /lib/modules/$(uname -r)/extra/ttprobe.ko
install-ttprobe-compat:
	scripts/build-module.sh $(KVER) $(CURDIR)/build/ttprobe-$(KVER) ttprobe
	install -D -m 0644 build/ttprobe-$(KVER)/ttprobe.ko $(MODDIR)/extra/ttprobe.ko
	test -n "$(DESTDIR)" || depmod $(KVER)

uninstall-ttprobe-compat:
	rm -f $(MODDIR)/extra/ttprobe.ko
	test -n "$(DESTDIR)" || depmod $(KVER)

dist:
	mkdir -p build
	git archive --format=tar.gz --prefix=magnet-$(VERSION)/ -o build/magnet-$(VERSION).tar.gz HEAD
	@echo "build/magnet-$(VERSION).tar.gz"

clean:
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/unit clean
	rm -rf build

.PHONY: all module userspace deps deps-all unit lint vm check check-all check-fresh check-stress check-debug check-long check-wireshark-13 wireshark-screenshot demo bench bench-profile bench-insn bench-nsdrop bench-monarch bench-analysis fuzz clean install uninstall \
	dkms-install dkms-uninstall install-ttprobe-compat uninstall-ttprobe-compat dist
