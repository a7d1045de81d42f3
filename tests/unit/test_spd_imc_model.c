/* SPD over the Xeon integrated memory controller's SMBus
 * (efi/inventory/spd_imc.c) against a model of its two SMBus controllers.
 *
 * The model's registers are written out here from the references, not
 * taken from the driver's header: the E5 v1-v4 layout (FreeBSD
 * imcsmb_reg.h, Linux i2c-imc: SMBSTAT/SMBCMD/SMBCNTL at 0x180/0x184/0x188,
 * 0x10 apart) and the Xeon Scalable one (Intel's Purley register header:
 * SMB_CMD_CFG 0x9c/0xa0, SMB_STATUS_CFG 0xa8/0xac, SMB_DATA_CFG 0xb4/0xb8 of
 * PCU function 5).
 *
 * What it rejects (ignored and counted, as the chip would leave the bus
 * alone or, worse, do it): a command while the thermal sensor polling is
 * enabled or the bus is BUSY; a write, word, pointer-write or pointer-
 * select command; a device type other than 1010b (the SPD EEPROM, so only
 * 0x50-0x57 can be addressed); a change to any control bit but the poll
 * enable and the device type (clock override, write disable, soft reset,
 * SMI/ERR enables); a write to any other register. What it does like the
 * chip: thermal polling keeps the bus BUSY on a cadence while enabled and
 * the SBE clear; clearing the poll enable takes effect once the poll in
 * flight ends (Purley header: "A change takes effect once the bus is no
 * longer busy"); a poll enable that a locked CLTT setting keeps set; SBE
 * on a slot that does not acknowledge, which stops the thermal polling
 * until a later command succeeds; another master holding the bus; a
 * command that never ends. The model measures how long the polling stays
 * paused, and the tests check each bus is left as found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "capture_sink.h"
#include "efi/inventory/spd.h"
#include "efi/inventory/spd_imc.h"
#include "efi/inventory/spd_inventory.h"
#include "platform_sim.h"

/* E5 v1-v4 (FreeBSD imcsmb_reg.h). */
#define E5_STAT(b) (0x180 + 0x10 * (b))
#define E5_CMD(b) (0x184 + 0x10 * (b))
#define E5_CNTL(b) (0x188 + 0x10 * (b))
#define E5_RDO 0x80000000u
#define E5_WOD 0x40000000u
#define E5_SBE 0x20000000u
#define E5_BUSY 0x10000000u
#define E5_TRIGGER 0x80000000u
#define E5_PNTR_SEL 0x40000000u
#define E5_WORD 0x20000000u
#define E5_TYPE 0x18000000u
#define E5_DTI 0xf0000000u
#define E5_CKOVRD 0x08000000u
#define E5_DIS_WRT 0x04000000u
#define E5_POLL_EN 0x00000100u
/* Xeon Scalable (Purley SMB_*_CFG_*_PCU_FUN5). */
#define SKX_CMD(b) (0x9c + 4 * (b))
#define SKX_STAT(b) (0xa8 + 4 * (b))
#define SKX_DATA(b) (0xb4 + 4 * (b))
#define SKX_BUSY 0x1u
#define SKX_SBE 0x2u
#define SKX_RDO 0x4u
#define SKX_WOD 0x8u
#define SKX_DTI (0xfu << 11)
#define SKX_WRT (3u << 15)
#define SKX_WORD (1u << 17)
#define SKX_PNTR (1u << 18)
#define SKX_TRIGGER (1u << 19)
#define SKX_POLL_EN (1u << 20)
#define SKX_CKOVRD (1u << 29)

#define NS_MS 1000000ull

