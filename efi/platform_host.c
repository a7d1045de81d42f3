/* The platform seam on Linux: the host build runs the same options,
 * records, parsers and engines as the firmware build. No DMA here, so
 * native storage drivers are not available; PCI config space and firmware
 * tables are read from sysfs when readable. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "platform_sim.h"
#include "../drivers/pci.h"

static uint64_t t_base;
static uint64_t tsc_hz;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t sim_skew_ns;    /* time simulated devices made pass (platform_sim.h) */

uint64_t plat_now_ns(void) { return mono_ns() - t_base + __atomic_load_n(&sim_skew_ns, __ATOMIC_RELAXED); }
void plat_sim_advance_ns(uint64_t ns) { __atomic_fetch_add(&sim_skew_ns, ns, __ATOMIC_RELAXED); }
uint64_t plat_tsc_hz(void) { return tsc_hz; }
const char *plat_clock_source(void) { return "clock_gettime"; }

void plat_delay_ns(uint64_t ns)
{
    uint64_t end = plat_now_ns() + ns;
    while (plat_now_ns() < end)
        ;
}

void *plat_alloc(size_t bytes) { return calloc(1, bytes ? bytes : 1); }
void plat_free(void *p) { free(p); }

void *plat_alloc_pages(size_t bytes, bool below_4g)
{
    void *p;
    bytes = ALIGN_UP(bytes, (size_t)4096);
    /* Below 4 GiB when asked: drivers put 32-bit addresses of these
     * pages in front of (simulated) devices. */
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (below_4g ? MAP_32BIT : 0), -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* Large pages where the kernel allows: the firmware maps memory with
     * 2 MiB/1 GiB pages, and memory latency depends on TLB reach. */
    madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes);
    return p;
}

void plat_free_pages(void *p, size_t bytes)
{
    if (p)
        munmap(p, ALIGN_UP(bytes, (size_t)4096));
}

void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi)
{
    (void)lo;
    (void)hi;
    return plat_alloc_pages(bytes, false);
}

uint64_t plat_virt_to_phys(const void *p) { return (uint64_t)(uintptr_t)p; }

uint64_t plat_free_memory_bytes(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* ---- CPUs ---------------------------------------------------------------------- */

unsigned plat_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

uint32_t plat_cpu_apic_id(unsigned i) { return i; }

struct host_job {
    plat_cpu_fn fn;
    void *arg;
    unsigned index;
};

static void pin_to_cpu(unsigned i)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(i, &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *host_thread(void *p)
{
    struct host_job *job = p;
    pin_to_cpu(job->index);
    job->fn(job->index, job->arg);
    return NULL;
}

int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg)
{
    pthread_t threads[256];
    struct host_job jobs[256];
    unsigned started = 1;
    cpu_set_t old;

    if (n == 0)
        return BM_EINVAL;
    if (n > plat_cpu_count())
        n = plat_cpu_count();
    if (n > 256)
        n = 256;
    for (unsigned i = 1; i < n; i++) {
        jobs[i] = (struct host_job){ fn, arg, i };
        if (pthread_create(&threads[i], NULL, host_thread, &jobs[i]) != 0)
            break;
        started++;
    }
    pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
    pin_to_cpu(0);
    fn(0, arg);
    pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
    for (unsigned i = 1; i < started; i++)
        pthread_join(threads[i], NULL);
    return (int)started;
}

/* ---- Firmware tables ----------------------------------------------------------- */

/* Read a whole file into a malloc'd buffer. */
static void *slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    size_t cap = 65536, n = 0;
    char *buf;

    if (fd < 0)
        return NULL;
    buf = malloc(cap);
    for (;;) {
        ssize_t r;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        r = read(fd, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    *len = n;
    return buf;
}

int plat_smbios_table(const void **table, size_t *len, int *major, int *minor)
{
    static void *t;
    static size_t tlen;
    static int maj, min;
    const char *dir = getenv("BAREMARK_HOST_DMI");
    char path[512];

    if (!t) {
        size_t eplen = 0;
        uint8_t *ep;
        if (!dir)
            dir = "/sys/firmware/dmi/tables";
        snprintf(path, sizeof(path), "%s/smbios_entry_point", dir);
        ep = slurp(path, &eplen);
        if (!ep)
            return BM_ENODEV;
        if (eplen >= 9 && !memcmp(ep, "_SM3_", 5)) {
            maj = ep[7];
            min = ep[8];
        } else if (eplen >= 8 && !memcmp(ep, "_SM_", 4)) {
            maj = ep[6];
            min = ep[7];
        }
        free(ep);
        snprintf(path, sizeof(path), "%s/DMI", dir);
        t = slurp(path, &tlen);
        if (!t)
            return BM_ENODEV;
    }
    *table = t;
    *len = tlen;
    *major = maj;
    *minor = min;
    return BM_OK;
}

const void *plat_acpi_table(const char sig[4], unsigned instance)
{
    static struct {
        char name[8];
        void *data;
    } cache[16];
    char path[256];
    size_t len;
    const char *dir = getenv("BAREMARK_HOST_ACPI");

    if (!dir)
        dir = "/sys/firmware/acpi/tables";
    if (instance == 0)
        snprintf(path, sizeof(path), "%s/%.4s", dir, sig);
    else
        snprintf(path, sizeof(path), "%s/%.4s%u", dir, sig, instance);
    for (size_t i = 0; i < ARRAY_SIZE(cache); i++)
        if (cache[i].data && !strcmp(cache[i].name, path + strlen(dir) + 1))
            return cache[i].data;
    for (size_t i = 0; i < ARRAY_SIZE(cache); i++) {
        if (!cache[i].data) {
            void *d = slurp(path, &len);
            if (!d)
                return NULL;
            bm_strlcpy(cache[i].name, path + strlen(dir) + 1, sizeof(cache[i].name));
            cache[i].data = d;
            return d;
        }
    }
    return NULL;
}

void plat_firmware_info(char *buf, size_t len)
{
    char vendor[64] = "", version[64] = "";
    size_t n;
    char *v = slurp("/sys/class/dmi/id/bios_vendor", &n);
    if (v) {
        snprintf(vendor, sizeof(vendor), "%.*s", (int)n, v);
        free(v);
    }
    v = slurp("/sys/class/dmi/id/bios_version", &n);
    if (v) {
        snprintf(version, sizeof(version), "%.*s", (int)n, v);
        free(v);
    }
    snprintf(buf, len, "%s %s (Linux host build)", bm_trim(vendor), bm_trim(version));
}

void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(iso, iso_len, "%Y-%m-%dT%H:%M:%SZ", &tm);
    strftime(compact, compact_len, "%Y%m%d-%H%M%S", &tm);
}

/* ---- PCI config space through sysfs ------------------------------------------------------ */

static int pci_config_fd(struct pci_addr a, int flags)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/config", a.seg, a.bus, a.dev, a.fn);
    return open(path, flags);
}

