#!/usr/bin/env python3
"""Join the real-mode setup and the 1 MiB payload into build/baremark.bin,
a Linux x86 boot protocol image, filling in the header fields that depend on
the payload's size (Documentation/arch/x86/boot.rst):
setup_sects (0x1f1), syssize (0x1f4, 16-byte units), init_size (0x260).

usage: pack.py SETUP.bin PAYLOAD.bin PAYLOAD_MEM_BYTES OUT.bin"""
import struct
import sys


def main():
    setup = bytearray(open(sys.argv[1], "rb").read())
    payload = open(sys.argv[2], "rb").read()
    mem_bytes = int(sys.argv[3], 0)
    if len(setup) % 512 or len(setup) < 1024 or setup[0x202:0x206] != b"HdrS":
        sys.exit("pack.py: %s is not a setup image" % sys.argv[1])
    setup[0x1f1] = len(setup) // 512 - 1
    struct.pack_into("<I", setup, 0x1f4, (len(payload) + 15) // 16)
    struct.pack_into("<I", setup, 0x260, max(mem_bytes, len(payload)))
    with open(sys.argv[4], "wb") as f:
        f.write(setup + payload)


if __name__ == "__main__":
    main()
