/* Inventory: placeholder until the SMBIOS/CPUID/PCI inventory lands. */
#include "inventory.h"
#include "../record.h"

int inventory_collect(struct sysinfo *si)
{
    memset(si, 0, sizeof(*si));
    si->cpus = plat_cpu_count();
    si->tsc_hz = plat_tsc_hz();
    plat_firmware_info(si->firmware, sizeof(si->firmware));
    bm_strlcpy(si->serial, "unknown", sizeof(si->serial));
    return BM_OK;
}

void inventory_emit(const struct sysinfo *si)
{
    static struct record r;
    record_begin(&r, "system");
    json_u64(&r.j, "cpus", si->cpus);
    json_u64(&r.j, "tsc_hz", si->tsc_hz);
    json_str(&r.j, "firmware", si->firmware);
    record_emit(&r, NULL);
}
