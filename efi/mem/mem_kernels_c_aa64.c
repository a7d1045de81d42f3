/* TEMPORARY memory kernels in C for the AArch64 build, compiled only while
 * efi/mem/mem_kernels_aa64.S (the hand-written AArch64 kernels, issue #32
 * point 3) is not in the tree: the Makefile then passes
 * -DBAREMARK_MEM_C_KERNELS. They keep the x86 kernels' names and meaning
 * (mem_kernels.h) so the engine runs unchanged; their records say
 * isa "c_fallback", so no figure from them passes for a tuned kernel.
 * Delete this file when mem_kernels_aa64.S lands. */
#include "mem_kernels.h"

#ifdef BAREMARK_MEM_C_KERNELS

/* Follow 32 * rounds pointers: each load's address is the last load's value. */
void *mem_chase(void *p, uint64_t rounds)
{
    void *volatile *q = p;

    while (rounds--)
        for (int i = 0; i < 32; i++)
            q = (void *volatile *)*q;
    return (void *)q;
}

/* The same loop without the loads. */
void *mem_chase_empty(void *p, uint64_t rounds)
{
    while (rounds--)
        __asm__ __volatile__("" : "+r"(p)); /* one step the compiler cannot fold */
    return p;
}

/* Sum every 64-bit word (the sum is kept, so the loads stay). */
static void read_c(const void *buf, size_t bytes)
{
    const volatile uint64_t *w = buf;
    uint64_t s0 = 0, s1 = 0;

    for (size_t i = 0; i < bytes / 8; i += 2) {
        s0 += w[i];
        s1 += w[i + 1];
    }
    __asm__ __volatile__("" ::"r"(s0 + s1));
}

/* Store every 64-bit word. */
static void write_c(void *buf, size_t bytes)
{
    volatile uint64_t *w = buf;

    for (size_t i = 0; i < bytes / 8; i++)
        w[i] = i;
}

static void copy_c(void *dst, const void *src, size_t bytes)
{
    volatile uint64_t *d = dst;
    const volatile uint64_t *s = src;

    for (size_t i = 0; i < bytes / 8; i++)
        d[i] = s[i];
}

void mem_read_sse2(const void *buf, size_t bytes) { read_c(buf, bytes); }
void mem_write_sse2(void *buf, size_t bytes) { write_c(buf, bytes); }
void mem_copy_sse2(void *dst, const void *src, size_t bytes) { copy_c(dst, src, bytes); }
void mem_read_avx(const void *buf, size_t bytes) { read_c(buf, bytes); }
void mem_write_avx(void *buf, size_t bytes) { write_c(buf, bytes); }
void mem_copy_avx(void *dst, const void *src, size_t bytes) { copy_c(dst, src, bytes); }
void mem_read_avx512(const void *buf, size_t bytes) { read_c(buf, bytes); }
void mem_write_avx512(void *buf, size_t bytes) { write_c(buf, bytes); }
void mem_copy_avx512(void *dst, const void *src, size_t bytes) { copy_c(dst, src, bytes); }

#endif
