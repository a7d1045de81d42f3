/* The AArch64 memory kernels (efi/mem/mem_kernels_aa64.S) against C
 * references, run under qemu-aarch64 (user mode) on any build machine:
 *  - the chase follows exactly 32 pointers a round, in each of the three
 *    patterns the engine builds (mem_chain_build), and on odd cycles;
 *  - write and copy change exactly the whole 64-byte lines of their range,
 *    at any alignment and size, and nothing beside them;
 *  - read touches every page of its range and nothing outside it (guard
 *    pages), leaves the buffer alone, and ends holding the range's last
 *    bytes in the registers the kernel loads (a register dump after the
 *    call, against a model of the loop);
 *  - the seam of mem_cpu.h: CNTVCT_EL0 counts up, CTR_EL0 line sizes are sane;
 *  - the engine's timed loops (mem_measure.c, mem_team.c) unchanged on them:
 *    a chase job, the three bandwidth ops on a two-thread team, loaded
 *    latency with a reader (threads stand in for the firmware's CPUs).
 * No cmocka for arm64 on the build machine: a small harness printing TAP
 * ("ok N - name"), which tests/run_all.py counts like the cmocka binaries.
 * An argument runs only the tests whose names contain it; "-x WORD" all
 * but those (tests/aa64/planted_bugs.py leaves out the engine's). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mem/mem_chain.h"
#include "mem/mem_cpu.h"
#include "mem/mem_kernels.h"
#include "mem/mem_measure.h"
#include "mem/mem_team.h"

#define PAGE 4096u
#define LINE 64u

/* ---- harness ---- */
static int failures_in_test;

/* Report a failed check of the current test (all are reported, not just the first). */
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("# FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    failures_in_test++;
}

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        if (!(cond))                                                                                                  \
            fail(__VA_ARGS__);                                                                                        \
    } while (0)

/* ---- guarded memory: [PROT_NONE page][data pages][PROT_NONE page] ---- */
struct arena {
    uint8_t *map;   /* whole mapping */
    uint8_t *lo;    /* first data byte */
    uint8_t *hi;    /* one past the last data byte (start of the top guard) */
    size_t map_len;
};

