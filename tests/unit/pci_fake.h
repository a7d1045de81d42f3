/* A fake PCI segment for the tests of the PCI walkers (test_pcie.c,
 * test_chipset.c): functions with 256-byte config spaces that a test
 * fills byte by byte, read through a struct pci_cfg (fake) as the real
 * config space is. Nobody answers elsewhere (all ones), nor past 256
 * bytes. Each test file has its own bus; reset() empties it. */
#ifndef BAREMARK_TEST_PCI_FAKE_H
#define BAREMARK_TEST_PCI_FAKE_H

#include <stdint.h>
#include <string.h>

#include "drivers/pci.h"

struct fake_fn {
    struct pci_addr a;
    uint8_t cfg[256];
};

struct fake_bus {
    struct fake_fn fns[48];
    int n;
    unsigned reads;  /* to prove walks are bounded */
};

static struct fake_bus bus;
static struct pci_list list;

static inline uint32_t fake_read32(void *ctx, struct pci_addr a, uint16_t off)
{
    struct fake_bus *b = ctx;

    b->reads++;
    for (int i = 0; i < b->n; i++) {
        struct fake_fn *f = &b->fns[i];
        if (f->a.seg == a.seg && f->a.bus == a.bus && f->a.dev == a.dev && f->a.fn == a.fn) {
            if (off >= 256)
                return 0xffffffffu;
            return (uint32_t)f->cfg[off] | (uint32_t)f->cfg[off + 1] << 8 | (uint32_t)f->cfg[off + 2] << 16 |
                   (uint32_t)f->cfg[off + 3] << 24;
        }
    }
    return 0xffffffffu; /* nobody home */
}

static const struct pci_cfg fake = { fake_read32, &bus };

static inline void w16(uint8_t *c, unsigned off, uint16_t v)
{
    c[off] = (uint8_t)v;
    c[off + 1] = (uint8_t)(v >> 8);
}

static inline void w32(uint8_t *c, unsigned off, uint32_t v)
{
    w16(c, off, (uint16_t)v);
    w16(c, off + 2, (uint16_t)(v >> 16));
}

/* cmocka setup: an empty bus and function list. */
static inline int reset(void **state)
{
    (void)state;
    memset(&bus, 0, sizeof(bus));
    memset(&list, 0, sizeof(list));
    return 0;
}

#endif
