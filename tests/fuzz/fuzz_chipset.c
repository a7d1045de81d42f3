/* The chipset table and the attach-point walk (efi/inventory/chipset.c)
 * over a PCI bus made of the input: byte 0 the emulator hint and the number
 * of functions (up to 48), then 12 bytes per function (bus, device,
 * function, vendor, device id, class, header type, secondary and
 * subordinate bus, parent), then their config space (4 KiB shared, all
 * ones past the input). Parents always precede their children, as
 * pci_enumerate() lists them. Aborts if a name, uplink or note is left
 * unterminated, a ceiling is negative or not finite, or an attach point
 * comes without its reason. */
#include <math.h>
#include "fuzz.h"
#include "platform.h"
#include "drivers/pci.h"
#include "efi/inventory/chipset.h"

static uint8_t space[4096];
static struct pci_list list;

static uint32_t fuzz_read32(void *ctx, struct pci_addr a, uint16_t off)
{
    uint32_t v;
    (void)ctx;
    (void)a;
    if (off > sizeof(space) - 4)
        return 0xffffffffu;
    memcpy(&v, space + (off & ~3u), 4);
    return v;
}

static void terminated(const char *s, size_t cap)
{
    if (!memchr(s, '\0', cap))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    struct pci_cfg cfg = { fuzz_read32, NULL };
    struct chipset_info ci;
    size_t at = 1;
    unsigned count;

    if (n < 1)
        return 0;
    count = (data[0] & 0x7f) % 49;
    memset(&list, 0, sizeof(list));
    for (unsigned i = 0; i < count && at + 12 <= n; i++, at += 12) {
        const uint8_t *p = data + at;
        struct pci_func *f = &list.funcs[list.count];
        f->addr = (struct pci_addr){ 0, p[0], (uint8_t)(p[1] & 31), (uint8_t)(p[2] & 7) };
        f->vendor = (uint16_t)(p[3] | p[4] << 8);
        f->device = (uint16_t)(p[5] | p[6] << 8);
        f->class_code = (uint32_t)(p[7] | p[8] << 8 | p[9] << 16);
        f->header_type = p[10] & 1;
        f->secondary_bus = p[11];
        f->subordinate_bus = (uint8_t)(p[11] + (p[10] >> 4));
        f->parent = (int)(p[10] >> 1 & 7) % (list.count + 1) - 1;
        list.count++;
    }
    memset(space, 0xff, sizeof(space));
    if (at < n)
        memcpy(space, data + at, n - at < sizeof(space) ? n - at : sizeof(space));
    memset(&ci, 'x', sizeof(ci));
    chipset_identify(&cfg, &list, data[0] & 0x80, &ci);
    terminated(ci.name, sizeof(ci.name));
    terminated(ci.uplink, sizeof(ci.uplink));
    terminated(ci.note, sizeof(ci.note));
    if (!isfinite(ci.uplink_mbps) || ci.uplink_mbps < 0)
        abort();
    for (int i = 0; i < list.count; i++) {
        const char *why = NULL;
        enum chipset_attach a = chipset_attach_of(&ci, &list, i, &why);
        if (!why || !chipset_attach_name(a))
            abort();
        terminated(why, 200);
    }
    return 0;
}