/* Map pages of data between two inaccessible guard pages. */
static void arena_open(struct arena *a, size_t pages)
{
    a->map_len = (pages + 2) * PAGE;
    a->map = mmap(NULL, a->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a->map == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    a->lo = a->map + PAGE;
    a->hi = a->lo + pages * PAGE;
    mprotect(a->map, PAGE, PROT_NONE);
    mprotect(a->hi, PAGE, PROT_NONE);
}

static void arena_close(struct arena *a) { munmap(a->map, a->map_len); }

/* ---- faults: a kernel touching a guard page comes back here ---- */
static sigjmp_buf fault_jmp;
static volatile uintptr_t fault_addr;
static volatile int fault_armed;

/* SIGSEGV handler: note the address and jump back to the test. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (!fault_armed) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    fault_addr = (uintptr_t)si->si_addr;
    fault_armed = 0;
    siglongjmp(fault_jmp, 1);
}

/* Run a bandwidth kernel; true when it finished, false (fault_addr set) if it faulted. */
#define RUN_GUARDED(call)                                                                                             \
    ({                                                                                                                \
        bool ok_;                                                                                                     \
        fault_addr = 0;                                                                                               \
        if (sigsetjmp(fault_jmp, 1) == 0) {                                                                           \
            fault_armed = 1;                                                                                          \
            call;                                                                                                     \
            fault_armed = 0;                                                                                          \
            ok_ = true;                                                                                               \
        } else {                                                                                                      \
            ok_ = false;                                                                                              \
        }                                                                                                             \
        ok_;                                                                                                          \
    })

/* ---- register dump around a call ----
 * call_dump(fn, a0, a1, regs) loads x5-x16, q0-q7 and q16-q23 from regs,
 * calls fn(a0, a1) through x17 (which no kernel uses), and stores the same
 * registers back into regs: what the read kernels last loaded (they keep
 * nothing else). */
struct regs {
    uint64_t x[12];        /* x5..x16 */
    uint8_t q[16][16];     /* q0..q7, q16..q23 */
};
void call_dump(void (*fn)(const void *, size_t), const void *a0, size_t a1, struct regs *r);
__asm__(".text\n"
        ".globl call_dump\n"
        ".type call_dump, %function\n"
        "call_dump:\n"
        "    stp x29, x30, [sp, #-32]!\n"
        "    mov x29, sp\n"
        "    str x19, [sp, #16]\n"
        "    mov x19, x3\n"
        "    mov x17, x0\n"
        "    mov x0, x1\n"
        "    mov x1, x2\n"
        "    ldp x5, x6, [x19, #0]\n"
        "    ldp x7, x8, [x19, #16]\n"
        "    ldr x9, [x19, #32]\n"
        "    ldp x10, x11, [x19, #40]\n"
        "    ldp x12, x13, [x19, #56]\n"
        "    ldp x14, x15, [x19, #72]\n"
        "    ldr x16, [x19, #88]\n"
        "    ldp q0, q1, [x19, #96]\n"
        "    ldp q2, q3, [x19, #128]\n"
        "    ldp q4, q5, [x19, #160]\n"
        "    ldp q6, q7, [x19, #192]\n"
        "    ldp q16, q17, [x19, #224]\n"
        "    ldp q18, q19, [x19, #256]\n"
        "    ldp q20, q21, [x19, #288]\n"
        "    ldp q22, q23, [x19, #320]\n"
        "    blr x17\n"
        "    stp x5, x6, [x19, #0]\n"
        "    stp x7, x8, [x19, #16]\n"
        "    str x9, [x19, #32]\n"
        "    stp x10, x11, [x19, #40]\n"
        "    stp x12, x13, [x19, #56]\n"
        "    stp x14, x15, [x19, #72]\n"
        "    str x16, [x19, #88]\n"
        "    stp q0, q1, [x19, #96]\n"
        "    stp q2, q3, [x19, #128]\n"
        "    stp q4, q5, [x19, #160]\n"
        "    stp q6, q7, [x19, #192]\n"
        "    stp q16, q17, [x19, #224]\n"
        "    stp q18, q19, [x19, #256]\n"
        "    stp q20, q21, [x19, #288]\n"
        "    stp q22, q23, [x19, #320]\n"
        "    ldr x19, [sp, #16]\n"
        "    ldp x29, x30, [sp], #32\n"
        "    ret\n"
        ".size call_dump, .-call_dump\n");
_Static_assert(sizeof(struct regs) == 352, "call_dump's offsets");

#define SENTINEL 0xee

/* ---- kernel sets under test ---- */
struct kset {
    const char *name;
    void (*read)(const void *, size_t);
    void (*write)(void *, size_t);
    void (*copy)(void *, const void *, size_t);
};
static const struct kset ksets[] = {
    { "neon", mem_read_neon, mem_write_neon, mem_copy_neon },
    { "ldp", mem_read_ldp, mem_write_ldp, mem_copy_ldp },
};
#define NSETS (sizeof(ksets) / sizeof(ksets[0]))

/* Sizes: none, under a line, a line, odd tails around the 256-byte block,
 * whole pages; offsets: aligned, 8-, 16-, odd-byte and line-misaligned. */
static const size_t sizes[] = { 0, 1, 63, 64, 65, 127, 192, 255, 256, 257, 320, 511, 512, 576, 1000, 4096, 4160, 12345, 3 * PAGE };
static const size_t offsets[] = { 0, 8, 16, 1, 48, 100 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define NOFFS (sizeof(offsets) / sizeof(offsets[0]))

/* Deterministic bytes that differ line by line and within a line. */
static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        p[i] = (uint8_t)(x >> 16);
    }
}

/* ---- chase ---- */

