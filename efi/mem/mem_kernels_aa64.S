/* Memory benchmark kernels for AArch64: the same functions, arguments and
 * meaning as the x86-64 ones in mem_kernels.S (mem_kernels.h declares
 * both sets), so the engine, the three chase patterns, loaded latency and
 * the NUMA matrix run unchanged on an Arm server.
 *
 * AAPCS64 (the UEFI AArch64 binding uses it too): arguments in x0-x2,
 * result in x0. The kernels touch only caller-saved registers: x0-x17 and
 * v0-v7, v16-v31 (never x18, the platform register, nor v8-v15, whose low
 * halves the callee saves).
 *
 * UEFI allows FP/Advanced SIMD instructions under AAPCS64 (UEFI 2.10,
 * 2.3.6.4 "Detailed Calling Convention"; Linux preserves v8-v15 around
 * runtime services for that reason), so the firmware has them enabled. A
 * build with -mgeneral-regs-only still lets the assembler take them.
 *
 * Bandwidth kernels: (buf, bytes) or (dst, src, bytes). Unlike the x86
 * ones they take any alignment and any size: they move
 * bytes rounded down to whole 64-byte lines and never touch a byte at or
 * past buf + bytes (the callers pass whole pages, aligned, as on x86).
 *
 * To check the timed loop:
 *   aarch64-linux-gnu-objdump -d build/aa64/obj/mem_kernels_aa64.o | sed -n '/<mem_chase>:/,/ret/p'
 * shows 32 "ldr x0, [x0]" and the loop's "subs; b.ne" only.
 */
#if defined(__aarch64__)

    .arch armv8-a+simd
    .text

/* void *mem_chase(void *p, uint64_t rounds)
 * Follows 32 * rounds pointers starting at p; returns where it stopped.
 * Each load's address is the previous load's value, so no two loads
 * overlap: the time per load is the load-to-use latency. A plain LDR, not
 * LDNP: the Arm ARM lets a non-temporal load be observed before the load
 * that produced its address, the one ordering a chase relies on. */
    .globl mem_chase
    .type mem_chase, %function
    .p2align 6
mem_chase:
    cbz x1, 2f
    .p2align 6
1:
    .rept 32
    ldr x0, [x0]
    .endr
    subs x1, x1, #1
    b.ne 1b
2:
    ret
    .size mem_chase, .-mem_chase

/* void *mem_chase_empty(void *p, uint64_t rounds)
 * The same loop without the loads: its time (call, loop control, the
 * clock reads around it) is subtracted from mem_chase's. */
    .globl mem_chase_empty
    .type mem_chase_empty, %function
    .p2align 6
mem_chase_empty:
    cbz x1, 2f
    .p2align 6
1:
    subs x1, x1, #1
    b.ne 1b
2:
    ret
    .size mem_chase_empty, .-mem_chase_empty

/* Every bandwidth kernel starts the same way: x3 = end of the whole
 * 64-byte lines, x4 = end of the whole 256-byte blocks. The main loop moves
 * 256 bytes per turn (four lines: enough independent accesses in flight
 * per turn that loop control is noise), the tail loop one line per turn. */
    .macro ends base, len
    and x3, \len, #~63
    add x3, \base, x3
    and x4, \len, #~255
    add x4, \base, x4
    .endm

/* ---- Advanced SIMD ("neon"): 128-bit Q registers ---- */

/* void mem_read_neon(const void *buf, size_t bytes)
 * LD1 {4 registers} reads a whole 64-byte line per instruction into
 * registers only (no arithmetic competes with the loads; a load is never
 * elided). Post-indexed addressing keeps the loop to loads and a compare. */
    .globl mem_read_neon
    .type mem_read_neon, %function
    .p2align 6
mem_read_neon:
    ends x0, x1
    cmp x0, x4
    b.hs 3f
    .p2align 5
1:
    ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x0], #64
    ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x0], #64
    ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x0], #64
    ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x0], #64
    cmp x0, x4
    b.lo 1b
3:
    cmp x0, x3
    b.hs 2f
4:
    ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x0], #64
    cmp x0, x3
    b.lo 4b
2:
    ret
    .size mem_read_neon, .-mem_read_neon

/* void mem_write_neon(void *buf, size_t bytes)
 * Zeroes with STNP of Q register pairs (32 bytes per instruction): the
 * non-temporal hint lets the core write whole lines without allocating
 * them in its caches, the counterpart of x86's movntdq. On cores with a
 * write-streaming mode (Neoverse N1 and later) full-line STP stores end up
 * no-allocate too; on the Cortex-A57/A72 generation only STNP does.
 * DMB ISHST at the end orders the stores before whatever the caller stores
 * next (a barrier flag), as sfence does on x86. */
    .globl mem_write_neon
    .type mem_write_neon, %function
    .p2align 6
mem_write_neon:
    ends x0, x1
    movi v0.16b, #0
    cmp x0, x4
    b.hs 3f
    .p2align 5
