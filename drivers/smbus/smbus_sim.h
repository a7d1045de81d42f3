/* A simulated SPD SMBus for the host build (smbus_sim_host.c): devices at
 * 0x50-0x57 described by a small text file (a "bus file"), driven through
 * the same struct smbus the real host controllers fill, so the real SPD
 * reader (efi/inventory/spd_read.c) runs against it. Used by
 * build/host/baremark-spd-sim (a field report replayed), the SPD unit
 * tests and tests/fuzz/fuzz_spdbus.c.
 *
 * Bus file, one directive a line, '#' starts a comment, numbers in C
 * notation (0x.. hex or decimal):
 *   smbios ddr4|ddr5|ddr3|other [slots=N]   what SMBIOS says (spd_bus_hint)
 *   spd-write-disable                       the chipset refuses writes to 0x50-0x57
 *   ee1004-page 0|1                         the EE1004 page at start
 *   ee1004-select-nack                      SPA0/SPA1 selects switch but are not acknowledged
 *   page-query-busy N                       the first N transactions at 0x36 lose arbitration
 *   device ADDR eeprom|34c02|ee1004|hub [swp-read-nack] [mr11=P] [refuses-paging]
 *   bytes ADDR OFFSET HH HH ...             the device's memory from OFFSET (0-1023)
 *   imc e5|scalable [cltt-locked] [poll-off] [bmc-busy=N|forever] [stuck]
 *                                           the devices sit on controller 0 of a Xeon memory
 *                                           controller's SMBus (imc_sim.h), not on a chipset
 *                                           SMBus: baremark-spd-sim runs the IMC reader
 */
#ifndef BAREMARK_SMBUS_SIM_H
#define BAREMARK_SMBUS_SIM_H

#include "smbus_bus.h"

enum smbus_sim_kind { SIM_NONE = 0, SIM_EEPROM, SIM_34C02, SIM_EE1004, SIM_HUB };

struct smbus_sim {
    enum smbus_sim_kind kind[8];
    uint8_t mem[8][1024];
    uint8_t mr11[8];
    bool refuses_paging[8];
    bool swp_read_nack, swp_set[8];
    int ee1004_page;
    bool ee1004_select_nack;
    unsigned page_query_busy;
    bool spd_write_disable;
    /* The IMC SMBus (an `imc` line): 0 none, 1 E5 v1-v4, 2 Scalable */
    int imc;
    bool imc_cltt_locked, imc_poll_off, imc_stuck;
    unsigned imc_bmc_busy;   /* ~0u: for ever */
    /* SMBIOS, as the bus file says it */
    bool smbios_ddr4, smbios_ddr5;
    unsigned smbios_slots;
    /* What happened */
    unsigned writes, protect_writes, eeprom_writes;
    /* Called for every transaction (NULL: silent). */
    void (*trace)(void *ctx, const char *line);
    void *trace_ctx;
};

/* Parse a bus file of len bytes into sim (cleared first). BM_OK, or
 * BM_EINVAL with err naming the line and the problem. */
int smbus_sim_parse(const char *text, size_t len, struct smbus_sim *sim, char *err, size_t err_len);

/* Open b over sim (b->ops, kind "sim"). */
void smbus_sim_open(struct smbus_sim *sim, struct smbus *b);

#endif