/* The C reference: follow steps pointers. */
static void *chase_ref(void *p, uint64_t steps)
{
    while (steps--)
        p = *(void **)p;
    return p;
}

/* Each pattern's chain: mem_chase ends where 32 * rounds C steps end, and a
 * whole lap comes back to the start. */
static void test_chase_matches_reference_in_each_pattern(void)
{
    static const uint64_t sizes_b[] = { PAGE, 16 * PAGE, 256 * PAGE };
    struct arena a;

    arena_open(&a, 256);
    for (unsigned p = 0; p < MEM_PATTERNS; p++) {
        for (unsigned s = 0; s < 3; s++) {
            uint64_t lines = sizes_b[s] / LINE;
            void *start = mem_chain_build(a.lo, sizes_b[s], (enum mem_pattern)p, 42 + s);
            for (uint64_t rounds = 0; rounds <= 5; rounds++) {
                void *got = mem_chase(start, rounds), *want = chase_ref(start, 32 * rounds);
                CHECK(got == want, "%s %llu bytes: mem_chase(start, %llu) = %p, C reference %p", mem_pattern_name(p),
                      (unsigned long long)sizes_b[s], (unsigned long long)rounds, got, want);
            }
            CHECK(mem_chase(start, lines / 32) == start, "%s %llu bytes: one lap (%llu rounds) does not end at the start",
                  mem_pattern_name(p), (unsigned long long)sizes_b[s], (unsigned long long)(lines / 32));
        }
    }
    arena_close(&a);
}

/* A cycle of 97 nodes (prime: no round of 31 or 33 loads can look like 32)
 * at odd addresses, in a scrambled order. */
static void test_chase_takes_exactly_32_loads_a_round(void)
{
    enum { N = 97, STRIDE = 24 };
    struct arena a;
    uint8_t *base;
    void *nodes[N];

    arena_open(&a, 1);
    base = a.lo + 3; /* unaligned pointers: LDR on Normal memory takes them */
    for (unsigned i = 0; i < N; i++)
        nodes[i] = base + ((i * 38) % N) * STRIDE;
    for (unsigned i = 0; i < N; i++)
        memcpy(nodes[i], &nodes[(i + 1) % N], sizeof(void *));
    for (uint64_t rounds = 0; rounds <= 2 * N; rounds++) {
        void *got = mem_chase(nodes[0], rounds), *want = nodes[(32 * rounds) % N];
        if (got != want) {
            fail("97-node cycle: mem_chase(n0, %llu) = %p, want node %llu (%p)", (unsigned long long)rounds, got,
                 (unsigned long long)((32 * rounds) % N), want);
            break;
        }
    }
    arena_close(&a);
}

/* The empty loop loads nothing (a NULL start would fault) and returns its argument. */
static void test_chase_empty_loads_nothing(void)
{
    void *volatile tag = (void *)(uintptr_t)0x1234;
    bool ok = RUN_GUARDED(tag = mem_chase_empty((void *)(uintptr_t)0x1234, 1000));
    CHECK(ok, "mem_chase_empty faulted at %#lx: it loaded", (unsigned long)fault_addr);
    CHECK(tag == (void *)(uintptr_t)0x1234, "mem_chase_empty returned %p, not its argument", tag);
    CHECK(mem_chase((void *)(uintptr_t)0x1234, 0) == (void *)(uintptr_t)0x1234, "mem_chase(p, 0) is not p");
}

/* ---- write ---- */

