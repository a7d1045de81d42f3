/* The platform seam on UEFI firmware (GNU-EFI). */
#include "platform_uefi.h"
#include "../drivers/pci_regs.h"
#include "../drivers/pci.h"
#include "../drivers/uart16550.h"

EFI_HANDLE bm_image_handle;   /* set by efi_main */
EFI_SYSTEM_TABLE *bm_st;

static EFI_LOADED_IMAGE *loaded_image;
static EFI_FILE_HANDLE boot_root;
static bool boot_root_writable;

/* ---- CPU helpers -------------------------------------------------------------- */

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

void plat_outb(uint16_t port, uint8_t v) { __asm__ __volatile__("outb %0, %1" ::"a"(v), "Nd"(port)); }
uint8_t plat_inb(uint16_t port)
{
    uint8_t v;
    __asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
void plat_outl(uint16_t port, uint32_t v) { __asm__ __volatile__("outl %0, %1" ::"a"(v), "Nd"(port)); }
uint32_t plat_inl(uint16_t port)
{
    uint32_t v;
    __asm__ __volatile__("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

/* ---- ACPI tables ------------------------------------------------------------- */

struct acpi_header {
    char sig[4];
    uint32_t length;
    uint8_t revision, checksum;
    char oem_id[6], oem_table_id[8];
    uint32_t oem_revision, creator_id, creator_revision;
} __attribute__((packed));

static void *config_table(EFI_GUID *guid)
{
    for (UINTN i = 0; i < bm_st->NumberOfTableEntries; i++)
        if (!CompareMem(&bm_st->ConfigurationTable[i].VendorGuid, guid, sizeof(EFI_GUID)))
            return bm_st->ConfigurationTable[i].VendorTable;
    return NULL;
}

const void *plat_acpi_table(const char sig[4], unsigned instance)
{
    EFI_GUID acpi20 = ACPI_20_TABLE_GUID;
    const uint8_t *rsdp = config_table(&acpi20);
    const struct acpi_header *sdt;
    bool xsdt;
    unsigned n, entry_size;

    if (!rsdp || memcmp(rsdp, "RSD PTR ", 8))
        return NULL;
    /* ACPI 6.5 section 5.2.5.3: XSDT address at offset 24 (revision >= 2),
     * RSDT address at offset 16. */
    xsdt = rsdp[15] >= 2 && *(const uint64_t *)(rsdp + 24);
    sdt = xsdt ? (const void *)(uintptr_t) * (const uint64_t *)(rsdp + 24)
               : (const void *)(uintptr_t) * (const uint32_t *)(rsdp + 16);
    if (!sdt)
        return NULL;
    entry_size = xsdt ? 8 : 4;
    n = (sdt->length - sizeof(*sdt)) / entry_size;
    for (unsigned i = 0; i < n; i++) {
        const uint8_t *p = (const uint8_t *)(sdt + 1) + i * entry_size;
        uint64_t addr = xsdt ? *(const uint64_t *)p : *(const uint32_t *)p;
        const struct acpi_header *t = (const void *)(uintptr_t)addr;
        if (t && !memcmp(t->sig, sig, 4) && instance-- == 0)
            return t;
    }
    return NULL;
}

/* ---- Clock ------------------------------------------------------------------ */

static uint64_t tsc_hz, tsc_base;
static const char *clock_source = "none";

#define PM_TIMER_HZ 3579545ull

/* The ACPI PM timer's I/O port from the FADT (ACPI 6.5 table 5.9:
 * PM_TMR_BLK at offset 76, X_PM_TMR_BLK at 208, TMR_VAL_EXT flag bit 8). */
static uint16_t pm_timer_port(bool *ext32)
{
    const uint8_t *fadt = plat_acpi_table("FACP", 0);
    uint32_t len, port = 0;

    if (!fadt)
        return 0;
    len = ((const struct acpi_header *)fadt)->length;
    if (len >= 220 && fadt[208] == 1 /* system I/O */ && *(const uint64_t *)(fadt + 212))
        port = (uint32_t) * (const uint64_t *)(fadt + 212);
    else if (len >= 80)
        port = *(const uint32_t *)(fadt + 76);
    *ext32 = len >= 116 && (*(const uint32_t *)(fadt + 112) & (1u << 8));
    return port <= 0xffff ? (uint16_t)port : 0;
}

/* Count TSC ticks over ~50 ms of the PM timer. */
static uint64_t calibrate_pm_timer(void)
{
    bool ext32 = false;
    uint16_t port = pm_timer_port(&ext32);
    uint32_t mask, start, now, elapsed = 0;
    uint64_t t0, t1, target = PM_TIMER_HZ / 20;
    uint64_t guard;

    if (!port)
        return 0;
    mask = ext32 ? 0xffffffffu : 0xffffffu;
    start = plat_inl(port) & mask;
    t0 = rdtsc();
    /* Guard: a dead timer must not hang us; 2^32 TSC ticks is >1 s anywhere. */
    guard = t0 + (1ull << 32);
    do {
        now = plat_inl(port) & mask;
        elapsed = (now - start) & mask;
        t1 = rdtsc();
        if (t1 > guard)
            return 0;
    } while (elapsed < target);
    return (t1 - t0) * PM_TIMER_HZ / elapsed;
}

/* HPET (IA-PC HPET spec 1.0a: GCAP_ID at 0 with the period in fs in bits
 * 63:32, GEN_CONF at 0x10 bit 0 enables, main counter at 0xf0). */
static uint64_t calibrate_hpet(void)
{
    const uint8_t *t = plat_acpi_table("HPET", 0);
    volatile uint8_t *base;
    uint64_t period_fs, c0, c1, t0, t1, target, guard;

    if (!t)
        return 0;
    base = (volatile uint8_t *)(uintptr_t) * (const uint64_t *)(t + 44);
    period_fs = mmio_read64(base, 0) >> 32;
    if (!period_fs || period_fs > 100000000ull)
        return 0;
    mmio_write32(base, 0x10, mmio_read32(base, 0x10) | 1);
    target = 50000000000000ull / period_fs; /* 50 ms in counter ticks */
    c0 = mmio_read64(base, 0xf0);
    t0 = rdtsc();
    guard = t0 + (1ull << 32);
    do {
        c1 = mmio_read64(base, 0xf0);
        t1 = rdtsc();
        if (t1 > guard)
            return 0;
    } while (c1 - c0 < target);
    return (uint64_t)((double)(t1 - t0) * 1e15 / ((double)(c1 - c0) * (double)period_fs));
}

static void calibrate_clock(void)
{
    uint64_t t0;

    tsc_hz = calibrate_pm_timer();
    if (tsc_hz) {
        clock_source = "acpi_pm";
    } else if ((tsc_hz = calibrate_hpet())) {
        clock_source = "hpet";
    } else {
        t0 = rdtsc();
        uefi_call_wrapper(bm_st->BootServices->Stall, 1, 50000);
        tsc_hz = (rdtsc() - t0) * 20;
        clock_source = "stall";
    }
    tsc_base = rdtsc();
}

uint64_t plat_now_ns(void)
{
    uint64_t d = rdtsc() - tsc_base;
    if (!tsc_hz)
        return 0;
    return (uint64_t)((unsigned __int128)d * 1000000000ull / tsc_hz);
}

uint64_t plat_tsc_hz(void) { return tsc_hz; }
const char *plat_clock_source(void) { return clock_source; }

void plat_delay_ns(uint64_t ns)
{
    uint64_t end = plat_now_ns() + ns;
    while (plat_now_ns() < end)
        __asm__ __volatile__("pause");
}

/* ---- Memory ----------------------------------------------------------------- */

void *plat_alloc(size_t bytes)
{
    void *p = NULL;
    if (uefi_call_wrapper(bm_st->BootServices->AllocatePool, 3, EfiLoaderData, bytes, &p) != EFI_SUCCESS)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

void plat_free(void *p)
{
    if (p)
        uefi_call_wrapper(bm_st->BootServices->FreePool, 1, p);
}

static void *alloc_pages_typed(size_t bytes, EFI_ALLOCATE_TYPE type, EFI_PHYSICAL_ADDRESS addr)
{
    UINTN pages = (bytes + 4095) / 4096;

    if (uefi_call_wrapper(bm_st->BootServices->AllocatePages, 4, type, EfiLoaderData, pages, &addr) != EFI_SUCCESS)
        return NULL;
    memset((void *)(uintptr_t)addr, 0, pages * 4096);
    return (void *)(uintptr_t)addr;
}

void *plat_alloc_pages(size_t bytes, bool below_4g)
{
    if (below_4g)
        return alloc_pages_typed(bytes, AllocateMaxAddress, 0xffffffffull);
    return alloc_pages_typed(bytes, AllocateAnyPages, 0);
}

void plat_free_pages(void *p, size_t bytes)
{
    if (p)
        uefi_call_wrapper(bm_st->BootServices->FreePages, 2, (EFI_PHYSICAL_ADDRESS)(uintptr_t)p,
                          (bytes + 4095) / 4096);
}

uint64_t plat_virt_to_phys(const void *p) { return (uint64_t)(uintptr_t)p; }

/* Visit every conventional-memory range of the firmware's memory map. */
static void for_each_free_range(void (*fn)(uint64_t start, uint64_t bytes, void *arg), void *arg)
{
    UINTN size = 0, key, desc_size;
    UINT32 desc_version;
    EFI_MEMORY_DESCRIPTOR *map = NULL;
    EFI_STATUS st;

    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    if (st != EFI_BUFFER_TOO_SMALL)
        return;
    size += 8 * desc_size; /* the allocation below may add entries */
    map = plat_alloc(size);
    if (!map)
        return;
    st = uefi_call_wrapper(bm_st->BootServices->GetMemoryMap, 5, &size, map, &key, &desc_size, &desc_version);
    if (st == EFI_SUCCESS) {
        for (UINTN off = 0; off < size; off += desc_size) {
            EFI_MEMORY_DESCRIPTOR *d = (void *)((uint8_t *)map + off);
            if (d->Type == EfiConventionalMemory)
                fn(d->PhysicalStart, d->NumberOfPages * 4096ull, arg);
        }
    }
    plat_free(map);
}

static void sum_range(uint64_t start, uint64_t bytes, void *arg)
{
    (void)start;
    *(uint64_t *)arg += bytes;
}

uint64_t plat_free_memory_bytes(void)
{
    uint64_t total = 0;
    for_each_free_range(sum_range, &total);
    return total;
}

struct range_search {
    uint64_t lo, hi, bytes, found;
};

static void find_in_range(uint64_t start, uint64_t bytes, void *arg)
{
    struct range_search *s = arg;
    uint64_t a = MAX(start, s->lo), b = MIN(start + bytes, s->hi);

    a = ALIGN_UP(a, 2ull << 20); /* 2 MiB: keep large-page mappings whole */
    if (!s->found && b > a && b - a >= s->bytes)
        s->found = a;
}

void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi)
{
    struct range_search s = { lo, hi, ALIGN_UP((uint64_t)bytes, 4096ull), 0 };

    for_each_free_range(find_in_range, &s);
    if (!s.found)
        return NULL;
    return alloc_pages_typed(bytes, AllocateAddress, s.found);
}

/* ---- CPUs: EFI MP services (PI spec vol. 2, section 13.4) --------------------------- */

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
static unsigned ncpus = 1;
static UINTN cpu_number[MAX_CPUS]; /* our index -> MP services processor number */
static uint32_t cpu_apic[MAX_CPUS];

static void discover_cpus(void)
{
    EFI_GUID guid = MP_SERVICES_GUID;
    UINTN total = 0, enabled = 0, self = 0;
    MP_PROCESSOR_INFO info;

    ncpus = 1;
    cpu_apic[0] = 0;
    if (uefi_call_wrapper(bm_st->BootServices->LocateProtocol, 3, &guid, NULL, (void **)&mp) != EFI_SUCCESS) {
        mp = NULL;
        return;
    }
    if (mp->GetNumberOfProcessors(mp, &total, &enabled) != EFI_SUCCESS)
        return;
    mp->WhoAmI(mp, &self);
    cpu_number[0] = self;
    if (mp->GetProcessorInfo(mp, self, &info) == EFI_SUCCESS)
        cpu_apic[0] = (uint32_t)info.ProcessorId;
    for (UINTN i = 0; i < total && ncpus < MAX_CPUS; i++) {
        if (i == self || mp->GetProcessorInfo(mp, i, &info) != EFI_SUCCESS)
            continue;
        if (!(info.StatusFlag & MP_STATUS_ENABLED))
            continue;
        cpu_number[ncpus] = i;
        cpu_apic[ncpus] = (uint32_t)info.ProcessorId;
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
            __asm__ __volatile__("pause");
        uefi_call_wrapper(bm_st->BootServices->CloseEvent, 1, events[i]);
    }
    return (int)started;
}

/* ---- Firmware tables, identity, time ------------------------------------------------- */

int plat_smbios_table(const void **table, size_t *len, int *major, int *minor)
{
    EFI_GUID g3 = SMBIOS3_TABLE_GUID, g2 = SMBIOS_TABLE_GUID;
    const uint8_t *ep;

    /* SMBIOS 3.3 section 5.2: "_SM3_" 64-bit entry point, "_SM_" 32-bit. */
    ep = config_table(&g3);
    if (ep && !memcmp(ep, "_SM3_", 5)) {
        *major = ep[7];
        *minor = ep[8];
        *len = *(const uint32_t *)(ep + 0x0c);
        *table = (const void *)(uintptr_t) * (const uint64_t *)(ep + 0x10);
        return BM_OK;
    }
    ep = config_table(&g2);
    if (ep && !memcmp(ep, "_SM_", 4)) {
        *major = ep[6];
        *minor = ep[7];
        *len = *(const uint16_t *)(ep + 0x16);
        *table = (const void *)(uintptr_t) * (const uint32_t *)(ep + 0x18);
        return BM_OK;
    }
    return BM_ENODEV;
}

static void ucs2_to_ascii(char *dst, size_t cap, const CHAR16 *src, size_t max_chars)
{
    size_t n = 0;
    for (size_t i = 0; src && i < max_chars && src[i] && n + 1 < cap; i++)
        dst[n++] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
    if (cap)
        dst[n] = '\0';
}

void plat_firmware_info(char *buf, size_t len)
{
    char vendor[64];
    ucs2_to_ascii(vendor, sizeof(vendor), bm_st->FirmwareVendor, 63);
    snprintf(buf, len, "%s 0x%08x (UEFI %u.%u)", vendor, bm_st->FirmwareRevision, bm_st->Hdr.Revision >> 16,
             (bm_st->Hdr.Revision & 0xffff) / 10);
}

void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    EFI_TIME t;

    memset(&t, 0, sizeof(t));
    if (uefi_call_wrapper(bm_st->RuntimeServices->GetTime, 2, &t, NULL) != EFI_SUCCESS) {
        t.Year = 1970;
        t.Month = 1;
        t.Day = 1;
    }
    /* The RTC usually keeps local time with an unspecified zone
     * (TimeZone 0x7ff); we say so by leaving the offset off. */
    if (t.TimeZone == EFI_UNSPECIFIED_TIMEZONE)
        snprintf(iso, iso_len, "%04u-%02u-%02uT%02u:%02u:%02u", t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second);
    else
        snprintf(iso, iso_len, "%04u-%02u-%02uT%02u:%02u:%02u%c%02d:%02d", t.Year, t.Month, t.Day, t.Hour, t.Minute,
                 t.Second, t.TimeZone <= 0 ? '+' : '-', (t.TimeZone < 0 ? -t.TimeZone : t.TimeZone) / 60,
                 (t.TimeZone < 0 ? -t.TimeZone : t.TimeZone) % 60);
    snprintf(compact, compact_len, "%04u%02u%02u-%02u%02u%02u", t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second);
}

/* ---- PCI configuration space: ECAM from MCFG, else ports 0xcf8/0xcfc -------------------- */

struct ecam {
    uint64_t base;
    uint16_t seg;
    uint8_t bus_start, bus_end;
};
static struct ecam ecams[8];
static int necams;

static void find_ecam(void)
{
    const uint8_t *mcfg = plat_acpi_table("MCFG", 0);
    uint32_t len;

    necams = 0;
    if (!mcfg)
        return;
    len = ((const struct acpi_header *)mcfg)->length;
    /* PCI Firmware spec 3.2 table 4-3: entries of 16 bytes after 44. */
    for (uint32_t off = 44; off + 16 <= len && necams < (int)ARRAY_SIZE(ecams); off += 16) {
        struct ecam *e = &ecams[necams++];
        e->base = *(const uint64_t *)(mcfg + off);
        e->seg = *(const uint16_t *)(mcfg + off + 8);
        e->bus_start = mcfg[off + 10];
        e->bus_end = mcfg[off + 11];
    }
}

static volatile uint8_t *ecam_addr(struct pci_addr a, uint16_t off)
{
    for (int i = 0; i < necams; i++) {
        struct ecam *e = &ecams[i];
        if (e->seg == a.seg && a.bus >= e->bus_start && a.bus <= e->bus_end)
            return (volatile uint8_t *)(uintptr_t)(e->base + ((uint64_t)(a.bus - e->bus_start) << 20) +
                                                   ((uint64_t)a.dev << 15) + ((uint64_t)a.fn << 12) + off);
    }
    return NULL;
}

static uint32_t cf8_addr(struct pci_addr a, uint16_t off)
{
    return 0x80000000u | ((uint32_t)a.bus << 16) | ((uint32_t)a.dev << 11) | ((uint32_t)a.fn << 8) | (off & 0xfc);
}

uint32_t plat_pci_read32(struct pci_addr a, uint16_t off)
{
    volatile uint8_t *p = ecam_addr(a, off & ~3);
    if (p)
        return *(volatile uint32_t *)p;
    if (a.seg != 0 || off >= 256)
        return 0xffffffffu;
    plat_outl(0xcf8, cf8_addr(a, off));
    return plat_inl(0xcfc);
}

void plat_pci_write32(struct pci_addr a, uint16_t off, uint32_t v)
{
    volatile uint8_t *p = ecam_addr(a, off & ~3);
    if (p) {
        *(volatile uint32_t *)p = v;
        return;
    }
    if (a.seg != 0 || off >= 256)
        return;
    plat_outl(0xcf8, cf8_addr(a, off));
    plat_outl(0xcfc, v);
}

uint16_t plat_pci_read16(struct pci_addr a, uint16_t off)
{
    return (uint16_t)(plat_pci_read32(a, off & ~3) >> ((off & 2) * 8));
}

uint8_t plat_pci_read8(struct pci_addr a, uint16_t off)
{
    return (uint8_t)(plat_pci_read32(a, off & ~3) >> ((off & 3) * 8));
}

void plat_pci_write16(struct pci_addr a, uint16_t off, uint16_t v)
{
    uint32_t old = plat_pci_read32(a, off & ~3);
    unsigned shift = (off & 2) * 8;
    old &= ~(0xffffu << shift);
    plat_pci_write32(a, off & ~3, old | ((uint32_t)v << shift));
}

int plat_pci_segments(uint16_t *segs, uint8_t *bus_start, uint8_t *bus_end, int max)
{
    int n = 0;
    if (necams == 0 && max > 0) {
        segs[0] = 0;
        bus_start[0] = 0;
        bus_end[0] = 255;
        return 1;
    }
    for (int i = 0; i < necams && n < max; i++, n++) {
        segs[n] = ecams[i].seg;
        bus_start[n] = ecams[i].bus_start;
        bus_end[n] = ecams[i].bus_end;
    }
    return n;
}

/* The firmware's handle for a PCI function, via EFI_PCI_IO_PROTOCOL.GetLocation. */
static EFI_HANDLE pci_handle(struct pci_addr a)
{
    EFI_GUID guid = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_HANDLE *handles = NULL, found = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &guid, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return NULL;
    for (UINTN i = 0; i < count && !found; i++) {
        EFI_PCI_IO *io;
        UINTN seg, bus, dev, fn;
        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &guid, (void **)&io) != EFI_SUCCESS)
            continue;
        if (uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) != EFI_SUCCESS)
            continue;
        if (seg == a.seg && bus == a.bus && dev == a.dev && fn == a.fn)
            found = handles[i];
    }
    plat_free(handles);
    return found;
}

