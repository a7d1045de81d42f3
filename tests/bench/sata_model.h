/* What every model of a SATA disk behind an AHCI HBA does the same way
 * (tests/bench/ahci_instant.c, tests/unit/test_ahci_model.c): host memory
 * is "physical", PRD tables are walked as AHCI 1.3.1 section 4.2.3.3 lays
 * them out, and IDENTIFY data follows ACS-3's word and string rules. */
#ifndef BAREMARK_SATA_MODEL_H
#define BAREMARK_SATA_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Register, FIS and command facts the models share, in the specification's
 * own names (not the driver's: a mistake there must not be mirrored). */
#define CAP_ISS_GEN3 (3u << 20)
#define CAP_SCLO (1u << 24)
#define CAP_SNCQ (1u << 30)
#define CAP_S64A (1u << 31)
#define GHC_HR (1u << 0)              /* 3.1.2 */
#define GHC_AE (1u << 31)
enum { P_CLB = 0x00, P_CLBU = 0x04, P_FB = 0x08, P_FBU = 0x0c, P_IS = 0x10, P_IE = 0x14, P_CMD = 0x18,
       P_TFD = 0x20, P_SIG = 0x24, P_SSTS = 0x28, P_SCTL = 0x2c, P_SERR = 0x30, P_SACT = 0x34, P_CI = 0x38 };
#define IS_DHRS (1u << 0)             /* 3.3.5 */
#define IS_PSS (1u << 1)
#define IS_SDBS (1u << 3)
#define IS_IFS (1u << 27)
#define IS_TFES (1u << 30)
#define CMD_ST (1u << 0)              /* 3.3.7 */
#define CMD_SUD (1u << 1)
#define CMD_POD (1u << 2)
#define CMD_CLO (1u << 3)
#define CMD_FRE (1u << 4)
#define CMD_FR (1u << 14)
#define CMD_CR (1u << 15)
#define SSTS_UP_GEN3 0x133u           /* 3.3.10: active, Gen3, DET 3 */
#define RFIS_PSFIS 0x20               /* 4.2.1: received FIS area */
#define RFIS_RFIS 0x40
#define RFIS_SDBFIS 0x58
#define FIS_H2D 0x27                  /* SATA 3.x 10.5 */
#define FIS_D2H 0x34
#define FIS_SDB 0xa1
#define FIS_PIO_SETUP 0x5f
#define STS_ERR 0x01                  /* ACS-3 6.2, 6.3 */
#define STS_DRDY 0x40
#define ERR_ABRT 0x04
#define ERR_IDNF 0x10
#define ATA_IDENTIFY 0xec
#define ATA_READ_FPDMA 0x60
#define ATA_WRITE_FPDMA 0x61

/* Writes a real HBA does not take (AHCI 1.3.1), which the models ignore
 * as the HBA does, and count: PxSACT and PxCI only while PxCMD.ST is set
 * (sections 3.3.13, 3.3.14: nothing is issued to a list that is stopped
 * or stopping); ST set only once CR reads clear (10.3.1); SControl.DET
 * changed only with ST clear (3.3.11). */
static inline bool sata_model_issue_refused(uint32_t cmd) { return !(cmd & CMD_ST); }
static inline bool sata_model_start_refused(uint32_t old_cmd, uint32_t v)
{
    return !(old_cmd & CMD_ST) && (v & CMD_ST) && (old_cmd & CMD_CR);
}
static inline bool sata_model_det_refused(uint32_t cmd, uint32_t old_sctl, uint32_t v)
{
    return ((v ^ old_sctl) & 0xf) && (cmd & CMD_ST);
}

/* Host memory at a 64-bit "physical" address given as two dwords. */
static inline void *sata_model_mem(uint32_t lo, uint32_t hi) { return (void *)(uintptr_t)((uint64_t)hi << 32 | lo); }

static inline uint32_t sata_model_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Scatter src over a command table's PRD entries (at 80h, 16 bytes each;
 * DBC is the byte count - 1). Returns the bytes moved (PRDBC). */
static inline uint32_t sata_model_prdt_copy_in(const uint8_t *table, unsigned prdtl, const uint8_t *src,
                                               uint32_t bytes)
{
    uint32_t done = 0;

    for (unsigned i = 0; i < prdtl && done < bytes; i++) {
        const uint8_t *e = table + 0x80 + 16 * i;
        uint32_t n = (sata_model_le32(e + 12) & 0x3fffff) + 1;
        n = n < bytes - done ? n : bytes - done;
        memcpy(sata_model_mem(sata_model_le32(e), sata_model_le32(e + 4)), src + done, n);
        done += n;
    }
    return done;
}

/* IDENTIFY word w (little-endian). */
static inline void sata_model_put_word(uint8_t *id, unsigned w, uint16_t v)
{
    id[2 * w] = (uint8_t)v;
    id[2 * w + 1] = (uint8_t)(v >> 8);
}

/* An ATA string over nwords words: two characters a word, the first in
 * bits 15:8, blank-padded. */
static inline void sata_model_put_string(uint8_t *id, unsigned w, unsigned nwords, const char *s)
{
    size_t len = strlen(s);

    for (unsigned i = 0; i < 2 * nwords; i++)
        id[2 * w + (i ^ 1)] = i < len ? (uint8_t)s[i] : ' ';
}

/* Byte 511 of a 512-byte page (IDENTIFY's integrity word, a log page's
 * checksum): whatever makes all 512 bytes sum to 0. */
static inline void sata_model_checksum(uint8_t *page)
{
    uint8_t sum = 0;

    for (unsigned i = 0; i < 511; i++)
        sum = (uint8_t)(sum + page[i]);
    page[511] = (uint8_t)-sum;
}

#endif