/* write(buf + off, n): exactly the whole lines of [buf + off, + n) become zero. */
static void test_write_zeroes_whole_lines_only(void)
{
    struct arena a;

    arena_open(&a, 5);
    for (unsigned k = 0; k < NSETS; k++)
        for (unsigned s = 0; s < NSIZES; s++)
            for (unsigned o = 0; o < NOFFS; o++) {
                size_t n = sizes[s], off = offsets[o], done = n & ~(size_t)63;
                size_t region = (size_t)(a.hi - a.lo);
                uint8_t *want = malloc(region);
                bool ok;
                if (off + n > region) {
                    free(want);
                    continue;
                }
                fill_pattern(a.lo, region, (uint32_t)(s * 31 + o));
                memcpy(want, a.lo, region);
                memset(want + off, 0, done);
                ok = RUN_GUARDED(ksets[k].write(a.lo + off, n));
                CHECK(ok, "%s write(+%zu, %zu) faulted at %#lx", ksets[k].name, off, n, (unsigned long)fault_addr);
                if (ok && memcmp(a.lo, want, region)) {
                    size_t i = 0;
                    while (a.lo[i] == want[i])
                        i++;
                    fail("%s write(+%zu, %zu): byte %zd from the start is %#x, want %#x", ksets[k].name, off, n,
                         (ssize_t)i - (ssize_t)off, a.lo[i], want[i]);
                }
                free(want);
            }
    arena_close(&a);
}

/* ---- copy ---- */

/* copy(dst + doff, src + soff, n): dst's whole lines equal src's, the rest
 * of dst and all of src unchanged. Source and destination in different
 * arenas, each against its guard pages when placed at the top. */
static void test_copy_moves_whole_lines_only(void)
{
    struct arena sa, da;

    arena_open(&sa, 4);
    arena_open(&da, 4);
    for (unsigned k = 0; k < NSETS; k++)
        for (unsigned s = 0; s < NSIZES; s++)
            for (unsigned o = 0; o < NOFFS; o++)
                for (int top = 0; top < 2; top++) {
                    size_t n = sizes[s], done = n & ~(size_t)63, region = (size_t)(sa.hi - sa.lo);
                    size_t soff = offsets[o], doff = offsets[(o + 1) % NOFFS];
                    uint8_t *want_d = malloc(region), *want_s = malloc(region);
                    bool ok;
                    if (n + 128 > region) {
                        free(want_d);
                        free(want_s);
                        continue;
                    }
                    if (top) { /* end exactly at the guard page */
                        soff = region - n;
                        doff = region - n;
                    }
                    fill_pattern(sa.lo, region, (uint32_t)(s + 7 * o + 1));
                    fill_pattern(da.lo, region, (uint32_t)(s + 7 * o + 1000));
                    memcpy(want_s, sa.lo, region);
                    memcpy(want_d, da.lo, region);
                    memcpy(want_d + doff, want_s + soff, done);
                    ok = RUN_GUARDED(ksets[k].copy(da.lo + doff, sa.lo + soff, n));
                    CHECK(ok, "%s copy(+%zu, +%zu, %zu) faulted at %#lx", ksets[k].name, doff, soff, n,
                          (unsigned long)fault_addr);
                    if (ok && memcmp(da.lo, want_d, region)) {
                        size_t i = 0;
                        while (da.lo[i] == want_d[i])
                            i++;
                        fail("%s copy(+%zu, +%zu, %zu): destination byte %zd from the start is %#x, want %#x",
                             ksets[k].name, doff, soff, n, (ssize_t)i - (ssize_t)doff, da.lo[i], want_d[i]);
                    }
                    CHECK(!ok || !memcmp(sa.lo, want_s, region), "%s copy(+%zu, +%zu, %zu) changed its source",
                          ksets[k].name, doff, soff, n);
                    free(want_d);
                    free(want_s);
                }
    arena_close(&sa);
    arena_close(&da);
}

/* ---- read ---- */

/* Where each dumped register's bytes come from after read(buf, n), as the
 * kernels' loops load them: an offset into buf, or -1 (not loaded). A model
 * of the loop, so it is checked against the data, not against itself. */
