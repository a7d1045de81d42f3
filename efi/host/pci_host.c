/* PCI on Linux: config space of simulated functions, else read-only from
 * sysfs; BARs of simulated functions only; port I/O to simulated
 * port blocks only. */
#include "host_private.h"

static int pci_config_fd(struct pci_addr a, int flags)
{
    char path[128];
    snprintf(path, sizeof(path), "/sys/bus/pci/devices/%04x:%02x:%02x.%x/config", a.seg, a.bus, a.dev, a.fn);
    return open(path, flags);
}

static bool pci_read(struct pci_addr a, uint16_t off, void *v, size_t n)
{
    struct plat_sim_dev *sim = host_sim_at(a);
    int fd;
    ssize_t r;

    if (sim) {
        if (off + n > sizeof(sim->config))
            return false;
        if (sim->config_read)
            sim->config_read(sim->ctx, off, (unsigned)n);
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
    struct plat_sim_dev *sim = host_sim_at(a);
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

volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size)
{
    struct plat_sim_dev *sim = host_sim_at(a);
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

/* Port I/O is not for a user process: only simulated ports answer
 * (sim_pci_host.c), byte-wide. */
void plat_outb(uint16_t port, uint8_t v) { host_sim_outb(port, v); }
uint8_t plat_inb(uint16_t port) { return host_sim_inb(port); }
void plat_outl(uint16_t port, uint32_t v) { (void)port, (void)v; }
uint32_t plat_inl(uint16_t port) { (void)port; return 0xffffffffu; }