struct bus_model {
    uint32_t stat;              /* the status register */
    uint32_t data;              /* Scalable: the data register */
    uint32_t result, result_data;   /* shown when the running command ends */
    unsigned busy_left;         /* status reads until it ends */
    bool running, stuck;        /* a command runs; it never ends */
    unsigned cmd_busy_reads;    /* status reads each command stays BUSY */
    const uint8_t *dimm[8];     /* image per SPD address 0x50+i; NULL: no acknowledge */
    /* The thermal polling. */
    bool poll_locked;           /* the poll enable cannot be cleared (CLTT lock) */
    unsigned poll_period;       /* while polling: a TSOD poll starts every this many status reads */
    unsigned poll_left;         /* status reads the poll in flight still takes */
    unsigned poll_reads;
    unsigned tail;              /* status reads the poll in flight takes after the enable is cleared */
    unsigned foreign_busy;      /* another master: BUSY for this many reads (~0u: for ever) */
    uint64_t paused_at, max_pause_ns;
    bool paused;
    uint32_t found_cntl, found_cmd;
    /* Counters. */
    unsigned commands, reads_ok, nacks;
    unsigned cmd_while_polling, cmd_while_busy, write_cmd, word_cmd, pntr_cmd, bad_dti, bad_bits;
};

struct imc_model {
    struct plat_sim_dev pci;
    bool skx;
    struct bus_model bus[2];
    unsigned other_writes;
};

static struct imc_model M[2];
static int nmodels;
static uint8_t ddr3[4][256], ddr4[512];
static struct pci_list L;
static struct spd_raw raw[SPD_IMC_DIMMS];
static char note[600];

static uint32_t get32(struct imc_model *m, unsigned off)
{
    uint32_t v;
    memcpy(&v, &m->pci.config[off], 4);
    return v;
}

static void put32(struct imc_model *m, unsigned off, uint32_t v)
{
    memcpy(&m->pci.config[off], &v, 4);
}

static unsigned stat_off(struct imc_model *m, unsigned b) { return m->skx ? SKX_STAT(b) : E5_STAT(b); }
static unsigned cntl_off(struct imc_model *m, unsigned b) { return m->skx ? SKX_CMD(b) : E5_CNTL(b); }
static uint32_t busy_bit(struct imc_model *m) { return m->skx ? SKX_BUSY : E5_BUSY; }
static uint32_t sbe_bit(struct imc_model *m) { return m->skx ? SKX_SBE : E5_SBE; }
static uint32_t poll_bit(struct imc_model *m) { return m->skx ? SKX_POLL_EN : E5_POLL_EN; }

/* Is the IMC polling the thermal sensors now (enabled, no SBE)? */
static bool polling(struct imc_model *m, unsigned b)
{
    return (get32(m, cntl_off(m, b)) & poll_bit(m)) && !(m->bus[b].stat & sbe_bit(m));
}

/* A status read: time passes; a command, a poll, another master move on. */
static void model_config_read(void *ctx, uint16_t off, unsigned bytes)
{
    struct imc_model *m = ctx;
    struct bus_model *bm;
    unsigned b;

    (void)bytes;
    if (off == stat_off(m, 0))
        b = 0;
    else if (off == stat_off(m, 1))
        b = 1;
    else
        return;
    bm = &m->bus[b];
    plat_sim_advance_ns(20000);
    bm->stat &= ~busy_bit(m);
    if (bm->running) {
        if (!bm->stuck && bm->busy_left-- == 0) {
            bm->running = false;
            bm->stat = bm->result;
            bm->data = bm->result_data;
        } else {
            bm->stat |= busy_bit(m);
        }
    } else if (bm->foreign_busy) {
        bm->stat |= busy_bit(m);
        if (bm->foreign_busy != ~0u)
            bm->foreign_busy--;
    } else if (bm->poll_left) {
        bm->poll_left--;
        bm->stat |= busy_bit(m);
    } else if (polling(m, b) && bm->poll_period && ++bm->poll_reads % bm->poll_period == 0) {
        bm->poll_left = 2;        /* a TSOD read takes a few polls */
        bm->stat |= busy_bit(m);
    }
    put32(m, off, bm->stat);
    if (m->skx)
        put32(m, SKX_DATA(b), bm->data);
}

/* The poll enable moved from was to now. */
static void poll_changed(struct imc_model *m, struct bus_model *bm, bool was, bool now)
{
    if (was && !now) {
        bm->paused = true;
        bm->paused_at = plat_now_ns();
        if (bm->poll_left)
            bm->poll_left += bm->tail;   /* the poll in flight ends first */
    } else if (!was && now && bm->paused) {
        uint64_t d = plat_now_ns() - bm->paused_at;
        bm->paused = false;
        if (d > bm->max_pause_ns)
            bm->max_pause_ns = d;
    }
    (void)m;
}