static void read_model(const char *set, size_t n, long xsrc[12], long qsrc[16])
{
    size_t lines = n / LINE, blocks = n / 256, tail = lines - 4 * blocks;
    long last_block = blocks ? (long)(blocks - 1) * 256 : -1;

    for (int i = 0; i < 12; i++)
        xsrc[i] = -1;
    for (int i = 0; i < 16; i++)
        qsrc[i] = -1;
    if (!strcmp(set, "neon")) {
        /* Main loop: four LD1 {4 regs} fill q0-3, q4-7, q16-19, q20-23
         * (dump slots 0-15) with the block's four lines; the tail loop
         * refills q0-3 with each further line. */
        if (blocks)
            for (int i = 0; i < 16; i++)
                qsrc[i] = last_block + 16 * i;
        if (tail)
            for (int i = 0; i < 4; i++)
                qsrc[i] = (long)(lines - 1) * LINE + 16 * i;
    } else {
        /* Main loop: x5-x16 take bytes 0-95, again 96-191, then x5-x12
         * bytes 192-255; the tail loop: x5-x12 each further line. */
        if (blocks) {
            for (int i = 0; i < 8; i++)
                xsrc[i] = last_block + 192 + 8 * i;
            for (int i = 8; i < 12; i++)
                xsrc[i] = last_block + 96 + 8 * i;
        }
        if (tail)
            for (int i = 0; i < 8; i++)
                xsrc[i] = (long)(lines - 1) * LINE + 8 * i;
    }
}

/* read(buf + off, n) placed so it ends at the top guard page (and, for an
 * offset of 0, starts right after the bottom one): no fault, the buffer
 * unchanged, and the registers end holding the bytes the model names. */
static void test_read_loads_its_range_and_nothing_else(void)
{
    struct arena a;

    arena_open(&a, 4);
    for (unsigned k = 0; k < NSETS; k++)
        for (unsigned s = 0; s < NSIZES; s++)
            for (int top = 0; top < 2; top++) {
                size_t n = sizes[s], region = (size_t)(a.hi - a.lo);
                size_t off = top ? region - n : 0;
                long xsrc[12], qsrc[16];
                struct regs r;
                uint8_t *copy = malloc(region);
                bool ok;

                if (n > region) {
                    free(copy);
                    continue;
                }
                fill_pattern(a.lo, region, (uint32_t)(s * 3 + top + 5));
                memcpy(copy, a.lo, region);
                memset(&r, SENTINEL, sizeof(r));
                ok = RUN_GUARDED(call_dump(ksets[k].read, a.lo + off, n, &r));
                CHECK(ok, "%s read(+%zu, %zu) faulted at %#lx (range %p..%p)", ksets[k].name, off, n,
                      (unsigned long)fault_addr, (void *)(a.lo + off), (void *)(a.lo + off + n));
                if (!ok) {
                    free(copy);
                    continue;
                }
                CHECK(!memcmp(copy, a.lo, region), "%s read(+%zu, %zu) wrote to its buffer", ksets[k].name, off, n);
                read_model(ksets[k].name, n, xsrc, qsrc);
                for (int i = 0; i < 12; i++) {
                    uint64_t want;
                    if (xsrc[i] < 0)
                        memset(&want, SENTINEL, 8);
                    else
                        memcpy(&want, a.lo + off + xsrc[i], 8);
                    CHECK(r.x[i] == want, "%s read(+%zu, %zu): x%d = %#llx, want %#llx (from %ld)", ksets[k].name,
                          off, n, 5 + i, (unsigned long long)r.x[i], (unsigned long long)want, xsrc[i]);
                }
                for (int i = 0; i < 16; i++) {
                    uint8_t want[16];
                    if (qsrc[i] < 0)
                        memset(want, SENTINEL, 16);
                    else
                        memcpy(want, a.lo + off + qsrc[i], 16);
                    CHECK(!memcmp(r.q[i], want, 16), "%s read(+%zu, %zu): q%d is not the bytes at %ld",
                          ksets[k].name, off, n, i < 8 ? i : i + 8, qsrc[i]);
                }
                free(copy);
            }
    arena_close(&a);
}

/* A page made inaccessible in the middle of the range faults inside that
 * page: the kernel reaches every page, in address order. */
