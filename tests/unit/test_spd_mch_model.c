/* SPD through the Intel 5000P/5000V/5000X MCH's FB-DIMM SPD registers
 * (efi/inventory/spd_mch.c) against a model of those registers (coreboot
 * i5000 raminit.h: SPD0/1 status at 0x74/0x76, SPDCMD0/1 at 0x78/0x7c,
 * BUSY/SBE/WOD/RDO bits 12-15, data in bits 7:0). The model rejects what
 * the datasheet forbids or what would change a module: a command written
 * while BUSY (ignored, counted), the write opcode (CMD bit 0) or any
 * device type but the SPD EEPROM's 1010b, a command with the clock
 * override clear. While BUSY its status keeps the last command's RDO and
 * data, so a driver that takes data before BUSY clears gets the wrong
 * byte. Empty slots do not acknowledge: SBE. A write anywhere but SPDCMD0/1
 * is counted as forbidden. Images: the FB-DIMM SPD of
 * tests/fuzz/corpus/spd/fbdimm_intel_amb.bin, with distinct serials.
 * The Intel 5400 and 7300 branches use the same model at the same offsets
 * (illumos intel_nb5000 SPD_RD()/SPDCMD_WR(): device 21/22 function 0),
 * with up to 8 DIMMs a channel on a 7300, and a function 1 beside each
 * branch given the same id (the worst case), which must see no write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "capture_sink.h"
#include "efi/inventory/spd.h"
#include "efi/inventory/spd_inventory.h"
#include "efi/inventory/spd_mch.h"
#include "platform_sim.h"

#define NS_MS 1000000ull

struct mch_channel {
    uint16_t status;            /* what the status register shows */
    uint16_t result;            /* shown once the running command completes */
    unsigned busy_reads;        /* status reads before it completes */
    uint64_t done_at;           /* ... or when plat_now_ns() passes this */
    bool stuck;                 /* the running command never completes */
    unsigned foreign_busy;      /* another owner's command: BUSY for this many reads, no command of ours */
    bool foreign_stuck;         /* ... forever */
    unsigned commands;          /* commands started */
    const uint8_t *dimm[8];     /* SPD image per slot (SPD slave address); NULL: no acknowledge */
    unsigned stuck_after;       /* 0: never; n: the nth command never completes */
    unsigned lag;               /* status reads left before a started command shows BUSY */
};

struct mch_model {
    struct plat_sim_dev pci;
    unsigned branch;
    struct mch_channel ch[2];
    unsigned busy_per_cmd;      /* status reads each command stays BUSY */
    unsigned start_lag;         /* status reads after a command before BUSY shows (completion fields
                                 * cleared, BUSY not yet set: 5000X datasheet 5.16.5.1 counts a command
                                 * complete only when RDO, WOD or SBE is set) */
    uint64_t ns_per_busy_read;  /* time that passes at each BUSY status read */
    bool forbidden;             /* a function whose registers are not the SPD's: any write counts */
    /* What must never happen. */
    unsigned cmd_while_busy, write_opcode, bad_dti, no_ckovrd, other_writes;
};

static struct mch_model B[2], T[2];   /* T: function 1 beside a 5400/7300 branch */
static uint8_t img[3][256];
static struct pci_list L;
static struct spd_raw raw[SPD_MCH_DIMMS];
static char note[400];