int plat_pci_claim(struct pci_addr a)
{
    EFI_HANDLE h = pci_handle(a);
    EFI_STATUS st;

    if (!h)
        return BM_OK; /* no firmware handle: nobody else drives it */
    st = uefi_call_wrapper(bm_st->BootServices->DisconnectController, 3, h, NULL, NULL);
    /* EFI_NOT_FOUND: no driver was connected. Anything else means a driver
     * refused to let go, and two drivers on one queue corrupt both. */
    if (st != EFI_SUCCESS && st != EFI_NOT_FOUND)
        return BM_EBUSY;
    return BM_OK;
}

#define PCI_CLASS_USB_CONTROLLER 0x0c03 /* serial bus controller, USB (PCI code and ID 1.11) */

void uefi_connect_storage_controllers(const struct pci_addr *taken, unsigned ntaken, bool with_usb)
{
    EFI_GUID pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_HANDLE *handles = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &pcig, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return;
    for (UINTN i = 0; i < count; i++) {
        EFI_PCI_IO *io;
        UINTN seg, bus, dev, fn;
        struct pci_addr a;
        uint32_t cls;
        bool skip = false;

        if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, handles[i], &pcig, (void **)&io) !=
                EFI_SUCCESS ||
            uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) != EFI_SUCCESS)
            continue;
        a = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        for (unsigned k = 0; k < ntaken; k++)
            skip |= taken[k].seg == a.seg && taken[k].bus == a.bus && taken[k].dev == a.dev && taken[k].fn == a.fn;
        cls = plat_pci_read32(a, PCI_CLASS_REVISION) >> 8; /* base << 16 | sub << 8 | prog-if */
        if (skip || ((cls >> 16) != PCI_CLASS_STORAGE && !(with_usb && (cls >> 8) == PCI_CLASS_USB_CONTROLLER)))
            continue;
        uefi_call_wrapper(bm_st->BootServices->ConnectController, 4, handles[i], NULL, NULL, TRUE);
    }
    plat_free(handles);
}