static void test_read_reaches_every_page(void)
{
    struct arena a;

    arena_open(&a, 6);
    for (unsigned k = 0; k < NSETS; k++)
        for (unsigned pg = 0; pg < 6; pg++) {
            uint8_t *hole = a.lo + pg * PAGE;
            bool ok;
            mprotect(hole, PAGE, PROT_NONE);
            ok = RUN_GUARDED(ksets[k].read(a.lo, 6 * PAGE));
            mprotect(hole, PAGE, PROT_READ | PROT_WRITE);
            CHECK(!ok, "%s read of 6 pages did not touch page %u", ksets[k].name, pg);
            CHECK(ok || (fault_addr >= (uintptr_t)hole && fault_addr < (uintptr_t)hole + LINE),
                  "%s read: page %u inaccessible, fault at +%ld from it (not at its first line)", ksets[k].name, pg,
                  (long)(fault_addr - (uintptr_t)hole));
        }
    arena_close(&a);
}

/* ---- the seam of mem_cpu.h ---- */

/* CNTVCT_EL0 runs forward at CNTFRQ_EL0; CTR_EL0 gives powers of two a cache line can be. */
static void test_cpu_seam_counter_and_line_sizes(void)
{
    uint64_t hz = mem_counter_hz(), t0 = mem_ticks(), t1;
    uint32_t line = mem_dcache_line_bytes(), cwg = mem_writeback_granule_bytes();
    struct timespec ts = { 0, 20 * 1000 * 1000 };

    nanosleep(&ts, NULL);
    t1 = mem_ticks();
    CHECK(hz >= 1000000 && hz <= 10000000000ull, "CNTFRQ_EL0 = %llu Hz", (unsigned long long)hz);
    CHECK(t1 > t0, "CNTVCT_EL0 did not advance over 20 ms (%llu -> %llu)", (unsigned long long)t0,
          (unsigned long long)t1);
    CHECK(hz == 0 || (t1 - t0) * 1000 / hz >= 19, "20 ms slept, the counter says %llu ms",
          (unsigned long long)((t1 - t0) * 1000 / (hz ? hz : 1)));
    CHECK(line >= 16 && line <= 2048 && !(line & (line - 1)), "CTR_EL0 DminLine gives %u bytes", line);
    CHECK(cwg == 0 || (cwg >= line && cwg <= 2048 && !(cwg & (cwg - 1))), "CTR_EL0 CWG gives %u bytes", cwg);
    CHECK(mem_isa_usable() == MEM_ISA_NEON, "ID_AA64PFR0_EL1 says no Advanced SIMD on a CPU that ran LD1");
    CHECK(mem_kernels_for(MEM_ISA_NEON)->read == mem_read_neon && mem_kernels_for(MEM_ISA_LDP)->copy == mem_copy_ldp,
          "mem_kernels_for() maps the sets wrongly");
    CHECK(!strcmp(mem_isa_name(MEM_ISA_NEON), "neon") && mem_isa_bits(MEM_ISA_NEON) == 128, "neon's name or bits");
}

/* ---- the engine's timed loops on these kernels ---- */

/* plat_run_on_cpus for this test: fn(i) on n threads at once (i = 0 the caller). */
struct run_job {
    plat_cpu_fn fn;
    void *arg;
    unsigned i;
};
static void *run_thread(void *p)
{
    struct run_job *j = p;
    j->fn(j->i, j->arg);
    return NULL;
}
int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    pthread_t th[8];
    struct run_job jobs[8];
    unsigned started = 1;

    if (n == 0 || n > 8)
        return BM_EINVAL;
    for (unsigned i = 1; i < n; i++) {
        jobs[i] = (struct run_job){ fn, arg, i };
        if (pthread_create(&th[i], NULL, run_thread, &jobs[i]))
            break;
        started++;
    }
    fn(0, arg);
    for (unsigned i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    return (int)started;
}

/* A chase job as the engine runs one: it times passes on the counter and
 * ends where the C walk of the same number of loads ends. */
