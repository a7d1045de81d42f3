/* A simulated Xeon integrated memory controller SMBus function for the host
 * build (imc_sim_host.c): the E5 v1-v4 layout (FreeBSD imcsmb_reg.h, Linux
 * i2c-imc: SMBSTAT/SMBCMD/SMBCNTL at 0x180/0x184/0x188, 0x10 apart) or the
 * Xeon Scalable one (Intel's Purley header: SMB_CMD_CFG 0x9c/0xa0,
 * SMB_STATUS_CFG 0xa8/0xac, SMB_DATA_CFG 0xb4/0xb8 of PCU function 5),
 * with the DIMMs' SPD EEPROMs behind its two controllers. Its register
 * offsets and bits are written out here from those references, not taken
 * from the driver (efi/inventory/spd_imc.h), so one wrong constant does not
 * hide in both. Used by tests/unit/test_spd_imc_model.c and by
 * build/host/baremark-spd-sim (a bus file with an `imc` line).
 *
 * It rejects what the chip would refuse or what would change a module
 * (ignored and counted): a command while the thermal sensor polling is
 * enabled or the bus is BUSY; a write, word, pointer-write or pointer-
 * select command; a device type other than 1010b (the SPD EEPROM, so only
 * 0x50-0x57 can be addressed); a change to any control bit but the poll
 * enable and the device type (clock override, write disable, soft reset,
 * SMI/ERR enables); a write to any other register, or not 32 bits wide.
 * Like the chip: thermal polling keeps the bus BUSY on a cadence while
 * enabled and SBE clear; clearing the poll enable takes effect once the
 * poll in flight ends; a CLTT lock keeps the poll enable set; SBE on a slot
 * that does not acknowledge, which stops the polling until a later command
 * succeeds; another master holding the bus; a command that never ends.
 * It measures how long the polling stays paused. */
#ifndef BAREMARK_IMC_SIM_H
#define BAREMARK_IMC_SIM_H

#include "platform_sim.h"

struct imc_sim_bus {
    uint32_t stat, data;        /* status register; Scalable data register */
    uint32_t result, result_data;   /* shown when the running command ends */
    unsigned busy_left;         /* status reads until it ends */
    bool running, stuck;        /* a command runs; commands never end */
    unsigned cmd_busy_reads;    /* status reads each command stays BUSY (default 2) */
    const uint8_t *dimm[8];     /* SPD image (256 bytes at least) per address 0x50+i; NULL: no acknowledge */
    unsigned nack_from[8];      /* the device stops acknowledging at this offset (0: never) */
    /* The thermal polling. */
    bool poll_locked;           /* the poll enable cannot be cleared (CLTT lock) */
    unsigned poll_period;       /* while polling: a thermal sensor poll starts every this many status reads */
    unsigned poll_left;         /* status reads the poll in flight still takes */
    unsigned poll_reads;
    unsigned tail;              /* status reads the poll in flight takes after the enable is cleared */
    unsigned foreign_busy;      /* another master: BUSY for this many reads (~0u: for ever) */
    unsigned foreign_write_after;  /* another master rewrites the control register after this many commands */
    uint64_t paused_at, max_pause_ns;
    bool paused;
    uint32_t shadow;            /* the control register as the model holds it */
    uint32_t found_cntl, found_cmd;
    /* Counters. */
    unsigned commands, reads_ok, nacks;
    unsigned cmd_while_polling, cmd_while_busy, write_cmd, word_cmd, pntr_cmd, bad_dti, bad_bits;
};

struct imc_sim {
    struct plat_sim_dev pci;
    bool skx;                   /* the Scalable layout */
    struct imc_sim_bus bus[2];
    unsigned other_writes;
    /* Told of every register write the driver makes (NULL: silent). */
    void (*trace)(void *ctx, const char *line);
    void *trace_ctx;
};

/* m as a function with device id at a, both controllers as a firmware
 * with closed-loop thermal throttling leaves them (polling on, device type
 * 0011b, clock released; on E5 the poller's pointer-select command), no
 * DIMMs. Not attached yet. */
void imc_sim_init(struct imc_sim *m, uint16_t device, struct pci_addr a, bool skx);
/* Make the register pair of controller b show the polling off at start. */
void imc_sim_poll_off(struct imc_sim *m, unsigned b);
/* Attach / detach it (efi/platform_sim.h). */
void imc_sim_attach(struct imc_sim *m);
void imc_sim_detach(struct imc_sim *m);

/* What the model counts as never allowed on controller b (the sum). */
unsigned imc_sim_violations(const struct imc_sim *m, unsigned b);
/* Is controller b as found: the control (and E5 command) register equal to
 * their values at start, the polling not paused, no SBE left when a DIMM is
 * there? False with why. */
bool imc_sim_left_as_found(const struct imc_sim *m, unsigned b, char *why, size_t cap);

#endif
