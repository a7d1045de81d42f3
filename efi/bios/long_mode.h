/* The way into 64-bit mode, shared by the boot processor (head_bios.S) and
 * the application processors (ap_bios.S): the control-register bits, the
 * GDT selectors of head_bios.S's gdt64, and the sequence of Intel SDM vol.
 * 3A, 9.8.5 "Initializing IA-32e mode". For .S files only. */
#ifndef BAREMARK_BIOS_LONG_MODE_H
#define BAREMARK_BIOS_LONG_MODE_H

#define CR0_PE (1 << 0)
#define CR0_MP (1 << 1)
#define CR0_EM (1 << 2)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define CR4_OSFXSR (1 << 9)
#define CR4_OSXMMEXCPT (1 << 10)
#define MSR_EFER 0xc0000080
#define EFER_LME (1 << 8)
#define SEL_CODE32 0x08
#define SEL_DATA 0x10
#define SEL_CODE64 0x18

/* In 32-bit protected mode with paging off: CR4.PAE (and cr4_bits), CR3 =
 * bios_pml4, EFER.LME, then CR0.PG with cr0_set (cr0_clear cleared). The
 * caller's far jump to SEL_CODE64 then enters 64-bit code. Clobbers EAX,
 * ECX, EDX. */
.macro enter_long_mode cr4_bits, cr0_clear, cr0_set
    movl %cr4, %eax
    orl $(CR4_PAE | \cr4_bits), %eax
    movl %eax, %cr4
    movl $bios_pml4, %eax
    movl %eax, %cr3
    movl $MSR_EFER, %ecx
    rdmsr
    orl $EFER_LME, %eax
    wrmsr
    movl %cr0, %eax
    andl $~(\cr0_clear), %eax
    orl $(CR0_PG | CR0_PE | \cr0_set), %eax
    movl %eax, %cr0
.endm

/* DS, ES, SS, FS, GS = the flat data selector. Clobbers AX. */
.macro load_data_segments
    movw $SEL_DATA, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    movw %ax, %fs
    movw %ax, %gs
.endm

#endif
