/* MADT parsing (ACPI 6.5, 5.2.12). Which entries count follows Linux
 * acpi_parse_lapic() / acpi_parse_x2apic() (arch/x86/kernel/acpi/boot.c):
 * APIC ID 0xff in a type 0 entry is "no processor", and a processor is
 * usable when it is enabled or online capable (acpi_is_processor_usable()). */
#include "madt.h"

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void add_cpu(struct madt_info *out, uint32_t apic_id, uint32_t flags, bool x2apic)
{
    if (!(flags & (MADT_FLAG_ENABLED | MADT_FLAG_ONLINE_CAPABLE)))
        return;
    for (unsigned i = 0; i < out->ncpus; i++)
        if (out->cpus[i].apic_id == apic_id)
            return;
    if (out->ncpus >= MADT_MAX_CPUS) {
        out->dropped++;
        return;
    }
    out->cpus[out->ncpus++] = (struct madt_cpu){ apic_id, (flags & MADT_FLAG_ENABLED) != 0, x2apic };
}

int madt_parse(const void *table, size_t avail, struct madt_info *out)
{
    const uint8_t *t = table;
    uint32_t len;

    memset(out, 0, sizeof(*out));
    if (!t || avail < MADT_HEADER_LEN || memcmp(t, "APIC", 4))
        return BM_EINVAL;
    len = rd32(t + 4);
    if (len < MADT_HEADER_LEN || len > avail)
        return BM_EINVAL;
    out->lapic_base = rd32(t + 36);
    for (uint32_t off = MADT_HEADER_LEN; off + 2 <= len;) {
        const uint8_t *e = t + off;
        uint8_t elen = e[1];
        if (elen < 2 || off + elen > len)
            return BM_EINVAL;
        switch (e[0]) {
        case MADT_TYPE_LAPIC:
            /* UID at 2, APIC ID at 3, flags at 4. */
            if (elen < MADT_LAPIC_LEN)
                return BM_EINVAL;
            if (e[3] != 0xff)
                add_cpu(out, e[3], rd32(e + 4), false);
            break;
        case MADT_TYPE_X2APIC:
            /* Reserved at 2..3, x2APIC ID at 4, flags at 8, UID at 12. */
            if (elen < MADT_X2APIC_LEN)
                return BM_EINVAL;
            if (rd32(e + 4) != 0xffffffffu)
                add_cpu(out, rd32(e + 4), rd32(e + 8), true);
            break;
        case MADT_TYPE_LAPIC_ADDR:
            /* Reserved at 2..3, the 64-bit address at 4. */
            if (elen < MADT_LAPIC_ADDR_LEN)
                return BM_EINVAL;
            memcpy(&out->lapic_base, e + 4, 8);
            break;
        default:
            break;
        }
        off += elen;
    }
    return BM_OK;
}