static void test_engine_chase_job_on_aa64(void)
{
    static struct mem_chase_job j;
    struct mem_team team;
    struct arena a;
    uint64_t hz = mem_counter_hz(), loads;
    void *start;

    arena_open(&a, 64);
    start = mem_chain_build(a.lo, 64 * PAGE, MEM_FULL_RANDOM, 7);
    memset(&j, 0, sizeof(j));
    j.cursor = start;
    j.lines = 64 * PAGE / LINE;
    j.warm_ticks = hz / 100;
    j.pass_ticks = hz / 500;
    j.pass_loads = 4096;
    j.passes = 3;
    j.ns_per_tick = 1e9 / (double)hz;
    mem_team_init_first(&team, 1);
    CHECK(mem_team_run(&team, mem_chase_team_fn, &j, hz) == BM_OK, "a one-CPU team did not run");
    CHECK(j.loads_per_pass >= 4096 && j.loads_per_pass % 32 == 0, "loads per pass %llu",
          (unsigned long long)j.loads_per_pass);
    for (unsigned i = 0; i < 3; i++)
        CHECK(j.ns[i] > 0 && j.ns[i] < 1e6, "pass %u: %g ns per load", i, j.ns[i]);
    /* Where it stopped: on the chain, a whole number of rounds from the start. */
    loads = 0;
    for (void *p = start; p != j.cursor && loads <= j.lines; p = *(void **)p)
        loads++;
    CHECK(loads <= j.lines && loads % 32 == 0, "the job's cursor is %llu loads from the start",
          (unsigned long long)loads);
    arena_close(&a);
}

/* Read, write and copy on a two-thread team: passes timed, each member's
 * buffer written and copied as the op says (copy: first half to second). */
static void test_engine_bandwidth_team_on_aa64(void)
{
    const uint64_t bytes = 16 * PAGE;
    static struct mem_bw_job j;
    struct mem_team team;
    struct arena a[2];
    uint8_t *bufs[2];
    uint64_t hz = mem_counter_hz();

    for (int i = 0; i < 2; i++) {
        arena_open(&a[i], 16);
        bufs[i] = a[i].lo;
    }
    for (int op = 0; op < MEM_BW_OPS; op++)
        for (int set = 0; set < 2; set++) {
            for (int i = 0; i < 2; i++)
                fill_pattern(bufs[i], bytes, (uint32_t)(op * 10 + i + 1));
            memset(&j, 0, sizeof(j));
            j.k = mem_kernels_for(set ? MEM_ISA_NEON : MEM_ISA_LDP);
            j.op = (enum mem_bw_op)op;
            j.bufs = bufs;
            j.bytes = bytes;
            j.passes = 2;
            j.pass_ticks = hz / 1000;
            mem_team_init_first(&team, 2);
            CHECK(mem_team_run(&team, mem_bw_team_fn, &j, 5 * hz) == BM_OK && j.done, "%s %s: the team broke",
                  mem_isa_name(j.k->isa), mem_bw_op_name(j.op));
            CHECK(j.reps >= 1 && j.ticks[0] > 0 && j.ticks[1] > 0, "%s %s: passes not timed", mem_isa_name(j.k->isa),
                  mem_bw_op_name(j.op));
            for (int i = 0; i < 2; i++) {
                if (op == MEM_BW_WRITE) {
                    uint8_t zero[256] = { 0 };
                    for (uint64_t off = 0; off < bytes; off += sizeof(zero))
                        if (memcmp(bufs[i] + off, zero, sizeof(zero))) {
                            fail("%s write: member %d's buffer not zero at %llu", mem_isa_name(j.k->isa), i,
                                 (unsigned long long)off);
                            break;
                        }
                }
                if (op == MEM_BW_COPY)
                    CHECK(!memcmp(bufs[i], bufs[i] + bytes / 2, bytes / 2), "%s copy: member %d's halves differ",
                          mem_isa_name(j.k->isa), i);
            }
        }
    for (int i = 0; i < 2; i++)
        arena_close(&a[i]);
}