/* Start (or refuse) a command: cmd holds type/word/pointer/SA/BA, dti the
 * device type, poll_on whether the poll enable is set at that moment. */
static void trigger(struct imc_model *m, unsigned b, uint32_t type, bool word, bool pntr, unsigned dti, unsigned sa,
                    unsigned ba, bool poll_on)
{
    struct bus_model *bm = &m->bus[b];

    if (poll_on && !(bm->stat & sbe_bit(m))) {
        bm->cmd_while_polling++;
        return;
    }
    if (bm->running || bm->foreign_busy || bm->poll_left || (bm->stat & busy_bit(m))) {
        bm->cmd_while_busy++;
        return;
    }
    if (type) {
        bm->write_cmd++;
        return;
    }
    if (word) {
        bm->word_cmd++;
        return;
    }
    if (pntr) {
        bm->pntr_cmd++;
        return;
    }
    if (dti != 0xa) {
        bm->bad_dti++;
        return;
    }
    bm->commands++;
    bm->running = true;
    bm->busy_left = bm->cmd_busy_reads;
    bm->stat = busy_bit(m);   /* RDO, WOD, SBE cleared as the command starts */
    if (bm->dimm[sa]) {
        uint8_t v = bm->dimm[sa][ba];
        bm->reads_ok++;
        /* Linux: a successful read sets WOD as well as RDO. */
        bm->result = m->skx ? SKX_RDO | SKX_WOD : E5_RDO | E5_WOD | 0xab00u | v;
        bm->result_data = m->skx ? 0xab00u | v : 0;
    } else {
        bm->nacks++;
        bm->result = sbe_bit(m);
        bm->result_data = 0;
    }
}

/* A config write that is not to a control register (model_written):
 * the E5 command register, or a register nobody may write. */
static void model_config_written(void *ctx, uint16_t off, unsigned bytes)
{
    struct imc_model *m = ctx;

    assert_int_equal(bytes, 4);
    for (unsigned b = 0; b < 2 && !m->skx; b++) {
        uint32_t v = get32(m, off), cntl = get32(m, E5_CNTL(b));

        if (off != E5_CMD(b))
            continue;
        if (v & E5_TRIGGER) {
            trigger(m, b, v & E5_TYPE, v & E5_WORD, v & E5_PNTR_SEL, cntl >> 28, (v >> 24) & 7, (v >> 16) & 0xff,
                    cntl & E5_POLL_EN);
            put32(m, off, v & ~E5_TRIGGER);   /* the controller clears it */
        }
        return;
    }
    m->other_writes++;
}

/* The control registers keep a shadow, so a write's old value is known:
 * wrapped around the generic hook. */
static uint32_t shadow[2][2];

static void model_written(void *ctx, uint16_t off, unsigned bytes)
{
    struct imc_model *m = ctx;
    int mi = m == &M[0] ? 0 : 1;

    for (unsigned b = 0; b < 2; b++) {
        struct bus_model *bm = &m->bus[b];
        uint32_t v, old, pe = poll_bit(m);
        uint32_t allowed;

        if (off != cntl_off(m, b))
            continue;
        v = get32(m, off);
        old = shadow[mi][b];
        /* What a write may change: the poll enable and the device type
         * (E5 SMBCNTL); on Scalable also the command fields. */
        allowed = m->skx ? (0x7ffu | SKX_DTI | SKX_WRT | SKX_WORD | SKX_PNTR | SKX_TRIGGER | SKX_POLL_EN)
                         : (E5_DTI | E5_POLL_EN);
        if ((v ^ old) & ~allowed) {
            bm->bad_bits++;
            v = (v & allowed) | (old & ~allowed);   /* the model keeps them */
        }
        if (bm->poll_locked && (old & pe) && !(v & pe))
            v |= pe;                                 /* CLTT lock: the bit stays */
        poll_changed(m, bm, old & pe, v & pe);
        if (m->skx && (v & SKX_TRIGGER)) {
            trigger(m, b, v & SKX_WRT, v & SKX_WORD, v & SKX_PNTR, (v >> 11) & 0xf, (v >> 8) & 7, v & 0xff, v & pe);
            v &= ~SKX_TRIGGER;
        }
        put32(m, off, v);
        shadow[mi][b] = v;
        return;
    }
    model_config_written(ctx, off, bytes);
}

