# baremark: a bootable, bare-metal disk and memory benchmark (UEFI, C).
#
#   make            build/baremark.efi (GNU-EFI, x86_64)
#   make host       build/host/baremark (Linux build of the portable code)
#   make image      build/baremark.img (GPT + FAT32 ESP, dd to a USB stick)
#                   SB_KEY=... SB_CERT=... [SB_SHIM=1]: signed for Secure Boot
#   make sb-key     a self-signed Secure Boot test key in build/sb/
#   make aa64       build/baremark-aa64.efi (GNU-EFI for arm64, Debian's cross compiler; docs/arm.md)
#   make bios       build/baremark.bin (legacy BIOS: Linux boot protocol image for SYSLINUX/GRUB/iPXE)
#   make run        install what is missing, build, boot in QEMU, show results
#   make test       unit tests + QEMU integration tests; ends "N passed, N failed"
#
# Source selection: every .c/.S under efi/ and drivers/ is portable unless
# its name ends in _uefi, _bios or _host, which go into that build only, or
# _fw, which goes into both firmware builds (UEFI and BIOS).

SHELL := /bin/bash
# A bare `make` builds the application (the README promises it), not the
# first rule in this file.
.DEFAULT_GOAL := all
BUILD ?= build
export BAREMARK_BUILD := $(BUILD)
HOSTB := $(BUILD)/host

# ---- Prerequisites (Debian 12) -----------------------------------------------
DEB_PACKAGES := gcc make binutils gnu-efi ovmf qemu-system-x86 qemu-utils mtools dosfstools gdisk \
                libcmocka-dev python3 ipxe-qemu dnsmasq-base \
                chromium nginx-core sbsigntool shim-signed shim-helpers-amd64-signed ipxe \
                syslinux syslinux-common grub-pc-bin python3-psycopg2 postgresql python3-pytest \
                python3-hypothesis
# chromium: the HTML report is checked as a person sees it; nginx-core (WebDAV PUT):
# the upload receiver; sbsigntool, shim-signed, shim-helpers: Secure Boot images;
# ipxe (ipxe.efi, undionly.kpxe), syslinux, grub-pc-bin: netboot and BIOS boot.
# python3-psycopg2, postgresql, python3-pytest: baremark-collect's PostgreSQL store and the
# tools' tests (tests/tools, which start a throw-away PostgreSQL cluster).
# python3-hypothesis: the fleet tool's fuzz harness (tests/fuzz/fuzz_report_records.py).
# gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user: the AArch64 memory kernels' tests
# (tests/aa64, make aa64-mem-kernels), linked -static against the arm64 libc. libc6-dev-arm64-cross is
# only a Recommends of gcc-aarch64-linux-gnu, which --no-install-recommends leaves out.
DEB_PACKAGES += gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
# The AArch64 UEFI build and its QEMU test (docs/arm.md); gnu-efi for arm64 is unpacked into build/ (AA64_EFI below).
DEB_PACKAGES += qemu-efi-aarch64 qemu-system-arm
.PHONY: deps
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root to install:$$missing" >&2; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# ---- Sources ------------------------------------------------------------------
ALL_SRC := $(shell find efi drivers -name '*.c' -o -name '*.S' | sort)
COMMON_SRC := $(filter-out %_uefi.c %_host.c %_uefi.S %_host.S %_bios.c %_bios.S %_fw.c %_aa64.c %_aa64.S,$(ALL_SRC))
# *_fw.c: shared by the two firmware builds (UEFI, BIOS), not the host one.
FW_SRC := $(filter %_fw.c,$(ALL_SRC))
UEFI_SRC := $(COMMON_SRC) $(FW_SRC) $(filter %_uefi.c %_uefi.S,$(ALL_SRC))
HOST_SRC := $(COMMON_SRC) $(filter %_host.c %_host.S,$(ALL_SRC))
HOST_LIB_SRC := $(filter-out efi/main_host.c,$(HOST_SRC))
HEADERS := $(shell find efi drivers -name '*.h')

