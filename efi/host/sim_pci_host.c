/* Simulated PCI functions (driver tests; see platform_sim.h): attaching
 * them, and routing MMIO in their BAR windows to the device model. */
#include "host_private.h"

#define SIM_MAX 8
static struct plat_sim_dev *sim_devs[SIM_MAX];
int plat_sim_devices;

static bool pci_addr_eq(struct pci_addr a, struct pci_addr b)
{
    return a.seg == b.seg && a.bus == b.bus && a.dev == b.dev && a.fn == b.fn;
}

/* The simulated function at a, if a test attached one. */
struct plat_sim_dev *host_sim_at(struct pci_addr a)
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

static bool sim_mmio_read32(volatile void *addr, uint32_t *v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window(addr, &bar, &off);
    if (!d)
        return false;
    *v = d->mmio_read32 ? d->mmio_read32(d->ctx, bar, off) : 0xffffffffu;
    return true;
}

static bool sim_mmio_write32(volatile void *addr, uint32_t v)
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

static bool sim_mmio_read8(volatile void *addr, uint8_t *v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window_n(addr, 1, &bar, &off);
    if (!d)
        return false;
    *v = d->mmio_read8 ? d->mmio_read8(d->ctx, bar, off) : 0xff;
    return true;
}

static bool sim_mmio_write8(volatile void *addr, uint8_t v)
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

static bool sim_mmio_write64(volatile void *addr, uint64_t v)
{
    int bar;
    uint32_t off;
    struct plat_sim_dev *d = sim_window_n(addr, 8, &bar, &off);

    if (!d)
        return false;
    if (d->mmio_write64) {
        d->mmio_write64(d->ctx, bar, off, v);
    } else if (d->mmio_write32) {
        d->mmio_write32(d->ctx, bar, off, (uint32_t)v);
        d->mmio_write32(d->ctx, bar, off + 4, (uint32_t)(v >> 32));
    }
    return true;
}

/* ---- Port I/O ------------------------------------------------------------------ */

#define SIM_IO_MAX 8
static struct plat_sim_io *sim_ios[SIM_IO_MAX];

void plat_sim_io_attach(struct plat_sim_io *io)
{
    for (int i = 0; i < SIM_IO_MAX; i++)
        if (!sim_ios[i]) {
            sim_ios[i] = io;
            return;
        }
    abort();
}

void plat_sim_io_detach(struct plat_sim_io *io)
{
    for (int i = 0; i < SIM_IO_MAX; i++)
        if (sim_ios[i] == io)
            sim_ios[i] = NULL;
}

/* The port block holding port, if a test attached one. */
static struct plat_sim_io *sim_io_at(uint16_t port, uint16_t *off)
{
    for (int i = 0; i < SIM_IO_MAX; i++) {
        struct plat_sim_io *io = sim_ios[i];
        if (io && port >= io->base && (uint32_t)port < (uint32_t)io->base + io->len) {
            *off = (uint16_t)(port - io->base);
            return io;
        }
    }
    return NULL;
}

uint8_t host_sim_inb(uint16_t port)
{
    uint16_t off;
    struct plat_sim_io *io = sim_io_at(port, &off);
    return io && io->inb ? io->inb(io->ctx, off) : 0xff;
}

void host_sim_outb(uint16_t port, uint8_t v)
{
    uint16_t off;
    struct plat_sim_io *io = sim_io_at(port, &off);
    if (io && io->outb)
        io->outb(io->ctx, off, v);
}

/* The host build's MMIO accessors (efi/platform.h): a simulated function's
 * BAR window goes to its model, any other address is plain memory. */
uint32_t mmio_read32(volatile void *base, uint32_t off)
{
    uint32_t v;

    if (plat_sim_devices && sim_mmio_read32((volatile uint8_t *)base + off, &v))
        return v;
    return *(volatile uint32_t *)((volatile uint8_t *)base + off);
}

void mmio_write32(volatile void *base, uint32_t off, uint32_t v)
{
    if (plat_sim_devices && sim_mmio_write32((volatile uint8_t *)base + off, v))
        return;
    *(volatile uint32_t *)((volatile uint8_t *)base + off) = v;
}

void mmio_write64_whole(volatile void *base, uint32_t off, uint64_t v)
{
    if (plat_sim_devices && sim_mmio_write64((volatile uint8_t *)base + off, v))
        return;
    *(volatile uint64_t *)((volatile uint8_t *)base + off) = v;
}

uint8_t mmio_read8(volatile void *base, uint32_t off)
{
    uint8_t v;

    if (plat_sim_devices && sim_mmio_read8((volatile uint8_t *)base + off, &v))
        return v;
    return *((volatile uint8_t *)base + off);
}

void mmio_write8(volatile void *base, uint32_t off, uint8_t v)
{
    if (plat_sim_devices && sim_mmio_write8((volatile uint8_t *)base + off, v))
        return;
    *((volatile uint8_t *)base + off) = v;
}