/* A status read: BUSY moves on (time passes), or completes. */
static void model_config_read(void *ctx, uint16_t off, unsigned bytes)
{
    struct mch_model *m = ctx;
    unsigned c;

    (void)bytes;
    if (off != MCH_SPD_STATUS(0) && off != MCH_SPD_STATUS(1))
        return;
    c = off == MCH_SPD_STATUS(1);
    struct mch_channel *ch = &m->ch[c];
    if (ch->lag) {
        /* The command has started: this read shows the fields cleared and
         * BUSY not set yet; BUSY shows after the last of them. */
        plat_sim_advance_ns(m->ns_per_busy_read);
        memcpy(&m->pci.config[off], &ch->status, 2);
        if (--ch->lag == 0)
            ch->status = MCH_SPD_BUSY;
        return;
    } else if (ch->foreign_stuck || ch->foreign_busy) {
        ch->status |= MCH_SPD_BUSY;
        plat_sim_advance_ns(m->ns_per_busy_read);
        if (!ch->foreign_stuck && --ch->foreign_busy == 0)
            ch->status &= (uint16_t)~MCH_SPD_BUSY;
    } else if (ch->status & MCH_SPD_BUSY) {
        /* Done after its polls, or once its time has passed (a poller
         * that lost the CPU finds it complete, as on hardware). */
        bool due = plat_now_ns() >= ch->done_at;
        plat_sim_advance_ns(m->ns_per_busy_read);
        if (!ch->stuck && (due || ch->busy_reads == 0 || --ch->busy_reads == 0))
            ch->status = ch->result;
    }
    memcpy(&m->pci.config[off], &ch->status, 2);
}

/* A command write: started only when it is a legal SPD read. */
static void model_config_written(void *ctx, uint16_t off, unsigned bytes)
{
    struct mch_model *m = ctx;
    struct mch_channel *ch;
    uint32_t cmd;
    unsigned slot, byte;

    if (m->forbidden || (off != MCH_SPD_CMD(0) && off != MCH_SPD_CMD(1))) {
        m->other_writes++;
        return;
    }
    assert_int_equal(bytes, 4);
    ch = &m->ch[off == MCH_SPD_CMD(1)];
    memcpy(&cmd, &m->pci.config[off], 4);
    if ((ch->status & MCH_SPD_BUSY) || ch->lag) {
        m->cmd_while_busy++;
        return;
    }
    if (cmd & MCH_SPDCMD_WRITE) {
        m->write_opcode++;
        return;
    }
    if ((cmd >> 28) != 0xa) {
        m->bad_dti++;
        return;
    }
    if (!(cmd & MCH_SPDCMD_CKOVRD)) {
        m->no_ckovrd++;
        return;
    }
    slot = (cmd >> 24) & 7;
    byte = (cmd >> 16) & 0xff;
    ch->commands++;
    /* RDO and the old data stay visible while BUSY. */
    ch->status = (uint16_t)((ch->status & (MCH_SPD_RDO | 0xff)) | MCH_SPD_BUSY);
    ch->busy_reads = m->busy_per_cmd;
    ch->done_at = plat_now_ns() + (uint64_t)(m->start_lag + m->busy_per_cmd) * m->ns_per_busy_read;
    if (m->start_lag) {
        ch->lag = m->start_lag;
        ch->status = 0;
    }
    ch->stuck = ch->stuck_after && ch->commands >= ch->stuck_after;
    if (slot < 8 && ch->dimm[slot])
        ch->result = (uint16_t)(MCH_SPD_RDO | ch->dimm[slot][byte]);
    else
        ch->result = MCH_SPD_SBE;
}

/* Load the FB-DIMM image and make three with distinct serials (bytes
 * 122-125, outside the CRC'd range). */
static void load_images(void)
{
    FILE *f = fopen("tests/fuzz/corpus/spd/fbdimm_intel_amb.bin", "rb");

    assert_non_null(f);
    assert_int_equal(fread(img[0], 1, 256, f), 256);
    fclose(f);
    for (int i = 1; i < 3; i++) {
        memcpy(img[i], img[0], 256);
        img[i][125] = (uint8_t)(img[0][125] + i);
    }
}