/* Images: the DDR3 UDIMM of the fuzz corpus with distinct serials (bytes
 * 122-125, outside the CRC'd range); the DDR4 RDIMM. */
static void load_images(void)
{
    FILE *f = fopen("tests/fuzz/corpus/spd/ddr3_udimm.bin", "rb");

    assert_non_null(f);
    assert_int_equal(fread(ddr3[0], 1, 256, f), 256);
    fclose(f);
    for (int i = 1; i < 4; i++) {
        memcpy(ddr3[i], ddr3[0], 256);
        ddr3[i][125] = (uint8_t)(ddr3[0][125] + i);
    }
    f = fopen("tests/fuzz/corpus/spd/ddr4_rdimm.bin", "rb");
    assert_non_null(f);
    assert_int_equal(fread(ddr4, 1, 512, f), 512);
    fclose(f);
}

/* A function with the id at bus:dev.fn, both controllers found with the
 * thermal polling on (DTI 0011b, the TSOD's, as a poller leaves it). */
static struct imc_model *add_model(uint16_t device, uint8_t bus, uint8_t dev, uint8_t fn, bool skx)
{
    struct imc_model *m = &M[nmodels];
    int mi = nmodels++;

    memset(m, 0, sizeof(*m));
    m->skx = skx;
    m->pci.addr = (struct pci_addr){ 0, bus, dev, fn };
    m->pci.ctx = m;
    m->pci.config_read = model_config_read;
    m->pci.config_written = model_written;
    m->pci.config[0] = 0x86, m->pci.config[1] = 0x80;
    m->pci.config[2] = (uint8_t)device, m->pci.config[3] = (uint8_t)(device >> 8);
    m->pci.config[0x0a] = 0x80, m->pci.config[0x0b] = 0x08;   /* system peripheral */
    for (unsigned b = 0; b < 2; b++) {
        struct bus_model *bm = &m->bus[b];
        uint32_t cntl = skx ? (SKX_CKOVRD | SKX_POLL_EN | 0x3u << 11) : (0x3u << 28 | E5_CKOVRD | E5_POLL_EN | 0x3fu);
        uint32_t cmd = skx ? cntl : E5_PNTR_SEL | 0x05u << 16;   /* the poller's pointer read of register 5 */

        bm->cmd_busy_reads = 2;
        bm->poll_period = 7;
        bm->tail = 1;
        put32(m, cntl_off(m, b), cntl);
        if (!skx)
            put32(m, E5_CMD(b), cmd);
        shadow[mi][b] = cntl;
        bm->found_cntl = cntl;
        bm->found_cmd = cmd;
    }
    plat_sim_attach(&m->pci);
    L.funcs[L.count].addr = m->pci.addr;
    L.funcs[L.count].vendor = 0x8086;
    L.funcs[L.count].device = device;
    L.count++;
    return m;
}

static int setup(void **state)
{
    (void)state;
    nmodels = 0;
    memset(&L, 0, sizeof(L));
    memset(raw, 0, sizeof(raw));
    load_images();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int i = 0; i < nmodels; i++)
        plat_sim_detach(&M[i].pci);
    return 0;
}

/* Nothing the chip rejects was tried, and every bus is as found: control
 * (and E5 command) register, the polling on again, no SBE left where a DIMM
 * answers, never paused longer than the bound. */