void plat_pci_release(struct pci_addr a)
{
    EFI_HANDLE h = pci_handle(a);

    /* The bridges above go back as found before the firmware's driver is
     * connected again: it enables what it needs itself (EDK II's PciIo
     * Attributes enables the parent bridges), and must find them so. */
    pci_release_bridges(a);
    if (h)
        uefi_call_wrapper(bm_st->BootServices->ConnectController, 4, h, NULL, NULL, TRUE);
}

volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size)
{
    uint16_t off = (uint16_t)(0x10 + bar * 4);
    uint32_t lo = plat_pci_read32(a, off), hi = 0, szlo, szhi = 0xffffffffu;
    uint16_t cmd;
    bool is64;
    uint64_t addr, mask;

    if (lo & 1)
        return NULL; /* an I/O BAR */
    is64 = ((lo >> 1) & 3) == 2;
    if (is64)
        hi = plat_pci_read32(a, off + 4);
    /* Size the BAR with decoding off, then restore it (PCI 3.0 section 6.2.5.1). */
    cmd = plat_pci_read16(a, 0x04);
    plat_pci_write16(a, 0x04, cmd & ~0x3);
    plat_pci_write32(a, off, 0xffffffffu);
    szlo = plat_pci_read32(a, off);
    plat_pci_write32(a, off, lo);
    if (is64) {
        plat_pci_write32(a, off + 4, 0xffffffffu);
        szhi = plat_pci_read32(a, off + 4);
        plat_pci_write32(a, off + 4, hi);
    }
    plat_pci_write16(a, 0x04, cmd);
    addr = ((uint64_t)hi << 32) | (lo & ~0xfu);
    mask = ((uint64_t)(is64 ? szhi : 0xffffffffu) << 32) | (szlo & ~0xfu);
    if (size)
        *size = ~mask + 1;
    if (!addr)
        return NULL;
    return (volatile void *)(uintptr_t)addr;
}

