/* A BIOS interrupt from 64-bit long mode: drop to real mode, run INT n with
 * a register set, come back (bios_rm_call(), driven by realmode_bios.c).
 *
 * The way down and up follows iPXE's librm (arch/x86/transitions/librm.S:
 * long_to_prot / prot_to_real on the way down, real_to_prot / prot_to_long
 * on the way up: leave long mode by turning paging off in a 32-bit
 * compatibility segment, clear EFER.LME, go through a 16-bit protected-mode
 * segment with real-mode limits, clear CR0.PE, far jump to reload CS) and
 * GRUB's grub_bios_interrupt (grub-core/kern/i386/realmode.S: the real-mode
 * IDT "base 0, limit 0x3ff" loaded around the call, registers loaded from
 * and stored back into one block, interrupts on only for the INT itself).
 * The INT's vector is patched into the instruction, as Linux's intcall
 * (arch/x86/boot/bioscall.S) does.
 *
 * Real-mode code must run below 1 MiB: rm_blob..rm_blob_end is copied to
 * RM_BASE (0x9000) by bios_rm_init() and runs there; the 64-bit entry and
 * exit (bios_rm_call / rm_back) stay in the payload. Our low memory:
 *   0x5000-0x6fff  the real-mode stack (SS:SP = 0:0x7000), 8 KiB as GRUB
 *                  gives BIOS calls: vendor option ROMs chaining INT 13h
 *                  (RAID, USB, SCSI) run on it. Its lowest 256 bytes are a
 *                  canary realmode_bios.c checks after each call; below it
 *                  (0x500-0x4fff) is nothing of ours, so an overflow spoils
 *                  neither this code nor the saved state.
 *   0x7000-0x7fff  free (a gap above the stack)
 *   0x9000-0x97ff  this code and its GDT
 *   0x9800-0x983f  struct bios_rm_regs (the call's registers, in and out)
 *   0x9840-0x989f  the long-mode state saved across the call (above the
 *                  stack's top: a stack grows down, away from it)
 * The constants are mirrored in bios_private.h. */
#define RM_BASE 0x9000
#define RM_REGS 0x9800
#define RM_SAVE_RSP 0x9840
#define RM_SAVE_CR3 0x9848
#define RM_SAVE_CR0 0x9850
#define RM_SAVE_CR4 0x9858
#define RM_SAVE_EFER 0x9860
#define RM_SAVE_GDTR 0x9870
#define RM_SAVE_IDTR 0x9880
#define RM_SAVE_CS 0x9890
#define RM_SAVE_DS 0x9892
#define RM_STACK_TOP 0x7000

/* struct bios_rm_regs (bios_private.h) */
#define R_EAX 0
#define R_EBX 4
#define R_ECX 8
#define R_EDX 12
#define R_ESI 16
#define R_EDI 20
#define R_EBP 24
#define R_DS 28
#define R_ES 30
#define R_EFLAGS 32
#define R_VECTOR 36

#define CR0_PE (1 << 0)
#define CR0_PG (1 << 31)
#define MSR_EFER 0xc0000080
#define EFER_LME (1 << 8)

/* Selectors of the blob's own GDT. */
#define RM_CS64 0x08
#define RM_CS32 0x10
#define RM_DS32 0x18
#define RM_CS16 0x20
#define RM_DS16 0x28

#define RM(x) ((x) - rm_blob + RM_BASE)

/* DS, ES, FS, GS and SS from AX. */
    .macro load_data_segments
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    .endm

    .text
    .code64
/* int bios_rm_call(void): the INT in the register block at RM_REGS; the
 * caller (realmode_bios.c) has copied the blob and filled the block.
 * Interrupts stay off in long mode (our IDT has exception gates only) and
 * come back as they were. */
    .globl bios_rm_call
bios_rm_call:
    pushq %rbx
    pushq %rbp
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    pushfq
    cli
    movq %rsp, RM_SAVE_RSP
    sgdt RM_SAVE_GDTR
    sidt RM_SAVE_IDTR
    movq %cr3, %rax
    movq %rax, RM_SAVE_CR3
    movq %cr0, %rax
    movq %rax, RM_SAVE_CR0
    movq %cr4, %rax
    movq %rax, RM_SAVE_CR4
    movl $MSR_EFER, %ecx
    rdmsr
    movl %eax, RM_SAVE_EFER
    movl %edx, RM_SAVE_EFER + 4
    movw %cs, RM_SAVE_CS
    movw %ds, RM_SAVE_DS
    lgdt RM(rm_gdt_ptr)
    /* Into the 32-bit compatibility segment, in low memory. */
    pushq $RM_CS32
    pushq $RM(rm_compat32)
    lretq

/* Back from the blob in 64-bit mode with our GDT, IDT and stack. */
rm_back:
    popfq
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbp
    popq %rbx
    xorl %eax, %eax
    ret

    .section .rodata.rm_blob, "a"
    .globl rm_blob, rm_blob_end
    .balign 16