/* ---- Simulated PCI functions (driver tests; see platform_sim.h) ---- */

#define SIM_MAX 8
static struct plat_sim_dev *sim_devs[SIM_MAX];
int plat_sim_devices;

static bool pci_addr_eq(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

/* The simulated function at a, if a test attached one. */
static struct plat_sim_dev *sim_at(struct pci_addr a)
{
    for (int i = 0; i < SIM_MAX; i++)
        if (sim_devs[i] && pci_addr_eq(sim_devs[i]->addr, a))
            return sim_devs[i];
    return NULL;
}

void plat_sim_attach(struct plat_sim_dev *d)
{
    for (int i = 0; i < SIM_MAX; i++)
        if (!sim_devs[i]) {
            sim_devs[i] = d;
            plat_sim_devices++;
            return;
        }
    abort();
}

void plat_sim_detach(struct plat_sim_dev *d)
{
    for (int i = 0; i < SIM_MAX; i++)
        if (sim_devs[i] == d) {
            sim_devs[i] = NULL;
            plat_sim_devices--;
        }
    for (int b = 0; b < PLAT_SIM_BARS; b++) {
        free(d->bar_window[b]);
        d->bar_window[b] = NULL;
    }
}

/* Which simulated BAR window holds n bytes at addr, if any. */
static struct plat_sim_dev *sim_window_n(volatile void *addr, uintptr_t n, int *bar, uint32_t *off)
{
    uintptr_t p = (uintptr_t)addr;
    for (int i = 0; i < SIM_MAX; i++) {
        struct plat_sim_dev *d = sim_devs[i];
        if (!d)
            continue;
        for (int b = 0; b < PLAT_SIM_BARS; b++) {
            uintptr_t base = (uintptr_t)d->bar_window[b];
            if (base && p >= base && p + n <= base + d->bar_size[b]) {
                *bar = b;
                *off = (uint32_t)(p - base);
                return d;
            }
        }
    }
    return NULL;
}

/* Which simulated BAR window holds addr (4 bytes), if any. */
static struct plat_sim_dev *sim_window(volatile void *addr, int *bar, uint32_t *off)
{
    return sim_window_n(addr, 4, bar, off);
}

bool plat_sim_mmio_read32(volatile void *addr, uint32_t *v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window(addr, &bar, &off);
    if (!d)
        return false;
    *v = d->mmio_read32 ? d->mmio_read32(d->ctx, bar, off) : 0xffffffffu;
    return true;
}

bool plat_sim_mmio_write32(volatile void *addr, uint32_t v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window(addr, &bar, &off);
    if (!d)
        return false;
    if (d->mmio_write32)
        d->mmio_write32(d->ctx, bar, off, v);
    return true;
}

bool plat_sim_mmio_read8(volatile void *addr, uint8_t *v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window_n(addr, 1, &bar, &off);
    if (!d)
        return false;
    *v = d->mmio_read8 ? d->mmio_read8(d->ctx, bar, off) : 0xff;
    return true;
}

bool plat_sim_mmio_write8(volatile void *addr, uint8_t v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window_n(addr, 1, &bar, &off);
    if (!d)
        return false;
    if (d->mmio_write8)
        d->mmio_write8(d->ctx, bar, off, v);
    return true;
}

/* ---- PCI --------------------------------------------------------------------- */

static bool pci_read(struct pci_addr a, uint16_t off, void *v, size_t n)
{
    struct plat_sim_dev *sim = sim_at(a);
    int fd;
    ssize_t r;

    if (sim) {
        if (off + n > sizeof(sim->config))
            return false;
        memcpy(v, sim->config + off, n);
        return true;
    }
    if (plat_sim_devices)
        return false;   /* a driver test sees only its simulated functions */
    fd = pci_config_fd(a, O_RDONLY);
    if (fd < 0)
        return false;
    r = pread(fd, v, n, off);
    close(fd);
    return r == (ssize_t)n;
}

uint32_t plat_pci_read32(struct pci_addr a, uint16_t off)
{
    uint32_t v;
    return pci_read(a, off, &v, 4) ? v : 0xffffffffu;
}

uint16_t plat_pci_read16(struct pci_addr a, uint16_t off)
{
    uint16_t v;
    return pci_read(a, off, &v, 2) ? v : 0xffff;
}

uint8_t plat_pci_read8(struct pci_addr a, uint16_t off)
{
    uint8_t v;
    return pci_read(a, off, &v, 1) ? v : 0xff;
}

/* Config writes reach simulated functions only: the host build never
 * changes a real device. */
static void pci_write(struct pci_addr a, uint16_t off, const void *v, unsigned n)
{
    struct plat_sim_dev *sim = sim_at(a);
    if (!sim || off + n > sizeof(sim->config))
        return;
    memcpy(sim->config + off, v, n);
    if (sim->config_written)
        sim->config_written(sim->ctx, off, n);
}

void plat_pci_write32(struct pci_addr a, uint16_t off, uint32_t v) { pci_write(a, off, &v, 4); }
void plat_pci_write16(struct pci_addr a, uint16_t off, uint16_t v) { pci_write(a, off, &v, 2); }

int plat_pci_segments(uint16_t *segs, uint8_t *bus_start, uint8_t *bus_end, int max)
{
    if (max < 1)
        return 0;
    segs[0] = 0;
    bus_start[0] = 0;
    bus_end[0] = 255;
    return 1;
}

/* No DMA for a user process: only simulated functions can be claimed. */
int plat_pci_claim(struct pci_addr a)
{
    struct plat_sim_dev *sim = sim_at(a);
    if (!sim)
        return BM_ENOTSUP;
    sim->claims++;
    return BM_OK;
}

void plat_pci_release(struct pci_addr a)
{
    struct plat_sim_dev *sim = sim_at(a);
    /* The bridges above go back as found first, as on UEFI. */
    pci_release_bridges(a);
    if (sim)
        sim->releases++;
}

volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size)
{
    struct plat_sim_dev *sim = sim_at(a);
    if (size)
        *size = 0;
    if (!sim || bar < 0 || bar >= PLAT_SIM_BARS || !sim->bar_size[bar])
        return NULL;
    if (!sim->bar_window[bar])
        sim->bar_window[bar] = calloc(1, sim->bar_size[bar]);
    if (size)
        *size = sim->bar_size[bar];
    return sim->bar_window[bar];
}

/* Port I/O is not for a user process. */
void plat_outb(uint16_t port, uint8_t v) { (void)port, (void)v; }
uint8_t plat_inb(uint16_t port) { (void)port; return 0xff; }
void plat_outl(uint16_t port, uint32_t v) { (void)port, (void)v; }
uint32_t plat_inl(uint16_t port) { (void)port; return 0xffffffffu; }

/* ---- Console, serial, files -------------------------------------------------------- */

void plat_console_write(const char *s)
{
    fputs(s, stderr);
    fflush(stderr);
}

void plat_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static volatile bool sim_abort;     /* Esc, as a test presses it (platform_sim.h) */
static volatile bool sim_abort_seen;

bool plat_abort_requested(void)
{
    if (sim_abort)
        sim_abort_seen = true;
    return sim_abort;
}
void plat_sim_set_abort(bool pressed) { sim_abort = pressed, sim_abort_seen = false; }
bool plat_sim_abort_seen(void) { return sim_abort_seen; }

static char *options;
const char *plat_load_options(void) { return options ? options : ""; }

/* argv joined by spaces, however long: the options are never cut here. */
void plat_host_set_args(int argc, char **argv);
void plat_host_set_args(int argc, char **argv)
{
    size_t total = 1, n = 0;

    for (int i = 0; i < argc; i++)
        total += strlen(argv[i]) + 1;
    free(options);
    options = malloc(total);
    if (!options)
        return;
    options[0] = '\0';
    for (int i = 0; i < argc; i++)
        n += (size_t)snprintf(options + n, total - n, "%s%s", i ? " " : "", argv[i]);
}

