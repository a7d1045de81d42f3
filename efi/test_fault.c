/* test_fault= (test builds only, see test_fault.h): each routine below
 * faults on the instruction at its *_at label, so the log record can say
 * in advance which rip the exception must report. */
#include "test_fault.h"

#ifdef BAREMARK_TEST_HOOKS
#include "platform.h"
#ifdef BAREMARK_BIOS
#include "bios/bios_private.h"
#endif

/* #UD: ud2. #DE: divl by zero. #GP: a load from a non-canonical address
 * (bit 63 set; Intel SDM vol. 3A 6.15, "Interrupt 13"). #PF: a load from a
 * canonical address no page table maps (128 TiB - 4 KiB: above the
 * identity map of every platform here). */
#define TEST_FAULT_PF_ADDR "0x00007ffffffff000"
__asm__(".text\n"
        ".globl bm_fault_ud, bm_fault_ud_at, bm_fault_de, bm_fault_de_at\n"
        ".globl bm_fault_gp, bm_fault_gp_at, bm_fault_pf, bm_fault_pf_at\n"
        ".hidden bm_fault_ud, bm_fault_ud_at, bm_fault_de, bm_fault_de_at\n"
        ".hidden bm_fault_gp, bm_fault_gp_at, bm_fault_pf, bm_fault_pf_at\n"
        "bm_fault_ud:\n"
        "bm_fault_ud_at:\n"
        "    ud2\n"
        "    ret\n"
        "bm_fault_de:\n"
        "    xorl %ecx, %ecx\n"
        "    movl $1, %eax\n"
        "    xorl %edx, %edx\n"
        "bm_fault_de_at:\n"
        "    divl %ecx\n"
        "    ret\n"
        "bm_fault_gp:\n"
        "    movabsq $0x8000000000000000, %rax\n"
        "bm_fault_gp_at:\n"
        "    movq (%rax), %rax\n"
        "    ret\n"
        "bm_fault_pf:\n"
        "    movabsq $" TEST_FAULT_PF_ADDR ", %rax\n"
        "bm_fault_pf_at:\n"
        "    movq (%rax), %rax\n"
        "    ret\n");

void bm_fault_ud(void), bm_fault_de(void), bm_fault_gp(void), bm_fault_pf(void);
extern const char bm_fault_ud_at[], bm_fault_de_at[], bm_fault_gp_at[], bm_fault_pf_at[];

#ifdef BAREMARK_BIOS
/* mc (BIOS only): the state a machine check taken in real mode leaves when
 * the BIOS's vector 18 is a bare IRET (idt_bios.c, mc_check_after_call):
 * bank 1 holding an uncorrected error with its address (VAL|UC|EN|ADDRV|PCC,
 * as the QEMU monitor's `mce` injects in test_cpu_fault.py) and
 * MCG_STATUS.MCIP set, then a harmless BIOS call (INT 12h, the base memory
 * size). QEMU's TCG lets both registers be written (helper_wrmsr). The
 * monitor cannot time an injection into a BIOS call; this puts the same
 * registers there on purpose. */
#define TEST_MC1_STATUS 0x405
#define TEST_MC1_ADDR 0x406
#define TEST_MCG_STATUS 0x17a

static void test_wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ __volatile__("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static void bm_fault_mc_in_bios_call(void)
{
    struct bios_rm_regs r = { 0 };

    test_wrmsr(TEST_MC1_STATUS, 0xb600000000000000ull);
    test_wrmsr(TEST_MC1_ADDR, 0x12345000ull);
    test_wrmsr(TEST_MCG_STATUS, 0x4);
    bios_int(0x12, &r);
}
#endif

static const struct {
    const char *kind, *exception;
    void (*raise)(void);
    const char *at;
} faults[] = {
    { "ud", "#UD invalid opcode", bm_fault_ud, bm_fault_ud_at },
    { "de", "#DE divide error", bm_fault_de, bm_fault_de_at },
    { "gp", "#GP general protection", bm_fault_gp, bm_fault_gp_at },
    { "pf", "#PF page fault at " TEST_FAULT_PF_ADDR, bm_fault_pf, bm_fault_pf_at },
#ifdef BAREMARK_BIOS
    { "mc", "#MC machine check in bank 1 during BIOS INT 12h", bm_fault_mc_in_bios_call, NULL },
#endif
};

bool test_fault_known(const char *kind)
{
    for (unsigned i = 0; i < ARRAY_SIZE(faults); i++)
        if (!strcmp(kind, faults[i].kind))
            return true;
    return false;
}

void test_fault_raise(const char *kind)
{
    for (unsigned i = 0; i < ARRAY_SIZE(faults); i++)
        if (!strcmp(kind, faults[i].kind)) {
            if (faults[i].at)
                plat_diag("test_fault", "test_fault=%s: raising %s at rip 0x%lx", kind, faults[i].exception,
                          (unsigned long)(uintptr_t)faults[i].at);
            else
                plat_diag("test_fault", "test_fault=%s: raising %s", kind, faults[i].exception);
            faults[i].raise();
            plat_diag("test_fault", "test_fault=%s: execution went on after the fault", kind);
        }
}
#endif