# WERROR=-Werror (make check) makes every warning of what gets compiled an error.
WERROR ?=
WARN := -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow -Wstrict-prototypes $(WERROR)
# ---- UEFI build -------------------------------------------------------------------
EFI_INC := /usr/include/efi
EFI_LIB := /usr/lib
EFI_CFLAGS := -std=gnu11 -O2 -g0 $(WARN) -isystem $(EFI_INC) -isystem $(EFI_INC)/x86_64 -isystem $(EFI_INC)/protocol -Iefi \
              -ffreestanding -fno-builtin -fpic -fshort-wchar -fno-stack-protector -fno-stack-check \
              -fno-strict-aliasing -mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI \
              -DBAREMARK_UEFI -march=x86-64 -mtune=generic $(TEST_HOOKS_CFLAGS)
EFI_LDFLAGS := -nostdlib -znocombreloc -T $(EFI_LIB)/elf_x86_64_efi.lds -shared -Bsymbolic -L$(EFI_LIB)
UEFI_OBJ := $(patsubst %,$(BUILD)/uefi/%.o,$(UEFI_SRC))

.PHONY: all efi host image
all: deps
	$(MAKE) --no-print-directory efi aa64
efi: $(BUILD)/baremark.efi

$(BUILD)/uefi/%.c.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "CC  [uefi] $<"
	@gcc $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/uefi/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "CC  [uefi] $<"
	@gcc $(EFI_CFLAGS) -c $< -o $@

$(BUILD)/baremark.so: $(UEFI_OBJ)
	ld $(EFI_LDFLAGS) $(EFI_LIB)/crt0-efi-x86_64.o $(UEFI_OBJ) -o $@ -lefi -lgnuefi \
	  $$(gcc -print-libgcc-file-name)

$(BUILD)/baremark.efi: $(BUILD)/baremark.so
	objcopy -j .text -j .sdata -j .data -j .sbat -j .dynamic -j .dynsym -j .rel -j .rela -j '.rel.*' -j '.rela.*' \
	  -j .reloc --target efi-app-x86_64 --subsystem=10 $< $@
	@echo "built $@"

# ---- AArch64 UEFI build (docs/arm.md) -------------------------------------------------
# make aa64: build/baremark-aa64.efi, the UEFI build for Arm (SBSA) servers: the same
# sources as the x86-64 UEFI build less the x86-only files named below, plus every
# *_aa64.c / *_aa64.S (which the x86 builds leave out). gnu-efi for arm64 cannot be
# installed beside the amd64 one (no Multi-Arch: same), so its Debian package is
# fetched with apt-get download (arm64 added as a foreign architecture) and unpacked
# into $(AA64_EFI).
AA64_CC ?= aarch64-linux-gnu-gcc
AA64B := $(BUILD)/aa64
AA64_EFI := $(AA64B)/gnu-efi
AA64_X86_ONLY := efi/mem/mem_kernels.S efi/uefi/clock_uefi.c efi/fw/ioport_fw.c efi/uefi/sbat_uefi.c
AA64_SRC := $(filter-out $(AA64_X86_ONLY),$(UEFI_SRC)) $(filter %_aa64.c %_aa64.S,$(ALL_SRC))
AA64_EFI_CFLAGS := -std=gnu11 -O2 -g0 $(WARN) -isystem $(AA64_EFI)/usr/include/efi -isystem $(AA64_EFI)/usr/include/efi/aarch64 \
               -isystem $(AA64_EFI)/usr/include/efi/protocol -Iefi -ffreestanding -fno-builtin -fpic -fshort-wchar \
               -fno-stack-protector -fno-stack-check -fno-strict-aliasing -DBAREMARK_UEFI -march=armv8-a \
               $(TEST_HOOKS_CFLAGS)
AA64_OBJ := $(patsubst %,$(AA64B)/obj/%.o,$(AA64_SRC))

.PHONY: aa64
aa64: $(BUILD)/baremark-aa64.efi

$(AA64_EFI)/.unpacked:
	@command -v $(AA64_CC) >/dev/null || { echo "make aa64 needs $(AA64_CC): run make deps as root" >&2; exit 1; }
	@if ! dpkg --print-foreign-architectures | grep -qx arm64; then \
	  if [ "$$(id -u)" != 0 ]; then echo "gnu-efi for arm64: run as root once (dpkg --add-architecture arm64)" >&2; exit 1; fi; \
	  echo "Adding the arm64 architecture (for apt-get download gnu-efi:arm64)"; \
	  dpkg --add-architecture arm64 && apt-get update -qq; \
	fi
	@rm -rf $(AA64B)/deb $(AA64_EFI) && mkdir -p $(AA64B)/deb
	cd $(AA64B)/deb && apt-get download -q gnu-efi:arm64
	dpkg -x $(AA64B)/deb/gnu-efi_*_arm64.deb $(AA64_EFI)
	@touch $@

