#!/usr/bin/env bash
# Build a bootable disk image: GPT with one FAT32 EFI System Partition that
# holds \EFI\BOOT\BOOTX64.EFI, \baremark\baremark.cfg and \baremark\results\.
# dd it to a USB stick:  dd if=build/baremark.img of=/dev/sdX bs=4M conv=fsync
#
# usage: mkimage.sh BAREMARK.EFI BAREMARK.CFG OUT.IMG [SIZE_MIB]
set -euo pipefail
efi=$1 cfg=$2 out=$3 size_mib=${4:-64}

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
mcopy -i "$tmp/esp.fat" "$efi" ::/EFI/BOOT/BOOTX64.EFI
mcopy -i "$tmp/esp.fat" "$cfg" ::/baremark/baremark.cfg

rm -f "$out.tmp"
truncate -s $((total * 512)) "$out.tmp"
sgdisk --clear --new=1:$start:$end --typecode=1:EF00 --change-name=1:"baremark ESP" "$out.tmp" >/dev/null
dd if="$tmp/esp.fat" of="$out.tmp" bs=512 seek=$start conv=notrunc status=none
mv "$out.tmp" "$out"
echo "built $out (${size_mib} MiB, ESP at sector $start)"
