/* Bus files of baremark-spd-sim (smbus_sim_parse, drivers/smbus/smbus_sim.h),
 * then the real SPD reader over the bus they describe: whatever the file
 * says, the reader must not write into an EEPROM or to 0x30-0x37 while a
 * legacy EEPROM is on the bus. */
#include "fuzz.h"
#include "drivers/smbus/smbus_sim.h"
#include "inventory/spd_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static struct smbus_sim sim;
    static struct spd_raw raw[SPD_SLOTS];
    struct spd_bus_hint hint;
    struct smbus b;
    char err[160], note[200];
    uint8_t *copy = fuzz_page(data, n, n ? n : 1);   /* exactly n bytes: ASan sees a read past the end */

    if (smbus_sim_parse((const char *)copy, n, &sim, err, sizeof(err)) == BM_OK) {
        if (sim.page_query_busy > 2)
            sim.page_query_busy = 2;   /* each lost query waits 1 ms */
        hint.smbios_ddr4 = sim.smbios_ddr4;
        hint.smbios_ddr5 = sim.smbios_ddr5;
        hint.smbios_slots = sim.smbios_slots;
        smbus_sim_open(&sim, &b);
        (void)spd_read_bus(&b, &hint, raw, note, sizeof(note));
        smbus_close(&b);
        if (sim.eeprom_writes || sim.protect_writes)
            abort();   /* a forbidden write reached the bus */
    } else if (!memchr(err, '\0', sizeof(err))) {
        abort();
    }
    free(copy);
    return 0;
}
