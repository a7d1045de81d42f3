/* The AHCI driver against a model of an AHCI 1.3.1 HBA with one SATA
 * drive behind it: the paths QEMU cannot take (a queued command that
 * fails, a drive that never answers, a port or an HBA that will not stop
 * or reset) driven through the driver's real probe and the public
 * submit/poll interface (drivers/blkdev.h).
 *
 * The model follows the specifications, not the driver: register
 * semantics from AHCI 1.3.1 section 3, the memory structures from section
 * 4, the FISes from SATA 3.x section 10.5, the commands and the NCQ error
 * log from ACS-3. It answers synchronously inside the register write that
 * issues a command (PxCI), and moves the clock on (plat_sim_advance_ns)
 * from register reads while something it models is stuck, so multi-second
 * driver deadlines pass at once.
 *
 * It also has the chips and drives Linux carries quirks for (ahci.c host
 * flags, libata __ata_dev_quirks): an HBA that sets CAP.S64A but drops the
 * upper 32 address bits (ATI SB600: a structure or PRD above 4 GiB is not
 * reached; the command is aborted and counted), one that sets CAP.SNCQ
 * whose NCQ does not work (queued commands counted), and drives that take
 * at most so many sectors a command (larger ones aborted and counted),
 * named by their IDENTIFY model and firmware strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform_sim.h"
#include "drivers/ahci/ahci.h"
#include "../bench/sata_model.h"

/* ---- AHCI 1.3.1 facts the model needs (its own names, from the spec;
 * those the instant model of make bench shares are in sata_model.h) ---- */

#define CAP_NCS_SHIFT 8           /* 3.1.1: number of command slots, 0-based */

#define PORT_BASE 0x100           /* 3.3: port n at 100h + n * 80h */
#define PORT_STRIDE 0x80
#define PxCMD_CAPS (0x1fu << 18)  /* HPCP, MPSP, CPD, ESP, FBSCP: HwInit, written by firmware */
#define SERR_DIAG_N (1u << 16)    /* 3.3.12: PhyRdy change */
#define SERR_DIAG_C (1u << 21)    /* CRC error */
#define SERR_ERR_P (1u << 10)     /* protocol error */
#define SERR_DIAG_X (1u << 26)    /* exchanged (COMINIT seen) */

/* ATA status / error bits and commands (ACS-3 6.2, 6.3, table B.2). */
#define STS_DRQ 0x08
#define STS_BSY 0x80
#define ERR_UNC 0x40
#define ATA_READ_DMA_EXT 0x25
#define ATA_WRITE_DMA_EXT 0x35
#define ATA_READ_DMA 0xc8         /* 28-bit: LBA 27:24 in the device register */
#define ATA_WRITE_DMA 0xca
#define ATA_SET_FEATURES 0xef
#define SF_SPINUP 0x07
#define ATA_READ_LOG_EXT 0x2f
#define ATA_SMART 0xb0
#define SMART_READ_DATA 0xd0
#define SMART_READ_THRESHOLDS 0xd1
#define IS_UFS (1u << 4)          /* 3.3.5 */
#define IS_PCS (1u << 6)          /* read-only: PxSERR.DIAG.X */
#define IS_PRCS (1u << 22)        /* read-only: PxSERR.DIAG.N */
#define IS_IPMS (1u << 23)
#define IS_HBDS (1u << 28)
#define IS_HBFS (1u << 29)

#define MODEL_PORT 2              /* not port 0: the port offset math is exercised */
#define MODEL_BLOCKS (1ull << 26) /* 32 GiB of 512-byte sectors, generated on read */
#define NO_LBA UINT64_MAX

struct ahci_model {
    struct plat_sim_dev dev;
    /* HBA */
    uint32_t cap, ghc, pi;
    bool hr_sticks;               /* GHC.HR never clears */
    bool ae_drops;                /* GHC.AE does not stay set */
    /* Port MODEL_PORT */
    uint32_t clb, clbu, fb, fbu, is, ie, cmd, tfd, sig, ssts, sctl, serr, sact, ci;
    bool halted;                  /* stopped on an error until ST goes 1 -> 0 */
    bool cr_sticks;               /* PxCMD.CR never clears once set */
    bool cr_until_comreset;       /* ...until a COMRESET frees the list (the port reset of 10.4.1) */
    uint64_t cr_delay_ns;         /* PxCMD.CR clears this long after ST is cleared (AHCI allows 500 ms) */
    uint64_t cr_clear_at_ns;      /* when it will */
    uint64_t st_cleared_ns;       /* when software last wrote ST 1 -> 0 */
    /* Drive */
    bool ncq, gpl;
    bool no_lba48;                /* a SATA DOM / CF adapter: 28-bit commands only */
    bool no_dma;                  /* a PIO-only CF card behind an adapter */
    uint64_t blocks;              /* capacity */
    uint64_t bad_lba;             /* reads covering it fail UNC */
    uint64_t hang_lba;            /* reads covering it never finish */
    bool ncq_error;               /* NCQ error state until log 10h is read (ACS-3 9.13) */
    bool sdb_err_no_tfes;         /* QEMU 7.2: an NCQ error only in the SDB FIS status, PxIS.TFES clear */
    unsigned tfd_reads;           /* PxTFD register reads */
    bool smart_disabled;          /* SMART commands abort */
    bool never_ready;             /* after a reset the drive stays BSY */
    uint64_t link_delay_ns;       /* COMRESET release to DET=3 (DET=1 meanwhile) */
    uint64_t spinup_ns;           /* power-on to the first D2H FIS (BSY meanwhile) */
    uint64_t ready_after_ns, link_at_ns, ready_at_ns;
    uint16_t puis;                /* Power-Up In Standby: IDENTIFY word 2 until spun up */
    bool spun_up;
    uint64_t puis_spinup_ns;      /* how long SET FEATURES spin-up takes */
    int pending_slot;             /* a command that ends at pending_done_ns */
    uint64_t pending_done_ns;
    /* HBA and port registers as real chips have them */
    uint32_t ports_hw;            /* ports the silicon has: touching others is a fault */
    uint32_t cap2;
    bool cap_pi_need_ae;          /* CAP and PI read garbage until GHC.AE is set */
    bool reset_loses_rwo;         /* GHC.HR clears PI, CAP2 and PxCMD's firmware-written bits */
    unsigned sctl_lost_writes;    /* writes of SControl.DET=0 the port ignores */
    uint64_t det1_since_ns;       /* when SControl.DET=1 was written */
    uint32_t port_caps;           /* PxCMD's firmware-written capability bits */
    uint32_t empty_regs[32][PORT_STRIDE / 4]; /* the ports with nothing attached */
    bool gone;                    /* unplugged: no link, no FIS, ever */
    bool det1_stuck;              /* empty port whose PHY reports presence (DET=1) for ever */
    bool identify_aborts;         /* IDENTIFY DEVICE ends in ABRT */
    uint8_t log10[512];
    uint64_t log10_delay_ns;      /* READ LOG EXT 10h takes this long (UINT64_MAX: never ends) */
    uint64_t log10_done_ns;       /* the read under way ends then (0: none) */
    unsigned log10_slot;
    uint32_t hung;                /* slots (non-queued) or tags (queued) the drive sits on */
    uint64_t held_lba[32];        /* what each queued tag it sits on reads */
    uint32_t held_blocks[32];
    /* What happened, for the assertions */
    unsigned comresets, log10_reads, reads_done, bad_fis, hba_resets;
    unsigned ci_writes;           /* PxCI writes that issued commands */
    unsigned writes_done, ext_refused, cmd28_done;
    unsigned stray, short_comresets, sctl_while_st, spinups, identifies;
    unsigned refused;             /* accesses AHCI forbids while the list stops: PxCI/PxSACT with ST clear,
                                     ST set while CR is still set, SControl.DET changed while CR is set */
    unsigned stops;               /* ST 1 -> 0 transitions that ended with CR clear */
    unsigned accesses;            /* register reads and writes of the HBA */
    uint64_t last_lba;            /* of the last read or write */
    uint32_t last_blocks;
    /* Quirky chips and drives */
    const char *model_name, *fw_name; /* IDENTIFY strings (NULL: the defaults) */
    bool dma32_only;              /* CAP.S64A is a lie: upper address dwords are dropped */
    bool ncq_broken;              /* CAP.SNCQ is a lie: queued commands go wrong */
    uint32_t max_sectors;         /* the drive's real per-command limit, 512-byte sectors (0: none) */
    unsigned dma_truncated, ncq_used, oversize;
};

/* ---- Memory the HBA reads and writes: host memory is "physical" ---- */

/* The bytes a read of block lba returns at byte offset off. */
static uint8_t pattern(uint64_t lba, unsigned off)
{
    uint32_t w = (uint32_t)(lba * 2654435761u) + off / 4;
    return (uint8_t)(w >> (8 * (off % 4)));
}

/* ---- FISes the drive sends (SATA 3.x 10.5.5, 10.5.7, 10.5.11) ---- */

static uint8_t *rfis(struct ahci_model *m) { return (m->cmd & CMD_FRE) ? sata_model_mem(m->fb, m->fbu) : NULL; }

/* A Register D2H FIS carrying an LBA: updates PxTFD (and PxSIG on the
 * first after reset). */
static void send_d2h_lba(struct ahci_model *m, uint8_t sts, uint8_t err, uint64_t lba)
{
    uint8_t *r = rfis(m);
    m->tfd = sts | (uint32_t)err << 8;
    if (r) {
        memset(r + RFIS_RFIS, 0, 20);
        r[RFIS_RFIS] = FIS_D2H;
        r[RFIS_RFIS + 2] = sts;
        r[RFIS_RFIS + 3] = err;
        r[RFIS_RFIS + 4] = (uint8_t)lba, r[RFIS_RFIS + 5] = (uint8_t)(lba >> 8);
        r[RFIS_RFIS + 6] = (uint8_t)(lba >> 16), r[RFIS_RFIS + 7] = 0x40;
        r[RFIS_RFIS + 8] = (uint8_t)(lba >> 24), r[RFIS_RFIS + 9] = (uint8_t)(lba >> 32);
        r[RFIS_RFIS + 10] = (uint8_t)(lba >> 40);
    }
    m->is |= IS_DHRS;
    if (sts & STS_ERR) {
        m->is |= IS_TFES;        /* 3.3.5: the device set STS.ERR */
        m->halted = true;        /* 6.2.2: the HBA stops processing the list */
    }
}

static void send_d2h(struct ahci_model *m, uint8_t sts, uint8_t err) { send_d2h_lba(m, sts, err, 0); }

/* A Set Device Bits FIS: completes the queued tags in done (SActive), or
 * reports an NCQ error through ERR in the status. */
static void send_sdb(struct ahci_model *m, uint32_t done, uint8_t sts, uint8_t err)
{
    uint8_t *r = rfis(m);
    if (r) {
        memset(r + RFIS_SDBFIS, 0, 8);
        r[RFIS_SDBFIS] = FIS_SDB;
        r[RFIS_SDBFIS + 1] = 0x40;   /* I */
        r[RFIS_SDBFIS + 2] = sts & 0x77;
        r[RFIS_SDBFIS + 3] = err;
        memcpy(r + RFIS_SDBFIS + 4, &done, 4);
    }
    /* 3.3.13: an SDB FIS clears the PxSACT bits set in its SActive field. */
    m->sact &= ~done;
    m->tfd = (m->tfd & ~0xff77u) | (sts & 0x77) | (uint32_t)err << 8;
    m->is |= IS_SDBS;
    if (sts & STS_ERR) {
        if (!m->sdb_err_no_tfes)
            m->is |= IS_TFES;
        m->halted = true;
    }
}

/* PIO data-in ends with a PIO Setup FIS whose E_Status becomes PxTFD.STS. */
static void send_pio_setup(struct ahci_model *m, uint8_t e_status, uint16_t count)
{
    uint8_t *r = rfis(m);
    if (r) {
        memset(r + RFIS_PSFIS, 0, 20);
        r[RFIS_PSFIS] = FIS_PIO_SETUP;
        r[RFIS_PSFIS + 1] = 0x20 | 0x40;  /* D: device to host, I */
        r[RFIS_PSFIS + 2] = STS_DRDY | STS_DRQ;
        r[RFIS_PSFIS + 15] = e_status;
        r[RFIS_PSFIS + 16] = (uint8_t)count;
        r[RFIS_PSFIS + 17] = (uint8_t)(count >> 8);
    }
    m->tfd = e_status;
    m->is |= IS_PSS;
}

/* ---- The drive ---- */