1:
    stnp q0, q0, [x0]
    stnp q0, q0, [x0, #32]
    stnp q0, q0, [x0, #64]
    stnp q0, q0, [x0, #96]
    stnp q0, q0, [x0, #128]
    stnp q0, q0, [x0, #160]
    stnp q0, q0, [x0, #192]
    stnp q0, q0, [x0, #224]
    add x0, x0, #256
    cmp x0, x4
    b.lo 1b
3:
    cmp x0, x3
    b.hs 2f
4:
    stnp q0, q0, [x0]
    stnp q0, q0, [x0, #32]
    add x0, x0, #64
    cmp x0, x3
    b.lo 4b
2:
    dmb ishst
    ret
    .size mem_write_neon, .-mem_write_neon

/* void mem_copy_neon(void *dst, const void *src, size_t bytes)
 * Loads a line with LD1 {4 registers}, stores it with two STNPs; each
 * line's stores follow its load (the store stream starts as soon as the
 * first line arrives, as in mem_copy_avx512). */
    .globl mem_copy_neon
    .type mem_copy_neon, %function
    .p2align 6
mem_copy_neon:
    ends x1, x2
    cmp x1, x4
    b.hs 3f
    .p2align 5
1:
    ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x1], #64
    stnp q0, q1, [x0]
    stnp q2, q3, [x0, #32]
    ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [x1], #64
    stnp q4, q5, [x0, #64]
    stnp q6, q7, [x0, #96]
    ld1 {v16.16b, v17.16b, v18.16b, v19.16b}, [x1], #64
    stnp q16, q17, [x0, #128]
    stnp q18, q19, [x0, #160]
    ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [x1], #64
    stnp q20, q21, [x0, #192]
    stnp q22, q23, [x0, #224]
    add x0, x0, #256
    cmp x1, x4
    b.lo 1b
3:
    cmp x1, x3
    b.hs 2f
4:
    ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [x1], #64
    stnp q0, q1, [x0]
    stnp q2, q3, [x0, #32]
    add x0, x0, #64
    cmp x1, x3
    b.lo 4b
2:
    dmb ishst
    ret
    .size mem_copy_neon, .-mem_copy_neon

/* ---- General registers ("ldp"): LDP/STNP of 64-bit register pairs ----
 * What needs no FP/SIMD unit at all, and how Linux copies a page
 * (arch/arm64/lib/copy_page.S: ldp pairs, stnp pairs). 16 bytes per
 * instruction: the same bytes per access as a Q register. */

/* void mem_read_ldp(const void *buf, size_t bytes) */
    .globl mem_read_ldp
    .type mem_read_ldp, %function
    .p2align 6
mem_read_ldp:
    ends x0, x1
    cmp x0, x4
    b.hs 3f
    .p2align 5
1:
    ldp x5, x6, [x0]
    ldp x7, x8, [x0, #16]
    ldp x9, x10, [x0, #32]
    ldp x11, x12, [x0, #48]
    ldp x13, x14, [x0, #64]
    ldp x15, x16, [x0, #80]
    ldp x5, x6, [x0, #96]
    ldp x7, x8, [x0, #112]
    ldp x9, x10, [x0, #128]
    ldp x11, x12, [x0, #144]
    ldp x13, x14, [x0, #160]
    ldp x15, x16, [x0, #176]
    ldp x5, x6, [x0, #192]
    ldp x7, x8, [x0, #208]
    ldp x9, x10, [x0, #224]
    ldp x11, x12, [x0, #240]
    add x0, x0, #256
    cmp x0, x4
    b.lo 1b
3:
    cmp x0, x3
    b.hs 2f
4:
    ldp x5, x6, [x0]
    ldp x7, x8, [x0, #16]
    ldp x9, x10, [x0, #32]
    ldp x11, x12, [x0, #48]
    add x0, x0, #64
    cmp x0, x3
    b.lo 4b
2:
    ret
    .size mem_read_ldp, .-mem_read_ldp

/* void mem_write_ldp(void *buf, size_t bytes): STNP of xzr pairs. */
    .globl mem_write_ldp
    .type mem_write_ldp, %function
    .p2align 6
mem_write_ldp:
    ends x0, x1
    cmp x0, x4
    b.hs 3f
    .p2align 5
1:
    .irp off, 0, 16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240
    stnp xzr, xzr, [x0, #\off]
    .endr
    add x0, x0, #256
    cmp x0, x4
    b.lo 1b
3:
    cmp x0, x3
    b.hs 2f
4:
    stnp xzr, xzr, [x0]
    stnp xzr, xzr, [x0, #16]
    stnp xzr, xzr, [x0, #32]
    stnp xzr, xzr, [x0, #48]
    add x0, x0, #64
    cmp x0, x3
    b.lo 4b
2:
    dmb ishst
    ret
    .size mem_write_ldp, .-mem_write_ldp

/* void mem_copy_ldp(void *dst, const void *src, size_t bytes)
 * LDP then STNP, line by line, as Linux's copy_page. */
    .globl mem_copy_ldp
    .type mem_copy_ldp, %function
    .p2align 6
mem_copy_ldp:
    ends x1, x2
    cmp x1, x4
    b.hs 3f
    .p2align 5
1:
    .irp off, 0, 64, 128, 192
    ldp x5, x6, [x1, #\off]
    ldp x7, x8, [x1, #\off + 16]
    ldp x9, x10, [x1, #\off + 32]
    ldp x11, x12, [x1, #\off + 48]
    stnp x5, x6, [x0, #\off]
    stnp x7, x8, [x0, #\off + 16]
    stnp x9, x10, [x0, #\off + 32]
    stnp x11, x12, [x0, #\off + 48]
    .endr
    add x1, x1, #256
    add x0, x0, #256
    cmp x1, x4
    b.lo 1b
3:
    cmp x1, x3
    b.hs 2f
4:
    ldp x5, x6, [x1]
    ldp x7, x8, [x1, #16]
    ldp x9, x10, [x1, #32]
    ldp x11, x12, [x1, #48]
    stnp x5, x6, [x0]
    stnp x7, x8, [x0, #16]
    stnp x9, x10, [x0, #32]
    stnp x11, x12, [x0, #48]
    add x1, x1, #64
    add x0, x0, #64
    cmp x1, x3
    b.lo 4b
2:
    dmb ishst
    ret
    .size mem_copy_ldp, .-mem_copy_ldp

#endif /* __aarch64__ */

    .section .note.GNU-stack, "", %progbits