$(AA64B)/obj/%.c.o: %.c $(HEADERS) $(AA64_EFI)/.unpacked
	@mkdir -p $(dir $@)
	@echo "CC  [aa64] $<"
	@$(AA64_CC) $(AA64_EFI_CFLAGS) -c $< -o $@

$(AA64B)/obj/%.S.o: %.S $(AA64_EFI)/.unpacked
	@mkdir -p $(dir $@)
	@echo "CC  [aa64] $<"
	@$(AA64_CC) $(AA64_EFI_CFLAGS) -c $< -o $@

# As gnu-efi's own aarch64 rules: its crt0 carries the PE/COFF header, EFI_SUBSYSTEM
# is 10 (an application), and objcopy -O binary writes the image.
$(AA64B)/baremark-aa64.so: $(AA64_OBJ)
	aarch64-linux-gnu-ld -nostdlib -znocombreloc -T $(AA64_EFI)/usr/lib/elf_aarch64_efi.lds -shared -Bsymbolic \
	  --defsym=EFI_SUBSYSTEM=0xa --no-warn-rwx-segments -L$(AA64_EFI)/usr/lib $(AA64_EFI)/usr/lib/crt0-efi-aarch64.o \
	  $(AA64_OBJ) -o $@ -lefi -lgnuefi $$($(AA64_CC) -print-libgcc-file-name)

$(BUILD)/baremark-aa64.efi: $(AA64B)/baremark-aa64.so
	aarch64-linux-gnu-objcopy -j .text -j .sdata -j .data -j .dynamic -j .rodata -j .rel -j .rela -j '.rel.*' \
	  -j '.rela.*' -j .reloc -j .dynsym -O binary $< $@
	@echo "built $@"

# ---- Host build --------------------------------------------------------------------
HOST_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iefi -DBAREMARK_HOST -march=native -pthread
HOST_LIB_OBJ := $(patsubst %,$(HOSTB)/obj/%.o,$(HOST_LIB_SRC))

host: $(HOSTB)/baremark

$(HOSTB)/obj/%.c.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "CC  [host] $<"
	@gcc $(HOST_CFLAGS) -c $< -o $@

$(HOSTB)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "CC  [host] $<"
	@gcc $(HOST_CFLAGS) -c $< -o $@

