/* The 32-bit entry of build/baremark.bin at 1 MiB (code32_start) and the
 * way into 64-bit mode. Entered in flat 32-bit protected mode with paging
 * off, interrupts off and ESI = the boot_params zero page, by our own
 * real-mode setup (boot/bios/setup.S) or by a loader using the 32-bit boot
 * protocol (Documentation/arch/x86/boot.rst, "32-bit boot protocol").
 *
 * Long mode needs PAE paging: identity page tables with 2 MiB pages over
 * the first 4 GiB (Intel SDM vol. 3A, 9.8.5 "Initializing IA-32e mode"),
 * then EFER.LME and CR0.PG, then a far jump to a 64-bit code segment. */

#include "long_mode.h"

#define PTE_PRESENT_RW 0x3
#define PDE_2M (0x80 | PTE_PRESENT_RW)
#define BIOS_STACK_BYTES 65536
#define EFLAGS_ID 0x200000
#define CPUID_LM_BIT 29
#define VGA_TEXT 0xb8000
#define VGA_WHITE_ON_RED 0x4f00
#define COM1_THR 0x3f8
#define COM1_LSR 0x3fd
#define LSR_THRE 0x20

    .section .text.head, "ax"
    .code32
    .globl bios_entry32
bios_entry32:
    cli
    cld
    lgdt %cs:gdt64_ptr                  /* DS may still hold a real-mode base */
    ljmp $SEL_CODE32, $1f
1:  movw $SEL_DATA, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movw %ax, %fs
    movw %ax, %gs
    movl %esi, bios_boot_params

    /* .bss is not in the image: zero it (page tables and stack live there). */
    movl $__bss_start, %edi
    movl $_end, %ecx
    subl %edi, %ecx
    xorl %eax, %eax
    rep stosb
    movl $bios_stack_top, %esp

    /* A CPU without long mode (a Pentium 4 before EM64T, a Core Duo, an
     * Atom N270) would fault on the way in and reset the machine: say so on
     * the screen and COM1 instead and stop. CPUID exists when EFLAGS.ID
     * toggles (SDM vol. 2A, CPUID); long mode is CPUID 80000001h EDX bit 29,
     * as Linux verify_cpu.S checks it. */
    pushfl
    popl %eax
    movl %eax, %ecx
    xorl $EFLAGS_ID, %eax
    pushl %eax
    popfl
    pushfl
    popl %eax
    pushl %ecx
    popfl
    cmpl %eax, %ecx
    je no_long_mode
    movl $0x80000000, %eax
    cpuid
    cmpl $0x80000001, %eax
    jb no_long_mode
    movl $0x80000001, %eax
    cpuid
    btl $CPUID_LM_BIT, %edx
    jnc no_long_mode

    /* PML4[0] -> PDPT, PDPT[0..3] -> four page directories of 2 MiB pages. */
    movl $bios_pdpt, %eax
    orl $PTE_PRESENT_RW, %eax
    movl %eax, bios_pml4
    xorl %ecx, %ecx
2:  movl %ecx, %eax
    shll $12, %eax
    addl $bios_pd, %eax
    orl $PTE_PRESENT_RW, %eax
    movl %eax, bios_pdpt(, %ecx, 8)
    incl %ecx
    cmpl $4, %ecx
    jb 2b
    xorl %ecx, %ecx
3:  movl %ecx, %eax
    shll $21, %eax
    orl $PDE_2M, %eax
    movl %eax, bios_pd(, %ecx, 8)
    incl %ecx
    cmpl $2048, %ecx
    jb 3b

    enter_long_mode 0, 0, 0
    ljmp $SEL_CODE64, $long_entry

/* The message, row by row into the VGA text buffer (white on red) and out
 * of COM1 (each byte after a bounded wait for THRE), then a halt. */
no_long_mode:
    movl $no_lm_msg, %esi
    movl $VGA_TEXT, %edi
6:  movzbl (%esi), %eax
    testl %eax, %eax
    jz 9f
    cmpl $0x20, %eax                    /* CR, LF: serial only */
    jb 10f
    orl $VGA_WHITE_ON_RED, %eax
    movw %ax, (%edi)
    addl $2, %edi
10: movl $100000, %ecx
    movw $COM1_LSR, %dx
7:  inb %dx, %al
    testb $LSR_THRE, %al
    jnz 8f
    loop 7b
8:  movb (%esi), %al
    movw $COM1_THR, %dx
    outb %al, %dx
    incl %esi
    jmp 6b
9:  cli
    hlt
    jmp 9b

    .code64
long_entry:
    load_data_segments
    movq $bios_stack_top, %rsp
    /* SSE for compiled C and the memory kernels (SDM vol. 3A, 13.1.3
     * "Initialization of the SSE extensions"); AVX state is turned on
     * around the kernels by mem_simd_enter(). */
    movq %cr0, %rax
    andq $~CR0_EM, %rax
    orq $CR0_MP, %rax
    movq %rax, %cr0
    movq %cr4, %rax
    orq $(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
    movq %rax, %cr4
    fninit
    movl bios_boot_params(%rip), %edi
    call bios_main
4:  cli
    hlt
    jmp 4b

/* CPU exceptions 0..31: each stub pushes a zero where the CPU pushes no
 * error code (SDM vol. 3A, 6.15 "Exception and interrupt reference"), then
 * its vector, and goes to bios_exception(vector, error, rip), which writes
 * the error record and stops. */
    .macro exc_stub vec
exc_stub_\vec:
    .if (\vec == 8) || (\vec >= 10 && \vec <= 14) || (\vec == 17) || (\vec == 21) || (\vec == 29) || (\vec == 30)
    .else
    pushq $0
    .endif
    pushq $\vec
    jmp exc_common
    .endm

    .text
    .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    exc_stub \v
    .endr

exc_common:
    movq 0(%rsp), %rdi
    movq 8(%rsp), %rsi
    movq 16(%rsp), %rdx
    andq $-16, %rsp
    call bios_exception
5:  cli
    hlt
    jmp 5b

    .section .rodata
    .balign 8
    .globl bios_exception_stubs
bios_exception_stubs:
    .irp v, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
    .quad exc_stub_\v
    .endr

no_lm_msg:
    .asciz "baremark: this CPU has no 64-bit long mode (CPUID 80000001h EDX bit 29), which baremark needs. Switch the machine off.\r\n"

    .balign 8
gdt64:
    .quad 0
    .quad 0x00cf9a000000ffff            /* 0x08: 32-bit code */
    .quad 0x00cf92000000ffff            /* 0x10: data */
    .quad 0x00af9a000000ffff            /* 0x18: 64-bit code (L=1) */
gdt64_end:
gdt64_ptr:
    .word gdt64_end - gdt64 - 1
    .quad gdt64

    .data
    .globl bios_boot_params
bios_boot_params:
    .long 0

    .bss
    .balign 4096
    .globl bios_pml4
bios_pml4:  .space 4096
    .globl bios_pdpt
bios_pdpt:  .space 4096
    .globl bios_pd
bios_pd:    .space 4 * 4096
    .balign 16
bios_stack: .space BIOS_STACK_BYTES
bios_stack_top:
