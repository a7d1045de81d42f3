/* Memory benchmark kernels, hand-written so that the firmware build
 * (-march=x86-64) and the host build (-march=native) run the very same
 * instructions, and so that the timed chase loop holds nothing but the
 * dependent loads.
 *
 * SysV ABI in both builds (baremark's own functions are SysV; only
 * firmware calls use the MS ABI). Every kernel clobbers only caller-saved
 * registers and ends wide-vector code with vzeroupper, so firmware code
 * (legacy SSE) that runs afterwards pays no AVX/SSE transition penalty.
 *
 * To check the timed loop:
 *   objdump -d --no-show-raw-insn build/host/obj/efi/mem/mem_kernels.S.o \
 *     | sed -n '/<mem_chase>:/,/ret/p'
 * shows 32 "mov (%rax),%rax" and the loop's "dec %rsi; jne" only.
 */

#if defined(__x86_64__)
    .text

/* void *mem_chase(void *p, uint64_t rounds)
 * Follows 32 * rounds pointers starting at p; returns where it stopped.
 * Each load's address is the previous load's value, so no two loads
 * overlap: the time per load is the load-to-use latency. */
    .globl mem_chase
    .type mem_chase, @function
    .p2align 6
mem_chase:
    mov %rdi, %rax
    test %rsi, %rsi
    jz 2f
    .p2align 5
1:
    .rept 32
    mov (%rax), %rax
    .endr
    dec %rsi
    jnz 1b
2:
    ret
    .size mem_chase, .-mem_chase

/* void *mem_chase_empty(void *p, uint64_t rounds)
 * The same loop without the loads: its time (call, loop control, the
 * clock reads around it) is subtracted from mem_chase's. */
    .globl mem_chase_empty
    .type mem_chase_empty, @function
    .p2align 6
mem_chase_empty:
    mov %rdi, %rax
    test %rsi, %rsi
    jz 2f
    .p2align 5
1:
    dec %rsi
    jnz 1b
2:
    ret
    .size mem_chase_empty, .-mem_chase_empty

/* Bandwidth kernels: (buf, bytes) or (dst, src, bytes). Buffers are 64-byte
 * aligned and bytes is a multiple of 512 (the callers use whole pages).
 * Reads load into registers only: a load is not elided by the CPU, and no
 * arithmetic competes with it. Writes and the copy's stores are
 * non-temporal (movntdq): they go to memory without reading the line
 * first (no read-for-ownership), which is what a streaming store costs. */

/* ---- SSE2 (every x86-64 CPU): 16-byte registers ---- */

    .globl mem_read_sse2
    .type mem_read_sse2, @function
    .p2align 6
mem_read_sse2:
    lea (%rdi, %rsi), %rsi
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    movdqa 0(%rdi), %xmm0
    movdqa 16(%rdi), %xmm1
    movdqa 32(%rdi), %xmm2
    movdqa 48(%rdi), %xmm3
    movdqa 64(%rdi), %xmm4
    movdqa 80(%rdi), %xmm5
    movdqa 96(%rdi), %xmm6
    movdqa 112(%rdi), %xmm7
    movdqa 128(%rdi), %xmm0
    movdqa 144(%rdi), %xmm1
    movdqa 160(%rdi), %xmm2
    movdqa 176(%rdi), %xmm3
    movdqa 192(%rdi), %xmm4
    movdqa 208(%rdi), %xmm5
    movdqa 224(%rdi), %xmm6
    movdqa 240(%rdi), %xmm7
    add $256, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    ret
    .size mem_read_sse2, .-mem_read_sse2

    .globl mem_write_sse2
    .type mem_write_sse2, @function
    .p2align 6
