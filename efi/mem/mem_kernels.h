/* The hand-written kernels of mem_kernels.S and the table that picks the
 * widest set the CPU can run. */
#ifndef BAREMARK_MEM_KERNELS_H
#define BAREMARK_MEM_KERNELS_H

#include "mem_cpu.h"

/* Follow 32 * rounds pointers from p; returns the last one reached. */
void *mem_chase(void *p, uint64_t rounds);
/* The same loop without loads, to measure what is not a load. */
void *mem_chase_empty(void *p, uint64_t rounds);

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

struct mem_kernels {
    enum mem_isa isa;
    void (*read)(const void *buf, size_t bytes);
    void (*write)(void *buf, size_t bytes);   /* non-temporal stores */
    void (*copy)(void *dst, const void *src, size_t bytes); /* loads + non-temporal stores */
};

static inline const struct mem_kernels *mem_kernels_for(enum mem_isa isa)
{
    static const struct mem_kernels sets[] = {
        { MEM_ISA_SSE2, mem_read_sse2, mem_write_sse2, mem_copy_sse2 },
        { MEM_ISA_AVX, mem_read_avx, mem_write_avx, mem_copy_avx },
        { MEM_ISA_AVX512, mem_read_avx512, mem_write_avx512, mem_copy_avx512 },
    };
    return &sets[isa <= MEM_ISA_AVX512 ? isa : MEM_ISA_SSE2];
}

#endif
