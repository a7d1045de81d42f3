/* The application processors' way from the start-up IPI to C: a real-mode
 * trampoline copied to physical 0x8000 (SIPI vector 0x08; 0x8000-0x8FFF is
 * ours, see bios_private.h), then the same GDT, page tables, CR0/CR4 and
 * EFER as the boot processor (head_bios.S), then bios_ap_main() on the
 * stack the boot processor left in ap_boot_stack. The steps are those of
 * Linux trampoline_start/startup_32/startup_64
 * (arch/x86/realmode/rm/trampoline_64.S): real mode -> lgdt + CR0.PE ->
 * 32-bit flat -> CR4.PAE, CR3, EFER.LME, CR0.PG -> 64-bit code. */

#include "long_mode.h"

#define MSR_X2APIC_EOI 0x80b
#define AP_TRAMPOLINE_PHYS 0x8000
#define TR(x) (AP_TRAMPOLINE_PHYS + (x) - ap_trampoline)

    .section .rodata.ap_trampoline, "a"
    .code16
    .globl ap_trampoline, ap_trampoline_end
ap_trampoline:
    cli
    wbinvd                              /* as Linux: no stale lines from before INIT */
    movw %cs, %ax                       /* CS = 0x0800, IP = 0 */
    movw %ax, %ds
    lgdtl ap_gdt_ptr - ap_trampoline
    movl %cr0, %eax
    orl $CR0_PE, %eax
    movl %eax, %cr0
    ljmpl $SEL_CODE32, $TR(ap_pm32)

    .code32
ap_pm32:
    movw $SEL_DATA, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %ss
    /* SSE on here already: the BSP turns it on in 64-bit mode (head_bios.S). */
    enter_long_mode (CR4_OSFXSR | CR4_OSXMMEXCPT), CR0_EM, CR0_MP
    ljmpl $SEL_CODE64, $ap_long_entry

    .balign 8
    .globl ap_gdt_ptr
ap_gdt_ptr:                             /* filled by the BSP: limit, base of head_bios.S's GDT */
    .word 0
    .long 0
ap_trampoline_end:

    .text
    .code64
ap_long_entry:
    load_data_segments
    movq ap_boot_stack(%rip), %rsp
    movl ap_boot_index(%rip), %edi
    fninit
    call bios_ap_main
1:  cli
    hlt
    jmp 1b

/* The wake-up IPI (an AP halts with interrupts on while it has no job):
 * acknowledge it at the local APIC and return to the loop after the HLT. */
    .globl ap_wake_isr, ap_spurious_isr
ap_wake_isr:
    pushq %rax
    pushq %rcx
    pushq %rdx
    cmpb $0, bios_x2apic(%rip)
    jne 2f
    movq bios_lapic_eoi(%rip), %rax
    movl $0, (%rax)
    jmp 3f
2:  movl $MSR_X2APIC_EOI, %ecx
    xorl %eax, %eax
    xorl %edx, %edx
    wrmsr
3:  popq %rdx
    popq %rcx
    popq %rax
/* A spurious interrupt takes no EOI (SDM vol. 3A, 10.9). */
ap_spurious_isr:
    iretq

    .data
    .balign 8
    .globl ap_boot_stack, ap_boot_index
ap_boot_stack:  .quad 0
ap_boot_index:  .long 0