/* Both branches of a 5000P (0:15.0 8086:25f5, 0:16.0 8086:25f6), empty. */
static int setup(void **state)
{
    (void)state;
    memset(B, 0, sizeof(B));
    memset(T, 0, sizeof(T));
    memset(&L, 0, sizeof(L));
    memset(raw, 0, sizeof(raw));
    load_images();
    for (unsigned b = 0; b < 2; b++) {
        struct mch_model *m = &B[b];
        m->branch = b;
        m->pci.addr = (struct pci_addr){ 0, 0, (uint8_t)(21 + b), 0 };
        m->pci.ctx = m;
        m->pci.config_read = model_config_read;
        m->pci.config_written = model_config_written;
        m->busy_per_cmd = 1;
        m->ns_per_busy_read = 10000;
        m->pci.config[0] = 0x86, m->pci.config[1] = 0x80;
        m->pci.config[2] = b ? 0xf6 : 0xf5, m->pci.config[3] = 0x25;
        plat_sim_attach(&m->pci);
        L.funcs[L.count].addr = m->pci.addr;
        L.funcs[L.count].vendor = 0x8086;
        L.funcs[L.count].device = b ? 0x25f6 : 0x25f5;
        L.count++;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    plat_sim_detach(&B[0].pci);
    plat_sim_detach(&B[1].pci);
    return 0;
}

static void assert_nothing_forbidden(void)
{
    for (int b = 0; b < 2; b++) {
        assert_int_equal(B[b].cmd_while_busy, 0);
        assert_int_equal(B[b].write_opcode, 0);
        assert_int_equal(B[b].bad_dti, 0);
        assert_int_equal(B[b].no_ckovrd, 0);
        assert_int_equal(B[b].other_writes, 0);
        assert_int_equal(T[b].other_writes + T[b].ch[0].commands + T[b].ch[1].commands, 0);
    }
}

/* The raw entry for branch/channel "bXcY" at addr, or NULL. */
static const struct spd_raw *found(int n, const char *where, uint8_t addr)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(raw[i].where, where) && raw[i].addr == addr)
            return &raw[i];
    return NULL;
}

static void assert_image(int n, const char *where, uint8_t addr, const uint8_t *want)
{
    const struct spd_raw *r = found(n, where, addr);
    struct spd_info in;

    assert_non_null(r);
    assert_int_equal(r->rc, BM_OK);
    assert_int_equal(r->len, 256);
    assert_memory_equal(r->data, want, 256);
    assert_int_equal(spd_decode(r->data, r->len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR2_FB);
    assert_true(in.crc_ok);
}

static void test_mch_spd_reads_fbdimm_images_per_branch_and_channel(void **state)
{
    int n;

    (void)state;
    B[0].ch[0].dimm[0] = img[0];
    B[0].ch[1].dimm[1] = img[1];
    B[1].ch[0].dimm[0] = img[2];
    B[0].busy_per_cmd = B[1].busy_per_cmd = 2;
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    assert_string_equal(note, "");
    assert_image(n, "b0c0", 0x50, img[0]);
    assert_image(n, "b0c1", 0x51, img[1]);
    assert_image(n, "b1c0", 0x50, img[2]);
    assert_nothing_forbidden();
}

static void test_mch_spd_transient_busy_lasts_past_one_poll(void **state)
{
    int n;

    (void)state;
    B[0].ch[0].dimm[2] = img[1];
    /* Each command BUSY for 20 polls, 100 us apart: 2 ms of the 10 ms
     * (the rest is left for a loaded host's real time). And another
     * owner's command running when the driver comes: it must wait, not
     * write over it. */
    B[0].busy_per_cmd = 20;
    B[0].ns_per_busy_read = 100000;
    B[0].ch[0].foreign_busy = 30;
    B[0].ch[0].status = MCH_SPD_BUSY;
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_string_equal(note, "");
    assert_image(n, "b0c0", 0x52, img[1]);
    assert_nothing_forbidden();
}

static void test_mch_spd_never_clearing_busy_is_bounded_and_run_goes_on(void **state)
{
    uint64_t t0;
    int n;

    (void)state;
    B[0].ch[0].dimm[0] = img[0];
    B[0].ch[1].dimm[0] = img[1];
    B[0].ch[1].stuck_after = 5;          /* byte 3 of its DIMM never completes */
    B[0].ns_per_busy_read = 100000;
    B[1].ch[1].dimm[3] = img[2];
    t0 = plat_now_ns();
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_true(plat_now_ns() - t0 < 100 * NS_MS);
    assert_int_equal(n, 3);
    assert_image(n, "b0c0", 0x50, img[0]);
    assert_image(n, "b1c1", 0x53, img[2]);
    assert_non_null(found(n, "b0c1", 0x50));
    assert_int_equal(found(n, "b0c1", 0x50)->rc, BM_ETIMEDOUT);
    assert_int_equal(found(n, "b0c1", 0x50)->len, 3);
    assert_non_null(strstr(found(n, "b0c1", 0x50)->note, "BUSY after the read command"));
    assert_non_null(strstr(note, "branch 0 channel 1"));
    assert_non_null(strstr(note, "stayed BUSY after the read command"));
    /* Nothing more was tried on the stuck channel: no command while BUSY. */
    assert_int_equal(B[0].ch[1].commands, 5);
    assert_nothing_forbidden();
}

static void test_mch_spd_busy_before_command_never_clears(void **state)
{
    int n;

    (void)state;
    B[1].ch[0].dimm[0] = img[0];
    B[1].ch[0].foreign_stuck = true;
    B[1].ch[0].status = MCH_SPD_BUSY;
    B[1].ns_per_busy_read = 100000;
    B[1].ch[1].dimm[1] = img[1];
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 1);
    assert_image(n, "b1c1", 0x51, img[1]);
    assert_int_equal(B[1].ch[0].commands, 0);
    assert_non_null(strstr(note, "branch 1 channel 0"));
    assert_non_null(strstr(note, "BUSY before a command"));
    assert_nothing_forbidden();
}