/* ---- Console and input ------------------------------------------------------------ */

/* UTF-8 in, UCS-2 out (ConOut takes UCS-2): a byte at a time would turn
 * each byte of a sequence into its own character, and a C1 byte into a
 * terminal control. Characters beyond the BMP, invalid sequences and
 * control characters other than CR, LF and TAB are shown as '?'. */
void plat_console_write(const char *s)
{
    CHAR16 buf[256];
    size_t n = 0;

    while (*s) {
        uint32_t cp;
        s += bm_utf8_next(s, &cp);
        if (cp == '\n')
            buf[n++] = L'\r';
        if (cp == BM_UTF8_INVALID || cp > 0xffff || (cp < 0x20 && cp != '\n' && cp != '\r' && cp != '\t') ||
            (cp >= 0x7f && cp <= 0x9f))
            cp = '?';
        buf[n++] = (CHAR16)cp;
        if (n >= ARRAY_SIZE(buf) - 3) {
            buf[n] = 0;
            uefi_call_wrapper(bm_st->ConOut->OutputString, 2, bm_st->ConOut, buf);
            n = 0;
        }
    }
    buf[n] = 0;
    if (n)
        uefi_call_wrapper(bm_st->ConOut->OutputString, 2, bm_st->ConOut, buf);
}

