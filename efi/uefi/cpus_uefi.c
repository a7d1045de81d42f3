/* CPUs: the application processors, through EFI MP services (PI spec vol. 2, section 13.4). */
#include "uefi_private.h"

#define MP_SERVICES_GUID { 0x3fdda605, 0xa76e, 0x4f46, { 0xad, 0x29, 0x12, 0xf4, 0x53, 0x1b, 0x3d, 0x08 } }

typedef struct {
    UINT64 ProcessorId;
    UINT32 StatusFlag;
    struct {
        UINT32 Package, Core, Thread;
    } Location;
} MP_PROCESSOR_INFO;

typedef VOID(EFIAPI *MP_PROCEDURE)(VOID *arg);

typedef struct _MP_SERVICES MP_SERVICES;
struct _MP_SERVICES {
    EFI_STATUS(EFIAPI *GetNumberOfProcessors)(MP_SERVICES *This, UINTN *Total, UINTN *Enabled);
    EFI_STATUS(EFIAPI *GetProcessorInfo)(MP_SERVICES *This, UINTN Number, MP_PROCESSOR_INFO *Info);
    EFI_STATUS(EFIAPI *StartupAllAPs)(MP_SERVICES *This, MP_PROCEDURE Proc, BOOLEAN SingleThread, EFI_EVENT WaitEvent,
                                      UINTN TimeoutUs, VOID *Arg, UINTN **FailedCpuList);
    EFI_STATUS(EFIAPI *StartupThisAP)(MP_SERVICES *This, MP_PROCEDURE Proc, UINTN Number, EFI_EVENT WaitEvent,
                                      UINTN TimeoutUs, VOID *Arg, BOOLEAN *Finished);
    EFI_STATUS(EFIAPI *SwitchBSP)(MP_SERVICES *This, UINTN Number, BOOLEAN EnableOldBSP);
    EFI_STATUS(EFIAPI *EnableDisableAP)(MP_SERVICES *This, UINTN Number, BOOLEAN Enable, UINT32 *HealthFlag);
    EFI_STATUS(EFIAPI *WhoAmI)(MP_SERVICES *This, UINTN *Number);
};

#define MP_STATUS_ENABLED 0x2
#define MP_STATUS_BSP 0x1
#define MAX_CPUS 256

static MP_SERVICES *mp;
/* Arm without MP services: CPUs 1.. are PSCI cores 0.. (cpus_psci_aa64.c). */
static bool psci;
static unsigned ncpus = 1;
static uint32_t bsp_initial_apic;  /* CPUID.01h:EBX[31:24] of the boot processor */
static UINTN cpu_number[MAX_CPUS]; /* our index -> MP services processor number */
static uint32_t cpu_apic[MAX_CPUS];

/* This processor's APIC ID from CPUID, no firmware call, so any CPU may
 * ask: the x2APIC ID (leaf 0Bh, EDX) where the leaf exists, else the
 * initial APIC ID (leaf 1, EBX bits 31:24), which repeats past 255 CPUs. */
#if defined(__aarch64__)
/* Arm: the processor's MPIDR_EL1 affinity fields (Arm ARM D17.2.101),
 * Aff3 (bits 39:32) folded in above Aff2..Aff0, the form PI MP services
 * give as ProcessorId on Arm (EDK2 ArmPsciMpServicesDxe: the MPIDR). */
static uint32_t mpidr_affinity(uint64_t mpidr)
{
    return (uint32_t)(((mpidr >> 8) & 0xff000000u) | (mpidr & 0xffffffu));
}

static uint32_t initial_apic_id(void)
{
    uint64_t mpidr;

    __asm__ __volatile__("mrs %0, mpidr_el1" : "=r"(mpidr));
    return mpidr_affinity(mpidr);
}
#define PROCESSOR_ID(id) mpidr_affinity(id)
#else
#define PROCESSOR_ID(id) ((uint32_t)(id))
static uint32_t initial_apic_id(void)
{
    uint32_t a = 0, b, c = 0, d;

    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    if (a >= 0xb) {
        a = 0xb, c = 0;
        __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
        if (b & 0xffff)
            return d; /* leaf 0Bh implemented: EBX names the logical processors of level 0 */
    }
    a = 1, c = 0;
    __asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
    return b >> 24;
}
#endif

bool plat_on_bsp(void) { return (!mp && !psci) || ncpus == 1 || initial_apic_id() == bsp_initial_apic; }

void uefi_cpus_stop(void)
{
#if defined(__aarch64__)
    if (psci)
        psci_cpus_stop();
    psci = false;
    ncpus = mp ? ncpus : 1;
#endif
}

/* Number our CPUs: the bootstrap processor is 0, then each enabled AP. */
void uefi_cpus_init(void)
{
    EFI_GUID guid = MP_SERVICES_GUID;
    UINTN total = 0, enabled = 0, self = 0;
    MP_PROCESSOR_INFO info;

    ncpus = 1;
    cpu_apic[0] = 0;
    bsp_initial_apic = initial_apic_id();
    if (uefi_call_wrapper(bm_st->BootServices->LocateProtocol, 3, &guid, NULL, (void **)&mp) != EFI_SUCCESS) {
        mp = NULL;
#if defined(__aarch64__)
        {
            /* Arm firmware often has none (EDK2 ArmVirtQemu before 2023,
             * many vendor builds): start the cores through PSCI. */
            static uint64_t mpidrs[MAX_CPUS];
            uint64_t self_mpidr;
            unsigned n;

            __asm__ __volatile__("mrs %0, mpidr_el1" : "=r"(self_mpidr));
            cpu_apic[0] = bsp_initial_apic;
            n = psci_cpus_start(self_mpidr, mpidrs, MAX_CPUS - 1);
            for (unsigned i = 0; i < n; i++)
                cpu_apic[ncpus++] = mpidr_affinity(mpidrs[i]);
            psci = n > 0;
            plat_log("no EFI MP services protocol: %u more core%s started through PSCI CPU_ON\n", n,
                     n == 1 ? "" : "s");
        }
#endif
        return;
    }
    if (mp->GetNumberOfProcessors(mp, &total, &enabled) != EFI_SUCCESS)
        return;
    mp->WhoAmI(mp, &self);
    cpu_number[0] = self;
    if (mp->GetProcessorInfo(mp, self, &info) == EFI_SUCCESS)
        cpu_apic[0] = PROCESSOR_ID(info.ProcessorId);
    for (UINTN i = 0; i < total && ncpus < MAX_CPUS; i++) {
        if (i == self || mp->GetProcessorInfo(mp, i, &info) != EFI_SUCCESS)
            continue;
        if (!(info.StatusFlag & MP_STATUS_ENABLED))
            continue;
        cpu_number[ncpus] = i;
        cpu_apic[ncpus] = PROCESSOR_ID(info.ProcessorId);
        ncpus++;
    }
}