/* IDENTIFY DEVICE data (ACS-3 7.12.7). */
static void identify_data(const struct ahci_model *m, uint8_t id[512])
{
    memset(id, 0, 512);
    sata_model_put_word(id, 0, 0x0040);                  /* ATA device (bit 15 clear) */
    sata_model_put_string(id, 10, 10, "MODEL-SERIAL-0042");
    sata_model_put_string(id, 23, 4, m->fw_name ? m->fw_name : "FW1.0");
    sata_model_put_string(id, 27, 20, m->model_name ? m->model_name : "Baremark Model SATA Drive");
    sata_model_put_word(id, 49, (uint16_t)((1u << 9) | (m->no_dma ? 0 : 1u << 8))); /* LBA, DMA */
    if (m->no_lba48) {
        /* ACS-3 IDENTIFY DEVICE: words 60-61, the 28-bit capacity; no 48-bit
         * feature set in words 83/86, nothing in 100-103. */
        sata_model_put_word(id, 60, (uint16_t)m->blocks);
        sata_model_put_word(id, 61, (uint16_t)(m->blocks >> 16));
        sata_model_put_word(id, 83, 0x4000);
    } else {
        sata_model_put_word(id, 60, 0xffff);             /* 28-bit capacity saturates */
        sata_model_put_word(id, 61, 0x0fff);
        sata_model_put_word(id, 83, 0x4000 | (1u << 10)); /* 48-bit addressing */
        sata_model_put_word(id, 86, 1u << 10);
        for (unsigned i = 0; i < 4; i++)
            sata_model_put_word(id, 100 + i, (uint16_t)(m->blocks >> (16 * i)));
    }
    sata_model_put_word(id, 75, 31);                     /* queue depth 32, 0-based */
    sata_model_put_word(id, 76, (uint16_t)((1u << 3) | (m->ncq ? 1u << 8 : 0)));
    sata_model_put_word(id, 84, (uint16_t)(0x4000 | (m->gpl ? 1u << 5 : 0)));
    sata_model_put_word(id, 87, (uint16_t)(0x4000 | (m->gpl ? 1u << 5 : 0)));
    sata_model_put_word(id, 106, 0x4000);                /* 512-byte logical and physical */
    if (m->puis) {
        /* ACS-3 IDENTIFY DEVICE word 2 says the drive wants SET FEATURES spin-up
         * (37C8h: and this data is incomplete, word 0 bit 2), until it
         * got it; words 83/86 bits 5-6: PUIS supported, enabled, spin-up
         * by SET FEATURES. */
        sata_model_put_word(id, 83, (uint16_t)((id[2 * 83] | id[2 * 83 + 1] << 8) | (1u << 5) | (1u << 6)));
        sata_model_put_word(id, 86, (uint16_t)((id[2 * 86] | id[2 * 86 + 1] << 8) | (1u << 5) | (1u << 6)));
        if (!m->spun_up) {
            sata_model_put_word(id, 2, m->puis);
            if (m->puis == 0x37c8) {
                sata_model_put_word(id, 0, 0x0040 | (1u << 2));
                for (unsigned w = 100; w < 104; w++)
                    sata_model_put_word(id, w, 0);
                sata_model_put_word(id, 60, 0);
                sata_model_put_word(id, 61, 0);
            }
        }
    }
    id[510] = 0xa5;                           /* integrity word: signature, then checksum */
    sata_model_checksum(id);
}

/* The NCQ command error log (ACS-3 9.13): tag, status, error, LBA, checksum. */
static void record_ncq_error(struct ahci_model *m, unsigned tag, uint8_t sts, uint8_t err, uint64_t lba)
{
    uint8_t *p = m->log10;

    memset(p, 0, 512);
    p[0] = (uint8_t)(tag & 0x1f);
    p[2] = sts;
    p[3] = err;
    p[4] = (uint8_t)lba, p[5] = (uint8_t)(lba >> 8), p[6] = (uint8_t)(lba >> 16);
    p[7] = 0x40;
    p[8] = (uint8_t)(lba >> 24), p[9] = (uint8_t)(lba >> 32), p[10] = (uint8_t)(lba >> 40);
    sata_model_checksum(p);
    m->ncq_error = true;
}

static bool covers(uint64_t lba, uint32_t blocks, uint64_t x) { return x != NO_LBA && x >= lba && x < lba + blocks; }

/* READ LOG EXT 10h in slot ends (ACS-3 9.13): the page as PIO data-in;
 * reading it ends the NCQ error state. */
static void log10_finish(struct ahci_model *m, unsigned slot)
{
    uint8_t *hdr = (uint8_t *)sata_model_mem(m->clb, m->clbu) + 32 * slot;
    uint8_t *table = sata_model_mem(sata_model_le32(hdr + 8), sata_model_le32(hdr + 12));
    uint32_t prdbc;

    if (!m->ncq_error)
        memset(m->log10, 0, 512);
    m->ncq_error = false;
    m->log10_reads++;
    prdbc = sata_model_prdt_copy_in(table, sata_model_le32(hdr) >> 16, m->log10, 512);
    memcpy(hdr + 4, &prdbc, 4);
    send_pio_setup(m, STS_DRDY, 512);
    m->ci &= ~(1u << slot);
}

/* Run the command in one slot. Non-queued commands keep their PxCI bit
 * until they end; a queued one gives it up at once (the D2H FIS with BSY
 * clear that accepts it) and ends with an SDB FIS. */