void plat_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    plat_console_write(line);
    plat_console_write("\n");
}

#define SCAN_ESC_CODE 0x17

bool plat_abort_requested(void)
{
    static bool aborted;
    static uint64_t next_check;
    EFI_INPUT_KEY key;
    uint64_t now = plat_now_ns();

    /* ReadKeyStroke is slow on some firmware: look at most every 100 ms. */
    if (aborted || now < next_check)
        return aborted;
    next_check = now + 100000000ull;
    while (uefi_call_wrapper(bm_st->ConIn->ReadKeyStroke, 2, bm_st->ConIn, &key) == EFI_SUCCESS)
        if (key.ScanCode == SCAN_ESC_CODE || key.UnicodeChar == 0x1b)
            aborted = true;
    return aborted;
}

static char *load_options;

static bool load_options_lost;

/* Without memory for them the options are refused by name, not dropped. */
const char *plat_load_options(void)
{
    return load_options ? load_options : load_options_lost ? "baremark load_options=out_of_memory" : "";
}

/* LoadOptions from the shell or iPXE are UCS-2 text; boot-manager entries
 * may carry binary data, which we ignore. The text is taken whole,
 * whatever its length: config_parse_args refuses a line it cannot take
 * rather than have options silently cut off here. */
static void read_load_options(void)
{
    const CHAR16 *p = loaded_image->LoadOptions;
    size_t chars = loaded_image->LoadOptionsSize / 2, n = 0;
    char *text;

    load_options = NULL;
    if (!p || !chars)
        return;
    for (n = 0; n < chars && p[n]; n++)
        if (p[n] != '\t' && (p[n] < 0x20 || p[n] >= 0x7f))
            return; /* not text */
    text = plat_alloc(n + 1);
    if (!text) {
        load_options_lost = true;
        return;
    }
    for (size_t i = 0; i < n; i++)
        text[i] = (char)p[i];
    text[n] = '\0';
    load_options = text;
}

/* ---- Serial --------------------------------------------------------------------- */

static struct plat_uart serial_uart;
static bool serial_open;

int plat_serial_open(const struct plat_uart *u)
{
    int rc = uart_init(u);
    serial_open = rc == BM_OK;
    if (serial_open)
        serial_uart = *u;
    return rc;
}

void plat_serial_write(const char *data, size_t len)
{
    if (serial_open)
        uart_write(&serial_uart, data, len);
}

long plat_console_device_path(void *buf, size_t cap)
{
    EFI_GUID global = EFI_GLOBAL_VARIABLE;
    UINTN size = cap;
    UINT32 attr;
    EFI_STATUS st = uefi_call_wrapper(bm_st->RuntimeServices->GetVariable, 5, L"ConOut", &global, &attr, &size, buf);

    if (st == EFI_BUFFER_TOO_SMALL)
        return BM_ENOSPC;
    if (st != EFI_SUCCESS)
        return BM_ENODEV;
    return (long)size;
}

/* UEFI PI 1.7 volume 5 section 14: the Super I/O protocol (not in gnu-efi). */
#define EFI_SIO_PROTOCOL_GUID { 0x215fdd18, 0xbd50, 0x4feb, { 0x89, 0x0b, 0x58, 0xca, 0x0b, 0x47, 0x39, 0xe9 } }
struct efi_sio_protocol {
    void *register_access;
    EFI_STATUS(EFIAPI *get_resources)(struct efi_sio_protocol *self, const uint8_t **resources);
    void *set_resources, *possible_resources, *modify;
};