mem_write_sse2:
    lea (%rdi, %rsi), %rsi
    pxor %xmm0, %xmm0
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    movntdq %xmm0, 0(%rdi)
    movntdq %xmm0, 16(%rdi)
    movntdq %xmm0, 32(%rdi)
    movntdq %xmm0, 48(%rdi)
    movntdq %xmm0, 64(%rdi)
    movntdq %xmm0, 80(%rdi)
    movntdq %xmm0, 96(%rdi)
    movntdq %xmm0, 112(%rdi)
    movntdq %xmm0, 128(%rdi)
    movntdq %xmm0, 144(%rdi)
    movntdq %xmm0, 160(%rdi)
    movntdq %xmm0, 176(%rdi)
    movntdq %xmm0, 192(%rdi)
    movntdq %xmm0, 208(%rdi)
    movntdq %xmm0, 224(%rdi)
    movntdq %xmm0, 240(%rdi)
    add $256, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    sfence
    ret
    .size mem_write_sse2, .-mem_write_sse2

/* void mem_copy_sse2(void *dst, const void *src, size_t bytes) */
    .globl mem_copy_sse2
    .type mem_copy_sse2, @function
    .p2align 6
mem_copy_sse2:
    lea (%rsi, %rdx), %rdx
    cmp %rdx, %rsi
    jae 2f
    .p2align 5
1:
    movdqa 0(%rsi), %xmm0
    movdqa 16(%rsi), %xmm1
    movdqa 32(%rsi), %xmm2
    movdqa 48(%rsi), %xmm3
    movdqa 64(%rsi), %xmm4
    movdqa 80(%rsi), %xmm5
    movdqa 96(%rsi), %xmm6
    movdqa 112(%rsi), %xmm7
    movntdq %xmm0, 0(%rdi)
    movntdq %xmm1, 16(%rdi)
    movntdq %xmm2, 32(%rdi)
    movntdq %xmm3, 48(%rdi)
    movntdq %xmm4, 64(%rdi)
    movntdq %xmm5, 80(%rdi)
    movntdq %xmm6, 96(%rdi)
    movntdq %xmm7, 112(%rdi)
    add $128, %rsi
    add $128, %rdi
    cmp %rdx, %rsi
    jb 1b
2:
    sfence
    ret
    .size mem_copy_sse2, .-mem_copy_sse2

/* ---- AVX: 32-byte registers (vmovdqa/vmovntdq ymm are AVX, not AVX2) ---- */

    .globl mem_read_avx
    .type mem_read_avx, @function
    .p2align 6
mem_read_avx:
    lea (%rdi, %rsi), %rsi
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    vmovdqa 0(%rdi), %ymm0
    vmovdqa 32(%rdi), %ymm1
    vmovdqa 64(%rdi), %ymm2
    vmovdqa 96(%rdi), %ymm3
    vmovdqa 128(%rdi), %ymm4
    vmovdqa 160(%rdi), %ymm5
    vmovdqa 192(%rdi), %ymm6
    vmovdqa 224(%rdi), %ymm7
    add $256, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    vzeroupper
    ret
    .size mem_read_avx, .-mem_read_avx

    .globl mem_write_avx
    .type mem_write_avx, @function
    .p2align 6
mem_write_avx:
    lea (%rdi, %rsi), %rsi
    vpxor %xmm0, %xmm0, %xmm0
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    vmovntdq %ymm0, 0(%rdi)
    vmovntdq %ymm0, 32(%rdi)
    vmovntdq %ymm0, 64(%rdi)
    vmovntdq %ymm0, 96(%rdi)
    vmovntdq %ymm0, 128(%rdi)
    vmovntdq %ymm0, 160(%rdi)
    vmovntdq %ymm0, 192(%rdi)
    vmovntdq %ymm0, 224(%rdi)
    add $256, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    sfence
    vzeroupper
    ret
    .size mem_write_avx, .-mem_write_avx

    .globl mem_copy_avx
    .type mem_copy_avx, @function
    .p2align 6
mem_copy_avx:
    lea (%rsi, %rdx), %rdx
    cmp %rdx, %rsi
    jae 2f
    .p2align 5