/* Records go to standard output, as they go to the serial port on UEFI. */
int plat_serial_open(const struct plat_uart *u)
{
    (void)u;
    return BM_OK;
}

int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port)
{
    (void)path;
    (void)prefix_len;
    (void)port;
    return BM_ENODEV;
}

/* A Linux process has no firmware console variable. */
long plat_console_device_path(void *buf, size_t cap)
{
    (void)buf;
    (void)cap;
    return BM_ENODEV;
}

void plat_serial_write(const char *data, size_t len)
{
    /* Drop the CRs the serial line uses. */
    for (size_t i = 0; i < len; i++)
        if (data[i] != '\r')
            fputc(data[i], stdout);
    fflush(stdout);
}

/* BAREMARK_HOST_VOLUME names a folder that plays the boot volume. */
static const char *volume(void) { return getenv("BAREMARK_HOST_VOLUME"); }

static void host_path(char *dst, size_t cap, const char *path)
{
    snprintf(dst, cap, "%s/%s", volume(), path[0] == '\\' ? path + 1 : path);
    for (char *p = dst; *p; p++)
        if (*p == '\\')
            *p = '/';
}

long plat_boot_file_read(const char *path, char *buf, size_t cap)
{
    char p[512];
    int fd;
    ssize_t n;

    if (!volume())
        return BM_ENODEV;
    host_path(p, sizeof(p), path);
    fd = open(p, O_RDONLY);
    if (fd < 0)
        return BM_ENODEV;
    n = read(fd, buf, cap);
    close(fd);
    return n < 0 ? BM_EIO : (long)n;
}

bool plat_boot_volume_writable(void) { return volume() && access(volume(), W_OK) == 0; }

const char *plat_boot_source(void) { return volume() ? "disk" : "unknown"; }

static bool results_open;

void *plat_file_create(const char *path)
{
    char p[512];
    FILE *f;
    const char *colon = strchr(path, ':');

    if (colon)
        path = colon + 1; /* one volume on the host: labels name it too */
    /* config refuses these in out=; never leave the volume folder anyway. */
    if (!plat_boot_volume_writable() || bm_path_has_dot_part(path))
        return NULL;
    host_path(p, sizeof(p), path);
    for (char *s = p + strlen(volume()) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    f = fopen(p, "w");
    results_open = results_open || f;
    return f;
}

int plat_file_write(void *f, const void *data, size_t len)
{
    return fwrite(data, 1, len, f) == len ? BM_OK : BM_EIO;
}

int plat_file_flush(void *f) { return fflush(f) == 0 ? BM_OK : BM_EIO; }
void plat_file_close(void *f) { fclose(f); }

void plat_boot_location(struct plat_boot_location *loc)
{
    memset(loc, 0, sizeof(*loc));
    loc->has_volume = volume() != NULL;
    bm_strlcpy(loc->description, "host", sizeof(loc->description));
}

void plat_results_location(struct plat_boot_location *loc)
{
    plat_boot_location(loc);
    loc->has_volume = results_open;
}

/* ---- Start and end ----------------------------------------------------------------- */

int plat_init(void)
{
    uint64_t t0, c0;
    t_base = mono_ns();
    /* The TSC rate, for the system record (the clock itself is the kernel's). */
    t0 = mono_ns();
    c0 = rdtsc();
    while (mono_ns() - t0 < 20000000ull)
        ;
    tsc_hz = (uint64_t)((double)(rdtsc() - c0) * 1e9 / (double)(mono_ns() - t0));
    return BM_OK;
}

void plat_exit(enum plat_exit_mode mode) { (void)mode; }