$(HOSTB)/libbaremark.a: $(HOST_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(HOSTB)/baremark: $(HOSTB)/obj/efi/main_host.c.o $(HOSTB)/libbaremark.a
	gcc -pthread -o $@ $^ -lm

# ---- HTML report tool: baremark-html IN.jsonl OUT.html (efi/report/, the app's own renderer)
host: $(HOSTB)/baremark-html
$(HOSTB)/baremark-html: tools/baremark_html.c $(HOSTB)/libbaremark.a $(HEADERS)
	gcc $(HOST_CFLAGS) -o $@ $< $(HOSTB)/libbaremark.a -lm

# ---- SPD bus simulator: baremark-spd-sim BUSFILE (the real SPD reader against a bus file, tests/spd/)
host: $(HOSTB)/baremark-spd-sim
$(HOSTB)/baremark-spd-sim: tools/baremark_spd_sim.c $(HOSTB)/libbaremark.a $(HEADERS)
	gcc $(HOST_CFLAGS) -o $@ $< $(HOSTB)/libbaremark.a -lm

# ---- Legacy BIOS build ---------------------------------------------------------------
# make bios: build/baremark.bin, a Linux x86 boot protocol image (what SYSLINUX,
# GRUB, iPXE and QEMU -kernel load): boot/bios/setup.S in real mode, then the
# 64-bit payload (portable code + *_bios.*) linked at 1 MiB.
BIOSB := $(BUILD)/bios
BIOS_SRC := $(COMMON_SRC) $(FW_SRC) $(filter %_bios.c %_bios.S,$(ALL_SRC))
BIOS_CFLAGS := -std=gnu11 -O2 -g0 $(WARN) -Iefi -ffreestanding -fno-builtin -fno-pic -fno-pie -mcmodel=small \
               -fno-stack-protector -fno-stack-check -fno-strict-aliasing -mno-red-zone -fno-asynchronous-unwind-tables \
               -DBAREMARK_BIOS -march=x86-64 -mtune=generic $(TEST_HOOKS_CFLAGS)
BIOS_OBJ := $(patsubst %,$(BIOSB)/%.o,$(BIOS_SRC))

.PHONY: bios
bios: $(BUILD)/baremark.bin

$(BIOSB)/%.c.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "CC  [bios] $<"
	@gcc $(BIOS_CFLAGS) -c $< -o $@

$(BIOSB)/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "CC  [bios] $<"
	@gcc $(BIOS_CFLAGS) -c $< -o $@

# objects -> the 64-bit payload, linked at 1 MiB
bios_link = ld -nostdlib -static -no-pie -z noexecstack --no-warn-rwx-segments -T boot/bios/payload.lds $(1) -o $@ \
            $$(gcc -print-libgcc-file-name)

$(BIOSB)/payload.elf: $(BIOS_OBJ) boot/bios/payload.lds
	@echo "LD  [bios] $@"
	@$(call bios_link,$(BIOS_OBJ))

$(BIOSB)/setup.bin: boot/bios/setup.S boot/bios/setup.lds
	@mkdir -p $(dir $@)
	gcc -m32 -c boot/bios/setup.S -o $(BIOSB)/setup.o
	ld -m elf_i386 -nostdlib -T boot/bios/setup.lds $(BIOSB)/setup.o -o $(BIOSB)/setup.elf
	objcopy -O binary $(BIOSB)/setup.elf $@

# payload.elf -> a bootable image: the payload's size in memory up to _end is in its header.
define bios_pack
objcopy -O binary $(1) $(1:.elf=.bin)
python3 boot/bios/pack.py $(BIOSB)/setup.bin $(1:.elf=.bin) \
  $$(( 0x$$(nm $(1) | awk '$$3 == "_end" {print $$1}') - 0x100000 )) $@
@echo "built $@"
endef

$(BUILD)/baremark.bin: $(BIOSB)/setup.bin $(BIOSB)/payload.elf boot/bios/pack.py
	$(call bios_pack,$(BIOSB)/payload.elf)

# ---- Test-hooks builds (tests only, never shipped) -----------------------------------
# make bios-testhooks / efi-testhooks: build/testhooks/baremark.bin / .efi, built with
# BAREMARK_TEST_HOOKS (test_fault=ud|gp|pf|de raises a real CPU exception); build/baremark.bin
# and .efi do not know the option. The hooks live in three files: the BIOS one compiles
# those with the define and links every other object of the release build (make test
# builds it beside the others); the UEFI one is a whole build in a folder of its own.
HOOK_SRC := efi/app.c efi/config.c efi/test_fault.c
HOOKB := $(BUILD)/testhooks
HOOK_BIOS_OBJ := $(filter-out $(patsubst %,$(BIOSB)/%.o,$(HOOK_SRC)),$(BIOS_OBJ)) $(patsubst %,$(HOOKB)/bios/%.o,$(HOOK_SRC))

$(HOOKB)/bios/%.c.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "CC  [bios hooks] $<"
	@gcc $(BIOS_CFLAGS) -DBAREMARK_TEST_HOOKS -c $< -o $@

$(HOOKB)/bios/payload.elf: $(HOOK_BIOS_OBJ) boot/bios/payload.lds
	@echo "LD  [bios hooks] $@"
	@$(call bios_link,$(HOOK_BIOS_OBJ))

$(HOOKB)/baremark.bin: $(BIOSB)/setup.bin $(HOOKB)/bios/payload.elf boot/bios/pack.py
	$(call bios_pack,$(HOOKB)/bios/payload.elf)

.PHONY: bios-testhooks efi-testhooks
bios-testhooks: $(HOOKB)/baremark.bin
efi-testhooks:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)/testhooks TEST_HOOKS_CFLAGS=-DBAREMARK_TEST_HOOKS efi