static void run_slot(struct ahci_model *m, unsigned slot)
{
    static uint8_t data[1u << 20];
    uint8_t *hdr = (uint8_t *)sata_model_mem(m->clb, m->clbu) + 32 * slot;
    uint8_t *table = sata_model_mem(sata_model_le32(hdr + 8), sata_model_le32(hdr + 12));
    unsigned prdtl = sata_model_le32(hdr) >> 16;
    const uint8_t *f = table;
    uint64_t lba = (uint64_t)f[4] | (uint64_t)f[5] << 8 | (uint64_t)f[6] << 16 | (uint64_t)f[8] << 24 |
                   (uint64_t)f[9] << 32 | (uint64_t)f[10] << 40;
    uint32_t bit = 1u << slot, prdbc = 0, blocks;

    if (m->gone) {
        m->hung |= bit;             /* nobody receives the FIS: the slot stays issued */
        return;
    }
    if (f[0] != FIS_H2D || !(f[1] & 0x80)) {
        m->bad_fis++;               /* no command FIS: nothing a drive would run */
        m->ci &= ~bit;
        return;
    }
    if (m->dma32_only) {
        /* SB600: the upper dwords of CLB, FB, CTBA and every PRD's DBA
         * are dropped; the command would touch other memory. */
        bool high = m->clbu || m->fbu || sata_model_le32(hdr + 12);
        for (unsigned i = 0; i < prdtl; i++)
            high = high || sata_model_le32(table + 0x80 + 16 * i + 4);
        if (high) {
            m->dma_truncated++;
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
    }
    if (m->ncq_broken && (f[2] == ATA_READ_FPDMA || f[2] == ATA_WRITE_FPDMA))
        m->ncq_used++;              /* an HBA whose NCQ loses commands */
    if (m->max_sectors) {
        uint32_t bytes = 0;
        for (unsigned i = 0; i < prdtl; i++)
            bytes += (sata_model_le32(table + 0x80 + 16 * i + 12) & 0x3fffff) + 1;
        if (bytes > m->max_sectors * 512u) {
            m->oversize++;          /* past the drive's limit: it times out or corrupts; aborted here */
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
    }
    if (m->ncq_error && !(f[2] == ATA_READ_LOG_EXT && f[4] == 0x10)) {
        /* In the NCQ error state the drive aborts every command but a
         * read of log 10h (ACS-3 9.13). */
        if (f[2] == ATA_READ_FPDMA)
            m->ci &= ~bit;
        else
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
        return;
    }

    if (m->puis && !m->spun_up && (f[2] == ATA_READ_DMA_EXT || f[2] == ATA_WRITE_DMA_EXT || f[2] == ATA_READ_FPDMA ||
                                   f[2] == ATA_WRITE_FPDMA || f[2] == ATA_READ_DMA || f[2] == ATA_WRITE_DMA)) {
        /* Powered up in standby, waiting for SET FEATURES spin-up: media
         * access is aborted (ACS-3 PUIS feature set). */
        send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
        return;
    }
    if (f[2] == ATA_SET_FEATURES) {
        /* ACS-3 SET FEATURES: subcommand 07h spins up a PUIS drive; it ends
         * once the platters are up. Aborted where PUIS is not on. */
        if (f[3] != SF_SPINUP || !m->puis) {
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
        m->spinups++;
        if (m->spun_up) {
            send_d2h(m, STS_DRDY, 0);
            m->ci &= ~bit;
            return;
        }
        m->tfd = STS_BSY | STS_DRDY;
        m->pending_slot = (int)slot;
        m->pending_done_ns = plat_now_ns() + m->puis_spinup_ns;
        return;
    }
    if (m->no_lba48 && (f[2] == ATA_READ_DMA_EXT || f[2] == ATA_WRITE_DMA_EXT || f[2] == ATA_READ_FPDMA ||
                        f[2] == ATA_WRITE_FPDMA || f[2] == ATA_READ_LOG_EXT)) {
        /* A device without the 48-bit Address feature set has no EXT
         * command and no NCQ (ACS-3: NCQ needs the 48-bit feature set): command aborted. */
        m->ext_refused++;
        send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
        return;
    }

    switch (f[2]) {
    case ATA_READ_DMA:
    case ATA_WRITE_DMA:
        /* ACS-3 7.21, 7.58: LBA 27:24 in DEVICE 3:0, an 8-bit count where
         * 0 means 256; the bytes 48-bit commands add are not looked at. */
        lba = (uint64_t)f[4] | (uint64_t)f[5] << 8 | (uint64_t)f[6] << 16 | (uint64_t)(f[7] & 0xf) << 24;
        blocks = f[12] ? f[12] : 256;
        assert_true(f[7] & 0x40);                  /* LBA addressing, not CHS */
        if (lba + blocks > m->blocks) {
            send_d2h_lba(m, STS_DRDY | STS_ERR, ERR_IDNF, lba);
            return;
        }
        m->cmd28_done++;
        m->last_lba = lba;
        m->last_blocks = blocks;
        if (f[2] == ATA_WRITE_DMA) {
            m->writes_done++;
        } else {
            for (uint32_t i = 0; i < blocks * 512u; i++)
                data[i] = pattern(lba + i / 512, i % 512);
            prdbc = sata_model_prdt_copy_in(table, prdtl, data, blocks * 512u);
            m->reads_done++;
        }
        if (f[2] == ATA_WRITE_DMA)
            prdbc = blocks * 512u;
        send_d2h(m, STS_DRDY, 0);
        m->ci &= ~bit;
        break;
    case ATA_IDENTIFY:
        m->identifies++;
        if (m->identify_aborts) {
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
        identify_data(m, data);
        prdbc = sata_model_prdt_copy_in(table, prdtl, data, 512);
        send_pio_setup(m, STS_DRDY, 512);
        m->ci &= ~bit;
        break;
    case ATA_SMART:
        /* ACS-3 7.48: LBA 23:8 must hold C24Fh; attribute data and
         * thresholds are 512-byte PIO data-in. */
        if (m->smart_disabled || f[5] != 0x4f || f[6] != 0xc2 ||
            (f[3] != SMART_READ_DATA && f[3] != SMART_READ_THRESHOLDS)) {
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
        memset(data, 0, 512);
        data[2] = 194;                      /* temperature: value 62, raw 38 C */
        data[2 + 3] = 62, data[2 + 4] = 55, data[2 + 5] = 38;
        if (f[3] == SMART_READ_THRESHOLDS)
            data[3] = 0;
        prdbc = sata_model_prdt_copy_in(table, prdtl, data, 512);
        send_pio_setup(m, STS_DRDY, 512);
        m->ci &= ~bit;
        break;
    case ATA_READ_LOG_EXT:
        if (!m->gpl || f[4] != 0x10 || f[5] != 0) {
            send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
        if (m->log10_delay_ns) {
            /* A drive that takes its time over the log: BSY meanwhile. */
            m->tfd = STS_BSY | STS_DRDY;
            m->log10_slot = slot;
            m->log10_done_ns = m->log10_delay_ns == UINT64_MAX ? UINT64_MAX : plat_now_ns() + m->log10_delay_ns;
            return;
        }
        log10_finish(m, slot);
        return;
    case ATA_READ_DMA_EXT:
        blocks = (uint32_t)(f[12] | f[13] << 8);
        blocks = blocks ? blocks : 65536;
        if (covers(lba, blocks, m->hang_lba)) {
            m->hung |= bit;
            m->tfd = STS_BSY | STS_DRDY;
            return;
        }
        if (covers(lba, blocks, m->bad_lba)) {
            /* ACS-3 error outputs: LBA of the first unrecoverable sector. */
            send_d2h_lba(m, STS_DRDY | STS_ERR, ERR_UNC, m->bad_lba);
            return;
        }
        assert_true(blocks * 512u <= sizeof(data));
        for (uint32_t i = 0; i < blocks * 512u; i++)
            data[i] = pattern(lba + i / 512, i % 512);
        prdbc = sata_model_prdt_copy_in(table, prdtl, data, blocks * 512u);
        m->reads_done++;
        m->last_lba = lba;
        m->last_blocks = blocks;
        send_d2h(m, STS_DRDY, 0);
        m->ci &= ~bit;
        break;
    case ATA_READ_FPDMA: {
        unsigned tag = f[12] >> 3;
        /* 5.3.2 / 4.2.2: the HBA finds the PRD table by the tag the drive
         * names, so the tag is the slot; PxSACT is set before PxCI. */
        assert_int_equal(tag, slot);
        assert_true(m->sact & bit);
        blocks = (uint32_t)(f[3] | f[11] << 8);
        blocks = blocks ? blocks : 65536;
        m->ci &= ~bit;              /* accepted: D2H with BSY clear */
        m->is |= IS_DHRS;
        if (covers(lba, blocks, m->hang_lba)) {
            m->hung |= 1u << tag;
            m->held_lba[tag] = lba;
            m->held_blocks[tag] = blocks;
            return;
        }
        if (covers(lba, blocks, m->bad_lba)) {
            /* The failing command and every other outstanding one are
             * aborted; ERR in an SDB FIS announces it. */
            record_ncq_error(m, tag, STS_DRDY | STS_ERR, ERR_UNC, m->bad_lba);
            send_sdb(m, 0, STS_DRDY | STS_ERR, ERR_ABRT);
            return;
        }
        assert_true(blocks * 512u <= sizeof(data));
        for (uint32_t i = 0; i < blocks * 512u; i++)
            data[i] = pattern(lba + i / 512, i % 512);
        sata_model_prdt_copy_in(table, prdtl, data, blocks * 512u);
        m->reads_done++;
        send_sdb(m, 1u << tag, STS_DRDY, 0);
        return;                     /* PRDBC is not updated for queued commands (4.2.2) */
    }
    default:
        send_d2h(m, STS_DRDY | STS_ERR, ERR_ABRT);
        return;
    }
    memcpy(hdr + 4, &prdbc, 4);
}

/* A drive that was never reset finishes the queued reads it still holds:
 * the HBA picks the PRD table by the tag (the DMA Setup FIS names it),
 * i.e. whatever command table slot `tag` has now. */
static void model_finish_held(struct ahci_model *m)
{
    static uint8_t data[1u << 20];

    for (unsigned tag = 0; tag < 32; tag++) {
        uint8_t *hdr = (uint8_t *)sata_model_mem(m->clb, m->clbu) + 32 * tag;
        if (!(m->hung & (1u << tag)))
            continue;
        for (uint32_t i = 0; i < m->held_blocks[tag] * 512u; i++)
            data[i] = pattern(m->held_lba[tag] + i / 512, i % 512);
        sata_model_prdt_copy_in(sata_model_mem(sata_model_le32(hdr + 8), sata_model_le32(hdr + 12)), sata_model_le32(hdr) >> 16, data, m->held_blocks[tag] * 512u);
        m->hung &= ~(1u << tag);
        send_sdb(m, 1u << tag, STS_DRDY, 0);
    }
}

/* The drive's power-on: a spinning disk is ready spinup_ns after it (a
 * COMRESET does not stop the platters, so it does not restart this). */
static void drive_power_on(struct ahci_model *m)
{
    m->ready_after_ns = plat_now_ns() + m->spinup_ns;
}

/* COMRESET released, or HBA reset (the HBA resets the link itself): the
 * drive's queue is gone; the phy sees the device at once (DET=1) and the
 * link is up link_delay_ns later (DET=3). Then COMINIT set BSY (AHCI
 * 10.4.2) until the drive, once ready, sends its signature in a D2H FIS
 * (SATA 3.x 11.x; AHCI 3.3.9 PxSIG). Linux sata_deb_timing_long and
 * ATA_TMOUT_FF_WAIT exist for links and devices that take this long. */
static void drive_reset(struct ahci_model *m)
{
    m->hung = 0;
    m->ncq_error = false;
    m->pending_slot = -1;
    m->log10_done_ns = 0;
    m->link_at_ns = m->ready_at_ns = 0;
    m->tfd = 0x7f;                  /* AHCI 3.3.8: reset value until a FIS comes */
    m->sig = 0xffffffff;
    if (m->gone) {
        m->ssts = 0;                /* DET 0: nothing on the cable */
        return;
    }
    m->ssts = 0x1;
    if (m->det1_stuck)
        return;                     /* no device: the link never trains */                  /* DET 1: device presence detected, no phy link yet */
    m->link_at_ns = plat_now_ns() + m->link_delay_ns;
}

/* Move the link and the drive on to where the clock says they are. */
static void model_tick(struct ahci_model *m)
{
    uint64_t now = plat_now_ns();

    if (m->link_at_ns && now >= m->link_at_ns) {
        m->link_at_ns = 0;
        m->ssts = SSTS_UP_GEN3;
        m->serr |= SERR_DIAG_N | SERR_DIAG_X;
        m->tfd = STS_BSY;
        if (!m->never_ready)        /* never_ready: the link trains, the drive never reports */
            m->ready_at_ns = now > m->ready_after_ns ? now : m->ready_after_ns;
    }
    if (m->ready_at_ns && now >= m->ready_at_ns) {
        m->ready_at_ns = 0;
        m->sig = 0x00000101;
        send_d2h(m, STS_DRDY, 0);
        m->is &= ~IS_DHRS;
    }
    if (m->cr_clear_at_ns && now >= m->cr_clear_at_ns) {
        /* The list has stopped: only now does it own no command (the
         * HBA moved data for them until here). */
        m->cr_clear_at_ns = 0;
        m->cmd &= ~CMD_CR;
        m->ci = m->sact = 0;
        m->stops++;
    }
    if (m->log10_done_ns && now >= m->log10_done_ns) {
        m->log10_done_ns = 0;
        log10_finish(m, m->log10_slot);
    }
    if (m->pending_slot >= 0 && now >= m->pending_done_ns) {
        /* SET FEATURES spin-up ends when the platters are up. */
        m->spun_up = true;
        send_d2h(m, STS_DRDY, 0);
        m->ci &= ~(1u << m->pending_slot);
        m->pending_slot = -1;
    }
}

/* ---- Registers ---- */

static uint32_t model_read(void *ctx, int bar, uint32_t off)
{
    struct ahci_model *m = ctx;
    uint32_t po = off - (PORT_BASE + MODEL_PORT * PORT_STRIDE);
    bool legacy = m->cap_pi_need_ae && !(m->ghc & GHC_AE);

    assert_int_equal(bar, 5);
    model_tick(m);
    m->accesses++;
    switch (off) {
    case 0x00: return legacy ? 0 : m->cap;      /* libahci: "make sure AHCI mode is enabled before accessing CAP" */
    case 0x04:
        if (m->ghc & GHC_HR)
            plat_sim_advance_ns(20000000ull);   /* a reset that never ends */
        return m->ghc;
    case 0x08: return (m->is || m->serr) ? 1u << MODEL_PORT : 0;
    case 0x0c: return legacy ? 0xffffffffu : m->pi;
    case 0x10: return 0x00010301;               /* AHCI 1.3.1 */
    case 0x24: return m->cap2;
    }
    if (off >= PORT_BASE) {
        unsigned n = (off - PORT_BASE) / PORT_STRIDE;
        if (n >= 32 || !(m->ports_hw & (1u << n))) {
            m->stray++;                         /* a port the silicon does not have */
            return 0;
        }
        if (n != MODEL_PORT) {
            /* An empty port: nothing on the cable (DET 0), no FIS ever
             * (PxTFD 7Fh, PxSIG all ones); its other registers keep what
             * was written. */
            switch (off % PORT_STRIDE) {
            case P_SSTS: plat_sim_advance_ns(10000000ull); return 0;
            case P_TFD: return 0x7f;
            case P_SIG: return 0xffffffffu;
            case P_IS: case P_SERR: case P_CI: case P_SACT: return 0;
            default: return m->empty_regs[n][(off % PORT_STRIDE) / 4];
            }
        }
    }
    if (off < PORT_BASE)
        return 0;
    switch (po) {
    case P_CLB: return m->clb;
    case P_CLBU: return m->clbu;
    case P_FB: return m->fb;
    case P_FBU: return m->fbu;
    case P_IS:
        /* 3.3.5: PRCS and PCS are PxSERR.DIAG.N and DIAG.X, cleared only there. */
        return m->is | ((m->serr & SERR_DIAG_N) ? IS_PRCS : 0) | ((m->serr & SERR_DIAG_X) ? IS_PCS : 0);
    case P_IE: return m->ie;
    case P_CMD:
        if ((m->cmd & CMD_CR) && !(m->cmd & CMD_ST) && !m->cr_clear_at_ns)
            plat_sim_advance_ns(10000000ull);   /* a list that never stops */
        return m->cmd | m->port_caps;
    case P_TFD:
        m->tfd_reads++;
        if (m->tfd & STS_BSY)
            plat_sim_advance_ns(50000000ull);   /* a drive that stays busy */
        return m->tfd;
    case P_SIG: return m->sig;
    case P_SSTS:
        if ((m->ssts & 0xf) != 3)
            plat_sim_advance_ns(10000000ull);   /* a link that does not come */
        return m->ssts;
    case P_SCTL: return m->sctl;
    case P_SERR: return m->serr;
    case P_SACT:
    case P_CI:
        if (m->hung || m->pending_slot >= 0)
            plat_sim_advance_ns(50000000ull);   /* the drive sits on a command */
        return po == P_SACT ? m->sact : m->ci;
    }
    return 0;
}

/* GHC.HR (10.4.3): every port back to its reset state, links retrained.
 * The spec keeps HwInit registers; chipsets whose firmware writes PI,
 * CAP2 and PxCMD's capability bits once lose them (Linux
 * ahci_restore_initial_config(): "Some registers might be cleared on
 * reset"). */
static void hba_reset_now(struct ahci_model *m)
{
    m->hba_resets++;
    m->ghc = 0;                                 /* AE too: CAP.SAM is 0 */
    m->cmd = CMD_SUD | CMD_POD;                 /* SUD reads 1 without CAP.SSS */
    m->is = m->ie = m->serr = m->sact = m->ci = 0;
    m->cr_clear_at_ns = 0;
    m->sctl = 0;
    m->halted = false;
    if (m->reset_loses_rwo)
        m->pi = m->cap2 = m->port_caps = 0;
    drive_reset(m);
}

static void port_write(struct ahci_model *m, uint32_t po, uint32_t v)
{
    switch (po) {
    case P_CLB: m->clb = v & ~0x3ffu; break;
    case P_CLBU: m->clbu = v; break;
    case P_FB: m->fb = v & ~0xffu; break;
    case P_FBU: m->fbu = v; break;
    case P_IS: m->is &= ~v; break;               /* RWC */
    case P_IE: m->ie = v; break;
    case P_SERR: m->serr &= ~v; break;           /* RWC */
    case P_CMD: {
        uint32_t old = m->cmd;
        m->port_caps = v & PxCMD_CAPS;           /* written back after a reset (RWO for firmware) */
        v &= ~PxCMD_CAPS;
        m->cmd = (old & (CMD_CR | CMD_FR)) | (v & ~(CMD_CR | CMD_FR | CMD_CLO));
        m->cmd = (m->cmd & CMD_FRE) ? m->cmd | CMD_FR : m->cmd & ~CMD_FR;
        if ((v & CMD_CLO) && (m->cap & CAP_SCLO))
            m->tfd &= ~(uint32_t)(STS_BSY | STS_DRQ);    /* 3.3.7: CLO clears BSY and DRQ */
        if ((old & CMD_ST) && !(v & CMD_ST)) {
            /* 3.3.13, 3.3.14: ST 1 -> 0 clears PxCI and PxSACT, once the
             * list has stopped (CR clear: 10.1.2 gives it 500 ms); until
             * then the HBA still owns those commands. */
            m->halted = false;
            m->pending_slot = -1;
            m->log10_done_ns = 0;
            m->st_cleared_ns = plat_now_ns();
            if (m->cr_delay_ns && !m->cr_sticks && !m->cr_until_comreset) {
                m->cr_clear_at_ns = plat_now_ns() + m->cr_delay_ns;
            } else if (!m->cr_sticks && !m->cr_until_comreset) {
                m->ci = m->sact = 0;
                m->cmd &= ~CMD_CR;
                m->stops++;
            }
        }
        if (sata_model_start_refused(old, v)) {
            m->refused++;                        /* 10.3.1: ST only once CR reads clear */
            m->cmd &= ~CMD_ST;
            break;
        }
        if (!(old & CMD_ST) && (v & CMD_ST))
            m->cmd |= CMD_CR;
        break;
    }
    case P_SCTL:
        /* 3.3.11: DET may only change with PxCMD.ST clear. */
        if (sata_model_det_refused(m->cmd, m->sctl, v)) {
            m->sctl_while_st++;
            break;
        }
        if ((v & 0xf) != (m->sctl & 0xf) && (m->cmd & CMD_CR) &&
            plat_now_ns() - m->st_cleared_ns < 500000000ull) {
            /* The list has not stopped yet, and has not had the 500 ms
             * 10.1.2 gives it: only a list still running after those may
             * be reset (10.4.1: port reset, then HBA reset). */
            m->refused++;
            break;
        }
        if ((v & 0xf) == 1 && (m->sctl & 0xf) != 1) {
            if ((m->cmd & CMD_CR) && m->cr_until_comreset) {
                /* The port reset frees the stuck list. */
                m->cmd &= ~CMD_CR;
                m->ci = m->sact = 0;
                m->stops++;
            }
            m->comresets++;                      /* COMRESET held: no link, the drive's queue is gone */
            m->det1_since_ns = plat_now_ns();
            m->ssts = m->gone ? 0 : 0x1;
            m->tfd = 0x7f;
            m->hung = 0;
            m->ncq_error = false;
            m->pending_slot = -1;
            m->log10_done_ns = 0;
            m->link_at_ns = m->ready_at_ns = 0;
        } else if ((v & 0xf) == 0 && (m->sctl & 0xf) == 1) {
            if (m->sctl_lost_writes) {
                /* Linux sata_link_resume(): "Writes to SControl sometimes
                 * get ignored under certain controllers (ata_piix
                 * SIDPR)": DET stays 1, the COMRESET stays on. */
                m->sctl_lost_writes--;
                break;
            }
            /* 3.3.11: DET=1 held at least 1 ms for a COMRESET to go out. */
            if (plat_now_ns() - m->det1_since_ns < 1000000ull)
                m->short_comresets++;
            drive_reset(m);                      /* released: link and signature */
        }
        m->sctl = v;
        break;
    case P_SACT:
        if (!sata_model_issue_refused(m->cmd))
            m->sact |= v;
        else if (v)
            m->refused++;                        /* 3.3.13: only while ST is set */
        break;
    case P_CI: {
        uint32_t issue = v & ~m->ci;
        if (sata_model_issue_refused(m->cmd)) {
            m->refused += v != 0;                /* 3.3.14: only while ST is set; the HBA ignores it */
            break;
        }
        m->ci_writes += issue != 0;
        m->ci |= v;
        for (unsigned s = 0; s < 32 && !m->halted; s++)
            if (issue & (1u << s))
                run_slot(m, s);
        break;
    }
    }
}

static void model_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct ahci_model *m = ctx;
    uint32_t po = off - (PORT_BASE + MODEL_PORT * PORT_STRIDE);

    assert_int_equal(bar, 5);
    model_tick(m);
    m->accesses++;
    switch (off) {
    case 0x00: return;                           /* CAP: HwInit, written back by firmware-minded drivers */
    case 0x04:
        if (v & GHC_HR) {
            if (m->hr_sticks)
                m->ghc |= GHC_HR;
            else
                hba_reset_now(m);
            return;
        }
        m->ghc = (m->ghc & GHC_HR) | (v & (GHC_AE | 2u));
        if (m->ae_drops)
            m->ghc &= ~GHC_AE;
        return;
    case 0x08: return;
    case 0x0c:                                   /* PI and CAP2: write-once for firmware on such chips */
        if (m->reset_loses_rwo)
            m->pi = v;
        return;
    case 0x24:
        if (m->reset_loses_rwo)
            m->cap2 = v;
        return;
    }
    if (off >= PORT_BASE) {
        unsigned n = (off - PORT_BASE) / PORT_STRIDE;
        if (n >= 32 || !(m->ports_hw & (1u << n))) {
            m->stray++;
            return;
        }
        if (n == MODEL_PORT && po < PORT_STRIDE)
            port_write(m, po, v);
        else if (n != MODEL_PORT)
            m->empty_regs[n][(off % PORT_STRIDE) / 4] = v;
    }
}

/* ---- Test scaffolding ---- */

static const struct pci_addr model_addr = { 0, 0, 0x1f, 2 };

/* A model at addr in the state the firmware leaves it: AHCI mode, link
 * up, port idle. */
static struct ahci_model *model_init(struct ahci_model *mp, struct pci_addr addr, bool hba_ncq, bool drive_ncq,
                                     bool gpl)
{
#define m (*mp)
    memset(&m, 0, sizeof(m));
    m.dev.addr = addr;
    m.dev.ctx = &m;
    m.dev.mmio_read32 = model_read;
    m.dev.mmio_write32 = model_write;
    m.dev.bar_size[5] = 0x800;
    m.dev.config[0] = 0x86, m.dev.config[1] = 0x80;        /* 8086:2922, ICH9 AHCI */
    m.dev.config[2] = 0x22, m.dev.config[3] = 0x29;
    m.dev.config[9] = 0x01, m.dev.config[10] = 0x06, m.dev.config[11] = 0x01;
    m.cap = (31u << CAP_NCS_SHIFT) | CAP_ISS_GEN3 | CAP_SCLO | CAP_S64A | (hba_ncq ? CAP_SNCQ : 0) | 3u;
    m.pi = 1u << MODEL_PORT;
    m.ghc = GHC_AE;
    m.ncq = drive_ncq;
    m.gpl = gpl;
    m.bad_lba = m.hang_lba = NO_LBA;
    m.blocks = MODEL_BLOCKS;
    m.cmd = CMD_SUD | CMD_POD;
    m.ports_hw = m.pi;
    m.pending_slot = -1;
    drive_power_on(&m);
    drive_reset(&m);
    model_tick(&m);
    m.serr = 0;
    plat_sim_attach(&m.dev);
    return &m;
#undef m
}

/* The model most tests use, at model_addr. */
static struct ahci_model *model_new(bool hba_ncq, bool drive_ncq, bool gpl)
{
    static struct ahci_model m;

    return model_init(&m, model_addr, hba_ncq, drive_ncq, gpl);
}

/* Probe the model at addr as controller index (its disk is ahciINDEXp2). */
static struct bm_disk *probe_at(struct ahci_model *m, struct pci_addr addr, unsigned index, void **ctrl)
{
    static struct bm_disk_list lists[2];
    struct bm_disk_list *list = &lists[index % 2];
    char err[160] = "";
    int rc;

    memset(list, 0, sizeof(*list));
    rc = ahci_driver.probe(addr, index, list, ctrl, err, sizeof(err));
    if (rc != BM_OK)
        fail_msg("probe: %s (%s)", bm_strerror(rc), err);
    assert_int_equal(list->count, 1);
    assert_int_equal(m->dev.claims, 1);
    return list->disks[0];
}

static struct bm_disk *probe_one(struct ahci_model *m, void **ctrl) { return probe_at(m, model_addr, 0, ctrl); }

static void finish(struct ahci_model *m, void *ctrl)
{
    /* What no test may see: a COMRESET shorter than 1 ms, SControl.DET
     * changed while the port runs, a port the silicon does not have. */
    assert_int_equal(m->short_comresets, 0);
    assert_int_equal(m->sctl_while_st, 0);
    assert_int_equal(m->refused, 0);
    assert_int_equal(m->stray, 0);
    ahci_driver.release(ctrl);
    assert_int_equal(m->dev.releases, 1);
    plat_sim_detach(&m->dev);
}

/* The engine comes back to a disk at least this often: a poll that
 * brought nothing lets this much of the model's time pass (a recovery's
 * COMRESET is stepped from poll() and takes hundreds of ms). */
#define POLL_GAP_NS (100 * 1000ull)

/* Poll until want completions arrived (or a generous number of polls). */
static int collect(struct bm_disk *d, struct bm_completion *out, int want)
{
    int got = 0;
    for (long polls = 0; got < want && polls < 2000000; polls++) {
        int n = d->ops->poll(d, 0, out + got, want - got);
        if (!n)
            plat_sim_advance_ns(POLL_GAP_NS);
        got += n;
    }
    return got;
}

static bool data_ok(const uint8_t *buf, uint64_t lba, uint32_t blocks)
{
    for (uint32_t i = 0; i < blocks * 512u; i++)
        if (buf[i] != pattern(lba + i / 512, i % 512))
            return false;
    return true;
}

/* plat_log goes to stderr: catch it to check what the driver says. */
static char log_text[16384];
static int log_saved_fd = -1;
static FILE *log_file;

static void log_capture_begin(void)
{
    fflush(stderr);
    log_file = tmpfile();
    assert_non_null(log_file);
    log_saved_fd = dup(2);
    dup2(fileno(log_file), 2);
}

static const char *log_capture_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(log_saved_fd, 2);
    close(log_saved_fd);
    rewind(log_file);
    n = fread(log_text, 1, sizeof(log_text) - 1, log_file);
    log_text[n] = '\0';
    fclose(log_file);
    log_saved_fd = -1;
    fputs(log_text, stderr);                 /* still visible in the test's output */
    return log_text;
}

/* After a failed assertion inside a capture: give stderr back. */
static int log_restore(void **state)
{
    (void)state;
    if (log_saved_fd >= 0)
        log_capture_end();
    return 0;
}

#define QD 32
#define READ_BLOCKS 16
static uint8_t *buffers;

static uint8_t *buf_of(unsigned tag) { return buffers + (size_t)tag * READ_BLOCKS * 512; }
static uint64_t lba_of(unsigned tag) { return 1000003ull * tag + 77; }

static int setup(void **state)
{
    (void)state;
    buffers = plat_alloc_pages(QD * READ_BLOCKS * 512, false);
    return buffers ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    plat_free_pages(buffers, QD * READ_BLOCKS * 512);
    return 0;
}

/* Submit reads on tags 0..n-1 at lba_of(tag). */
static void submit_reads(struct bm_disk *d, unsigned n)
{
    for (unsigned t = 0; t < n; t++) {
        memset(buf_of(t), 0xee, READ_BLOCKS * 512);
        assert_int_equal(d->ops->submit(d, 0, t, BM_IO_READ, lba_of(t), READ_BLOCKS, buf_of(t)), BM_OK);
    }
}

/* Every one of n tags completes once, OK, with the model's data. */
static void expect_reads_ok(struct bm_disk *d, unsigned n)
{
    struct bm_completion c[QD];
    uint32_t seen = 0;

    assert_int_equal(collect(d, c, (int)n), (int)n);
    for (unsigned i = 0; i < n; i++) {
        assert_true(c[i].tag < n);
        assert_false(seen & (1u << c[i].tag));
        seen |= 1u << c[i].tag;
        assert_int_equal(c[i].status, BM_OK);
        assert_true(data_ok(buf_of(c[i].tag), lba_of(c[i].tag), READ_BLOCKS));
    }
}

/* ---- Tests ---- */

/* submit prepares, flush issues the batch with one PxSACT and one PxCI
 * write (both set only the bits written as 1, AHCI 1.3.1 3.3.13/3.3.14);
 * what nobody flushed is issued by the next poll. */
static void test_ncq_batch_is_issued_with_one_pxci_write_on_flush_or_poll(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;
    unsigned writes;

    (void)state;
    d = probe_one(m, &ctrl);
    assert_non_null(d->ops->flush);
    writes = m->ci_writes;
    submit_reads(d, QD);
    assert_int_equal(m->ci_writes, writes);  /* nothing issued yet */
    d->ops->flush(d, 0);
    assert_int_equal(m->ci_writes, writes + 1);
    expect_reads_ok(d, QD);
    submit_reads(d, 4);
    expect_reads_ok(d, 4);                   /* poll issued them */
    assert_int_equal(m->ci_writes, writes + 2);
    assert_int_equal(m->reads_done, QD + 4);
    finish(m, ctrl);
}

static void test_probe_finds_the_drive_and_ncq_reads_at_qd32_return_its_data(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    log_capture_begin();
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(log_capture_end(), "version 1.3.1,"));
    assert_int_equal(m->hba_resets, 1);
    assert_string_equal(d->id, "ahci0p2");
    assert_string_equal(d->model, "Baremark Model SATA Drive");
    assert_string_equal(d->serial, "MODEL-SERIAL-0042");
    assert_int_equal(d->blocks, MODEL_BLOCKS);
    assert_int_equal(d->lba_bytes, 512);
    assert_int_equal(d->port, MODEL_PORT);
    assert_true(d->link_gbps == 6.0);
    assert_int_equal(d->max_qd, 32);

    for (int round = 0; round < 3; round++) {
        submit_reads(d, QD);
        expect_reads_ok(d, QD);
    }
    assert_int_equal(m->reads_done, 3 * QD);
    assert_int_equal(m->comresets, 1);      /* the probe's hardreset, as libahci's; none since */
    assert_int_equal(m->bad_fis, 0);
    finish(m, ctrl);
}

static void ncq_error_fails_exactly_the_bad_tag(bool tfes)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[QD];
    const unsigned bad = 11;
    char want[64];
    void *ctrl;
    struct bm_disk *d;
    uint32_t seen = 0;

    d = probe_one(m, &ctrl);
    m->sdb_err_no_tfes = !tfes;
    m->bad_lba = lba_of(bad) + 5;
    log_capture_begin();
    submit_reads(d, QD);
    assert_int_equal(collect(d, c, QD), QD);
    log_capture_end();

    for (unsigned i = 0; i < QD; i++) {
        unsigned t = c[i].tag;
        assert_false(seen & (1u << t));
        seen |= 1u << t;
        if (t < bad) {
            /* Finished before the error: their data is good. */
            assert_int_equal(c[i].status, BM_OK);
            assert_true(data_ok(buf_of(t), lba_of(t), READ_BLOCKS));
        } else if (t == bad) {
            /* Log 10h names the tag; its registers and LBA are the detail. */
            assert_int_equal(c[i].status, BM_EIO);
            snprintf(want, sizeof(want), "lba %llu", (unsigned long long)m->bad_lba);
            assert_non_null(strstr(c[i].detail, want));
            assert_non_null(strstr(c[i].detail, "UNC"));
        } else {
            /* The drive aborted the rest (ACS-3 9.13); nothing is retried. */
            assert_int_equal(c[i].status, BM_EIO);
            snprintf(want, sizeof(want), "tag %u", bad);
            assert_non_null(strstr(c[i].detail, want));
            assert_null(strstr(c[i].detail, "lba"));
        }
    }
    assert_int_equal(seen, 0xffffffffu);
    assert_int_equal(m->log10_reads, 1);
    assert_false(m->ncq_error);

    /* The port is running again and the drive answers. */
    m->bad_lba = NO_LBA;
    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);
}

static void test_ncq_error_fails_exactly_the_bad_tag_with_lba_and_port_keeps_working(void **state)
{
    (void)state;
    ncq_error_fails_exactly_the_bad_tag(true);
}

/* QEMU 7.2 (ahci_write_fis_sdb()) reports a queued command's error only
 * in the status of the SDB FIS, with PxIS.TFES clear: the driver reads
 * that status from the received-FIS area and recovers the same way. */
static void test_ncq_error_only_in_the_sdb_fis_status_is_caught(void **state)
{
    (void)state;
    ncq_error_fails_exactly_the_bad_tag(false);
}

/* A queued read that succeeds costs no PxTFD read: the status of its SDB
 * FIS is in host memory (the received-FIS area). */
static void test_ncq_reads_that_succeed_read_no_pxtfd(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;
    unsigned tfd0;

    (void)state;
    d = probe_one(m, &ctrl);
    tfd0 = m->tfd_reads;
    for (int round = 0; round < 4; round++) {
        submit_reads(d, QD);
        expect_reads_ok(d, QD);
    }
    assert_int_equal(m->tfd_reads, tfd0);
    finish(m, ctrl);
}

static void test_ncq_error_without_the_log_resets_the_port_and_fails_the_caught_tags(void **state)
{
    struct ahci_model *m = model_new(true, true, false);   /* no GPL: no READ LOG EXT */
    struct bm_completion c[QD];
    const unsigned bad = 4;
    void *ctrl;
    struct bm_disk *d;
    unsigned failed = 0;

    (void)state;
    d = probe_one(m, &ctrl);
    m->bad_lba = lba_of(bad);
    submit_reads(d, 8);
    assert_int_equal(collect(d, c, 8), 8);
    for (unsigned i = 0; i < 8; i++) {
        if (c[i].tag < bad) {
            assert_int_equal(c[i].status, BM_OK);
            continue;
        }
        /* Which tag failed is unknown: every caught one says so. */
        assert_int_equal(c[i].status, BM_EIO);
        assert_non_null(strstr(c[i].detail, "tag unknown"));
        failed++;
    }
    assert_int_equal(failed, 8 - bad);
    assert_int_equal(m->log10_reads, 0);
    assert_true(m->comresets >= 1);      /* the only way out of the NCQ error state */

    m->bad_lba = NO_LBA;
    submit_reads(d, 8);
    expect_reads_ok(d, 8);
    finish(m, ctrl);
}

static void test_interface_error_names_the_hba_bits_and_the_port_recovers(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[4];
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(2);            /* the drive holds tag 2... */
    submit_reads(d, 4);
    assert_int_equal(collect(d, c, 3), 3);
    /* ...when a CRC error on the link stops the port (3.3.5 IFS, 3.3.12). */
    m->serr |= SERR_DIAG_C | SERR_ERR_P;
    m->is |= IS_IFS;
    m->halted = true;
    m->hang_lba = NO_LBA;
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].tag, 2);
    assert_int_equal(c[0].status, BM_EIO);
    assert_non_null(strstr(c[0].detail, "IFS"));
    assert_non_null(strstr(c[0].detail, "PxSERR 0x"));

    /* Tag 2 and its buffer are the engine's again: it reads elsewhere. */
    memset(buf_of(2), 0xee, READ_BLOCKS * 512);
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, lba_of(9), READ_BLOCKS, buf_of(2)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(2), lba_of(9), READ_BLOCKS));
    /* The drive was never told of the error: unless recovery reset it, it
     * still holds the old tag 2 and may finish it now, into tag 2's
     * current buffer. The buffer must keep what the engine was given. */
    model_finish_held(m);
    assert_true(data_ok(buf_of(2), lba_of(9), READ_BLOCKS));
    assert_int_equal(d->ops->poll(d, 0, c, 4), 0);

    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);
}