/* ACPI 6.5 section 6.4.2: small resource descriptors a COM port lists. */
#define ACPI_RES_IO_PORT 0x47        /* info, min u16, max u16, align, length */
#define ACPI_RES_FIXED_IO 0x4b       /* base u16, length */
#define ACPI_RES_END 0x79

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port)
{
    EFI_GUID siog = EFI_SIO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *rest = (EFI_DEVICE_PATH *)(uintptr_t)path;
    EFI_HANDLE h;
    struct efi_sio_protocol *sio;
    const uint8_t *r = NULL;

    if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &siog, &rest, &h) != EFI_SUCCESS ||
        (const uint8_t *)rest != (const uint8_t *)path + prefix_len ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &siog, (void **)&sio) != EFI_SUCCESS ||
        uefi_call_wrapper(sio->get_resources, 2, sio, &r) != EFI_SUCCESS || !r)
        return BM_ENODEV;
    /* As PciSioSerialDxe CreateSerialDevice(): the first I/O range with a
     * length is the UART's base. The list is the firmware's; stop after a
     * few dozen descriptors if it lacks its end tag. */
    for (unsigned n = 0; n < 32 && r[0] != ACPI_RES_END; n++) {
        if (r[0] & 0x80) {               /* large descriptor: tag, length u16 */
            r += 3 + (r[1] | r[2] << 8);
            continue;
        }
        if (r[0] == ACPI_RES_IO_PORT && r[7]) {
            *port = (uint16_t)(r[2] | r[3] << 8);
            return BM_OK;
        }
        if (r[0] == ACPI_RES_FIXED_IO && r[3]) {
            *port = (uint16_t)(r[1] | r[2] << 8);
            return BM_OK;
        }
        r += 1 + (r[0] & 7);
    }
    return BM_ENODEV;
}

/* ---- Files: the boot volume, other FAT volumes, TFTP --------------------------------- */

static EFI_HANDLE results_volume_handle;   /* device handle of the results volume */
static EFI_FILE_HANDLE results_root;
static EFI_PXE_BASE_CODE *pxe;
static EFI_IP_ADDRESS pxe_server;
static char pxe_dir[128];                  /* the boot file's folder on the TFTP server */
static const char *boot_source = "unknown";

static void ascii_to_ucs2(CHAR16 *dst, size_t cap, const char *src)
{
    size_t n = 0;
    for (; *src && n + 1 < cap; src++)
        dst[n++] = (CHAR16)(*src == '/' ? '\\' : *src);
    dst[n] = 0;
}

/* The root directory of the file system on a handle, and whether it says
 * it is read-only. */
static EFI_FILE_HANDLE open_root(EFI_HANDLE h, bool *read_only, char *label, size_t label_len)
{
    EFI_GUID fsg = SIMPLE_FILE_SYSTEM_PROTOCOL, infog = EFI_FILE_SYSTEM_INFO_ID;
    EFI_FILE_IO_INTERFACE *fs;
    EFI_FILE_HANDLE root;
    static uint8_t infobuf[1024];
    UINTN infosize = sizeof(infobuf);

    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, h, &fsg, (void **)&fs) != EFI_SUCCESS)
        return NULL;
    if (uefi_call_wrapper(fs->OpenVolume, 2, fs, &root) != EFI_SUCCESS)
        return NULL;
    *read_only = false;
    if (label_len)
        label[0] = '\0';
    if (uefi_call_wrapper(root->GetInfo, 4, root, &infog, &infosize, infobuf) == EFI_SUCCESS) {
        EFI_FILE_SYSTEM_INFO *info = (EFI_FILE_SYSTEM_INFO *)infobuf;
        *read_only = info->ReadOnly;
        if (label_len)
            ucs2_to_ascii(label, label_len, info->VolumeLabel, label_len - 1);
    }
    return root;
}

/* After a firmware PXE boot: the TFTP server and the boot file's folder. */
static void open_pxe(void)
{
    EFI_GUID pxeg = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
    EFI_PXE_BASE_CODE_PACKET *pkt;
    char *slash;

    pxe = NULL;
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, loaded_image->DeviceHandle, &pxeg, (void **)&pxe) !=
            EFI_SUCCESS ||
        !pxe->Mode || !pxe->Mode->Started || pxe->Mode->UsingIpv6) {
        pxe = NULL;
        return;
    }
    /* A proxy DHCP server (dnsmasq's "proxy" mode) names the boot server
     * in its offer; otherwise the DHCP ACK does (RFC 2131 siaddr/file). */
    pkt = pxe->Mode->ProxyOfferReceived && pxe->Mode->ProxyOffer.Dhcpv4.BootpBootFile[0] ? &pxe->Mode->ProxyOffer
                                                                                         : &pxe->Mode->DhcpAck;
    memset(&pxe_server, 0, sizeof(pxe_server));
    memcpy(&pxe_server.v4, pkt->Dhcpv4.BootpSiAddr, 4);
    bm_copy_padded(pxe_dir, sizeof(pxe_dir), pkt->Dhcpv4.BootpBootFile, sizeof(pkt->Dhcpv4.BootpBootFile));
    slash = strrchr(pxe_dir, '/');
    if (slash)
        slash[1] = '\0';
    else
        pxe_dir[0] = '\0';
}