/* Loaded latency: member 0 chases while member 1 reads in chunks; the
 * chase waits (up to warm_ticks) until the reader streams, then is timed. */
static void test_engine_loaded_latency_on_aa64(void)
{
    static struct mem_loaded_job j;
    struct mem_team team;
    struct arena chain, reader;
    uint8_t *bufs[2];
    uint64_t hz = mem_counter_hz();

    arena_open(&chain, 64);
    arena_open(&reader, 64);
    bufs[0] = NULL;
    bufs[1] = reader.lo;
    memset(&j, 0, sizeof(j));
    j.chase.cursor = mem_chain_build(chain.lo, 64 * PAGE, MEM_FULL_RANDOM, 3);
    j.chase.lines = 64 * PAGE / LINE;
    j.chase.warm_ticks = 2 * hz;
    j.chase.pass_ticks = hz / 500;
    j.chase.pass_loads = 4096;
    j.chase.passes = 2;
    j.chase.ns_per_tick = 1e9 / (double)hz;
    j.k = mem_kernels_for(MEM_ISA_NEON);
    j.bufs = bufs;
    j.bytes = 64 * PAGE;
    j.chunk = 16 * PAGE;
    j.delay_ticks = hz / 100000;
    mem_team_init_first(&team, 2);
    CHECK(mem_team_run(&team, mem_loaded_team_fn, &j, 10 * hz) == BM_OK && j.done, "the loaded-latency team broke");
    /* The reader's bytes during the timed part depend on how the build
     * machine schedules the two threads; that it streamed at all does not. */
    CHECK(j.load_ticks > 0 && j.streamed[1].bytes > 0 && j.streamed[1].bytes % j.chunk == 0,
          "reader streamed %llu bytes, the chase took %llu ticks", (unsigned long long)j.streamed[1].bytes,
          (unsigned long long)j.load_ticks);
    CHECK(j.chase.ns[0] > 0 && j.chase.ns[1] > 0, "loaded chase: %g, %g ns", j.chase.ns[0], j.chase.ns[1]);
    arena_close(&chain);
    arena_close(&reader);
}

struct test {
    const char *name;
    void (*fn)(void);
};
#define T(f) { #f, f }
static const struct test tests[] = {
    T(test_chase_matches_reference_in_each_pattern),
    T(test_chase_takes_exactly_32_loads_a_round),
    T(test_chase_empty_loads_nothing),
    T(test_write_zeroes_whole_lines_only),
    T(test_copy_moves_whole_lines_only),
    T(test_read_loads_its_range_and_nothing_else),
    T(test_read_reaches_every_page),
    T(test_cpu_seam_counter_and_line_sizes),
    T(test_engine_chase_job_on_aa64),
    T(test_engine_bandwidth_team_on_aa64),
    T(test_engine_loaded_latency_on_aa64),
};

/* Run the tests (all, those named with argv[1], or all but "-x WORD"), TAP on stdout. */
int main(int argc, char **argv)
{
    struct sigaction sa;
    unsigned n = sizeof(tests) / sizeof(tests[0]), failed = 0, planned = 0, ran = 0;
    const char *only = NULL, *except = NULL;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 3 && !strcmp(argv[1], "-x"))
        except = argv[2];
    else if (argc == 2)
        only = argv[1];
    for (unsigned i = 0; i < n; i++)
        planned += (!only || strstr(tests[i].name, only)) && (!except || !strstr(tests[i].name, except));
    printf("1..%u\n", planned);
    for (unsigned i = 0; i < n; i++) {
        if ((only && !strstr(tests[i].name, only)) || (except && strstr(tests[i].name, except)))
            continue;
        failures_in_test = 0;
        tests[i].fn();
        printf("%s %u - %s\n", failures_in_test ? "not ok" : "ok", ++ran, tests[i].name);
        failed += failures_in_test != 0;
    }
    return failed ? 1 : 0;
}