/* A port's COMRESET in error recovery (libata's 200 ms settle after
 * DET=0, the 100 ms debounce) is stepped from poll(), not waited in it: no
 * poll of the recovering disk holds the CPU for more than a few register
 * accesses, a disk on another controller polled in the same loop keeps
 * completing reads meanwhile, and a read submitted on the recovering port
 * waits until the port runs again (AHCI 1.3.1 3.3.14: PxCI only with ST
 * set). The drive has no GPL, so its queued error is cleared by a COMRESET. */
static void test_port_reset_in_recovery_holds_no_poll_and_another_disk_keeps_completing(void **state)
{
    static struct ahci_model m2;
    const struct pci_addr addr2 = { 0, 0, 0x1f, 5 };
    struct ahci_model *m = model_new(true, true, false);
    struct bm_completion c[QD];
    uint64_t longest = 0;
    unsigned comresets, ci_writes = 0, other_done = 0;
    bool held = false, failed = false, held_done = false;
    void *ctrl, *ctrl2;
    struct bm_disk *d, *d2;

    (void)state;
    model_init(&m2, addr2, true, true, true);
    d = probe_one(m, &ctrl);
    d2 = probe_at(&m2, addr2, 1, &ctrl2);
    assert_string_equal(d2->id, "ahci1p2");
    for (unsigned t = 8; t < 12; t++)
        assert_int_equal(d2->ops->submit(d2, 0, t, BM_IO_READ, lba_of(t), READ_BLOCKS, buf_of(t)), BM_OK);
    m->bad_lba = lba_of(0) + 3;
    comresets = m->comresets;
    log_capture_begin();
    memset(buf_of(0), 0xee, READ_BLOCKS * 512);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(0), READ_BLOCKS, buf_of(0)), BM_OK);
    for (long i = 0; i < 100000 && !failed; i++) {
        uint64_t t0 = plat_now_ns(), took;
        int n = d->ops->poll(d, 0, c, QD);

        took = plat_now_ns() - t0;
        longest = MAX(longest, took);
        for (int k = 0; k < n; k++) {
            /* The failed read, and (issued in the same poll, once the port
             * runs) the held one. */
            if (c[k].tag == 0) {
                assert_int_equal(c[k].status, BM_EIO);
                failed = true;
                continue;
            }
            assert_int_equal(c[k].tag, 1);
            assert_true(failed);
            assert_int_equal(c[k].status, BM_OK);
            held_done = true;
        }
        if (failed)
            break;
        if (m->comresets > comresets && !held) {
            /* Mid-reset: this read must wait for the port. */
            memset(buf_of(1), 0xee, READ_BLOCKS * 512);
            assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, lba_of(1), READ_BLOCKS, buf_of(1)), BM_OK);
            ci_writes = m->ci_writes;
            held = true;
        }
        if (held)
            assert_int_equal(m->ci_writes, ci_writes);
        n = d2->ops->poll(d2, 0, c, QD);
        for (int k = 0; k < n; k++) {
            assert_int_equal(c[k].status, BM_OK);
            assert_true(data_ok(buf_of(c[k].tag), lba_of(c[k].tag), READ_BLOCKS));
            other_done += m->comresets > comresets;
            assert_int_equal(d2->ops->submit(d2, 0, c[k].tag, BM_IO_READ, lba_of(c[k].tag), READ_BLOCKS,
                                             buf_of(c[k].tag)), BM_OK);
        }
        plat_sim_advance_ns(POLL_GAP_NS);
    }
    log_capture_end();
    assert_true(failed);
    assert_int_equal(m->comresets, comresets + 1);
    if (longest > 2 * NS_PER_MS)
        fail_msg("a poll of the recovering disk took %llu us", (unsigned long long)(longest / 1000));
    /* 300+ ms of settle and debounce at a poll every 0.1 ms: thousands. */
    assert_true(held);
    assert_true(other_done >= 1000);
    /* The held read goes out once the port is back, and reads its data. */
    if (!held_done) {
        assert_int_equal(collect(d, c, 1), 1);
        assert_int_equal(c[0].tag, 1);
        assert_int_equal(c[0].status, BM_OK);
    }
    assert_true(data_ok(buf_of(1), lba_of(1), READ_BLOCKS));
    assert_int_equal(collect(d2, c, 4), 4);
    finish(&m2, ctrl2);
    finish(m, ctrl);
}