static void open_boot_volume(void)
{
    bool ro = true;
    char label[64];
    EFI_GUID pxeg = EFI_PXE_BASE_CODE_PROTOCOL_GUID;
    void *unused;

    boot_root = NULL;
    boot_root_writable = false;
    if (!loaded_image->DeviceHandle)
        return;
    boot_root = open_root(loaded_image->DeviceHandle, &ro, label, sizeof(label));
    boot_root_writable = boot_root && !ro;
    open_pxe();
    /* iPXE installs a read-only file system serving what it fetched on the
     * same handle as its PXE base code; the firmware's PXE boot has only
     * the PXE base code. */
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, loaded_image->DeviceHandle, &pxeg, &unused) ==
        EFI_SUCCESS)
        boot_source = boot_root ? "ipxe" : "pxe";
    else if (boot_root)
        boot_source = "disk";
}

const char *plat_boot_source(void) { return boot_source; }

static long read_from_root(EFI_FILE_HANDLE root, const char *path, char *buf, size_t cap)
{
    CHAR16 wpath[256];
    EFI_FILE_HANDLE f;
    UINTN size = cap;
    EFI_STATUS st;

    ascii_to_ucs2(wpath, ARRAY_SIZE(wpath), path);
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath, EFI_FILE_MODE_READ, 0) != EFI_SUCCESS)
        return BM_ENODEV;
    st = uefi_call_wrapper(f->Read, 3, f, &size, buf);
    uefi_call_wrapper(f->Close, 1, f);
    return st == EFI_SUCCESS ? (long)size : BM_EIO;
}

/* One TFTP read through the firmware's PXE base code (UEFI 2.10 section 24.3). */
static long read_from_tftp(const char *name, char *buf, size_t cap)
{
    char remote[256];
    UINT64 size = cap;
    EFI_STATUS st;

    snprintf(remote, sizeof(remote), "%s%s", pxe_dir, name);
    st = uefi_call_wrapper(pxe->Mtftp, 10, pxe, EFI_PXE_BASE_CODE_TFTP_READ_FILE, buf, FALSE, &size, NULL,
                           &pxe_server, (UINT8 *)remote, NULL, FALSE);
    if (st == EFI_BUFFER_TOO_SMALL)
        return BM_ENOSPC;
    return st == EFI_SUCCESS ? (long)size : BM_ENODEV;
}

long plat_boot_file_read(const char *path, char *buf, size_t cap)
{
    const char *base = strrchr(path, '\\');
    long n = BM_ENODEV;

    base = base ? base + 1 : path;
    if (boot_root) {
        n = read_from_root(boot_root, path, buf, cap);
        if (n == BM_ENODEV)
            n = read_from_root(boot_root, base, buf, cap);
    }
    if (n == BM_ENODEV && pxe)
        n = read_from_tftp(base, buf, cap);
    return n;
}

bool plat_boot_volume_writable(void) { return boot_root && boot_root_writable; }

static EFI_FILE_HANDLE find_volume_connected(const char *want, EFI_HANDLE *handle_out);

/* A writable FAT volume by label ("*": any). Firmware often connects only
 * the devices it boots from, so when none matches, connect every storage
 * controller and look again (safe here: this runs before any native
 * driver has taken a controller). */
static EFI_FILE_HANDLE find_volume(const char *want, EFI_HANDLE *handle_out)
{
    EFI_FILE_HANDLE root = find_volume_connected(want, handle_out);

    if (root)
        return root;
    uefi_connect_storage_controllers(NULL, 0, true);
    return find_volume_connected(want, handle_out);
}

/* A writable FAT volume by label among the file systems already connected. */
static EFI_FILE_HANDLE find_volume_connected(const char *want, EFI_HANDLE *handle_out)
{
    EFI_GUID fsg = SIMPLE_FILE_SYSTEM_PROTOCOL;
    EFI_HANDLE *handles = NULL;
    EFI_FILE_HANDLE found = NULL;
    UINTN count = 0;

    if (uefi_call_wrapper(bm_st->BootServices->LocateHandleBuffer, 5, ByProtocol, &fsg, NULL, &count, &handles) !=
        EFI_SUCCESS)
        return NULL;
    for (UINTN i = 0; i < count && !found; i++) {
        bool ro;
        char label[64];
        EFI_FILE_HANDLE root = open_root(handles[i], &ro, label, sizeof(label));
        if (!root)
            continue;
        if (!ro && (!strcmp(want, "*") || !bm_strcasecmp(label, want))) {
            found = root;
            *handle_out = handles[i];
        } else {
            uefi_call_wrapper(root->Close, 1, root);
        }
    }
    plat_free(handles);
    return found;
}

/* Create each folder of path in turn, then the file (truncated). */
void *plat_file_create(const char *path)
{
    CHAR16 wpath[256];
    EFI_FILE_HANDLE f, root;
    EFI_HANDLE volume = loaded_image->DeviceHandle;
    const char *colon = strchr(path, ':');
    size_t n;

    if (colon && (!strchr(path, '\\') || colon < strchr(path, '\\'))) {
        char label[64];
        snprintf(label, sizeof(label), "%.*s", (int)(colon - path), path);
        root = find_volume(label, &volume);
        path = colon + 1;
    } else {
        root = plat_boot_volume_writable() ? boot_root : NULL;
    }
    /* config refuses ".." in out=; a firmware file system other than
     * EDK2's (whose FatLocateOFile stops ".." at the root) might not. */
    if (!root || bm_path_has_dot_part(path))
        return NULL;
    ascii_to_ucs2(wpath, ARRAY_SIZE(wpath), path);
    n = StrLen(wpath);
    for (size_t i = 1; i < n; i++) {
        if (wpath[i] != L'\\')
            continue;
        wpath[i] = 0;
        if (uefi_call_wrapper(root->Open, 5, root, &f, wpath,
                              EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE,
                              EFI_FILE_DIRECTORY) == EFI_SUCCESS)
            uefi_call_wrapper(f->Close, 1, f);
        wpath[i] = L'\\';
    }
    /* An old file of the same name: delete it so we never append to it. */
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath, EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE, 0) ==
        EFI_SUCCESS)
        uefi_call_wrapper(f->Delete, 1, f);
    if (uefi_call_wrapper(root->Open, 5, root, &f, wpath,
                          EFI_FILE_MODE_READ | EFI_FILE_MODE_WRITE | EFI_FILE_MODE_CREATE, 0) != EFI_SUCCESS)
        return NULL;
    results_root = root;
    results_volume_handle = volume;
    return f;
}

