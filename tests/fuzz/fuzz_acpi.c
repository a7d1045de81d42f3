/* ACPI tables and UEFI device paths as the firmware hands them over
 * (efi/acpi.c, efi/devpath.c). The first byte picks the reader:
 *   0: the RSDP at physical 0x1000 and the RSDT/XSDT walk for each of the
 *      signatures the platform layers ask for (DSDT through the FADT), with
 *      physical addresses mapped into the input (0x1000 + offset): every
 *      table the walk returns must lie inside the input and sum to zero;
 *   1-4: the FADT, HPET, MCFG and DSDT \_S5 readers on the rest, in an
 *      allocation of exactly its size (ASan sees a read past it);
 *   5: the device path readers (disk node, MAC node).
 * Aborts on a table returned out of bounds or with a bad checksum, or a
 * disk node that names a subtype the reader does not know. */
#include "fuzz.h"
#include "acpi.h"
#include "devpath.h"
#include "platform.h"

#define BASE 0x1000u

struct input {
    const uint8_t *p;
    size_t n;
};

static const void *map_input(uint64_t phys, size_t len, void *ctx)
{
    const struct input *in = ctx;
    if (phys < BASE || phys - BASE > in->n || len > in->n - (phys - BASE))
        return NULL;
    return in->p + (phys - BASE);
}

static void walk(const uint8_t *buf, size_t n)
{
    static const char *sigs[] = { "FACP", "HPET", "MCFG", "SRAT", "APIC", "SPCR", "DSDT", "SSDT" };
    struct input in = { buf, n };
    struct acpi_rsdp r;
    char why[64];

    memset(why, 'x', sizeof(why));
    if (acpi_rsdp_parse(buf, n, &r, why, sizeof(why)) != BM_OK) {
        if (!memchr(why, '\0', sizeof(why)))
            abort();
        return;
    }
    for (unsigned s = 0; s < sizeof(sigs) / sizeof(sigs[0]); s++)
        for (unsigned inst = 0; inst < 3; inst++) {
            uint32_t len;
            const uint8_t *t = acpi_find_table(&r, sigs[s], inst, map_input, &in, &len);
            if (!t)
                break;
            if (t < buf || len > n || (size_t)(t - buf) > n - len || !acpi_checksum_ok(t, len) ||
                memcmp(t, sigs[s], 4))
                abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *b;
    size_t m;

    if (n < 1)
        return 0;
    m = n - 1;
    b = fuzz_page(data + 1, m, m ? m : 1);
    switch (data[0] % 6) {
    case 0:
        walk(b, m);
        break;
    case 1: {
        struct acpi_fadt f;
        (void)acpi_fadt_parse(b, m, &f);
        break;
    }
    case 2: {
        uint64_t base;
        (void)acpi_hpet_parse(b, m, &base);
        break;
    }
    case 3: {
        struct acpi_mcfg_window w[8];
        if (acpi_mcfg_parse(b, m, w, 8) > 8)
            abort();
        break;
    }
    case 4: {
        unsigned a, c;
        (void)acpi_dsdt_s5(b, m, &a, &c);
        break;
    }
    default: {
        struct devpath_disk d;
        uint8_t mac[6];
        if (devpath_disk_node(b, m, &d) && d.subtype != 0x02 && d.subtype != 0x12 && d.subtype != 0x17)
            abort();
        (void)devpath_mac_node(b, m, mac);
        break;
    }
    }
    free(b);
    return 0;
}