static void test_mch_spd_empty_slots_nack_and_are_absent(void **state)
{
    int n;

    (void)state;
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 0);
    assert_string_equal(note, "");
    /* One command (the key byte) per slot: 2 branches x 2 channels x 4. */
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < 2; c++)
            assert_int_equal(B[b].ch[c].commands, 4);
    assert_nothing_forbidden();
}

static void test_mch_spd_other_mch_rows_not_read(void **state)
{
    (void)state;
    /* The 5400's and the 7300's device 16 (error, address map): not where
     * the SPD registers are. */
    L.funcs[0].device = 0x4030;
    L.funcs[1].device = 0x360c;
    assert_int_equal(spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note)), BM_ENODEV);
    assert_false(spd_mch_present(&L));
    assert_int_equal(B[0].ch[0].commands + B[1].ch[0].commands, 0);
}

/* The inventory reads the MCH (found by PCI enumeration) and emits the
 * spd records the SMBus path emits, addressed by branch and channel. */
static void test_mch_spd_inventory_emits_fbdimm_spd_records(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static struct dimm_summary sum;

    (void)state;
    B[0].ch[1].dimm[0] = img[0];
    B[1].ch[0].dimm[3] = img[1];
    for (int b = 0; b < 2; b++) {
        B[b].pci.config[0x0a] = 0x00, B[b].pci.config[0x0b] = 0x06;   /* host bridge class: not an SMBus */
    }
    nrecs = 0;
    sinks_reset();
    sinks_add(&sink);
    spd_inventory_read(NULL, 0);
    spd_inventory_emit(NULL, 0, &sum);
    sinks_close();
    assert_int_equal(count_records("spd", NULL, NULL), 2);
    assert_int_equal(count_records("spd", "\"address\":\"b0c1:0x50\"", "\"mem_type\":\"DDR2 FB-DIMM\""), 1);
    assert_int_equal(count_records("spd", "\"address\":\"b1c0:0x53\"", "\"crc_ok\":true"), 1);
    assert_int_equal(count_records("note", "not read", NULL), 0);
    assert_nothing_forbidden();
}

/* ---- Intel 5100 (Linux i5100_edac) ---------------------------------------------
 * One SPDDATA (0x48) / SPDCMD (0x4c) pair on device 16 function 1 for both
 * channels, the channel in the slot address (channel * 4 + slot); the same
 * BUSY/SBE/RDO bits and the same rules as the 5000's. Function 0 answers
 * with the same device id (Linux's probe refuses it): nothing may be
 * written there. */
struct m5100 {
    struct plat_sim_dev pci;
    uint16_t status, result;
    unsigned busy_reads, busy_per_cmd;
    unsigned stuck_after, commands;
    const uint8_t *dimm[2][4];
    unsigned cmd_while_busy, write_opcode, bad_dti, no_ckovrd, other_writes;
};