rm_blob:
    .code32
rm_compat32:
    movw $RM_DS32, %ax
    load_data_segments
    /* Paging off leaves long mode (SDM vol. 3A, 9.8.5.4 "Initializing
     * IA-32e mode": CR0.PG first, then EFER.LME); identity-mapped code. */
    movl %cr0, %eax
    andl $~CR0_PG, %eax
    movl %eax, %cr0
    movl $MSR_EFER, %ecx
    rdmsr
    andl $~EFER_LME, %eax
    wrmsr
    ljmp $RM_CS16, $RM(rm_pm16)

    .code16
rm_pm16:
    /* 16-bit segments with 64 KiB limits, so real mode starts with them. */
    movw $RM_DS16, %ax
    load_data_segments
    movl %cr0, %eax
    andl $~CR0_PE, %eax
    movl %eax, %cr0
    ljmp $0, $RM(rm_real)
rm_real:
    xorw %ax, %ax
    movw %ax, %ds
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    movw $RM_STACK_TOP, %sp
    lidt RM(rm_ivt_ptr)
    movb RM_REGS + R_VECTOR, %al
    movb %al, RM(rm_int_insn) + 1
    jmp 1f                              /* the patched INT is fetched anew */
1:  movw RM_REGS + R_ES, %ax
    movw %ax, %es
    pushw RM_REGS + R_DS
    movl RM_REGS + R_EAX, %eax
    movl RM_REGS + R_EBX, %ebx
    movl RM_REGS + R_ECX, %ecx
    movl RM_REGS + R_EDX, %edx
    movl RM_REGS + R_ESI, %esi
    movl RM_REGS + R_EDI, %edi
    movl RM_REGS + R_EBP, %ebp
    popw %ds
    /* The BIOS's disk code waits on timer ticks: interrupts on, with the
     * PIC as the BIOS left it (we never reprogram it). */
    sti
rm_int_insn:
    int $0x13
    cli
    pushfl
    pushw %ds
    pushl %eax
    xorw %ax, %ax
    movw %ax, %ds
    popl RM_REGS + R_EAX
    popw RM_REGS + R_DS
    popl RM_REGS + R_EFLAGS
    movl %ebx, RM_REGS + R_EBX
    movl %ecx, RM_REGS + R_ECX
    movl %edx, RM_REGS + R_EDX
    movl %esi, RM_REGS + R_ESI
    movl %edi, RM_REGS + R_EDI
    movl %ebp, RM_REGS + R_EBP
    movw %es, %ax
    movw %ax, RM_REGS + R_ES
    /* Up again: our GDT (a BIOS may have loaded its own), CR0.PE. */
    lgdtl RM(rm_gdt_ptr)
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $RM_CS32, $RM(rm_pm32)

    .code32
rm_pm32:
    movw $RM_DS32, %ax
    load_data_segments
    /* Long mode again as head_bios.S entered it: CR4 (PAE), CR3, EFER
     * (LME, NXE), then CR0 (PG) as they were. CR3 is below 4 GiB (.bss). */
    movl RM_SAVE_CR4, %eax
    movl %eax, %cr4
    movl RM_SAVE_CR3, %eax
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    movl RM_SAVE_EFER, %eax
    movl RM_SAVE_EFER + 4, %edx
    wrmsr
    movl RM_SAVE_CR0, %eax
    movl %eax, %cr0
    ljmp $RM_CS64, $RM(rm_lm64)

    .code64
rm_lm64:
    lgdt RM_SAVE_GDTR
    lidt RM_SAVE_IDTR
    movw RM_SAVE_DS, %ax
    load_data_segments
    movq RM_SAVE_RSP, %rsp
    movzwq RM_SAVE_CS, %rax
    pushq %rax
    movabsq $rm_back, %rax
    pushq %rax
    lretq

    .balign 8
rm_gdt:
    .quad 0
    .quad 0x00af9a000000ffff            /* 0x08: 64-bit code */
    .quad 0x00cf9a000000ffff            /* 0x10: 32-bit code, flat */
    .quad 0x00cf92000000ffff            /* 0x18: 32-bit data, flat */
    .quad 0x00009b000000ffff            /* 0x20: 16-bit code, base 0, 64 KiB */
    .quad 0x000093000000ffff            /* 0x28: 16-bit data, base 0, 64 KiB */
rm_gdt_end:
    .balign 4
    .word 0
rm_gdt_ptr:
    .word rm_gdt_end - rm_gdt - 1
    .long RM(rm_gdt)
    .long 0                             /* lgdt in 64-bit mode reads 8 bytes of base */
    .balign 4
    .word 0
rm_ivt_ptr:
    .word 0x3ff                         /* the real-mode IVT: base 0, 256 vectors */
    .long 0
rm_blob_end:
