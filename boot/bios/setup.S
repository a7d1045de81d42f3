/* The real-mode part of build/baremark.bin: a Linux x86 boot protocol
 * "setup" (Documentation/arch/x86/boot.rst), which SYSLINUX, GRUB (linux16),
 * iPXE and QEMU's -kernel load at a segment below 1 MiB and enter at
 * offset 0x200 in real mode, with the protected-mode payload already at
 * 1 MiB (loadflags LOADED_HIGH). Loaders that use the 32-bit protocol
 * (GRUB's "linux") skip this code and enter code32_start themselves.
 *
 * What it does, as Linux arch/x86/boot/main.c does before go_to_protected_mode():
 * builds a zero page (boot_params) of its own 4 KiB past the setup code,
 * with a copy of the setup header the loader filled in, asks INT 15h E820
 * for the memory map into it (e820_table at 0x2d0, e820_entries at 0x1e8),
 * opens A20, and jumps to code32_start in 32-bit flat protected mode with
 * ESI = the zero page. The loader leaves us the 64 KiB from the setup
 * segment's start (the stack is at its top). */

#define E820_MAX 128          /* E820_MAX_ENTRIES_ZEROPAGE */
#define ZP 0x1000             /* our zero page, past the setup code (its e820 table
                               * would overlap the code at 0x2d0 otherwise) */
#define ZP_HDR_END 0x268      /* the setup header ends here (boot protocol 2.10) */
#define ZP_E820_ENTRIES 0x1e8
#define ZP_E820_TABLE 0x2d0
#define ZP_ALT_MEM_K 0x1e0    /* u32: INT 15h E801h, KiB above 1 MiB */
#define ZP_EXT_MEM_K 0x002    /* u16 (screen_info.ext_mem_k): INT 15h AH=88h */
#define SMAP 0x534d4150       /* "SMAP", the INT 15h E820 signature */

    .code16
    .section .setup, "ax"
    .globl _start
_start:
    /* Offset 0: a boot sector nobody boots from. */
    .fill 0x1f1, 1, 0
hdr:
setup_sects:    .byte 0                 /* patched by pack.py */
root_flags:     .word 0
syssize:        .long 0                 /* patched: payload size / 16 */
ram_size:       .word 0
vid_mode:       .word 0xffff            /* "normal": leave the text mode alone */
root_dev:       .word 0
boot_flag:      .word 0xaa55
    /* 0x200: the real-mode entry point. */
    .byte 0xeb, start16 - 1f            /* short jmp over the header */
1:
    .ascii "HdrS"
version:        .word 0x020a            /* boot protocol 2.10 */
realmode_swtch: .long 0
start_sys_seg:  .word 0x1000
kernel_version: .word banner - 0x200
type_of_loader: .byte 0
loadflags:      .byte 0x01              /* LOADED_HIGH: payload at 1 MiB */
setup_move_size:.word 0x8000
code32_start:   .long 0x100000
ramdisk_image:  .long 0
ramdisk_size:   .long 0
bootsect_kludge:.long 0
heap_end_ptr:   .word 0
ext_loader_ver: .byte 0
ext_loader_type:.byte 0
cmd_line_ptr:   .long 0
initrd_addr_max:.long 0x7fffffff
kernel_alignment:.long 0x200000
relocatable_kernel:.byte 0
min_alignment:  .byte 0
xloadflags:     .word 0
cmdline_size:   .long 2047
hardware_subarch:.long 0
hardware_subarch_data:.quad 0
payload_offset: .long 0
payload_length: .long 0
setup_data:     .quad 0
pref_address:   .quad 0x100000
init_size:      .long 0                 /* patched: payload incl. .bss */
handover_offset:.long 0

start16:
    cli
    cld
    /* The loader set DS = ES = SS = the setup segment and a stack; as Linux
     * header.S does, address everything from DS, not from CS. */
    movw %ds, %ax
    movw %ax, %es

    /* The zero page: cleared, then the setup header copied in. */
    movw $ZP, %di
    movw $4096, %cx
    xorb %al, %al
    rep stosb
    movw $hdr, %si
    movw $ZP + (hdr - _start), %di
    movw $ZP_HDR_END - (hdr - _start), %cx
    rep movsb

    /* INT 15h AX=E820h (ACPI 6.5 section 15.1): one 20-byte range per call,
     * EBX carries on, 0 or CF means the list is over. */
    xorl %ebx, %ebx
    movw $ZP + ZP_E820_TABLE, %di
e820_next:
    movl $0xe820, %eax
    movl $20, %ecx
    movl $SMAP, %edx
    int $0x15
    jc e820_done
    cmpl $SMAP, %eax
    jne e820_done
    incb ZP + ZP_E820_ENTRIES
    addw $20, %di
    cmpb $E820_MAX, ZP + ZP_E820_ENTRIES
    jae e820_done
    testl %ebx, %ebx
    jnz e820_next
e820_done:

    /* No E820: INT 15h AX=E801h and AH=88h, as Linux boot/memory.c
     * detect_memory_e801() and detect_memory_88(); the payload makes a map
     * of them (efi/mem/e820.c e820_from_legacy()). */
    cmpb $0, ZP + ZP_E820_ENTRIES
    jne legacy_mem_done
    xorw %cx, %cx
    xorw %dx, %dx
    xorw %bx, %bx
    movw $0xe801, %ax
    int $0x15
    jc e801_done
    /* CX/DX (configured memory) when the BIOS gives them, else AX/BX */
    movw %cx, %si
    orw %dx, %si
    jnz 1f
    movw %ax, %cx
    movw %bx, %dx
1:  cmpw $15 * 1024, %cx
    ja e801_done                        /* bogus */
    movzwl %cx, %eax
    jb 2f
    movzwl %dx, %edx                    /* exactly 15 MiB: add the 64 KiB blocks above 16 MiB */
    shll $6, %edx
    addl %edx, %eax
2:  movl %eax, ZP + ZP_ALT_MEM_K
e801_done:
    movb $0x88, %ah
    int $0x15
    jc legacy_mem_done
    movw %ax, ZP + ZP_EXT_MEM_K
legacy_mem_done:

    /* A20: ask the BIOS (INT 15h AX=2401h), then the System Control Port A
     * "fast A20" bit, as Linux a20.c enable_a20_bios()/enable_a20_fast(). */
    movw $0x2401, %ax
    int $0x15
    inb $0x92, %al
    orb $0x02, %al
    andb $0xfe, %al                     /* bit 0 would reset the machine */
    outb %al, $0x92

    /* Linear addresses: the zero page and our GDT. */
    xorl %esi, %esi
    movw %ds, %si
    shll $4, %esi
    leal gdt(%esi), %eax
    movl %eax, gdt_ptr + 2
    movl code32_start, %eax
    movl %eax, far_ptr
    addl $ZP, %esi

    cli
    movb $0x80, %al                     /* NMI off while the IDT is not ours */
    outb %al, $0x70
    lgdtl gdt_ptr
    movl %cr0, %eax
    orl $1, %eax                        /* CR0.PE */
    movl %eax, %cr0
    /* DS still holds its real-mode base (segment caches last until a
     * register is reloaded), so the 16:32 pointer is read from here; the
     * 32-bit entry loads its own segments. */
    ljmpl *far_ptr

    .balign 8
    /* The selectors the 32-bit boot protocol promises: __BOOT_CS 0x10,
     * __BOOT_DS 0x18, flat 4 GiB. */
gdt:
    .quad 0
    .quad 0
    .quad 0x00cf9a000000ffff            /* 0x10: code, 32-bit, base 0 */
    .quad 0x00cf92000000ffff            /* 0x18: data, base 0 */
gdt_end:
gdt_ptr:
    .word gdt_end - gdt - 1
    .long 0
far_ptr:
    .long 0
    .word 0x10

banner: .asciz "baremark (legacy BIOS)"
    .balign 512