static struct m5100 M5, M5fn0;
static uint8_t ddr2[2][256];

static void m5100_read(void *ctx, uint16_t off, unsigned bytes)
{
    struct m5100 *m = ctx;

    (void)bytes;
    if (off != MCH5100_SPDDATA)
        return;
    if (m->status & MCH_SPD_BUSY) {
        plat_sim_advance_ns(100000);
        if (!(m->stuck_after && m->commands >= m->stuck_after) && --m->busy_reads == 0)
            m->status = m->result;
    }
    memcpy(&m->pci.config[off], &m->status, 2);
}

static void m5100_written(void *ctx, uint16_t off, unsigned bytes)
{
    struct m5100 *m = ctx;
    uint32_t cmd;
    unsigned sa, byte;

    if (off != MCH5100_SPDCMD || m == &M5fn0) {
        m->other_writes++;
        return;
    }
    assert_int_equal(bytes, 4);
    memcpy(&cmd, &m->pci.config[off], 4);
    if (m->status & MCH_SPD_BUSY) {
        m->cmd_while_busy++;
        return;
    }
    if (cmd & MCH_SPDCMD_WRITE) {
        m->write_opcode++;
        return;
    }
    if ((cmd >> 28) != 0xa) {
        m->bad_dti++;
        return;
    }
    if (!(cmd & MCH_SPDCMD_CKOVRD)) {
        m->no_ckovrd++;
        return;
    }
    sa = (cmd >> 24) & 7;
    byte = (cmd >> 16) & 0xff;
    m->commands++;
    m->status = (uint16_t)((m->status & (MCH_SPD_RDO | 0xff)) | MCH_SPD_BUSY);
    m->busy_reads = m->busy_per_cmd;
    m->result = m->dimm[sa >> 2][sa & 3] ? (uint16_t)(MCH_SPD_RDO | m->dimm[sa >> 2][sa & 3][byte]) : MCH_SPD_SBE;
}

static void m5100_attach(struct m5100 *m, uint8_t fn)
{
    memset(m, 0, sizeof(*m));
    m->pci.addr = (struct pci_addr){ 0, 0, 16, fn };
    m->pci.ctx = m;
    m->pci.config_read = m5100_read;
    m->pci.config_written = m5100_written;
    m->busy_per_cmd = 3;
    m->pci.config[0] = 0x86, m->pci.config[1] = 0x80, m->pci.config[2] = 0xf0, m->pci.config[3] = 0x65;
    m->pci.config[0x0a] = 0x00, m->pci.config[0x0b] = 0x06;
    m->pci.config[0x0e] = 0x80;        /* multi-function: enumeration looks past function 0 */
    plat_sim_attach(&m->pci);
    L.funcs[L.count].addr = m->pci.addr;
    L.funcs[L.count].vendor = 0x8086;
    L.funcs[L.count].device = 0x65f0;
    L.count++;
}

static int setup5100(void **state)
{
    FILE *f = fopen("tests/fuzz/corpus/spd/ddr2_rdimm.bin", "rb");

    (void)state;
    assert_non_null(f);
    memset(ddr2, 0, sizeof(ddr2));
    assert_true(fread(ddr2[0], 1, 256, f) >= 128);
    fclose(f);
    memcpy(ddr2[1], ddr2[0], 256);
    ddr2[1][98] ^= 0x5a;               /* a serial byte: a second module */
    memset(&L, 0, sizeof(L));
    memset(raw, 0, sizeof(raw));
    m5100_attach(&M5fn0, 0);
    m5100_attach(&M5, 1);
    return 0;
}

static int teardown5100(void **state)
{
    (void)state;
    plat_sim_detach(&M5fn0.pci);
    plat_sim_detach(&M5.pci);
    return 0;
}

static void assert_5100_clean(void)
{
    assert_int_equal(M5.cmd_while_busy + M5.write_opcode + M5.bad_dti + M5.no_ckovrd + M5.other_writes, 0);
    assert_int_equal(M5fn0.other_writes + M5fn0.commands, 0);
}