# ---- Boot image --------------------------------------------------------------------------
# Secure Boot: make image SB_KEY=key.pem SB_CERT=cert.pem signs baremark.efi on the stick;
# add SB_SHIM=1 for machines that trust only Microsoft's keys (shim + MokManager, see
# boot/mkimage.sh). make sb-key makes a self-signed test pair in build/sb/.
SB_KEY ?=
SB_CERT ?=
SB_SHIM ?=
# BIOS_RESULTS_MIB: size of the stick's preallocated bios.jsonl (default 4).
# BIOS_MBR=hybrid: a hybrid MBR with an active FAT32 entry and SYSLINUX's mbr.bin, for BIOSes
# that boot only a disk with an active partition (docs/bios.md "Which image to try").
BIOS_MBR ?=
SB_SETTINGS := key=$(SB_KEY) cert=$(SB_CERT) shim=$(SB_SHIM) bios_results=$(BIOS_RESULTS_MIB) bios_mbr=$(BIOS_MBR)
image: $(BUILD)/baremark.img
# The image boots legacy BIOS machines too: SYSLINUX loads baremark.bin from the same ESP.
# Arm UEFI machines: build/baremark-aa64.efi as \EFI\BOOT\BOOTAA64.EFI (docs/arm.md).
$(BUILD)/baremark.img: $(BUILD)/baremark.efi $(BUILD)/baremark-aa64.efi $(BUILD)/baremark.bin boot/baremark.cfg boot/mkimage.sh $(BUILD)/sb-settings $(SB_KEY) $(SB_CERT)
	SB_KEY="$(SB_KEY)" SB_CERT="$(SB_CERT)" SB_SHIM="$(SB_SHIM)" BIOS_BIN=$(BUILD)/baremark.bin BIOS_RESULTS_MIB="$(BIOS_RESULTS_MIB)" BIOS_MBR="$(BIOS_MBR)" \
	  AA64_EFI=$(BUILD)/baremark-aa64.efi \
	  bash boot/mkimage.sh $(BUILD)/baremark.efi boot/baremark.cfg $@
# Rewritten only when the signing settings change, so switching them rebuilds the image.
$(BUILD)/sb-settings: FORCE
	@mkdir -p $(dir $@)
	@echo '$(SB_SETTINGS)' | cmp -s - $@ || echo '$(SB_SETTINGS)' > $@
.PHONY: sb-key FORCE
FORCE:
sb-key: $(BUILD)/sb/baremark-sb.key
# The certificate comes with the key: `make image SB_KEY=build/sb/baremark-sb.key
# SB_CERT=build/sb/baremark-sb.crt` on a fresh clone makes the pair first.
$(BUILD)/sb/baremark-sb.crt $(BUILD)/sb/baremark-sb.cer: $(BUILD)/sb/baremark-sb.key ;
$(BUILD)/sb/baremark-sb.key:
	@mkdir -p $(dir $@)
	openssl req -new -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=baremark Secure Boot key/" \
	  -keyout $@ -out $(BUILD)/sb/baremark-sb.crt
	openssl x509 -in $(BUILD)/sb/baremark-sb.crt -outform DER -out $(BUILD)/sb/baremark-sb.cer
	@echo "test key: make image SB_KEY=$@ SB_CERT=$(BUILD)/sb/baremark-sb.crt [SB_SHIM=1]"

# ---- Run in QEMU ----------------------------------------------------------------------------
# BAREMARK_KVM=1 uses KVM where it can run OVMF (not on every machine).
.PHONY: run
run: deps
	$(MAKE) --no-print-directory image
	python3 tests/qemu/run_demo.py

# ---- Tests -----------------------------------------------------------------------------------
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(patsubst tests/unit/%.c,$(HOSTB)/tests/%,$(UNIT_SRC))

