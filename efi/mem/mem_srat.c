/* SRAT parsing (ACPI 6.5, 5.2.16). */
#include "mem_srat.h"

/* Little-endian fields at any alignment. */
static uint32_t rd32(const uint8_t *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Remember a domain in the sorted list of distinct ones. */
static void add_domain(struct srat_info *s, uint32_t d)
{
    unsigned i = 0;

    while (i < s->ndomains && s->domains[i] < d)
        i++;
    if (i < s->ndomains && s->domains[i] == d)
        return;
    if (s->ndomains >= SRAT_MAX_DOMAINS) {
        s->dropped++;
        return;
    }
    memmove(&s->domains[i + 1], &s->domains[i], (s->ndomains - i) * sizeof(s->domains[0]));
    s->domains[i] = d;
    s->ndomains++;
}

/* Remember an enabled processor and its domain. */
static void add_cpu(struct srat_info *s, uint32_t id, uint32_t domain, bool gicc)
{
    if (s->ncpus >= SRAT_MAX_CPUS) {
        s->dropped++;
        return;
    }
    s->cpus[s->ncpus].id = id;
    s->cpus[s->ncpus].domain = domain;
    s->cpus[s->ncpus].gicc = gicc;
    s->ncpus++;
    add_domain(s, domain);
}

/* Parse a SRAT (see mem_srat.h). */
int srat_parse(const void *table, size_t avail, struct srat_info *out)
{
    const uint8_t *t = table;
    uint32_t len;
    size_t off;

    memset(out, 0, sizeof(*out));
    if (!t || avail < SRAT_HEADER_LEN || memcmp(t, "SRAT", 4))
        return BM_EINVAL;
    len = rd32(t + 4);
    if (len < SRAT_HEADER_LEN || len > avail)
        return BM_EINVAL;

    for (off = SRAT_HEADER_LEN; off + 2 <= len;) {
        const uint8_t *e = t + off;
        uint8_t type = e[0], elen = e[1];

        if (elen < 2 || off + elen > len)
            return BM_EINVAL;
        switch (type) {
        case SRAT_TYPE_LAPIC:
            /* Domain bits 7:0 at offset 2, APIC ID at 3, flags at 4,
             * domain bits 31:8 at 9..11. */
            if (elen < SRAT_LAPIC_LEN)
                return BM_EINVAL;
            if (rd32(e + 4) & SRAT_FLAG_ENABLED)
                add_cpu(out, e[3], e[2] | (uint32_t)e[9] << 8 | (uint32_t)e[10] << 16 | (uint32_t)e[11] << 24, false);
            break;
        case SRAT_TYPE_X2APIC:
            /* Domain at 4, x2APIC ID at 8, flags at 12. */
            if (elen < SRAT_X2APIC_LEN)
                return BM_EINVAL;
            if (rd32(e + 12) & SRAT_FLAG_ENABLED)
                add_cpu(out, rd32(e + 8), rd32(e + 4), false);
            break;
        case SRAT_TYPE_GICC:
            /* Domain at 2, ACPI processor UID at 6, flags at 10, clock
             * domain at 14. A short entry makes the whole table bad, as
             * Linux acpi_numa_gicc_affinity_init() (bad_srat()). */
            if (elen < SRAT_GICC_LEN)
                return BM_EINVAL;
            if (rd32(e + 10) & SRAT_FLAG_ENABLED)
                add_cpu(out, rd32(e + 6), rd32(e + 2), true);
            break;
        case SRAT_TYPE_MEMORY: {
            /* Domain at 2, base at 8, length at 16, flags at 28. */
            uint32_t flags;
            uint64_t length;
            if (elen < SRAT_MEMORY_LEN)
                return BM_EINVAL;
            flags = rd32(e + 28);
            length = rd64(e + 16);
            if (!(flags & SRAT_FLAG_ENABLED) || length == 0)
                break;
            if (out->nmems >= SRAT_MAX_MEMS) {
                out->dropped++;
                break;
            }
            out->mems[out->nmems].domain = rd32(e + 2);
            out->mems[out->nmems].base = rd64(e + 8);
            out->mems[out->nmems].length = length;
            out->mems[out->nmems].hotplug = flags & SRAT_MEM_HOTPLUG;
            out->mems[out->nmems].nonvolatile = flags & SRAT_MEM_NONVOLATILE;
            add_domain(out, rd32(e + 2));
            out->nmems++;
            break;
        }
        default:
            /* GIC ITS, generic initiator/port affinity, RINTC: no CPU we run on, no DRAM. */
            break;
        }
        off += elen;
    }
    return BM_OK;
}

/* Domain of an APIC ID, -1 if SRAT does not list it. */
int64_t srat_domain_of_apic(const struct srat_info *s, uint32_t apic_id)
{
    for (unsigned i = 0; i < s->ncpus; i++)
        if (!s->cpus[i].gicc && s->cpus[i].id == apic_id)
            return s->cpus[i].domain;
    return -1;
}

/* Domain of an ACPI processor UID (GICC entries), -1 if SRAT does not list
 * it; Linux maps the UID to the CPU's MPIDR through MADT
 * (acpi_map_madt_entry()), the platform does that here. */
int64_t srat_domain_of_cpu(const struct srat_info *s, uint32_t acpi_uid)
{
    for (unsigned i = 0; i < s->ncpus; i++)
        if (s->cpus[i].gicc && s->cpus[i].id == acpi_uid)
            return s->cpus[i].domain;
    return -1;
}

/* Domain of a physical address, -1 if no memory range holds it. */
int64_t srat_domain_of_addr(const struct srat_info *s, uint64_t addr)
{
    for (unsigned i = 0; i < s->nmems; i++)
        if (addr >= s->mems[i].base && addr - s->mems[i].base < s->mems[i].length)
            return s->mems[i].domain;
    return -1;
}