static void assert_left_as_found(struct imc_model *m)
{
    assert_int_equal(m->other_writes, 0);
    for (unsigned b = 0; b < 2; b++) {
        struct bus_model *bm = &m->bus[b];
        bool any = false;

        assert_int_equal(bm->cmd_while_polling, 0);
        assert_int_equal(bm->cmd_while_busy, 0);
        assert_int_equal(bm->write_cmd, 0);
        assert_int_equal(bm->word_cmd, 0);
        assert_int_equal(bm->pntr_cmd, 0);
        assert_int_equal(bm->bad_dti, 0);
        assert_int_equal(bm->bad_bits, 0);
        assert_int_equal(get32(m, cntl_off(m, b)), bm->found_cntl);
        if (!m->skx)
            assert_int_equal(get32(m, E5_CMD(b)), bm->found_cmd);
        assert_false(bm->paused);
        assert_true(bm->max_pause_ns <= IMC_PAUSE_MAX_NS + 100 * NS_MS);
        for (int s = 0; s < 8; s++)
            any |= bm->dimm[s] != NULL;
        if (any)
            assert_int_equal(bm->stat & sbe_bit(m), 0);
    }
}

static const struct spd_raw *entry(int n, const char *where, uint8_t addr)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(raw[i].where, where) && raw[i].addr == addr)
            return &raw[i];
    return NULL;
}

static void assert_ddr3(int n, const char *where, uint8_t addr, const uint8_t *want)
{
    const struct spd_raw *r = entry(n, where, addr);
    struct spd_info in;

    assert_non_null(r);
    assert_int_equal(r->rc, BM_OK);
    assert_int_equal(r->len, 256);
    assert_memory_equal(r->data, want, 256);
    assert_int_equal(spd_decode(r->data, r->len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR3);
    assert_true(in.crc_ok);
}

/* Xeon E5 v2 (0000:ff:0f.0, 8086:0ea8): DIMMs on both controllers, empty
 * slots between them; polling paused and put back, SBE cleared. */
static void test_imc_e5v2_reads_ddr3_on_both_controllers_and_restores_polling(void **state)
{
    struct imc_model *m;
    int n;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].dimm[4] = ddr3[1];
    m->bus[1].dimm[1] = ddr3[2];
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    assert_string_equal(note, "");
    assert_ddr3(n, "i0.0", 0x50, ddr3[0]);
    assert_ddr3(n, "i0.0", 0x54, ddr3[1]);
    assert_ddr3(n, "i0.1", 0x51, ddr3[2]);
    assert_true(m->bus[0].nacks >= 6);
    assert_left_as_found(m);
}

/* CLTT keeps TSOD_POLL_EN set: no command at all, the bus named, nothing
 * left changed. */
static void test_imc_pause_that_never_confirms_is_refused(void **state)
{
    struct imc_model *m;
    int n;

    (void)state;
    m = add_model(0x3ca8, 0x7f, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].poll_locked = true;
    m->bus[1].dimm[2] = ddr3[1];
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_int_equal(m->bus[0].commands, 0);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "could not be paused"));
    assert_null(strstr(note, "i0.1"));
    assert_ddr3(n, "i0.1", 0x52, ddr3[1]);
    assert_left_as_found(m);
}

/* Polling off, and the bus BUSY for ever: a BMC owns it. Refused within
 * the bound, no command. */
static void test_imc_bus_held_by_another_master_is_refused_in_time(void **state)
{
    struct imc_model *m;
    uint64_t t0;

    (void)state;
    m = add_model(0x2fa8, 0xff, 18, 0, false);
    for (unsigned b = 0; b < 2; b++) {
        uint32_t cntl = get32(m, E5_CNTL(b)) & ~E5_POLL_EN;
        put32(m, E5_CNTL(b), cntl);
        shadow[0][b] = m->bus[b].found_cntl = cntl;
    }
    m->bus[1].foreign_busy = ~0u;
    m->bus[1].dimm[0] = ddr3[0];
    m->bus[0].dimm[3] = ddr3[3];
    t0 = plat_now_ns();
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_true(plat_now_ns() - t0 < 2000 * NS_MS);
    assert_int_equal(m->bus[1].commands, 0);
    assert_non_null(strstr(note, "i0.1"));
    assert_non_null(strstr(note, "another master"));
    assert_ddr3(1, "i0.0", 0x53, ddr3[3]);
    assert_left_as_found(m);
}

/* The thermal poll in flight when the pause is asked for, and a BMC
 * transaction, last several polls: waited for, then the read goes on. */
