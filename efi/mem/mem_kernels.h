/* The hand-written kernels of mem_kernels.S (x86-64) and
 * mem_kernels_aa64.S (AArch64), and the table that picks the widest set the
 * CPU can run. */
#ifndef BAREMARK_MEM_KERNELS_H
#define BAREMARK_MEM_KERNELS_H

#include "mem_cpu.h"

/* Follow 32 * rounds pointers from p; returns the last one reached. */
void *mem_chase(void *p, uint64_t rounds);
/* The same loop without loads, to measure what is not a load. */
void *mem_chase_empty(void *p, uint64_t rounds);

#if defined(__aarch64__)
/* Bandwidth kernels: any alignment; they move bytes rounded down to whole
 * 64-byte lines and never touch a byte past the end. */
void mem_read_neon(const void *buf, size_t bytes);
void mem_write_neon(void *buf, size_t bytes);
void mem_copy_neon(void *dst, const void *src, size_t bytes);
void mem_read_ldp(const void *buf, size_t bytes);
void mem_write_ldp(void *buf, size_t bytes);
void mem_copy_ldp(void *dst, const void *src, size_t bytes);
#else
/* Bandwidth kernels: 64-byte aligned buffers, bytes a multiple of 512. */
void mem_read_sse2(const void *buf, size_t bytes);
void mem_write_sse2(void *buf, size_t bytes);
void mem_copy_sse2(void *dst, const void *src, size_t bytes);
void mem_read_avx(const void *buf, size_t bytes);
void mem_write_avx(void *buf, size_t bytes);
void mem_copy_avx(void *dst, const void *src, size_t bytes);
void mem_read_avx512(const void *buf, size_t bytes);
void mem_write_avx512(void *buf, size_t bytes);
void mem_copy_avx512(void *dst, const void *src, size_t bytes);
#endif

struct mem_kernels {
    enum mem_isa isa;
    void (*read)(const void *buf, size_t bytes);
    void (*write)(void *buf, size_t bytes);   /* non-temporal stores */
    void (*copy)(void *dst, const void *src, size_t bytes); /* loads + non-temporal stores */
};

static inline const struct mem_kernels *mem_kernels_for(enum mem_isa isa)
{
#if defined(__aarch64__)
    static const struct mem_kernels sets[] = {
        { MEM_ISA_LDP, mem_read_ldp, mem_write_ldp, mem_copy_ldp },
        { MEM_ISA_NEON, mem_read_neon, mem_write_neon, mem_copy_neon },
    };
    return &sets[isa <= MEM_ISA_NEON ? isa : MEM_ISA_LDP];
#else
    static const struct mem_kernels sets[] = {
        { MEM_ISA_SSE2, mem_read_sse2, mem_write_sse2, mem_copy_sse2 },
        { MEM_ISA_AVX, mem_read_avx, mem_write_avx, mem_copy_avx },
        { MEM_ISA_AVX512, mem_read_avx512, mem_write_avx512, mem_copy_avx512 },
    };
    return &sets[isa <= MEM_ISA_AVX512 ? isa : MEM_ISA_SSE2];
#endif
}

#endif
