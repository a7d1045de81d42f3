#!/usr/bin/env bash
# Build a bootable disk image: GPT with one FAT32 EFI System Partition that
# holds \EFI\BOOT\BOOTX64.EFI, \baremark\baremark.cfg and \baremark\results\.
# dd it to a USB stick:  dd if=build/baremark.img of=/dev/sdX bs=4M conv=fsync
#
# usage: mkimage.sh BAREMARK.EFI BAREMARK.CFG OUT.IMG [SIZE_MIB]
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

start=2048                                   # 1 MiB alignment
total=$((size_mib * 2048))                   # 512-byte sectors
end=$((total - 34))                          # the backup GPT takes the last 33
part_sectors=$((end - start + 1))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The partition on its own first: mkfs and mtools work on a plain file.
truncate -s $((part_sectors * 512)) "$tmp/esp.fat"
mkfs.vfat -F 32 -n BAREMARK -s 1 "$tmp/esp.fat" >/dev/null
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
mcopy -i "$tmp/esp.fat" "$cfg" ::/baremark/baremark.cfg

rm -f "$out.tmp"
truncate -s $((total * 512)) "$out.tmp"
sgdisk --clear --new=1:$start:$end --typecode=1:EF00 --change-name=1:"baremark ESP" "$out.tmp" >/dev/null
dd if="$tmp/esp.fat" of="$out.tmp" bs=512 seek=$start conv=notrunc status=none
mv "$out.tmp" "$out"
how=unsigned
[ -n "$sb_key" ] && how="signed with $sb_cert"
[ -n "$sb_shim" ] && how="$how, behind shim (enroll \\baremark\\baremark-mok.cer in MokManager once)"
echo "built $out (${size_mib} MiB, ESP at sector $start, baremark $how)"