/* ---- Recovery steps that take time, polled as the engine polls ---- */

/* What AHCI and Linux allow the steps (the model's own figures, from the
 * specifications, not the driver's): PxCMD.CR clears within 500 ms of
 * ST being cleared (AHCI 1.3.1 10.1.2); an EH command such as READ LOG
 * EXT gets 5 s (Linux ATA_EH_CMD_DFL_TIMEOUT). */
#define SPEC_STOP_NS (500 * NS_PER_MS)
#define LINUX_LOG10_NS (5 * NS_PER_S)
/* A step is a look at a register or two; a wait inside poll() would be
 * thousands of reads (one every few us for hundreds of ms). */
#define POLL_ACCESS_MAX 40

struct rec_run {
    unsigned polls;          /* polls of the recovering disk until its last caught completion */
    unsigned most_accesses;  /* the most register accesses one of them made */
    unsigned rec_polls;      /* polls after which its recovery record named a step under way */
    unsigned other_done;     /* reads the other disk completed in those */
    unsigned stops_at_first; /* m->stops when the first failed command came back */
    uint64_t took_ns;
};

/* Submit n reads on d (tags 0..n-1) and poll d and a second disk d2 in
 * one loop, as the engine does, until d's n completions are back; d2
 * keeps four reads in flight throughout. */
static void recovery_run(struct ahci_model *m, struct bm_disk *d, struct bm_disk *d2, unsigned n,
                         struct bm_completion *c, struct rec_run *r)
{
    struct bm_completion c2[QD];
    uint64_t t0 = plat_now_ns();
    unsigned got = 0;

    memset(r, 0, sizeof(*r));
    r->stops_at_first = UINT32_MAX;
    for (unsigned t = 8; t < 12; t++)
        assert_int_equal(d2->ops->submit(d2, 0, t, BM_IO_READ, lba_of(t), READ_BLOCKS, buf_of(t)), BM_OK);
    submit_reads(d, n);
    for (long i = 0; i < 1000000 && got < n; i++) {
        unsigned a0 = m->accesses;
        int k = d->ops->poll(d, 0, c + got, (int)(n - got));
        char rec[96] = "";
        bool recovering;

        r->polls++;
        r->most_accesses = MAX(r->most_accesses, m->accesses - a0);
        if (d->ops->recovery)
            d->ops->recovery(d, rec, sizeof(rec));
        recovering = strstr(rec, " so far") != NULL;
        r->rec_polls += recovering;
        for (int j = 0; j < k; j++)
            if (c[got + j].status != BM_OK && r->stops_at_first == UINT32_MAX)
                r->stops_at_first = m->stops;
        got += (unsigned)k;
        k = d2->ops->poll(d2, 0, c2, QD);
        for (int j = 0; j < k; j++) {
            assert_int_equal(c2[j].status, BM_OK);
            assert_true(data_ok(buf_of(c2[j].tag), lba_of(c2[j].tag), READ_BLOCKS));
            r->other_done += recovering;
            assert_int_equal(d2->ops->submit(d2, 0, c2[j].tag, BM_IO_READ, lba_of(c2[j].tag), READ_BLOCKS,
                                             buf_of(c2[j].tag)), BM_OK);
        }
        plat_sim_advance_ns(POLL_GAP_NS);
    }
    r->took_ns = plat_now_ns() - t0;
    assert_int_equal(got, n);
    assert_int_equal(collect(d2, c2, 4), 4);
}

/* The ms the recovery record gives a step ("engine stop 400 ms"), or -1. */
static long record_step_ms(const char *record, const char *step)
{
    const char *at = strstr(record, step);

    return at ? strtol(at + strlen(step), NULL, 10) : -1;
}

/* Each poll of a recovering disk made at most a few register accesses;
 * the recovery, at least step_ns of it, went on across polls (how many
 * depends on the host's speed too, so only "more than one" is asked),
 * and the other disk completed reads in each of them. */
static void expect_stepped(const struct rec_run *r, uint64_t step_ns)
{
    if (r->most_accesses > POLL_ACCESS_MAX)
        fail_msg("a poll of the recovering disk made %u register accesses", r->most_accesses);
    assert_true(r->took_ns >= step_ns);
    if (r->rec_polls < 2 || r->other_done < r->rec_polls)
        fail_msg("%u polls while recovering, %u reads of the other disk in them", r->rec_polls, r->other_done);
}

/* A recovery case: m (ahci0p2, the disk that fails) and a healthy disk
 * on a second HBA (ahci1p2), both probed; what the run gave. */
struct rec_case {
    struct ahci_model *m;
    struct bm_disk *d, *d2;
    void *ctrl, *ctrl2;
    unsigned comresets, stops;     /* m's, before the run */
    struct bm_completion c[QD];
    struct rec_run r;
    char record[160];              /* d's recovery record after it */
    const char *log;
};

static struct ahci_model m_other;
static const struct pci_addr other_addr = { 0, 0, 0x1f, 5 };

static struct ahci_model *rec_case_begin(struct rec_case *k)
{
    memset(k, 0, sizeof(*k));
    k->m = model_new(true, true, true);
    model_init(&m_other, other_addr, true, true, true);
    k->d = probe_one(k->m, &k->ctrl);
    k->d2 = probe_at(&m_other, other_addr, 1, &k->ctrl2);
    return k->m;
}

/* Reads on tags 0..n-1 of the failing disk, polled until all are back
 * (recovery_run); a step of step_ns was spread over polls (expect_stepped). */
static void rec_case_run(struct rec_case *k, unsigned n, uint64_t step_ns)
{
    k->comresets = k->m->comresets;
    k->stops = k->m->stops;
    log_capture_begin();
    recovery_run(k->m, k->d, k->d2, n, k->c, &k->r);
    k->log = log_capture_end();
    expect_stepped(&k->r, step_ns);
    assert_non_null(k->d->ops->recovery);
    k->d->ops->recovery(k->d, k->record, sizeof(k->record));
}

/* The run's n reads came back: the tags before bad_tag good, bad_tag and
 * every later one (those the NCQ error caught) failed. Where given, the
 * bad tag's detail holds bad_detail and each caught one's caught_detail. */
static void rec_case_expect_failed_from(const struct rec_case *k, unsigned n, unsigned bad_tag,
                                        const char *bad_detail, const char *caught_detail)
{
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(k->c[i].status, k->c[i].tag < bad_tag ? BM_OK : BM_EIO);
        if (k->c[i].tag == bad_tag && bad_detail)
            assert_non_null(strstr(k->c[i].detail, bad_detail));
        else if (k->c[i].tag > bad_tag && caught_detail)
            assert_non_null(strstr(k->c[i].detail, caught_detail));
    }
}

