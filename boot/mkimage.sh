#!/usr/bin/env bash
# Build a bootable disk image: GPT with one FAT32 EFI System Partition that
# holds \EFI\BOOT\BOOTX64.EFI (and BOOTAA64.EFI when AA64_EFI names it),
# \baremark\baremark.cfg and \baremark\results\.
# dd it to a USB stick:  dd if=build/baremark.img of=/dev/sdX bs=4M conv=fsync
#
# usage: mkimage.sh BAREMARK.EFI BAREMARK.CFG OUT.IMG [SIZE_MIB]
#
# The same stick boots legacy BIOS machines when BIOS_BIN names baremark.bin
# (make bios; make image passes it): Debian's SYSLINUX, chosen over GRUB
# i386-pc because it installs onto the FAT image file through mtools (no root,
# no loop mount, no embedding area to reserve) and its LINUX entry is the
# loader test_bios.py already checks. The BIOS path:
#   sector 0: syslinux's gptmbr.bin (first 440 bytes; the protective MBR's
#     partition entry stays sgdisk's), which loads the boot sector of the GPT
#     partition marked "legacy BIOS bootable" (attribute bit 2);
#   the ESP's boot sector + \syslinux\ldlinux.sys/.c32 (syslinux --install);
#   \syslinux\syslinux.cfg: LINUX /baremark/baremark.bin, APPEND the
#     loader-level options (BIOS_APPEND, default none: the options live in
#     \baremark\baremark.cfg as on UEFI) plus baremark_stick=GUID, the GPT disk GUID, which baremark drops
#     from the options and uses to recognise its boot disk among the INT 13h
#     drives;
#   \baremark\results\bios.jsonl: a preallocated results file (BIOS_RESULTS_MIB,
#     default 4 MiB) of ASCII spaces ending in one '\n'. baremark on BIOS
#     overwrites it from the start with its records (INT 13h writes to the
#     file's own sectors only; the FAT is never changed), so it reads as JSON
#     lines followed by one blank line: jq skips the whitespace, a line
#     reader skips the blank line.
#   \baremark\results\bios.html: the same for the HTML report (1 MiB), each
#     page written over it from the start.
# The FAT's hidden-sectors field is set to the partition's start (2048) so
# that SYSLINUX's boot sector finds itself on the disk.
#
# BIOS_MBR=hybrid (with BIOS_BIN): for BIOSes that boot only a disk whose MBR
# has an active partition (many 2006-2012 servers and desktops skip a disk
# with only the protective 0xEE entry). Sector 0 gets SYSLINUX's mbr.bin
# (it loads the active partition's boot sector) and a hybrid MBR as gdisk
# makes one: entry 1 type 0xEE over the GPT (sectors 1..start-1), entry 2
# type 0x0C (FAT32, LBA), active (80h), over the ESP. The GPT is unchanged.
# UEFI firmware that holds to the UEFI spec treats such a disk as an MBR
# disk and may refuse it or boot it from the FAT entry: the default
# (protective MBR + gptmbr.bin) is the one to try first.
#
# Secure Boot, from the environment (make image passes them on):
#   SB_KEY=key.pem SB_CERT=cert.pem  sign baremark.efi with sbsign before it goes
#       on the stick (for machines whose db trusts that certificate).
#   SB_SHIM=1  (with SB_KEY/SB_CERT) the stick for machines that trust only
#       Microsoft's keys: Debian's Microsoft-signed shim as \EFI\BOOT\BOOTX64.EFI,
#       MokManager (mmx64.efi) next to it, the signed baremark as grubx64.efi
#       (the second stage shim loads from its own folder: shim's DEFAULT_LOADER),
#       and the certificate in DER as \baremark\baremark-mok.cer for a one-time
#       enrollment in MokManager ("Enroll key from disk").
#   SB_SHIM_DIR  where shimx64.efi.signed and mmx64.efi.signed are (/usr/lib/shim).
set -euo pipefail
efi=$1 cfg=$2 out=$3 size_mib=${4:-64}
bios_bin=${BIOS_BIN:-} bios_append=${BIOS_APPEND:-} results_mib=${BIOS_RESULTS_MIB:-4} bios_mbr=${BIOS_MBR:-}
sb_key=${SB_KEY:-} sb_cert=${SB_CERT:-} sb_shim=${SB_SHIM:-} shim_dir=${SB_SHIM_DIR:-/usr/lib/shim}
die() { echo "mkimage.sh: $*" >&2; exit 1; }
if [ -n "$sb_key$sb_cert" ] && { [ -z "$sb_key" ] || [ -z "$sb_cert" ]; }; then
    die "SB_KEY and SB_CERT go together (make sb-key makes a test pair)"