static void test_mch5100_reads_ddr2_dimms_on_both_channels(void **state)
{
    const struct spd_raw *r;
    struct spd_info in;
    int n;

    (void)state;
    M5.dimm[0][1] = ddr2[0];
    M5.dimm[1][2] = ddr2[1];
    assert_true(spd_mch_present(&L));
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 2);
    assert_string_equal(note, "");
    r = found(n, "c0", 0x51);
    assert_non_null(r);
    assert_int_equal(r->rc, BM_OK);
    assert_true(r->len >= 128);
    assert_memory_equal(r->data, ddr2[0], r->len);
    assert_int_equal(spd_decode(r->data, r->len, &in), BM_OK);
    assert_int_equal(in.gen, SPD_GEN_DDR2);
    /* Channel 1 slot 2 is slot address 6: EEPROM 0x56. */
    r = found(n, "c1", 0x56);
    assert_non_null(r);
    assert_memory_equal(r->data, ddr2[1], r->len);
    assert_5100_clean();
}

static void test_mch5100_stuck_busy_is_bounded_and_leaves_the_registers(void **state)
{
    uint64_t t0;
    int n;

    (void)state;
    M5.dimm[0][0] = ddr2[0];
    M5.dimm[1][0] = ddr2[1];
    M5.stuck_after = 4;                /* byte 2 of the first DIMM never completes */
    t0 = plat_now_ns();
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_true(plat_now_ns() - t0 < 300 * NS_MS);
    assert_int_equal(n, 1);
    assert_int_equal(raw[0].rc, BM_ETIMEDOUT);
    assert_non_null(strstr(note, "5100"));
    assert_non_null(strstr(note, "(100 ms)"));
    assert_non_null(strstr(note, "the SPD registers were not read further"));
    /* Channel 1 shares the stuck pair: no command was tried there. */
    assert_int_equal(M5.commands, 4);
    assert_5100_clean();
}

static void test_mch5100_inventory_emits_spd_records_not_a_note(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static struct dimm_summary sum;

    (void)state;
    M5.dimm[1][3] = ddr2[0];
    nrecs = 0;
    sinks_reset();
    sinks_add(&sink);
    spd_inventory_read(NULL, 0);
    spd_inventory_emit(NULL, 0, &sum);
    sinks_close();
    assert_int_equal(count_records("spd", NULL, NULL), 1);
    assert_int_equal(count_records("spd", "\"address\":\"c1:0x57\"", "\"mem_type\":\"DDR2\""), 1);
    assert_int_equal(count_records("note", "not read", NULL), 0);
    assert_5100_clean();
}

/* ---- Intel 5400 and 7300 (illumos intel_nb5000) ---------------------------------
 * Both branches at device 21/22 function 0 with the 5000's registers
 * (model above), and function 1 of each device answering with the same id:
 * a driver that picks the function by id alone writes there, and the
 * model counts it. (Whether the real function 1 carries the branch id is
 * not known here: the model takes the case that would catch a driver.) */
static void attach_fbd(struct mch_model *m, uint8_t dev, uint8_t fn, uint16_t id, unsigned branch, bool forbidden)
{
    m->branch = branch;
    m->forbidden = forbidden;
    m->pci.addr = (struct pci_addr){ 0, 0, dev, fn };
    m->pci.ctx = m;
    m->pci.config_read = model_config_read;
    m->pci.config_written = model_config_written;
    m->busy_per_cmd = 1;
    m->ns_per_busy_read = 10000;
    m->pci.config[0] = 0x86, m->pci.config[1] = 0x80;
    m->pci.config[2] = (uint8_t)id, m->pci.config[3] = (uint8_t)(id >> 8);
    m->pci.config[0x0a] = 0x00, m->pci.config[0x0b] = 0x06;   /* host bridge class: not an SMBus */
    m->pci.config[0x0e] = 0x80;                               /* multi-function: function 1 is enumerated */
    plat_sim_attach(&m->pci);
    L.funcs[L.count].addr = m->pci.addr;
    L.funcs[L.count].vendor = 0x8086;
    L.funcs[L.count].device = id;
    L.count++;
}