/* The fault gone, the port reads at QD32 again; nothing AHCI forbids was done. */
static void rec_case_end(struct rec_case *k)
{
    k->m->bad_lba = NO_LBA;
    k->m->cr_until_comreset = false;
    submit_reads(k->d, QD);
    expect_reads_ok(k->d, QD);
    finish(&m_other, k->ctrl2);
    finish(k->m, k->ctrl);
}

/* PxCMD.CR takes 400 ms to clear after ST (inside AHCI's 500 ms): the
 * stop is looked at once a poll, the other disk keeps completing, no
 * caught command comes back before the list has stopped, and the record
 * names the step and its time. NCQ error with log 10h: no COMRESET. */
static void test_list_that_takes_400ms_to_stop_is_stepped_while_another_disk_keeps_completing(void **state)
{
    static struct rec_case k;
    const uint64_t cr_ns = 400 * NS_PER_MS;
    struct ahci_model *m = rec_case_begin(&k);

    (void)state;
    m->cr_delay_ns = cr_ns;
    m->bad_lba = lba_of(5) + 1;
    rec_case_run(&k, 8, cr_ns);
    assert_true(k.r.stops_at_first > k.stops);      /* the list had stopped (CR clear) first */
    rec_case_expect_failed_from(&k, 8, 5, NULL, NULL);
    assert_int_equal(m->comresets, k.comresets);
    assert_int_equal(m->log10_reads, 1);
    if (record_step_ms(k.record, "engine stop ") < (long)(cr_ns / NS_PER_MS) || strstr(k.record, "CR still set") ||
        !strstr(k.record, "log 10h "))
        fail_msg("record '%s'", k.record);
    rec_case_end(&k);
}

/* A drive that takes 2 s over READ LOG EXT 10h (inside Linux's 5 s):
 * PxCI is looked at once a poll, the other disk keeps completing, and the
 * log names the failed tag as usual. */
static void test_log_10h_read_that_takes_seconds_is_stepped_and_names_the_tag(void **state)
{
    static struct rec_case k;
    const uint64_t log_ns = 2 * NS_PER_S;
    struct ahci_model *m = rec_case_begin(&k);
    char want[32];

    (void)state;
    m->log10_delay_ns = log_ns;
    m->bad_lba = lba_of(3);
    rec_case_run(&k, 8, log_ns);
    snprintf(want, sizeof(want), "lba %llu", (unsigned long long)m->bad_lba);
    rec_case_expect_failed_from(&k, 8, 3, want, "aborted: NCQ error on tag 3");
    assert_int_equal(m->log10_reads, 1);
    assert_int_equal(m->comresets, k.comresets);
    if (record_step_ms(k.record, "log 10h ") < (long)(log_ns / NS_PER_MS))
        fail_msg("record '%s'", k.record);
    rec_case_end(&k);
}

/* A drive that never answers READ LOG EXT 10h: after Linux's 5 s the read
 * is given up, and as ata_eh_analyze_ncq_error() on a failed log every
 * caught command fails (which one was bad is unknown) and the port is
 * reset, which also ends the drive's NCQ error state. */
static void test_log_10h_read_that_never_ends_fails_every_caught_command_and_resets_the_port(void **state)
{
    static struct rec_case k;
    struct ahci_model *m = rec_case_begin(&k);

    (void)state;
    m->log10_delay_ns = UINT64_MAX;
    m->bad_lba = lba_of(2);
    rec_case_run(&k, 6, LINUX_LOG10_NS);
    rec_case_expect_failed_from(&k, 6, 2, "tag unknown", "tag unknown");
    assert_int_equal(m->comresets, k.comresets + 1);
    assert_false(m->ncq_error);
    assert_non_null(strstr(k.log, "READ LOG EXT 10h timed out"));
    if (record_step_ms(k.record, "log 10h ") < (long)(LINUX_LOG10_NS / NS_PER_MS) || !strstr(k.record, "COMRESET "))
        fail_msg("record '%s'", k.record);
    rec_case_end(&k);
}

/* A list that does not stop (PxCMD.CR stays set until the port is reset):
 * after AHCI's 500 ms the recovery goes on to a COMRESET (Linux
 * ahci_hardreset() after a failed ahci_stop_engine()), which frees it;
 * only then do the caught commands come back, the port runs again, and
 * the record names the step that did not end. The COMRESET waited out
 * the 500 ms (rec_case_end: none refused). */
static void test_list_that_never_stops_gets_a_comreset_and_the_record_names_the_step(void **state)
{
    static struct rec_case k;
    struct ahci_model *m = rec_case_begin(&k);

    (void)state;
    m->cr_until_comreset = true;
    m->bad_lba = lba_of(4);
    rec_case_run(&k, 8, SPEC_STOP_NS);
    assert_true(k.r.stops_at_first > k.stops);      /* freed by the COMRESET before any came back */
    rec_case_expect_failed_from(&k, 8, 4, NULL, NULL);
    assert_int_equal(m->comresets, k.comresets + 1);
    if (record_step_ms(k.record, "engine stop ") < (long)(SPEC_STOP_NS / NS_PER_MS) ||
        !strstr(k.record, "PxCMD.CR still set") || !strstr(k.record, "COMRESET "))
        fail_msg("record '%s'", k.record);
    rec_case_end(&k);
}

static void test_drive_that_never_answers_times_out_and_comreset_recovers_the_port(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[QD];
    const unsigned hung = 20;
    uint64_t t0;
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(hung);
    t0 = plat_now_ns();
    log_capture_begin();
    submit_reads(d, QD);
    assert_int_equal(collect(d, c, QD), QD);
    log_capture_end();

    for (unsigned i = 0; i < QD; i++) {
        if (c[i].tag != hung) {
            assert_int_equal(c[i].status, BM_OK);
            continue;
        }
        assert_int_equal(c[i].status, BM_ETIMEDOUT);
        assert_non_null(strstr(c[i].detail, "no answer"));
    }
    /* Not before its deadline, and not long after it. */
    assert_true(plat_now_ns() - t0 >= BM_IO_TIMEOUT_DEFAULT_NS);
    assert_true(plat_now_ns() - t0 < BM_IO_TIMEOUT_DEFAULT_NS + 5000000000ull);
    assert_int_equal(m->comresets, 2);      /* the probe's, and recovery's */
    assert_int_equal(m->hung, 0);

    m->hang_lba = NO_LBA;
    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);
}

static void test_port_whose_cr_never_clears_is_given_up_with_a_message_naming_the_register(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[QD];
    uint64_t t0;
    void *ctrl;
    struct bm_disk *d;
    const char *log;
    int got;

    (void)state;
    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(0);
    m->cr_sticks = true;
    t0 = plat_now_ns();
    log_capture_begin();
    submit_reads(d, 2);
    /* Bounded: given up within the command deadline plus a few stop
     * attempts of the model's time (polled as the engine polls). */
    for (got = 0; plat_now_ns() - t0 < BM_IO_TIMEOUT_DEFAULT_NS + 5000000000ull;) {
        int n = d->ops->poll(d, 0, c + got, QD - got);
        if (!n)
            plat_sim_advance_ns(POLL_GAP_NS);
        got += n;
    }
    log = log_capture_end();
    assert_non_null(strstr(log, "PxCMD.CR"));
    assert_non_null(strstr(log, "ahci0p2: "));     /* diagnostics name the disk */
    assert_non_null(strstr(log, "port disabled"));

    /* Tag 1 finished before; tag 0 is still the HBA's (CR set: its list
     * may still run), so its buffer is not handed back. */
    assert_int_equal(got, 1);
    assert_int_equal(c[0].tag, 1);
    assert_int_equal(c[0].status, BM_OK);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(d->ops->poll(d, 0, c, QD), 0);
    /* The port is out of service, and says so at once. */
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, 0, 1, buf_of(2)), BM_EIO);

    log_capture_begin();
    finish(m, ctrl);
    log = log_capture_end();
    assert_non_null(strstr(log, "does not stop"));
}

static void test_hba_reset_that_never_ends_fails_the_probe_with_a_clear_message(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = (void *)1;
    uint64_t t0 = plat_now_ns();
    int rc;

    (void)state;
    m->hr_sticks = true;
    rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
    assert_int_equal(rc, BM_ETIMEDOUT);
    assert_non_null(strstr(err, "GHC.HR"));
    assert_null(ctrl);
    assert_int_equal(list.count, 0);
    assert_int_equal(m->dev.claims, 1);
    assert_int_equal(m->dev.releases, 1);
    assert_true(plat_now_ns() - t0 < 5000000000ull);
    plat_sim_detach(&m->dev);
}

static void test_drive_without_ncq_reads_with_dma_ext_at_qd1(void **state)
{
    struct ahci_model *m = model_new(true, false, true);
    struct bm_completion c[1];
    char want[64];
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->max_qd, 1);
    for (unsigned i = 0; i < 8; i++) {
        memset(buf_of(0), 0xee, READ_BLOCKS * 512);
        assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(i), READ_BLOCKS, buf_of(0)), BM_OK);
        assert_int_equal(d->ops->submit(d, 0, 1, BM_IO_READ, 0, 1, buf_of(1)), BM_EINVAL); /* depth 1 */
        assert_int_equal(collect(d, c, 1), 1);
        assert_int_equal(c[0].status, BM_OK);
        assert_true(data_ok(buf_of(0), lba_of(i), READ_BLOCKS));
    }
    assert_int_equal(m->reads_done, 8);

    /* A failed DMA READ EXT: the task file names the error; then on. */
    m->bad_lba = lba_of(3) + 1;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(3), READ_BLOCKS, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_EIO);
    assert_non_null(strstr(c[0].detail, "UNC"));
    snprintf(want, sizeof(want), "lba %llu", (unsigned long long)m->bad_lba);
    assert_non_null(strstr(c[0].detail, want));
    m->bad_lba = NO_LBA;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(3), READ_BLOCKS, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(0), lba_of(3), READ_BLOCKS));
    finish(m, ctrl);
}

static void test_hba_without_ncq_and_a_hung_dma_ext_times_out_then_works(void **state)
{
    struct ahci_model *m = model_new(false, true, true);   /* drive could, HBA cannot */
    struct bm_completion c[1];
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->max_qd, 1);
    m->hang_lba = lba_of(5);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(5), READ_BLOCKS, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    assert_true(m->comresets >= 1);
    m->hang_lba = NO_LBA;
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, lba_of(6), READ_BLOCKS, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(0), lba_of(6), READ_BLOCKS));
    finish(m, ctrl);
}

static void test_drive_that_never_becomes_ready_is_skipped_with_a_message_naming_pxtfd(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    const char *log;
    uint64_t t0 = plat_now_ns();
    int rc;

    (void)state;
    m->never_ready = true;
    log_capture_begin();
    rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
    log = log_capture_end();
    /* The controller is fine; its one port has a device that never came
     * up, after three COMRESETs with libata's 10, 10 and 35 s deadlines;
     * the probe says so, for the note that keeps the disk from vanishing. */
    assert_int_equal(rc, BM_OK);
    assert_int_equal(list.count, 0);
    assert_non_null(strstr(log, "port 2"));
    assert_non_null(strstr(log, "PxTFD"));
    assert_non_null(strstr(log, "no ATA disks"));
    assert_int_equal(m->comresets, 3);
    assert_true(plat_now_ns() - t0 >= 55000000000ull);
    assert_true(plat_now_ns() - t0 < 60000000000ull);
    /* Not in err: that is for disks left out on purpose, and this one is
     * lost (discovery hands the controller back when the firmware has it). */
    assert_string_equal(err, "");
    assert_non_null(strstr(log, "did not come up"));
    assert_non_null(strstr(log, "not ready"));
    finish(m, ctrl);
}

static void test_drive_that_disappears_fails_its_commands_at_once_naming_the_link_change(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[4];
    uint32_t seen = 0;
    const char *log;
    uint64_t t0;
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    /* Unplugged: PhyRdy drops (3.3.5 PRCS, 3.3.12 DIAG.N), nothing answers. */
    m->gone = true;
    m->ssts = 0;
    m->serr |= SERR_DIAG_N;
    t0 = plat_now_ns();
    log_capture_begin();
    submit_reads(d, 4);
    assert_int_equal(collect(d, c, 4), 4);
    log = log_capture_end();
    for (unsigned i = 0; i < 4; i++) {
        seen |= 1u << c[i].tag;
        /* Failed by the link change (Linux ahci_error_intr()), not left to time out. */
        assert_int_equal(c[i].status, BM_EIO);
        assert_non_null(strstr(c[i].detail, "link change (PRCS)"));
    }
    assert_int_equal(seen, 0xf);
    assert_true(plat_now_ns() - t0 < BM_IO_TIMEOUT_DEFAULT_NS / 2);
    assert_true(m->comresets >= 2);         /* the probe's, and recovery's */
    assert_non_null(strstr(log, "no device"));
    assert_non_null(strstr(log, "port disabled"));
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 1, buf_of(0)), BM_EIO);
    finish(m, ctrl);
}

/* Tag 2 is held by the drive when the HBA reports an error that only a
 * COMRESET clears (Linux ahci.h PORT_IRQ_FREEZE, HBDS): the driver
 * notices it within a few polls (the model's clock: each poll of a port
 * whose drive sits on a command costs 50 ms), stops the port (PxCMD.CR
 * is made to lag ST by 200 ms, inside AHCI's 500 ms) before it hands the
 * command back, fails it naming the cause, and the port works after. */