fi
case "$sb_shim" in
    ""|0) sb_shim="" ;;
    1) [ -n "$sb_key" ] || die "SB_SHIM=1 needs SB_KEY and SB_CERT: shim only starts a signed baremark" ;;
    *) die "SB_SHIM is 1 or empty, not '$sb_shim'" ;;
esac

case "$bios_mbr" in
    ""|gpt) bios_mbr="" ;;
    hybrid) [ -n "$bios_bin" ] || die "BIOS_MBR=hybrid is for the legacy BIOS boot: it needs BIOS_BIN (make image passes it)" ;;
    *) die "BIOS_MBR is hybrid or empty, not '$bios_mbr'" ;;
esac
if [ -n "$bios_bin" ]; then
    [ -f "$bios_bin" ] || die "BIOS_BIN=$bios_bin missing (make bios)"
    [ -z "$bios_mbr" ] || [ -f /usr/lib/syslinux/mbr/mbr.bin ] || die "/usr/lib/syslinux/mbr/mbr.bin missing (Debian: apt install syslinux-common)"
    for f in /usr/lib/syslinux/mbr/gptmbr.bin /usr/lib/syslinux/modules/bios/ldlinux.c32; do
        [ -f "$f" ] || die "$f missing (Debian: apt install syslinux syslinux-common)"
    done
    command -v syslinux >/dev/null || die "syslinux missing (Debian: apt install syslinux)"
fi

