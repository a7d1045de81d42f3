/* AHCI command header and PRD table builders. */
#include "ahci_cmd.h"

#define FOUR_GIB (1ull << 32)

int ahci_prd_fill(struct ahci_prd *prdt, unsigned max_entries, uint64_t phys, uint64_t bytes)
{
    unsigned n = 0;

    if (bytes == 0 || (bytes & 1) || (phys & 1))
        return BM_EINVAL;
    while (bytes) {
        uint64_t chunk = MIN(bytes, (uint64_t)AHCI_PRD_MAX_BYTES);
        uint64_t to_boundary = FOUR_GIB - (phys & (FOUR_GIB - 1));

        chunk = MIN(chunk, to_boundary);
        if (n == max_entries)
            return BM_ENOSPC;
        prdt[n].dba = (uint32_t)phys;
        prdt[n].dbau = (uint32_t)(phys >> 32);
        prdt[n].reserved = 0;
        /* Section 4.2.3.3: DBC is the byte count minus one; an even count
         * keeps bit 0 set. No I bit: baremark polls. */
        prdt[n].dbc = (uint32_t)(chunk - 1) & AHCI_PRD_DBC_MASK;
        n++;
        phys += chunk;
        bytes -= chunk;
    }
    return (int)n;
}

void ahci_cmd_header_fill(struct ahci_cmd_header *h, uint64_t table_phys, unsigned cfl_dwords, bool write,
                          unsigned prdt_entries)
{
    h->dw0 = (cfl_dwords & AHCI_HDR_CFL_MASK) | (write ? AHCI_HDR_W : 0) |
             ((uint32_t)prdt_entries << AHCI_HDR_PRDTL_SHIFT);
    h->prdbc = 0;
    h->ctba = (uint32_t)table_phys;
    h->ctbau = (uint32_t)(table_phys >> 32);
    for (unsigned i = 0; i < ARRAY_SIZE(h->reserved); i++)
        h->reserved[i] = 0;
}