static void setup_fbd(uint16_t id0, uint16_t id1)
{
    memset(B, 0, sizeof(B));
    memset(T, 0, sizeof(T));
    memset(&L, 0, sizeof(L));
    memset(raw, 0, sizeof(raw));
    load_images();
    attach_fbd(&B[0], 21, 0, id0, 0, false);
    attach_fbd(&T[0], 21, 1, id0, 0, true);
    attach_fbd(&B[1], 22, 0, id1, 1, false);
    attach_fbd(&T[1], 22, 1, id1, 1, true);
}

static int setup5400(void **state)
{
    (void)state;
    setup_fbd(MCH5400_FBD0, MCH5400_FBD1);
    return 0;
}

static int setup7300(void **state)
{
    (void)state;
    setup_fbd(MCH7300_FB0, MCH7300_FB1);
    return 0;
}

static int teardown_fbd(void **state)
{
    (void)state;
    for (int b = 0; b < 2; b++) {
        plat_sim_detach(&B[b].pci);
        plat_sim_detach(&T[b].pci);
    }
    return 0;
}

static void test_mch5400_reads_fbdimm_images_on_both_branches(void **state)
{
    int n;

    (void)state;
    B[0].ch[0].dimm[0] = img[0];
    B[0].ch[1].dimm[3] = img[1];
    B[1].ch[1].dimm[2] = img[2];
    /* Commands that take a while, and another owner's command running on
     * branch 1 channel 1 when the driver comes: it waits, no write over it. */
    B[0].busy_per_cmd = B[1].busy_per_cmd = 3;
    B[1].ch[1].foreign_busy = 20;
    B[1].ch[1].status = MCH_SPD_BUSY;
    assert_true(spd_mch_present(&L));
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    assert_string_equal(note, "");
    /* assert_image() runs the decoder: DDR2 FB-DIMM (decode_fbdimm()), CRC good. */
    assert_image(n, "b0c0", 0x50, img[0]);
    assert_image(n, "b0c1", 0x53, img[1]);
    assert_image(n, "b1c1", 0x52, img[2]);
    assert_nothing_forbidden();
}

static void test_mch5400_empty_slots_answer_sbe_and_are_absent(void **state)
{
    int n;

    (void)state;
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 0);
    assert_string_equal(note, "");
    /* The key byte once per slot, 4 slots a channel (Linux i5400_edac
     * DIMMS_PER_CHANNEL): SBE, nothing more. */
    for (int b = 0; b < 2; b++)
        for (int c = 0; c < 2; c++)
            assert_int_equal(B[b].ch[c].commands, 4);
    assert_nothing_forbidden();
}

static void test_mch5400_stuck_busy_is_bounded_and_named(void **state)
{
    uint64_t t0;
    int n;

    (void)state;
    B[1].ch[0].dimm[0] = img[0];
    B[1].ch[0].foreign_stuck = true;     /* another owner's command never ends */
    B[1].ch[0].status = MCH_SPD_BUSY;
    B[1].ns_per_busy_read = 100000;
    B[0].ch[1].dimm[1] = img[1];
    B[0].ch[1].stuck_after = 3;          /* our own third command never completes */
    B[0].ns_per_busy_read = 100000;
    B[1].ch[1].dimm[3] = img[2];
    t0 = plat_now_ns();
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_true(plat_now_ns() - t0 < 100 * NS_MS);
    assert_int_equal(n, 2);
    assert_image(n, "b1c1", 0x53, img[2]);
    assert_int_equal(found(n, "b0c1", 0x51)->rc, BM_ETIMEDOUT);
    assert_non_null(strstr(note, "5400 branch 1, 8086:4036) branch 1 channel 0"));
    assert_non_null(strstr(note, "BUSY before a command"));
    assert_non_null(strstr(note, "5400 branch 0, 8086:4035) branch 0 channel 1"));
    assert_non_null(strstr(note, "BUSY after the read command (10 ms)"));
    assert_int_equal(B[1].ch[0].commands, 0);
    assert_int_equal(B[0].ch[1].commands, 3);
    assert_nothing_forbidden();
}