static void error_resets_at_once(uint32_t serr, uint32_t is, bool halts, const char *name, const char *log_has)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[QD];
    unsigned comresets, stops;
    const char *log;
    uint64_t t0;
    void *ctrl;
    struct bm_disk *d;

    d = probe_one(m, &ctrl);
    m->hang_lba = lba_of(2);
    submit_reads(d, 4);
    assert_int_equal(collect(d, c, 3), 3);
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(c[i].status, BM_OK);

    m->cr_delay_ns = 200 * NS_PER_MS;
    comresets = m->comresets;
    stops = m->stops;
    if (is & IS_UFS)
        rfis(m)[0x60] = 0xa1;                         /* a vendor FIS type (3.3.1 UFIS area) */
    m->serr |= serr;
    m->is |= is;
    m->halted = halts;
    t0 = plat_now_ns();
    log_capture_begin();
    assert_int_equal(collect(d, c, 1), 1);
    log = log_capture_end();
    assert_int_equal(c[0].tag, 2);
    assert_int_equal(c[0].status, BM_EIO);
    if (!strstr(c[0].detail, name))
        fail_msg("detail '%s' does not name %s", c[0].detail, name);
    if (log_has && !strstr(log, log_has))
        fail_msg("the log does not say '%s'", log_has);
    assert_true(plat_now_ns() - t0 < 2 * NS_PER_S);  /* not the 30 s timeout */
    assert_int_equal(m->comresets, comresets + 1);
    assert_true(m->stops > stops);                    /* stopped (CR seen clear) before it was handed back */
    assert_int_equal(m->hung, 0);                     /* the drive's queue is gone */
    assert_int_equal(m->serr & (SERR_DIAG_N | SERR_DIAG_X), 0); /* PRCS/PCS cleared where they live */

    /* Tag 2's buffer is the engine's again and the drive holds nothing that could land in it. */
    memset(buf_of(2), 0xee, READ_BLOCKS * 512);
    assert_int_equal(d->ops->submit(d, 0, 2, BM_IO_READ, lba_of(9), READ_BLOCKS, buf_of(2)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    model_finish_held(m);
    assert_true(data_ok(buf_of(2), lba_of(9), READ_BLOCKS));

    m->hang_lba = NO_LBA;
    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);                                  /* and m->refused == 0: no access AHCI forbids */
}

static void test_phyrdy_change_with_commands_in_flight_resets_at_once_naming_the_link_change(void **state)
{
    (void)state;
    error_resets_at_once(SERR_DIAG_N, 0, false, "link change (PRCS)", NULL);
}

static void test_connect_change_with_commands_in_flight_resets_at_once_naming_it(void **state)
{
    (void)state;
    error_resets_at_once(SERR_DIAG_X, 0, false, "connect change (PCS)", NULL);
}

static void test_unknown_fis_resets_at_once_and_logs_the_fis(void **state)
{
    (void)state;
    error_resets_at_once(0, IS_UFS, false, "unknown FIS (UFS)", "unknown FIS a1");
}

static void test_bad_pmp_status_resets_at_once_naming_it(void **state)
{
    (void)state;
    error_resets_at_once(0, IS_IPMS, false, "bad PMP status (IPMS)", NULL);
}

static void test_host_bus_fatal_error_resets_at_once_naming_it(void **state)
{
    (void)state;
    error_resets_at_once(0, IS_HBFS, true, "HBFS", NULL);
}

static void test_host_bus_data_error_resets_at_once_naming_it(void **state)
{
    (void)state;
    error_resets_at_once(0, IS_HBDS, true, "HBDS", NULL);
}

/* A read the drive sits on: completed as timed out after io_timeout
 * (secs), not earlier, naming it, and before max_secs: the recovery well
 * inside the engine's stall limit. Returns the model for the caller's
 * further checks. */
static struct ahci_model *hung_read_times_out(unsigned secs, unsigned max_secs, void **ctrl)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[1];
    char said[32];
    uint64_t t0;
    struct bm_disk *d;

    d = probe_one(m, ctrl);
    m->hang_lba = lba_of(0);
    t0 = plat_now_ns();
    log_capture_begin();
    submit_reads(d, 1);
    assert_int_equal(collect(d, c, 1), 1);
    log_capture_end();
    assert_int_equal(c[0].status, BM_ETIMEDOUT);
    snprintf(said, sizeof(said), "no answer in %u s", secs);
    assert_non_null(strstr(c[0].detail, said));
    assert_true(plat_now_ns() - t0 >= secs * NS_PER_S);
    assert_true(plat_now_ns() - t0 < max_secs * NS_PER_S);
    return m;
}

/* Linux's command timeout (ATA_TMOUT_INTERNAL, sd's SD_TIMEOUT): 30 s,
 * not earlier, and the recovery after it well inside the engine's 60 s. */
static void test_command_timeout_is_linux_30_s(void **state)
{
    void *ctrl;
    struct ahci_model *m;

    (void)state;
    m = hung_read_times_out(30, 45, &ctrl);
    finish(m, ctrl);
}

/* io_timeout=2 (bm_set_io_timeout_ns, as discovery does before probing):
 * the command the drive sits on times out after 2 s, not 30 s, and the
 * port recovers as after the default timeout. */
static void test_command_timeout_follows_io_timeout(void **state)
{
    void *ctrl;
    struct ahci_model *m;

    (void)state;
    bm_set_io_timeout_ns(2 * NS_PER_S);
    m = hung_read_times_out(2, 15, &ctrl);
    assert_int_equal(m->comresets, 2);      /* the probe's, and recovery's */
    finish(m, ctrl);
}

/* Back to the default command timeout (and the log) for the tests after. */
static int default_io_timeout(void **state)
{
    bm_set_io_timeout_ns(0);
    return log_restore(state);
}

static void test_smart_is_read_and_a_drive_that_refuses_it_keeps_working(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_health h;
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->ops->health(d, &h), BM_OK);
    assert_int_equal(h.temperature_c, 38);

    m->smart_disabled = true;
    assert_int_equal(d->ops->health(d, &h), BM_EIO);
    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);
}

static void test_drive_that_aborts_identify_is_skipped_naming_the_command(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    const char *log;
    int rc;

    (void)state;
    m->identify_aborts = true;
    log_capture_begin();
    rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
    log = log_capture_end();
    assert_int_equal(rc, BM_OK);
    assert_int_equal(list.count, 0);
    assert_non_null(strstr(log, "port 2: skipped: IDENTIFY DEVICE failed"));
    assert_non_null(strstr(log, "err 0x04"));
    finish(m, ctrl);
}

static void test_hba_that_will_not_enter_ahci_mode_fails_the_probe_naming_ghc_ae(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = (void *)1;
    int rc;

    (void)state;
    m->ae_drops = true;
    m->ghc = 0;
    rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
    assert_true(rc < 0);
    assert_non_null(strstr(err, "GHC.AE"));
    assert_null(ctrl);
    assert_int_equal(m->dev.releases, 1);
    plat_sim_detach(&m->dev);
}

/* A SATA DOM / CF adapter without the 48-bit Address feature set: every
 * command is READ/WRITE DMA with its 28-bit LBA (27:24 in the device
 * register) and at most 256 sectors, never an EXT or FPDMA command it
 * would abort, and the disk says which quirk it got. */
static void test_disk_without_lba48_gets_28bit_dma_commands_of_at_most_256_sectors(void **state)
{
    struct ahci_model *m = model_new(true, true, false);   /* it even claims NCQ */
    const uint64_t dom_blocks = 31277232;                   /* a 16 GB SATA DOM */
    const uint64_t high = 0x1d00005;                        /* LBA 27:24 = 1 */
    struct bm_completion c[1];
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    m->no_lba48 = true;
    m->blocks = dom_blocks;
    d = probe_one(m, &ctrl);
    assert_int_equal(d->blocks, dom_blocks);
    assert_int_equal(d->max_qd, 1);
    assert_int_equal(d->max_transfer_bytes, 256 * 512);
    assert_non_null(strstr(d->quirks, "no_lba48"));

    /* 256 sectors: count 0 on the wire. */
    memset(buf_of(0), 0xee, 256 * 512);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, high, 256, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(0), high, 256));
    assert_int_equal(m->last_lba, high);
    assert_int_equal(m->last_blocks, 256);

    /* The last sectors of the disk, and a write. */
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, dom_blocks - 8, 8, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(buf_of(0), dom_blocks - 8, 8));
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_WRITE, high + 1, 3, buf_of(0)), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_int_equal(m->writes_done, 1);
    assert_int_equal(m->last_lba, high + 1);
    assert_int_equal(m->last_blocks, 3);

    /* A count a 28-bit command cannot carry is refused before the wire. */
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 257, buf_of(0)), BM_EINVAL);
    assert_int_equal(m->cmd28_done, 3);
    assert_int_equal(m->ext_refused, 0);
    finish(m, ctrl);
}

/* A link that takes seconds (DET=1 for 1.5 s after the COMRESET: libata's
 * debounce waits on DET=1 for up to 2 s) and a disk that spins up for
 * 15 s: libata's hardreset waits for both, resetting again with its next
 * deadline (10 s, then 10 s, then 35 s). */
static void test_slow_link_and_slow_spin_up_are_waited_for_with_libata_deadlines(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;
    const char *log;
    uint64_t t0;

    (void)state;
    m->link_delay_ns = 1500000000ull;
    m->spinup_ns = 15000000000ull;
    drive_power_on(m);
    t0 = plat_now_ns();
    log_capture_begin();
    d = probe_one(m, &ctrl);
    log = log_capture_end();
    assert_non_null(strstr(log, "COMRESET again"));
    assert_int_equal(m->comresets, 2);
    assert_true(plat_now_ns() - t0 >= 15000000000ull);
    assert_true(plat_now_ns() - t0 < 21000000000ull);
    submit_reads(d, QD);
    expect_reads_ok(d, QD);
    finish(m, ctrl);
}

/* A controller whose PHY keeps SStatus.DET=1 (presence, no phy
 * communication) on an empty port: as Linux sata_link_debounce() (DET=1
 * waited on until sata_deb_timing_normal's 2 s timeout) and
 * sata_link_hardreset() (a link that is not DET=3 is offline, so
 * ata_eh_reset() classes it NONE), the port is empty after one COMRESET
 * and ~2 s, with a log record naming DET=1 but nothing in err. */
static void test_port_whose_det_stays_1_is_an_empty_port_after_the_2s_debounce(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    const char *log;
    uint64_t t0, took;
    int rc;

    (void)state;
    m->det1_stuck = true;
    t0 = plat_now_ns();
    log_capture_begin();
    rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
    log = log_capture_end();
    took = plat_now_ns() - t0;
    assert_int_equal(rc, BM_OK);
    assert_int_equal(list.count, 0);
    assert_string_equal(err, "");
    assert_int_equal(m->comresets, 1);
    assert_true(took >= 2000000000ull);
    assert_true(took < 3000000000ull);
    assert_non_null(strstr(log, "DET=1"));
    assert_null(strstr(log, "did not come up"));
    finish(m, ctrl);
}

/* SControl writes some controllers drop (Linux sata_link_resume(), ata_piix
 * SIDPR): DET must read back 0 after the COMRESET, else it is written
 * again, or the link never comes back. */
static void test_comreset_release_that_does_not_stick_is_written_again(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;
    const char *log;

    (void)state;
    m->sctl_lost_writes = 2;
    log_capture_begin();
    d = probe_one(m, &ctrl);
    log = log_capture_end();
    assert_non_null(strstr(log, "link resumed after 3 writes"));
    assert_int_equal(m->sctl & 0xf, 0);
    submit_reads(d, 4);
    expect_reads_ok(d, 4);
    finish(m, ctrl);
}

/* Six ports, nothing on five (or on any): one COMRESET, settle and
 * debounce for all of them together, well under a second, and an empty
 * port is no failure to report. */
static void test_six_ports_are_brought_up_together_and_empty_ones_decided_at_once(void **state)
{
    for (int with_disk = 0; with_disk < 2; with_disk++) {
        struct ahci_model *m = model_new(true, true, true);
        struct bm_disk_list list = { .count = 0 };
        char err[160] = "";
        void *ctrl = NULL;
        uint64_t t0;
        int rc;

        (void)state;
        m->cap = (m->cap & ~0x1fu) | 5u;
        m->pi = m->ports_hw = 0x3f;
        m->gone = !with_disk;
        t0 = plat_now_ns();
        rc = ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err));
        assert_int_equal(rc, BM_OK);
        assert_int_equal(list.count, (unsigned)with_disk);
        assert_true(plat_now_ns() - t0 < 1000000000ull);
        assert_string_equal(err, "");
        finish(m, ctrl);
    }
}

/* Power-Up In Standby (ACS-3 PUIS feature set): a drive whose IDENTIFY word 2 says
 * 37C8h (data incomplete) or 738Ch gets SET FEATURES spin-up, which takes
 * seconds, then (37C8h) a second IDENTIFY, as Linux ata_dev_read_id(). */
static void test_drive_powered_up_in_standby_is_spun_up_and_identified_again(void **state)
{
    static const uint16_t word2[] = { 0x37c8, 0x738c };

    for (unsigned i = 0; i < 2; i++) {
        struct ahci_model *m = model_new(true, true, true);
        void *ctrl;
        struct bm_disk *d;

        (void)state;
        m->puis = word2[i];
        m->puis_spinup_ns = 8000000000ull;
        d = probe_one(m, &ctrl);
        assert_int_equal(m->spinups, 1);
        assert_true(m->spun_up);
        assert_int_equal(m->identifies, word2[i] == 0x37c8 ? 2 : 1);
        assert_int_equal(d->blocks, MODEL_BLOCKS);
        assert_string_equal(d->model, "Baremark Model SATA Drive");
        assert_non_null(strstr(d->quirks, "puis_spinup"));
        submit_reads(d, QD);
        expect_reads_ok(d, QD);
        finish(m, ctrl);
    }
}