int plat_file_write(void *h, const void *data, size_t len)
{
    EFI_FILE_HANDLE f = h;
    UINTN n = len;
    if (uefi_call_wrapper(f->Write, 3, f, &n, (void *)data) != EFI_SUCCESS || n != len)
        return BM_EIO;
    return BM_OK;
}

int plat_file_flush(void *h)
{
    EFI_FILE_HANDLE f = h;
    return uefi_call_wrapper(f->Flush, 1, f) == EFI_SUCCESS ? BM_OK : BM_EIO;
}

void plat_file_close(void *h)
{
    EFI_FILE_HANDLE f = h;
    if (f)
        uefi_call_wrapper(f->Close, 1, f);
}

/* ---- Volume identity, for write safety ------------------------------------------------------ */

/* Where the disk under a volume's device handle sits: its PCI controller and
 * the port / namespace / target named by the device path. */
static void volume_location(EFI_HANDLE volume, bool has_volume, struct plat_boot_location *loc)
{
    EFI_GUID dpg = DEVICE_PATH_PROTOCOL, pcig = EFI_PCI_IO_PROTOCOL_GUID;
    EFI_DEVICE_PATH *dp = NULL, *rest;
    EFI_HANDLE pci_h;
    EFI_PCI_IO *io;
    CHAR16 *text;

    memset(loc, 0, sizeof(*loc));
    loc->has_volume = has_volume;
    if (!volume ||
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, volume, &dpg, (void **)&dp) != EFI_SUCCESS)
        return;
    text = DevicePathToStr(dp);
    if (text) {
        ucs2_to_ascii(loc->description, sizeof(loc->description), text, sizeof(loc->description) - 1);
        FreePool(text);
    }
    /* The PCI function nearest the disk along the path. */
    rest = dp;
    if (uefi_call_wrapper(bm_st->BootServices->LocateDevicePath, 3, &pcig, &rest, &pci_h) == EFI_SUCCESS &&
        uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, pci_h, &pcig, (void **)&io) == EFI_SUCCESS) {
        UINTN seg, bus, dev, fn;
        if (uefi_call_wrapper(io->GetLocation, 5, io, &seg, &bus, &dev, &fn) == EFI_SUCCESS) {
            loc->has_pci = true;
            loc->pci = (struct pci_addr){ (uint16_t)seg, (uint8_t)bus, (uint8_t)dev, (uint8_t)fn };
        }
    }
    /* The messaging node after it names the disk on that controller
     * (UEFI 2.10 section 10.3.4: SCSI 0x02, SATA 0x12, NVMe 0x17). */
    for (EFI_DEVICE_PATH *n = rest; n && !IsDevicePathEnd(n); n = NextDevicePathNode(n)) {
        const uint8_t *b = (const uint8_t *)n;
        if (DevicePathType(n) != MESSAGING_DEVICE_PATH)
            continue;
        switch (DevicePathSubType(n)) {
        case 0x02: /* SCSI: Pun u16, Lun u16 */
            loc->has_port = true;
            loc->port = *(const uint16_t *)(b + 4);
            loc->lun = *(const uint16_t *)(b + 6);
            break;
        case 0x12: /* SATA: HBA port u16, PM port u16, LUN u16 */
            loc->has_port = true;
            loc->port = *(const uint16_t *)(b + 4);
            break;
        case 0x17: /* NVMe namespace: NSID u32 */
            loc->has_port = true;
            loc->port = *(const uint32_t *)(b + 4);
            break;
        }
        if (loc->has_port)
            break;
    }
}

void plat_boot_location(struct plat_boot_location *loc)
{
    volume_location(loaded_image->DeviceHandle, boot_root != NULL, loc);
}

EFI_HANDLE uefi_results_volume_handle(void) { return results_root ? results_volume_handle : NULL; }

void plat_results_location(struct plat_boot_location *loc)
{
    volume_location(results_root ? results_volume_handle : NULL, results_root != NULL, loc);
}

/* ---- Start and end --------------------------------------------------------------------- */

int plat_init(void)
{
    EFI_GUID lip = LOADED_IMAGE_PROTOCOL;

    /* The UEFI watchdog resets the machine after 5 minutes otherwise. */
    uefi_call_wrapper(bm_st->BootServices->SetWatchdogTimer, 4, 0, 0, 0, NULL);
    if (uefi_call_wrapper(bm_st->BootServices->HandleProtocol, 3, bm_image_handle, &lip, (void **)&loaded_image) !=
        EFI_SUCCESS)
        return BM_ENODEV;
    calibrate_clock();
    find_ecam();
    discover_cpus();
    read_load_options();
    open_boot_volume();
    return BM_OK;
}

void plat_exit(enum plat_exit_mode mode)
{
    if (results_root && results_root != boot_root)
        uefi_call_wrapper(results_root->Close, 1, results_root);
    results_root = NULL;
    if (boot_root) {
        uefi_call_wrapper(boot_root->Close, 1, boot_root);
        boot_root = NULL;
    }
    if (mode == PLAT_EXIT_REBOOT)
        uefi_call_wrapper(bm_st->RuntimeServices->ResetSystem, 4, EfiResetCold, EFI_SUCCESS, 0, NULL);
    else if (mode == PLAT_EXIT_SHUTDOWN)
        uefi_call_wrapper(bm_st->RuntimeServices->ResetSystem, 4, EfiResetShutdown, EFI_SUCCESS, 0, NULL);
}