# Helpers the unit tests share (tests/unit/*.c not named test_*: the SCSI
# target, the capture sink), linked into every test.
UNIT_HELPER_OBJ := $(patsubst tests/unit/%.c,$(HOSTB)/test_helpers/%.o,$(filter-out tests/unit/test_%.c,$(wildcard tests/unit/*.c)))
$(HOSTB)/test_helpers/%.o: tests/unit/%.c $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	gcc $(HOST_CFLAGS) -Itests/unit -I. -c $< -o $@

$(HOSTB)/tests/%: tests/unit/%.c $(UNIT_HELPER_OBJ) $(HOSTB)/libbaremark.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	gcc $(HOST_CFLAGS) -Itests/unit -I. $< -o $@ $(UNIT_HELPER_OBJ) $(HOSTB)/libbaremark.a -lcmocka -lm

# make check: the fast loop for every edit (under 2 minutes on 2 cores): the UEFI and host
# builds with warnings as errors, every unit test, and the tests of tests/qemu that boot
# nothing (tools, host build, docs commands: run_all.py --host). The AArch64 and BIOS builds,
# which no test of check runs, are left to make test.
# make test: everything, what CI runs: every build (UEFI, AArch64, host, BIOS, the image)
# with warnings as errors, every unit and QEMU test, the fuzz smoke.
JOBS ?= 2
.PHONY: test unit-test qemu-test check
unit-test: $(UNIT_BIN) $(HOSTB)/baremark
check: deps
	$(MAKE) --no-print-directory -j$(JOBS) WERROR=-Werror efi host unit-test
	python3 tests/run_all.py --unit --host
test: deps fuzz-smoke
	$(MAKE) --no-print-directory -j$(JOBS) WERROR=-Werror efi aa64 host image bios bios-testhooks unit-test
	python3 tests/run_all.py

clean:
	rm -rf $(BUILD)

# ---- Fuzzing ----------------------------------------------------------------------------------
# make fuzz: libFuzzer harnesses in tests/fuzz/ (clang, with ASan and UBSan),
# each run for FUZZ_SECONDS, then the fleet tool's Python harness. Crashes are
# saved as $(BUILD)/fuzz/crash-NAME-*; corpora grow in $(BUILD)/fuzz/corpus/NAME,
# seeded from tests/fuzz/corpus/NAME and the kept regressions tests/fuzz/regress/NAME.
# make test builds them (fuzz-smoke) and tests/run_all.py runs each a few
# seconds over those inputs and every saved crash (tests/fuzz/smoke.py).
FUZZ_SECONDS ?= 10
FUZZ_CC ?= clang
FUZZ_PACKAGES := clang libclang-rt-14-dev
FUZZB := $(BUILD)/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -O1 -g $(WARN) -Iefi -I. -DBAREMARK_HOST -pthread $(FUZZ_SAN)
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(FUZZB)/%,$(FUZZ_SRC))
FUZZ_LIB_OBJ := $(patsubst %,$(FUZZB)/obj/%.o,$(filter-out %.S,$(HOST_LIB_SRC)))

.PHONY: fuzz fuzz-deps fuzz-build
# clang with its libFuzzer runtime: installed when missing (as root), else
# a clear message; a trial link proves the runtime is there.
fuzz-deps:
	@if ! printf 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}\n' | \
	    $(FUZZ_CC) -x c -fsanitize=fuzzer - -o /dev/null 2>/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then echo "make fuzz needs clang and libFuzzer: apt-get install $(FUZZ_PACKAGES)" >&2; exit 1; fi; \
	  echo "Installing: $(FUZZ_PACKAGES)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(FUZZ_PACKAGES); \
	fi

$(FUZZB)/obj/%.c.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	@echo "CC  [fuzz] $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZB)/libbaremark.a: $(FUZZ_LIB_OBJ)
	rm -f $@ && ar rcs $@ $^

$(FUZZB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZB)/libbaremark.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< -o $@ $(FUZZB)/libbaremark.a -lm

fuzz-build: fuzz-deps
	$(MAKE) --no-print-directory $(FUZZ_BIN)

fuzz: fuzz-build
	@fail=0; for b in $(FUZZ_BIN); do n=$$(basename $$b); n=$${n#fuzz_}; \
	  mkdir -p $(FUZZB)/corpus/$$n; \
	  seeds=""; for s in tests/fuzz/corpus/$$n tests/fuzz/regress/$$n; do [ -d $$s ] && seeds="$$seeds $$s"; done; \
	  echo "FUZZ $$n for $(FUZZ_SECONDS) s"; \
	  if $$b -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
	       -artifact_prefix=$(FUZZB)/crash-$$n- $(FUZZB)/corpus/$$n $$seeds > $(FUZZB)/$$n.log 2>&1; then \
	    grep -E "^stat::number_of_executed_units" $(FUZZB)/$$n.log | sed "s/^/  $$n /"; \
	  else fail=1; echo "  $$n FAILED (see $(FUZZB)/$$n.log):"; grep -E "ERROR|runtime error|SUMMARY" $(FUZZB)/$$n.log | head -5; fi; \
	done; \
	echo "FUZZ report_records for $(FUZZ_SECONDS) s"; \
	py=python3; /usr/bin/python3 -c "import hypothesis" 2>/dev/null && py=/usr/bin/python3; \
	if $$py tests/fuzz/fuzz_report_records.py --seconds $(FUZZ_SECONDS) > $(FUZZB)/report_records.log 2>&1; then \
	  sed "s/^/  report_records /" $(FUZZB)/report_records.log; \
	else fail=1; echo "  report_records FAILED (see $(FUZZB)/report_records.log):"; tail -5 $(FUZZB)/report_records.log; fi; \
	exit $$fail

# The fuzz harnesses for make test's smoke (after deps: one apt at a time).
.PHONY: fuzz-smoke
fuzz-smoke: deps
	$(MAKE) --no-print-directory -j$(JOBS) fuzz-build

# ---- Host tools (tools/baremark_report: baremark-report, baremark-collect) -----------------
# tools-test: their pytest tests alone (run_all.py --unit runs them too);
# bench-fleet: 100k machines x 10 runs into an SQLite store, ingest rate, report time, peak RSS
# (CPU-heavy, several minutes; BENCH_FLEET_ARGS="--machines 1000" for a small one).
.PHONY: tools-test bench-fleet
tools-test:
	python3 -m pytest -q tests/tools
bench-fleet:
	python3 tests/tools/bench_fleet.py $(BENCH_FLEET_ARGS)

# ---- Per-I/O cost benchmark (host build, no QEMU; not a test) ------------------------------
# make bench: engine + NVMe driver against an instant controller model, CPU ns per I/O
# at QD1/32/128 with and without the latency histogram, then the same for the AHCI
# driver at QD1/32 (tests/bench/iobench.h).
BENCH_SRC := $(sort $(wildcard tests/bench/*.c))
$(HOSTB)/iobench: $(BENCH_SRC) $(wildcard tests/bench/*.h) $(HOSTB)/libbaremark.a
	gcc $(HOST_CFLAGS) -Itests/bench -I. $(BENCH_SRC) -o $@ $(HOSTB)/libbaremark.a -lm
.PHONY: bench
bench: $(HOSTB)/iobench
	$(HOSTB)/iobench $(BENCH_MS)
$(HOSTB)/tests/test_iobench: $(BENCH_SRC) $(wildcard tests/bench/*.h)
$(HOSTB)/tests/test_ahci_instant: $(BENCH_SRC) $(wildcard tests/bench/*.h)
$(HOSTB)/tests/test_engine_cpus: $(BENCH_SRC) $(wildcard tests/bench/*.h)
$(HOSTB)/tests/test_nvme_model: $(wildcard tests/bench/*.h)

# ---- AArch64 memory kernels (tests/aa64) ----------------------------------------------------
# efi/mem/mem_kernels_aa64.S built with Debian's cross compiler into a static test binary that
# tests/run_all.py --unit runs under qemu-aarch64 (user mode): no Arm machine needed.
# tests/aa64/planted_bugs.py shows the test catches mutated kernels.
AA64_CC ?= aarch64-linux-gnu-gcc
AA64B := $(BUILD)/aa64
AA64_CFLAGS := -std=gnu11 -O2 -g $(WARN) -Iefi -DBAREMARK_HOST -static -pthread
AA64_TEST_SRC := efi/mem/mem_cpu.c efi/mem/mem_chain.c efi/mem/mem_measure.c efi/mem/mem_team.c efi/mem/mem_machine_host.c \
                 efi/lib/bmlib.c
.PHONY: aa64-mem-kernels
aa64-mem-kernels: $(AA64B)/tests/test_mem_kernels_aa64
unit-test: aa64-mem-kernels
$(AA64B)/obj/mem_kernels_aa64.o: efi/mem/mem_kernels_aa64.S
	@mkdir -p $(dir $@)
	$(AA64_CC) $(AA64_CFLAGS) -c $< -o $@
$(AA64B)/tests/test_mem_kernels_aa64: tests/aa64/test_mem_kernels_aa64.c $(AA64B)/obj/mem_kernels_aa64.o $(AA64_TEST_SRC) $(HEADERS)
	@mkdir -p $(dir $@)
	$(AA64_CC) $(AA64_CFLAGS) $< $(AA64B)/obj/mem_kernels_aa64.o $(AA64_TEST_SRC) -o $@ -lm
