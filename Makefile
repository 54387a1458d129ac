# magnet: build, test and demo entry points. See README.md.
#
#   make                 module/magnet.ko for KVER, and the userspace tools
#   make KVER=<release>  the module for another installed kernel
#   make deps            install build and test dependencies (Debian 12)
#   make check           unit tests, then VM tests on every installed kernel
#   make demo            a short capture in a throwaway VM, with a summary
#
# KVER defaults to the running kernel when its headers exist, else the
# newest /lib/modules/*/build. MAGNET_VM_KVM=1 lets the VM tests use KVM.

KVER ?= $(shell scripts/default-kver.sh)
KDIR ?= /lib/modules/$(KVER)/build

all: module userspace

module:
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR) (KVER=$(KVER)); run make deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module modules

userspace:
	$(MAKE) -C userspace

deps:
	scripts/deps.sh

unit:
	$(MAKE) -C tests/unit check

vm: userspace
	tests/vm/run.sh

check:
	tests/run-all.sh

demo:
	scripts/demo.sh

clean:
	-test -d "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(CURDIR)/module clean
	$(MAKE) -C userspace clean
	$(MAKE) -C tests/unit clean
	rm -rf build

.PHONY: all module userspace deps unit vm check demo clean
