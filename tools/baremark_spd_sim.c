/* baremark-spd-sim BUSFILE: run the real SPD reader (efi/inventory/
 * spd_read.c, spd*.c decoders) against a bus described in a text file
 * (drivers/smbus/smbus_sim.h gives the format), print every SMBus
 * transaction, then one line per decoded module with the spd record's
 * fields, the notes, and what the bus saw written. A field report (the
 * SPD bytes, which device answered where, the page it started on) can be
 * replayed this way. Exit status: 0 clean, 1 usage or unreadable file,
 * 2 bad bus file, 3 something was written that must never be (a write to
 * 0x30-0x37 with a legacy EEPROM on the bus, into an EEPROM, or a 34C02's
 * write protection set). A bus file with an `imc` line puts the devices
 * behind a Xeon memory controller's SMBus instead and runs the IMC reader
 * (efi/inventory/spd_imc.c): every register write is printed, and exit
 * status 3 means the model refused something or a controller was not left
 * as found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "../drivers/smbus/imc_sim.h"
#include "../drivers/smbus/smbus_sim.h"
#include "inventory/spd_imc.h"
#include "inventory/spd_read.h"

#define MAX_FILE (1 << 20)

static void print_line(void *ctx, const char *line)
{
    (void)ctx;
    printf("  %s\n", line);
}

/* One module as its spd record would carry it. */
static void print_module(const struct spd_raw *r)
{
    struct spd_info in;

    if (r->len < 3 || spd_decode(r->data, r->len, &in) != BM_OK) {
        printf("spd 0x%02x: no SPD image (%zu bytes read, key byte 0x%02x)%s%s\n", r->addr, r->len,
               r->len >= 3 ? r->data[2] : 0, r->note[0] ? ": " : "", r->note);
        return;
    }
    printf("spd 0x%02x: mem_type=\"%s\" module_type=\"%s\" size_mb=%llu ranks=%u speed_mts=%u tck_ps=%u "
           "cl=%u trcd=%u trp=%u tras=%u manufacturer=\"%s\" part=\"%s\" serial=\"%s\" crc_ok=%s truncated=%s "
           "bytes_read=%zu note=\"%s\"\n", r->addr, in.mem_type, in.module_type, (unsigned long long)in.size_mb,
           in.ranks, in.speed_mts, in.tck_ps, in.cl, in.trcd, in.trp, in.tras, in.manufacturer, in.part, in.serial,
           in.crc_ok ? "true" : "false", in.truncated ? "true" : "false", r->len, r->note);
}

/* An `imc` bus file: the devices on controller 0 of a simulated Xeon
 * memory controller SMBus (drivers/smbus/imc_sim.h), read by spd_imc.c.
 * Prints every register write and what the model saw. Exit status as
 * main's: 3 when the model counted something the chip refuses, or a
 * controller was not left as found (thermal polling paused, SBE left). */
static int run_imc(const struct smbus_sim *sim)
{
    static struct imc_sim m;
    static struct pci_list l;
    static struct spd_raw raw[SPD_IMC_DIMMS];
    char note[600] = "", why[160];
    bool bad = false;
    int rc;

    if (sim->imc == 1)
        imc_sim_init(&m, 0x0ea8, (struct pci_addr){ 0, 0xff, 15, 0 }, false);
    else
        imc_sim_init(&m, 0x2085, (struct pci_addr){ 0, 0x17, 30, 5 }, true);
    for (int s = 0; s < 8; s++)
        if (sim->kind[s] != SIM_NONE)
            m.bus[0].dimm[s] = sim->mem[s];
    m.bus[0].poll_locked = sim->imc_cltt_locked;
    m.bus[0].stuck = sim->imc_stuck;
    m.bus[0].foreign_busy = sim->imc_bmc_busy;
    if (sim->imc_poll_off)
        imc_sim_poll_off(&m, 0);
    m.trace = print_line;
    imc_sim_attach(&m);
    l.count = 1;
    l.funcs[0].addr = m.pci.addr;
    l.funcs[0].vendor = 0x8086;
    l.funcs[0].device = sim->imc == 1 ? 0x0ea8 : 0x2085;
    printf("register writes (%s, controller 0 holds the devices):\n",
           sim->imc == 1 ? "Xeon E5 v2 IMC 8086:0ea8 at 0000:ff:0f.0" : "Xeon Scalable PCU 8086:2085 at 0000:17:1e.5");
    rc = spd_imc_read(&l, raw, SPD_IMC_DIMMS, note, sizeof(note));
    printf("result: %d device%s answered%s%s\n", rc, rc == 1 ? "" : "s", note[0] ? "; " : "", note);
    for (int i = 0; i < rc; i++)
        print_module(&raw[i]);
    for (unsigned b = 0; b < 2; b++) {
        if (!imc_sim_left_as_found(&m, b, why, sizeof(why))) {
            printf("NOT AS FOUND: %s\n", why);
            bad = true;
        }
        bad |= imc_sim_violations(&m, b) != 0;
    }
    printf("controller 0: %u commands, %u refused, thermal polling paused at most %.1f ms at a time\n",
           m.bus[0].commands, imc_sim_violations(&m, 0), (double)m.bus[0].max_pause_ns / 1e6);
    imc_sim_detach(&m);
    return bad ? 3 : 0;
}

