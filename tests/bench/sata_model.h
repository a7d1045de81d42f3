/* What every model of a SATA disk behind an AHCI HBA does the same way
 * (tests/bench/ahci_instant.c, tests/unit/test_ahci_model.c): host memory
 * is "physical", PRD tables are walked as AHCI 1.3.1 section 4.2.3.3 lays
 * them out, and IDENTIFY data follows ACS-3's word and string rules. */
#ifndef BAREMARK_SATA_MODEL_H
#define BAREMARK_SATA_MODEL_H

#include <stdint.h>
#include <string.h>

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