/* Firmware left the HBA in legacy mode: CAP and PI mean nothing until
 * GHC.AE is set (libahci ahci_save_initial_config()), and this chipset's
 * GHC.HR clears the write-once PI, CAP2 and PxCMD capability bits, which
 * the driver writes back (ahci_restore_initial_config()). */
static void test_cap_and_pi_are_read_in_ahci_mode_and_written_back_after_the_reset(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;

    (void)state;
    m->ghc = 0;
    m->cap_pi_need_ae = true;
    m->reset_loses_rwo = true;
    m->cap2 = 0x4;                         /* APST, say */
    m->port_caps = (1u << 21) | (1u << 18); /* ESP, HPCP */
    d = probe_one(m, &ctrl);
    assert_int_equal(d->port, MODEL_PORT);
    assert_int_equal(m->pi, 1u << MODEL_PORT);
    assert_int_equal(m->cap2, 0x4);
    assert_int_equal(m->port_caps, (1u << 21) | (1u << 18));
    finish(m, ctrl);                       /* no port but 2 was touched */
}

/* A PI naming more ports than CAP.NP has: Linux libahci "implemented port
 * map ... contains more ports than nr_ports, using nr_ports". */
static void test_pi_with_more_ports_than_cap_np_is_not_trusted(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    void *ctrl;
    struct bm_disk *d;
    const char *log;

    (void)state;
    m->ports_hw = 0xf;                     /* CAP.NP = 3: four ports of silicon */
    m->pi = 0xff;
    log_capture_begin();
    d = probe_one(m, &ctrl);
    log = log_capture_end();
    assert_non_null(strstr(log, "PI 0x000000ff names more ports than CAP.NP"));
    assert_int_equal(d->port, MODEL_PORT);
    finish(m, ctrl);                       /* ports 4-7 never touched */
}

/* A PIO-only device (IDENTIFY word 49 bit 8 clear) would abort every DMA
 * command: it is left out, and the probe names it. */
static void test_pio_only_device_is_left_out_and_named(void **state)
{
    struct ahci_model *m = model_new(true, false, false);
    struct bm_disk_list list = { .count = 0 };
    char err[160] = "";
    void *ctrl = NULL;
    const char *log;

    (void)state;
    m->no_dma = true;
    m->no_lba48 = true;
    m->blocks = 4000000;
    log_capture_begin();
    assert_int_equal(ahci_driver.probe(model_addr, 0, &list, &ctrl, err, sizeof(err)), BM_OK);
    log = log_capture_end();
    assert_int_equal(list.count, 0);
    assert_non_null(strstr(log, "port 2: skipped"));
    assert_non_null(strstr(log, "PIO-only"));
    assert_int_equal(m->reads_done, 0);
    finish(m, ctrl);
}

/* ATI SB600 sets CAP.S64A but reaches only the low 4 GiB (Linux
 * AHCI_HFLAG_32BIT_ONLY): the port's memory goes below 4 GiB, a buffer
 * above is refused at submit, commands stay within 255 sectors. */
static void test_sb600_gets_only_memory_below_4_gib_and_255_sector_commands(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[1];
    uint8_t *high, *low;
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->dev.config[0] = 0x02, m->dev.config[1] = 0x10;      /* 1002:4380 */
    m->dev.config[2] = 0x80, m->dev.config[3] = 0x43;
    m->dma32_only = true;
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(d->quirks, "32bit_only"));
    assert_non_null(strstr(d->quirks, "sect255"));
    assert_int_equal(d->max_transfer_bytes, 255u * 512u);
    low = plat_alloc_pages(1u << 20, true);   /* where the engine puts its buffers first */
    assert_non_null(low);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4096, 255, low), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(low, 4096, 255));
    plat_free_pages(low, 1u << 20);
    assert_int_equal(m->dma_truncated, 0);
    high = plat_alloc_pages(1u << 20, false);
    assert_non_null(high);
    if (plat_virt_to_phys(high) >= (1ull << 32))
        assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 0, 8, high), BM_EINVAL);
    plat_free_pages(high, 1u << 20);
    assert_int_equal(m->dma_truncated, 0);
    finish(m, ctrl);
}

/* Marvell 88SE6145 sets CAP.SNCQ but its NCQ is broken (Linux
 * AHCI_HFLAG_NO_NCQ): one command at a time, none queued. */
static void test_marvell_6145_gets_no_ncq(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->dev.config[0] = 0xab, m->dev.config[1] = 0x11;      /* 11ab:6145 */
    m->dev.config[2] = 0x45, m->dev.config[3] = 0x61;
    m->ncq_broken = true;
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(d->quirks, "host_noncq"));
    assert_int_equal(d->max_qd, 1);
    submit_reads(d, 1);
    expect_reads_ok(d, 1);
    assert_int_equal(m->ncq_used, 0);
    finish(m, ctrl);
}

/* A Seagate ST31500341AS on firmware SD15 (Linux ATA_QUIRK_NONCQ): its
 * NCQ is not used although HBA and drive offer it. */
static void test_drive_with_broken_ncq_gets_depth_1(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->model_name = "ST31500341AS";
    m->fw_name = "SD15";
    m->ncq_broken = true;                  /* stands for the drive's broken NCQ */
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(d->quirks, "noncq"));
    assert_int_equal(d->max_qd, 1);
    submit_reads(d, 1);
    expect_reads_ok(d, 1);
    assert_int_equal(m->ncq_used, 0);
    finish(m, ctrl);
}

/* A Samsung 870 on an ATI SB7x0 host (1002:4391) gets no NCQ (Linux
 * ATA_QUIRK_NO_NCQ_ON_ATI, checked against the host's vendor); the same
 * drive on an Intel host keeps its queue. */
static void test_samsung_870_gets_no_ncq_on_an_ati_host_only(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->dev.config[0] = 0x02, m->dev.config[1] = 0x10;      /* 1002:4391 */
    m->dev.config[2] = 0x91, m->dev.config[3] = 0x43;
    m->model_name = "Samsung SSD 870 EVO 1TB";
    m->ncq_broken = true;                  /* stands for the pairing's NCQ errors */
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(d->quirks, "noncq_on_ati"));
    assert_int_equal(d->max_qd, 1);
    submit_reads(d, 1);
    expect_reads_ok(d, 1);
    assert_int_equal(m->ncq_used, 0);
    finish(m, ctrl);

    m = model_new(true, true, true);       /* the model's own ID, 8086:2922 */
    m->model_name = "Samsung SSD 870 EVO 1TB";
    d = probe_one(m, &ctrl);
    assert_null(strstr(d->quirks, "noncq_on_ati"));
    assert_true(d->max_qd > 1);
    finish(m, ctrl);
}

/* LITEON EP1-* time out above 1024 sectors (Linux ATA_QUIRK_MAX_SEC_1024):
 * no command is larger, so a largest-transfer read succeeds. */
static void test_drive_with_a_1024_sector_limit_gets_no_larger_command(void **state)
{
    struct ahci_model *m = model_new(true, true, true);
    struct bm_completion c[1];
    uint8_t *big;
    struct bm_disk *d;
    void *ctrl;

    (void)state;
    m->model_name = "LITEON EP1-KB480";
    m->max_sectors = 1024;
    d = probe_one(m, &ctrl);
    assert_non_null(strstr(d->quirks, "max_sec_1024"));
    assert_int_equal(d->max_transfer_bytes, 1024u * 512u);
    big = plat_alloc_pages(d->max_transfer_bytes, true);
    assert_non_null(big);
    assert_int_equal(d->ops->submit(d, 0, 0, BM_IO_READ, 4096, d->max_transfer_bytes / 512, big), BM_OK);
    assert_int_equal(collect(d, c, 1), 1);
    assert_int_equal(c[0].status, BM_OK);
    assert_true(data_ok(big, 4096, d->max_transfer_bytes / 512));
    assert_int_equal(m->oversize, 0);
    plat_free_pages(big, d->max_transfer_bytes);
    finish(m, ctrl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_probe_finds_the_drive_and_ncq_reads_at_qd32_return_its_data, log_restore),
        cmocka_unit_test_teardown(test_sb600_gets_only_memory_below_4_gib_and_255_sector_commands, log_restore),
        cmocka_unit_test_teardown(test_marvell_6145_gets_no_ncq, log_restore),
        cmocka_unit_test_teardown(test_drive_with_broken_ncq_gets_depth_1, log_restore),
        cmocka_unit_test_teardown(test_samsung_870_gets_no_ncq_on_an_ati_host_only, log_restore),
        cmocka_unit_test_teardown(test_drive_with_a_1024_sector_limit_gets_no_larger_command, log_restore),
        cmocka_unit_test_teardown(test_ncq_batch_is_issued_with_one_pxci_write_on_flush_or_poll, log_restore),
        cmocka_unit_test_teardown(test_ncq_error_fails_exactly_the_bad_tag_with_lba_and_port_keeps_working, log_restore),
        cmocka_unit_test_teardown(test_ncq_error_only_in_the_sdb_fis_status_is_caught, log_restore),
        cmocka_unit_test_teardown(test_ncq_reads_that_succeed_read_no_pxtfd, log_restore),
        cmocka_unit_test_teardown(test_ncq_error_without_the_log_resets_the_port_and_fails_the_caught_tags, log_restore),
        cmocka_unit_test_teardown(test_interface_error_names_the_hba_bits_and_the_port_recovers, log_restore),
        cmocka_unit_test_teardown(test_drive_that_never_answers_times_out_and_comreset_recovers_the_port, log_restore),
        cmocka_unit_test_teardown(test_port_reset_in_recovery_holds_no_poll_and_another_disk_keeps_completing,
                                  log_restore),
        cmocka_unit_test_teardown(test_port_whose_cr_never_clears_is_given_up_with_a_message_naming_the_register, log_restore),
        cmocka_unit_test_teardown(test_list_that_takes_400ms_to_stop_is_stepped_while_another_disk_keeps_completing,
                                  log_restore),
        cmocka_unit_test_teardown(test_log_10h_read_that_takes_seconds_is_stepped_and_names_the_tag, log_restore),
        cmocka_unit_test_teardown(test_log_10h_read_that_never_ends_fails_every_caught_command_and_resets_the_port,
                                  log_restore),
        cmocka_unit_test_teardown(test_list_that_never_stops_gets_a_comreset_and_the_record_names_the_step,
                                  log_restore),
        cmocka_unit_test_teardown(test_hba_reset_that_never_ends_fails_the_probe_with_a_clear_message, log_restore),
        cmocka_unit_test_teardown(test_drive_without_ncq_reads_with_dma_ext_at_qd1, log_restore),
        cmocka_unit_test_teardown(test_hba_without_ncq_and_a_hung_dma_ext_times_out_then_works, log_restore),
        cmocka_unit_test_teardown(test_drive_that_never_becomes_ready_is_skipped_with_a_message_naming_pxtfd,
                                  log_restore),
        cmocka_unit_test_teardown(test_drive_that_disappears_fails_its_commands_at_once_naming_the_link_change,
                                  log_restore),
        cmocka_unit_test_teardown(test_phyrdy_change_with_commands_in_flight_resets_at_once_naming_the_link_change,
                                  log_restore),
        cmocka_unit_test_teardown(test_connect_change_with_commands_in_flight_resets_at_once_naming_it, log_restore),
        cmocka_unit_test_teardown(test_unknown_fis_resets_at_once_and_logs_the_fis, log_restore),
        cmocka_unit_test_teardown(test_bad_pmp_status_resets_at_once_naming_it, log_restore),
        cmocka_unit_test_teardown(test_host_bus_fatal_error_resets_at_once_naming_it, log_restore),
        cmocka_unit_test_teardown(test_host_bus_data_error_resets_at_once_naming_it, log_restore),
        cmocka_unit_test_teardown(test_command_timeout_is_linux_30_s, log_restore),
        cmocka_unit_test_teardown(test_command_timeout_follows_io_timeout, default_io_timeout),
        cmocka_unit_test_teardown(test_smart_is_read_and_a_drive_that_refuses_it_keeps_working, log_restore),
        cmocka_unit_test_teardown(test_drive_that_aborts_identify_is_skipped_naming_the_command, log_restore),
        cmocka_unit_test_teardown(test_hba_that_will_not_enter_ahci_mode_fails_the_probe_naming_ghc_ae, log_restore),
        cmocka_unit_test_teardown(test_disk_without_lba48_gets_28bit_dma_commands_of_at_most_256_sectors,
                                  log_restore),
        cmocka_unit_test_teardown(test_slow_link_and_slow_spin_up_are_waited_for_with_libata_deadlines, log_restore),
        cmocka_unit_test_teardown(test_port_whose_det_stays_1_is_an_empty_port_after_the_2s_debounce, log_restore),
        cmocka_unit_test_teardown(test_comreset_release_that_does_not_stick_is_written_again, log_restore),
        cmocka_unit_test_teardown(test_six_ports_are_brought_up_together_and_empty_ones_decided_at_once, log_restore),
        cmocka_unit_test_teardown(test_drive_powered_up_in_standby_is_spun_up_and_identified_again, log_restore),
        cmocka_unit_test_teardown(test_cap_and_pi_are_read_in_ahci_mode_and_written_back_after_the_reset,
                                  log_restore),
        cmocka_unit_test_teardown(test_pi_with_more_ports_than_cap_np_is_not_trusted, log_restore),
        cmocka_unit_test_teardown(test_pio_only_device_is_left_out_and_named, log_restore),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