start=2048                                   # 1 MiB alignment
total=$((size_mib * 2048))                   # 512-byte sectors
end=$((total - 34))                          # the backup GPT takes the last 33
part_sectors=$((end - start + 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The partition on its own first: mkfs and mtools work on a plain file.
truncate -s $((part_sectors * 512)) "$tmp/esp.fat"
mkfs.vfat -F 32 -n BAREMARK -s 1 -h $start "$tmp/esp.fat" >/dev/null
export MTOOLS_SKIP_CHECK=1
mmd -i "$tmp/esp.fat" ::/EFI ::/EFI/BOOT ::/baremark ::/baremark/results
if [ -n "$sb_key" ]; then
    # sbsign asks for the key's pass phrase on the terminal when it has one.
    # Its "data remaining ... gaps between PE/COFF sections?" warning is about
    # the symbol table objcopy leaves after the last section: it is hashed
    # with the rest, and OVMF and shim accept the signature (test_secureboot).
    sbsign --key "$sb_key" --cert "$sb_cert" --output "$tmp/baremark.efi" "$efi" >/dev/null || die "sbsign failed"
    sbverify --cert "$sb_cert" "$tmp/baremark.efi" >/dev/null || die "sbverify: the signed image does not verify"
    efi=$tmp/baremark.efi
fi
if [ -n "$sb_shim" ]; then
    for f in shimx64.efi.signed mmx64.efi.signed; do
        [ -f "$shim_dir/$f" ] || die "$shim_dir/$f missing (Debian: apt install shim-signed shim-helpers-amd64-signed)"
    done
    # No fbx64.efi: with it next to shim, shim would run the fallback boot
    # entry creator instead of baremark.
    mcopy -i "$tmp/esp.fat" "$shim_dir/shimx64.efi.signed" ::/EFI/BOOT/BOOTX64.EFI
    mcopy -i "$tmp/esp.fat" "$shim_dir/mmx64.efi.signed" ::/EFI/BOOT/mmx64.efi
    mcopy -i "$tmp/esp.fat" "$efi" ::/EFI/BOOT/grubx64.efi
    openssl x509 -in "$sb_cert" -outform DER -out "$tmp/baremark-mok.cer"
    mcopy -i "$tmp/esp.fat" "$tmp/baremark-mok.cer" ::/baremark/baremark-mok.cer
else
    mcopy -i "$tmp/esp.fat" "$efi" ::/EFI/BOOT/BOOTX64.EFI
fi
# Arm (AArch64 UEFI) machines boot \EFI\BOOT\BOOTAA64.EFI from the same stick
# (UEFI 2.10 section 3.5.1.1, the removable media boot path per architecture).
# Unsigned: Secure Boot on Arm is not covered (docs/arm.md).
if [ -n "${AA64_EFI:-}" ]; then
    [ -f "$AA64_EFI" ] || die "AA64_EFI=$AA64_EFI missing (make aa64)"
    mcopy -i "$tmp/esp.fat" "$AA64_EFI" ::/EFI/BOOT/BOOTAA64.EFI
fi
mcopy -i "$tmp/esp.fat" "$cfg" ::/baremark/baremark.cfg
disk_guid=$(cat /proc/sys/kernel/random/uuid | tr a-f A-F)
if [ -n "$bios_bin" ]; then
    mmd -i "$tmp/esp.fat" ::/syslinux
    mcopy -i "$tmp/esp.fat" "$bios_bin" ::/baremark/baremark.bin
    printf 'DEFAULT baremark\nPROMPT 0\nTIMEOUT 0\nLABEL baremark\n  LINUX /baremark/baremark.bin\n  APPEND %s\n' \
        "${bios_append:+$bios_append }baremark_stick=$disk_guid" > "$tmp/syslinux.cfg"
    mcopy -i "$tmp/esp.fat" "$tmp/syslinux.cfg" ::/syslinux/syslinux.cfg
    # The results file: contiguous is not required (baremark follows the
    # cluster chain), but a fresh FAT gives one extent anyway.
    head -c $((results_mib * 1048576 - 1)) /dev/zero | tr '\0' ' ' > "$tmp/bios.jsonl"
    printf '\n' >> "$tmp/bios.jsonl"
    mcopy -i "$tmp/esp.fat" "$tmp/bios.jsonl" ::/baremark/results/bios.jsonl
    # Its HTML report: 1 MiB of spaces ending in a newline, overwritten
    # with each page (a page is some 50-150 KB; the spaces after </html>
    # are nothing to a browser).
    head -c $((1048576 - 1)) /dev/zero | tr '\0' ' ' > "$tmp/bios.html"
    printf '\n' >> "$tmp/bios.html"
    mcopy -i "$tmp/esp.fat" "$tmp/bios.html" ::/baremark/results/bios.html
    syslinux --install --directory /syslinux "$tmp/esp.fat" || die "syslinux --install failed"
fi

rm -f "$out.tmp"
truncate -s $((total * 512)) "$out.tmp"
sgdisk --clear --disk-guid="$disk_guid" --new=1:$start:$end --typecode=1:EF00 --change-name=1:"baremark ESP" \
    ${bios_bin:+--attributes=1:set:2} "$out.tmp" >/dev/null
dd if="$tmp/esp.fat" of="$out.tmp" bs=512 seek=$start conv=notrunc status=none
# One MBR partition entry (16 bytes at 446 + 16 * (n - 1)): boot flag,
# CHS start FE FF FF (LBA only), type, CHS end FE FF FF, first LBA, sectors.
mbr_entry() {  # n flag type first sectors
    local hex
    hex=$(printf '\\x%02x\\xfe\\xff\\xff\\x%02x\\xfe\\xff\\xff' "$2" "$3")
    hex="$hex$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($4 & 255)) $(($4 >> 8 & 255)) $(($4 >> 16 & 255)) $(($4 >> 24 & 255)))"
    hex="$hex$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($5 & 255)) $(($5 >> 8 & 255)) $(($5 >> 16 & 255)) $(($5 >> 24 & 255)))"
    printf "$hex" | dd of="$out.tmp" bs=1 seek=$((446 + 16 * ($1 - 1))) conv=notrunc status=none
}
if [ -n "$bios_bin" ] && [ -n "$bios_mbr" ]; then
    dd if=/usr/lib/syslinux/mbr/mbr.bin of="$out.tmp" bs=440 count=1 conv=notrunc status=none
    mbr_entry 1 0 0xee 1 $((start - 1))
    mbr_entry 2 0x80 0x0c $start $((end - start + 1))
elif [ -n "$bios_bin" ]; then
    dd if=/usr/lib/syslinux/mbr/gptmbr.bin of="$out.tmp" bs=440 count=1 conv=notrunc status=none
fi
mv "$out.tmp" "$out"
how=unsigned
[ -n "$sb_key" ] && how="signed with $sb_cert"
[ -n "$sb_shim" ] && how="$how, behind shim (enroll \\baremark\\baremark-mok.cer in MokManager once)"
boots="UEFI"
[ -n "$bios_bin" ] && boots="UEFI and legacy BIOS (SYSLINUX, ${results_mib} MiB bios.jsonl, 1 MiB bios.html)"
[ -n "$bios_mbr" ] && boots="$boots, hybrid MBR with an active FAT32 entry"
echo "built $out (${size_mib} MiB, ESP at sector $start, disk GUID $disk_guid, $boots, baremark $how)"