static void test_imc_busy_that_clears_late_is_waited_for(void **state)
{
    struct imc_model *m;

    (void)state;
    m = add_model(0x6fa8, 0xff, 18, 0, false);
    m->bus[0].dimm[2] = ddr3[2];
    m->bus[0].poll_period = 1;      /* a poll always in flight */
    m->bus[0].tail = 40;            /* ends 40 polls after the pause */
    m->bus[1].foreign_busy = 200;   /* a BMC read, 4 ms */
    m->bus[1].dimm[5] = ddr3[3];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 2);
    assert_string_equal(note, "");
    assert_ddr3(2, "i0.0", 0x52, ddr3[2]);
    assert_ddr3(2, "i0.1", 0x55, ddr3[3]);
    assert_left_as_found(m);
}

/* A command that never ends: bounded, the bus given back (polling on
 * again), the other controller still read. */
static void test_imc_stuck_transaction_is_bounded_and_bus_given_back(void **state)
{
    struct imc_model *m;
    uint64_t t0;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[0] = ddr3[0];
    m->bus[0].stuck = true;
    m->bus[1].dimm[7] = ddr3[1];
    t0 = plat_now_ns();
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_true(plat_now_ns() - t0 < 2000 * NS_MS);
    assert_non_null(strstr(note, "i0.0"));
    assert_non_null(strstr(note, "did not end"));
    assert_int_equal(m->bus[0].commands, 1);
    assert_ddr3(1, "i0.1", 0x57, ddr3[1]);
    /* The stuck command still shows BUSY: nothing more was issued, the
     * control register is back as found. */
    m->bus[0].stuck = false;
    m->bus[0].running = false;
    m->bus[0].stat = 0;
    assert_left_as_found(m);
}

/* No DIMM on a controller: every probe NACKs; the note says the SBE stays
 * (nothing to read to clear it), nothing forbidden happened. */
static void test_imc_empty_controller_probes_only_and_says_sbe_stays(void **state)
{
    struct imc_model *m;

    (void)state;
    m = add_model(0x2f68, 0xff, 22, 0, false);
    m->bus[0].dimm[1] = ddr3[0];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_int_equal(m->bus[1].commands, 8);
    assert_int_equal(m->bus[1].nacks, 8);
    assert_non_null(strstr(note, "i0.1"));
    assert_non_null(strstr(note, "bus error of the last probe stays set"));
    assert_left_as_found(m);
}

/* DDR4 (E5 v4): page 0 only, with a note; no page select (there is no
 * command that could carry one: the model counts any write command). */
static void test_imc_ddr4_page0_read_without_a_page_select(void **state)
{
    struct imc_model *m;
    struct spd_info in;
    int n;

    (void)state;
    m = add_model(0x6fa8, 0xff, 18, 0, false);
    m->bus[0].dimm[0] = ddr4;
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_int_equal(raw[0].len, 256);
    assert_memory_equal(raw[0].data, ddr4, 256);
    assert_non_null(strstr(raw[0].note, "DDR4 page 1"));
    assert_int_equal(spd_decode(raw[0].data, raw[0].len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR4);
    assert_left_as_found(m);
}

/* Reading many DIMMs gives the bus back to the thermal polling between
 * them: never paused longer than the bound even when each byte is slow. */
static void test_imc_polling_never_paused_longer_than_the_bound(void **state)
{
    struct imc_model *m;

    (void)state;
    m = add_model(0x3ca8, 0x7f, 15, 0, false);
    for (int s = 0; s < 4; s++)
        m->bus[0].dimm[s] = ddr3[s];
    m->bus[0].cmd_busy_reads = 150;   /* 4.5 ms a byte: 1.2 s a DIMM */
    m->bus[1].dimm[0] = ddr3[0];
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 5);
    assert_string_equal(note, "");
    for (int s = 0; s < 4; s++)
        assert_ddr3(4, "i0.0", (uint8_t)(0x50 + s), ddr3[s]);
    assert_true(m->bus[0].max_pause_ns > 0);
    assert_left_as_found(m);
}

/* Two sockets of Xeon Scalable (PCU function 5, 8086:2085): the command
 * register carries the poll enable; the data comes from SMB_DATA_CFG. */