1:
    vmovdqa 0(%rsi), %ymm0
    vmovdqa 32(%rsi), %ymm1
    vmovdqa 64(%rsi), %ymm2
    vmovdqa 96(%rsi), %ymm3
    vmovdqa 128(%rsi), %ymm4
    vmovdqa 160(%rsi), %ymm5
    vmovdqa 192(%rsi), %ymm6
    vmovdqa 224(%rsi), %ymm7
    vmovntdq %ymm0, 0(%rdi)
    vmovntdq %ymm1, 32(%rdi)
    vmovntdq %ymm2, 64(%rdi)
    vmovntdq %ymm3, 96(%rdi)
    vmovntdq %ymm4, 128(%rdi)
    vmovntdq %ymm5, 160(%rdi)
    vmovntdq %ymm6, 192(%rdi)
    vmovntdq %ymm7, 224(%rdi)
    add $256, %rsi
    add $256, %rdi
    cmp %rdx, %rsi
    jb 1b
2:
    sfence
    vzeroupper
    ret
    .size mem_copy_avx, .-mem_copy_avx

/* ---- AVX-512 (AVX512F): 64-byte registers, one per cache line ---- */

    .globl mem_read_avx512
    .type mem_read_avx512, @function
    .p2align 6
mem_read_avx512:
    lea (%rdi, %rsi), %rsi
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    vmovdqa64 0(%rdi), %zmm0
    vmovdqa64 64(%rdi), %zmm1
    vmovdqa64 128(%rdi), %zmm2
    vmovdqa64 192(%rdi), %zmm3
    vmovdqa64 256(%rdi), %zmm4
    vmovdqa64 320(%rdi), %zmm5
    vmovdqa64 384(%rdi), %zmm6
    vmovdqa64 448(%rdi), %zmm7
    add $512, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    vzeroupper
    ret
    .size mem_read_avx512, .-mem_read_avx512

    .globl mem_write_avx512
    .type mem_write_avx512, @function
    .p2align 6
mem_write_avx512:
    lea (%rdi, %rsi), %rsi
    vpxord %zmm0, %zmm0, %zmm0
    cmp %rsi, %rdi
    jae 2f
    .p2align 5
1:
    vmovntdq %zmm0, 0(%rdi)
    vmovntdq %zmm0, 64(%rdi)
    vmovntdq %zmm0, 128(%rdi)
    vmovntdq %zmm0, 192(%rdi)
    vmovntdq %zmm0, 256(%rdi)
    vmovntdq %zmm0, 320(%rdi)
    vmovntdq %zmm0, 384(%rdi)
    vmovntdq %zmm0, 448(%rdi)
    add $512, %rdi
    cmp %rsi, %rdi
    jb 1b
2:
    sfence
    vzeroupper
    ret
    .size mem_write_avx512, .-mem_write_avx512

/* Each line's load is followed by its non-temporal store (rather than a
 * batch of loads, then a batch of stores): on a Zen 5 host that copied about
 * 10% faster, the store stream starting as soon as the first line arrives. */
    .globl mem_copy_avx512
    .type mem_copy_avx512, @function
    .p2align 6
mem_copy_avx512:
    lea (%rsi, %rdx), %rdx
    cmp %rdx, %rsi
    jae 2f
    .p2align 5
1:
    vmovdqa64 0(%rsi), %zmm0
    vmovntdq %zmm0, 0(%rdi)
    vmovdqa64 64(%rsi), %zmm1
    vmovntdq %zmm1, 64(%rdi)
    vmovdqa64 128(%rsi), %zmm2
    vmovntdq %zmm2, 128(%rdi)
    vmovdqa64 192(%rsi), %zmm3
    vmovntdq %zmm3, 192(%rdi)
    vmovdqa64 256(%rsi), %zmm4
    vmovntdq %zmm4, 256(%rdi)
    vmovdqa64 320(%rsi), %zmm5
    vmovntdq %zmm5, 320(%rdi)
    vmovdqa64 384(%rsi), %zmm6
    vmovntdq %zmm6, 384(%rdi)
    vmovdqa64 448(%rsi), %zmm7
    vmovntdq %zmm7, 448(%rdi)
    add $512, %rsi
    add $512, %rdi
    cmp %rdx, %rsi
    jb 1b
2:
    sfence
    vzeroupper
    ret
    .size mem_copy_avx512, .-mem_copy_avx512

#endif /* __x86_64__; AArch64: mem_kernels_aa64.S */

    .section .note.GNU-stack, "", @progbits