unsigned plat_cpu_count(void) { return ncpus; }
uint32_t plat_cpu_apic_id(unsigned i) { return i < ncpus ? cpu_apic[i] : 0; }

struct ap_job {
    plat_cpu_fn fn;
    void *arg;
    unsigned index;
};

static VOID EFIAPI ap_entry(VOID *p)
{
    struct ap_job *job = p;
    job->fn(job->index, job->arg);
}

int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    static struct ap_job jobs[MAX_CPUS];
    static EFI_EVENT events[MAX_CPUS];
    unsigned started = 1;

    if (n == 0)
        return BM_EINVAL;
    if (n > ncpus)
        n = ncpus;
#if defined(__aarch64__)
    if (psci) {
        for (unsigned i = 1; i < n; i++) {
            if (psci_cpu_post(i - 1, i, fn, arg) != BM_OK)
                break;
            started++;
        }
        fn(0, arg);
        /* No timeout, as below: fn is our own bounded compute loop. */
        for (unsigned i = 1; i < started; i++)
            while (!psci_cpu_idle(i - 1))
                plat_cpu_relax();
        return (int)started;
    }
#endif
    /* Non-blocking StartupThisAP (a WaitEvent) lets the BSP work too. */
    for (unsigned i = 1; i < n && mp; i++) {
        events[i] = NULL;
        jobs[i] = (struct ap_job){ fn, arg, i };
        if (uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, 0, 0, NULL, NULL, &events[i]) != EFI_SUCCESS)
            break;
        if (mp->StartupThisAP(mp, ap_entry, cpu_number[i], events[i], 0, &jobs[i], NULL) != EFI_SUCCESS) {
            uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, events[i]);
            break;
        }
        started++;
    }
    fn(0, arg);
    for (unsigned i = 1; i < started; i++) {
        /* The AP signals its event when fn returns; CheckEvent polls it.
         * No timeout: fn is our own bounded compute loop. */
        while (uefi_call_wrapper(bm_st->BootServices->CheckEvent, 1, events[i]) == EFI_NOT_READY)
            plat_cpu_relax();
        uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, events[i]);
    }
    return (int)started;
}

/* The engine's CPUs: one job each, started without waiting (StartupThisAP
 * with a WaitEvent, PI spec vol. 2 section 13.4.6) and waited for with a
 * deadline. An AP that never returns keeps its event and stays taken. */
static struct ap_job started_job[MAX_CPUS];
static EFI_EVENT started_event[MAX_CPUS];

int plat_cpu_start(unsigned cpu, plat_cpu_fn fn, void *arg)
{
    if (cpu == 0 || cpu >= ncpus)
        return BM_EINVAL;
#if defined(__aarch64__)
    if (psci)
        return psci_cpu_post(cpu - 1, cpu, fn, arg);
#endif
    if (!mp)
        return BM_ENOTSUP;
    if (started_event[cpu] && plat_cpu_wait(cpu, 0) != BM_OK)
        return BM_EBUSY;
    started_job[cpu] = (struct ap_job){ fn, arg, cpu };
    if (uefi_call_wrapper(bm_st->BootServices->CreateEvent, 5, 0, 0, NULL, NULL, &started_event[cpu]) != EFI_SUCCESS) {
        started_event[cpu] = NULL;
        return BM_EIO;
    }
    if (mp->StartupThisAP(mp, ap_entry, cpu_number[cpu], started_event[cpu], 0, &started_job[cpu], NULL) !=
        EFI_SUCCESS) {
        uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, started_event[cpu]);
        started_event[cpu] = NULL;
        return BM_EIO;
    }
    return BM_OK;
}

int plat_cpu_wait(unsigned cpu, uint64_t timeout_ns)
{
    uint64_t deadline = plat_now_ns() + timeout_ns;

#if defined(__aarch64__)
    if (psci && cpu > 0 && cpu < ncpus) {
        while (!psci_cpu_idle(cpu - 1)) {
            if (plat_now_ns() >= deadline)
                return BM_ETIMEDOUT;
            plat_cpu_relax();
        }
        return BM_OK;
    }
#endif
    if (cpu == 0 || cpu >= ncpus || !started_event[cpu])
        return BM_EINVAL;
    for (;;) {
        /* The AP signals the event when fn returns; CheckEvent polls it. */
        if (uefi_call_wrapper(bm_st->BootServices->CheckEvent, 1, started_event[cpu]) != EFI_NOT_READY) {
            uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, started_event[cpu]);
            started_event[cpu] = NULL;
            return BM_OK;
        }
        if (plat_now_ns() >= deadline)
            return BM_ETIMEDOUT;
        plat_cpu_relax();
    }
}