static void test_imc_scalable_two_sockets_read_and_restored(void **state)
{
    struct imc_model *a, *b;
    int n;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 5, true);
    b = add_model(0x2085, 0x85, 30, 5, true);
    a->bus[0].dimm[0] = ddr4;
    a->bus[1].dimm[2] = ddr4;
    b->bus[1].dimm[6] = ddr4;
    n = spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    /* Socket 1's controller 0 is empty: only that is noted. */
    assert_null(strstr(note, "not read"));
    assert_non_null(strstr(note, "i1.0 (0000:85:1e.5): no DIMM answered"));
    assert_null(strstr(note, "i0."));
    assert_non_null(entry(n, "i0.0", 0x50));
    assert_non_null(entry(n, "i0.1", 0x52));
    assert_non_null(entry(n, "i1.1", 0x56));
    for (int i = 0; i < n; i++)
        assert_memory_equal(raw[i].data, ddr4, 256);
    assert_left_as_found(a);
    assert_left_as_found(b);
}

/* Scalable with a locked poll enable on one controller: refused there. */
static void test_imc_scalable_locked_poll_enable_refused(void **state)
{
    struct imc_model *a;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 5, true);
    a->bus[0].dimm[0] = ddr4;
    a->bus[0].poll_locked = true;
    a->bus[1].dimm[1] = ddr4;
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), 1);
    assert_int_equal(a->bus[0].commands, 0);
    assert_non_null(strstr(note, "could not be paused"));
    assert_left_as_found(a);
}

/* A PCU function 1 or an IMC function at the wrong place is not read. */
static void test_imc_other_functions_are_not_touched(void **state)
{
    struct imc_model *a, *b;

    (void)state;
    a = add_model(0x2085, 0x17, 30, 1, true);   /* the id at another function */
    b = add_model(0x3ca8, 0x7f, 14, 0, false);  /* Sandy Bridge-EP's is at 15.0 */
    a->bus[0].dimm[0] = ddr4;
    b->bus[0].dimm[0] = ddr3[0];
    assert_false(spd_imc_present(&L));
    assert_int_equal(spd_imc_read(&L, raw, SPD_IMC_DIMMS, note, sizeof(note)), BM_ENODEV);
    assert_int_equal(a->bus[0].commands + b->bus[0].commands, 0);
    assert_int_equal(a->bus[0].max_pause_ns + b->bus[0].max_pause_ns, 0);
}

/* The inventory reads the IMC (found by PCI enumeration) and emits spd
 * records addressed by controller, not the "not read" note. */
static void test_imc_inventory_emits_spd_records_not_a_note(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static struct dimm_summary sum;
    struct imc_model *m;

    (void)state;
    m = add_model(0x0ea8, 0xff, 15, 0, false);
    m->bus[0].dimm[1] = ddr3[0];
    m->bus[1].dimm[4] = ddr3[1];
    nrecs = 0;
    sinks_reset();
    sinks_add(&sink);
    spd_inventory_read(NULL, 0);
    spd_inventory_emit(NULL, 0, &sum);
    sinks_close();
    assert_int_equal(count_records("spd", NULL, NULL), 2);
    assert_int_equal(count_records("spd", "\"address\":\"i0.0:0x51\"", "\"mem_type\":\"DDR3\""), 1);
    assert_int_equal(count_records("spd", "\"address\":\"i0.1:0x54\"", "\"crc_ok\":true"), 1);
    assert_int_equal(count_records("note", "not read", NULL), 0);
    assert_left_as_found(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_imc_e5v2_reads_ddr3_on_both_controllers_and_restores_polling, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_imc_pause_that_never_confirms_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_bus_held_by_another_master_is_refused_in_time, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_busy_that_clears_late_is_waited_for, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_stuck_transaction_is_bounded_and_bus_given_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_empty_controller_probes_only_and_says_sbe_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_ddr4_page0_read_without_a_page_select, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_polling_never_paused_longer_than_the_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_scalable_two_sockets_read_and_restored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_scalable_locked_poll_enable_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_other_functions_are_not_touched, setup, teardown),
        cmocka_unit_test_setup_teardown(test_imc_inventory_emits_spd_records_not_a_note, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