static void test_mch5400_command_not_yet_busy_is_waited_for(void **state)
{
    int n;

    (void)state;
    /* The first status read after each command shows neither BUSY nor a
     * completion field: not "done without data", the command has not
     * shown yet (illumos read_spd_eeprom() polls on for RDO). */
    B[0].ch[0].dimm[1] = img[0];
    B[1].ch[1].dimm[0] = img[1];
    B[0].start_lag = B[1].start_lag = 1;
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_string_equal(note, "");
    assert_int_equal(n, 2);
    assert_image(n, "b0c0", 0x51, img[0]);
    assert_image(n, "b1c1", 0x50, img[1]);
    assert_nothing_forbidden();
}

static void test_mch7300_reads_eight_slots_per_channel(void **state)
{
    int n;

    (void)state;
    B[0].ch[1].dimm[5] = img[0];
    B[1].ch[0].dimm[7] = img[1];
    B[1].ch[1].dimm[0] = img[2];
    n = spd_mch_read(&L, raw, SPD_MCH_DIMMS, note, sizeof(note));
    assert_int_equal(n, 3);
    assert_string_equal(note, "");
    assert_image(n, "b0c1", 0x55, img[0]);
    assert_image(n, "b1c0", 0x57, img[1]);
    assert_image(n, "b1c1", 0x50, img[2]);
    /* Every slot address 0-7 asked once on an empty channel (Linux
     * i7300_edac MAX_SLOTS 8). */
    assert_int_equal(B[0].ch[0].commands, 8);
    assert_nothing_forbidden();
}

static void test_mch7300_inventory_emits_fbdimm_spd_records(void **state)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    static struct dimm_summary sum;

    (void)state;
    B[0].ch[0].dimm[6] = img[0];
    B[1].ch[0].dimm[7] = img[1];
    nrecs = 0;
    sinks_reset();
    sinks_add(&sink);
    spd_inventory_read(NULL, 0);
    spd_inventory_emit(NULL, 0, &sum);
    sinks_close();
    assert_int_equal(count_records("spd", NULL, NULL), 2);
    assert_int_equal(count_records("spd", "\"address\":\"b0c0:0x56\"", "\"mem_type\":\"DDR2 FB-DIMM\""), 1);
    assert_int_equal(count_records("spd", "\"address\":\"b1c0:0x57\"", "\"crc_ok\":true"), 1);
    assert_int_equal(count_records("note", "not read", NULL), 0);
    assert_nothing_forbidden();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mch_spd_reads_fbdimm_images_per_branch_and_channel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_transient_busy_lasts_past_one_poll, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_never_clearing_busy_is_bounded_and_run_goes_on, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_busy_before_command_never_clears, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_empty_slots_nack_and_are_absent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_other_mch_rows_not_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch_spd_inventory_emits_fbdimm_spd_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mch5100_reads_ddr2_dimms_on_both_channels, setup5100, teardown5100),
        cmocka_unit_test_setup_teardown(test_mch5100_stuck_busy_is_bounded_and_leaves_the_registers, setup5100,
                                        teardown5100),
        cmocka_unit_test_setup_teardown(test_mch5100_inventory_emits_spd_records_not_a_note, setup5100, teardown5100),
        cmocka_unit_test_setup_teardown(test_mch5400_reads_fbdimm_images_on_both_branches, setup5400, teardown_fbd),
        cmocka_unit_test_setup_teardown(test_mch5400_empty_slots_answer_sbe_and_are_absent, setup5400, teardown_fbd),
        cmocka_unit_test_setup_teardown(test_mch5400_stuck_busy_is_bounded_and_named, setup5400, teardown_fbd),
        cmocka_unit_test_setup_teardown(test_mch5400_command_not_yet_busy_is_waited_for, setup5400, teardown_fbd),
        cmocka_unit_test_setup_teardown(test_mch7300_reads_eight_slots_per_channel, setup7300, teardown_fbd),
        cmocka_unit_test_setup_teardown(test_mch7300_inventory_emits_fbdimm_spd_records, setup7300, teardown_fbd),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
