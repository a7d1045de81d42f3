/* Where a core started through PSCI CPU_ON begins (cpus_psci_aa64.c): at
 * the caller's exception level, MMU and caches off, x0 = the context id we
 * passed (the address of a struct psci_boot, identity-mapped). As EDK2
 * ArmPsciMpServicesDxe's secondary entry and Linux secondary_startup do,
 * it takes the boot CPU's translation regime (MAIR, TCR, TTBR0: the UEFI
 * identity map), vectors and FP/SIMD enable, switches the MMU and caches
 * on with the boot CPU's SCTLR, then runs C on its own stack.
 *
 * struct psci_boot: 0 mair, 8 tcr, 16 ttbr0, 24 vbar, 32 cpacr (EL1) or
 * cptr (EL2), 40 sctlr, 48 stack top, 56 C function, 64 its argument. */
#if defined(__aarch64__)
    .text
    .globl psci_secondary_entry
    .type psci_secondary_entry, %function
    .p2align 3
psci_secondary_entry:
    mrs x1, CurrentEL
    cmp x1, #(2 << 2)
    b.eq 2f
    ldr x2, [x0, #0]
    msr mair_el1, x2
    ldr x2, [x0, #8]
    msr tcr_el1, x2
    ldr x2, [x0, #16]
    msr ttbr0_el1, x2
    ldr x2, [x0, #24]
    msr vbar_el1, x2
    ldr x2, [x0, #32]
    msr cpacr_el1, x2
    isb
    tlbi vmalle1
    dsb nsh
    isb
    ldr x2, [x0, #40]
    msr sctlr_el1, x2
    isb
    b 3f
2:
    ldr x2, [x0, #0]
    msr mair_el2, x2
    ldr x2, [x0, #8]
    msr tcr_el2, x2
    ldr x2, [x0, #16]
    msr ttbr0_el2, x2
    ldr x2, [x0, #24]
    msr vbar_el2, x2
    ldr x2, [x0, #32]
    msr cptr_el2, x2
    isb
    tlbi alle2
    dsb nsh
    isb
    ldr x2, [x0, #40]
    msr sctlr_el2, x2
    isb
3:
    ldr x1, [x0, #48]
    mov sp, x1
    ldr x1, [x0, #56]
    ldr x0, [x0, #64]
    blr x1
4:
    wfe
    b 4b
    .size psci_secondary_entry, .-psci_secondary_entry
#endif
    .section .note.GNU-stack, "", %progbits