int main(int argc, char **argv)
{
    static struct smbus_sim sim;
    static struct spd_raw raw[SPD_SLOTS];
    static char text[MAX_FILE];
    struct spd_bus_hint hint;
    struct smbus b;
    char err[160], note[200] = "";
    int start_page, rc;
    uint8_t start_mr11[8];
    bool bad = false;
    size_t len;
    FILE *f;

    if (argc != 2) {
        fprintf(stderr, "usage: baremark-spd-sim BUSFILE\n");
        return 1;
    }
    f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "baremark-spd-sim: cannot open %s\n", argv[1]);
        return 1;
    }
    len = fread(text, 1, sizeof(text), f);
    fclose(f);
    if (len == sizeof(text)) {
        fprintf(stderr, "baremark-spd-sim: %s is larger than %d bytes\n", argv[1], MAX_FILE);
        return 1;
    }
    if (smbus_sim_parse(text, len, &sim, err, sizeof(err)) != BM_OK) {
        fprintf(stderr, "baremark-spd-sim: %s: %s\n", argv[1], err);
        return 2;
    }
    if (sim.imc)
        return run_imc(&sim);
    start_page = sim.ee1004_page;
    memcpy(start_mr11, sim.mr11, sizeof(start_mr11));
    hint.smbios_ddr4 = sim.smbios_ddr4;
    hint.smbios_ddr5 = sim.smbios_ddr5;
    hint.smbios_slots = sim.smbios_slots;
    sim.trace = print_line;
    smbus_sim_open(&sim, &b);
    printf("transactions:\n");
    rc = spd_read_bus(&b, &hint, raw, note, sizeof(note));
    smbus_close(&b);
    printf("result: %d device%s answered%s%s\n", rc, rc == 1 ? "" : "s", note[0] ? "; " : "", note);
    for (int s = 0; s < SPD_SLOTS; s++)
        if (raw[s].present)
            print_module(&raw[s]);
    printf("writes: %u on the bus, %u to 0x30-0x37 with a legacy EEPROM present, %u into EEPROM/hub memory\n",
           sim.writes, sim.protect_writes, sim.eeprom_writes);
    bad = sim.protect_writes || sim.eeprom_writes;
    for (int s = 0; s < 8; s++) {
        if (sim.swp_set[s]) {
            printf("34C02 at 0x%02x: PERMANENT WRITE PROTECTION SET\n", SMBUS_SPD_FIRST + s);
            bad = true;
        }
        if (sim.kind[s] == SIM_HUB && sim.mr11[s] != start_mr11[s])
            printf("hub at 0x%02x: MR11 0x%02x at the end, 0x%02x at the start\n", SMBUS_SPD_FIRST + s, sim.mr11[s],
                   start_mr11[s]);
    }
    if (sim.ee1004_page != start_page)
        printf("EE1004 page %d at the end, %d at the start\n", sim.ee1004_page, start_page);
    return bad ? 3 : 0;
}
