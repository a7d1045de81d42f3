/* AHCI command slots as the HBA reads them: the Register H2D FIS of each
 * command the driver sends (SATA 3.x section 10.5.5; ACS-3 for the register
 * meanings of FPDMA QUEUED and DMA EXT), the command header (AHCI 1.3.1
 * section 4.2.2) and the PRD table (section 4.2.3.3) at every alignment. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "drivers/ahci/ahci.h"
#include "drivers/ahci/ahci_cmd.h"
#include "drivers/ahci/ata.h"

/* ---- Register H2D FIS -------------------------------------------------------- */

static void assert_fis_bytes(const uint8_t *fis, const uint8_t *want)
{
    for (unsigned i = 0; i < SATA_FIS_H2D_BYTES; i++) {
        if (fis[i] != want[i])
            fail_msg("FIS byte %u is 0x%02x, expected 0x%02x", i, fis[i], want[i]);
    }
}

static void test_fis_read_fpdma_queued_layout(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    /* READ FPDMA QUEUED, tag 21, 0x1234 blocks at LBA 0xa1b2c3d4e5f6:
     * the count goes in FEATURES, the tag in COUNT 7:3, device bit 6 set. */
    const uint8_t want[SATA_FIS_H2D_BYTES] = {
        0x27, 0x80, 0x60, 0x34, 0xf6, 0xe5, 0xd4, 0x40, 0xc3, 0xb2, 0xa1, 0x12, 21 << 3, 0x00, 0, 0, 0, 0, 0, 0,
    };
    (void)state;

    memset(fis, 0xee, sizeof(fis));
    ata_fis_fpdma(fis, false, 21, 0xa1b2c3d4e5f6ull, 0x1234);
    assert_fis_bytes(fis, want);
}

static void test_fis_write_fpdma_queued_and_65536_blocks(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    (void)state;

    ata_fis_fpdma(fis, true, 31, 8, 65536);
    assert_int_equal(fis[FIS_COMMAND], ATA_CMD_WRITE_FPDMA_QUEUED);
    assert_int_equal(fis[FIS_FEATURE_LO], 0); /* 65536 is encoded as 0 */
    assert_int_equal(fis[FIS_FEATURE_HI], 0);
    assert_int_equal(fis[FIS_COUNT_LO], 31 << 3);
    assert_int_equal(fis[FIS_COUNT_HI], 0);     /* priority: normal */
    assert_int_equal(fis[FIS_DEVICE], ATA_DEV_LBA); /* no FUA */
    assert_int_equal(fis[FIS_LBA0], 8);
    for (unsigned tag = 0; tag < 32; tag++) {
        ata_fis_fpdma(fis, false, tag, 0, 1);
        assert_int_equal(fis[FIS_COUNT_LO] >> ATA_NCQ_TAG_SHIFT, tag);
        assert_int_equal(fis[FIS_COUNT_LO] & 7, 0);
        assert_int_equal(fis[FIS_FEATURE_LO], 1);
    }
}

static void test_fis_read_dma_ext_layout(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    /* READ DMA EXT: the count in COUNT, FEATURES zero. */
    const uint8_t want[SATA_FIS_H2D_BYTES] = {
        0x27, 0x80, 0x25, 0x00, 0xf6, 0xe5, 0xd4, 0x40, 0xc3, 0xb2, 0xa1, 0x00, 0x34, 0x12, 0, 0, 0, 0, 0, 0,
    };
    (void)state;

    memset(fis, 0xee, sizeof(fis));
    ata_fis_dma_ext(fis, false, 0xa1b2c3d4e5f6ull, 0x1234);
    assert_fis_bytes(fis, want);
    ata_fis_dma_ext(fis, true, 0, 8192);
    assert_int_equal(fis[FIS_COMMAND], ATA_CMD_WRITE_DMA_EXT);
    assert_int_equal(fis[FIS_COUNT_LO] | (fis[FIS_COUNT_HI] << 8), 8192);
}

static void test_fis_identify_and_read_log_ext(void **state)
{
    uint8_t fis[SATA_FIS_H2D_BYTES];
    const uint8_t identify[SATA_FIS_H2D_BYTES] = { 0x27, 0x80, 0xec };
    /* READ LOG EXT of log 10h page 0, one page. */
    const uint8_t read_log[SATA_FIS_H2D_BYTES] = {
        0x27, 0x80, 0x2f, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,
    };
    (void)state;

    memset(fis, 0xee, sizeof(fis));
    ata_fis_identify(fis);
    assert_fis_bytes(fis, identify);
    memset(fis, 0xee, sizeof(fis));
    ata_fis_read_log_ext(fis, ATA_LOG_NCQ_ERROR, 0, 1);
    assert_fis_bytes(fis, read_log);
    /* Page numbers: low byte in LBA 15:8, high byte in LBA 39:32. */
    ata_fis_read_log_ext(fis, 0x04, 0x0203, 1);
    assert_int_equal(fis[FIS_LBA0], 0x04);
    assert_int_equal(fis[FIS_LBA1], 0x03);
    assert_int_equal(fis[FIS_LBA4], 0x02);
}

/* ---- Command header and memory layout ------------------------------------------------ */

static void test_command_header_fields(void **state)
{
    struct ahci_cmd_header h;
    (void)state;

    memset(&h, 0xee, sizeof(h));
    ahci_cmd_header_fill(&h, 0x123456780ull, SATA_FIS_H2D_DWORDS, true, 2);
    assert_int_equal(h.dw0 & AHCI_HDR_CFL_MASK, 5);
    assert_true(h.dw0 & AHCI_HDR_W);
    assert_false(h.dw0 & (AHCI_HDR_A | AHCI_HDR_P | AHCI_HDR_C));
    assert_int_equal(h.dw0 >> AHCI_HDR_PRDTL_SHIFT, 2);
    assert_int_equal(h.prdbc, 0);
    assert_int_equal(h.ctba, 0x23456780u);
    assert_int_equal(h.ctbau, 0x1);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(h.reserved[i], 0);

    ahci_cmd_header_fill(&h, 0x80, SATA_FIS_H2D_DWORDS, false, 0);
    assert_false(h.dw0 & AHCI_HDR_W);
    assert_int_equal(h.dw0 >> AHCI_HDR_PRDTL_SHIFT, 0);
}

static void test_structure_offsets_match_the_spec(void **state)
{
    (void)state;

    /* AHCI 1.3.1 figure 25 (command header) and figure 28 (PRD). */
    assert_int_equal(offsetof(struct ahci_cmd_header, prdbc), 4);
    assert_int_equal(offsetof(struct ahci_cmd_header, ctba), 8);
    assert_int_equal(offsetof(struct ahci_cmd_header, ctbau), 12);
    assert_int_equal(sizeof(struct ahci_cmd_header), 32);
    assert_int_equal(offsetof(struct ahci_prd, dba), 0);
    assert_int_equal(offsetof(struct ahci_prd, dbau), 4);
    assert_int_equal(offsetof(struct ahci_prd, dbc), 12);
    assert_int_equal(sizeof(struct ahci_prd), 16);
    /* Section 4.2.3: CFIS at 0, ACMD at 40h, PRDT at 80h. */
    assert_int_equal(AHCI_CT_ACMD, 0x40);
    assert_int_equal(AHCI_CT_PRDT, 0x80);
    /* Received FIS area (section 4.2.1). */
    assert_int_equal(AHCI_RFIS_PSFIS, 0x20);
    assert_int_equal(AHCI_RFIS_RFIS, 0x40);
    assert_int_equal(AHCI_RFIS_SDBFIS, 0x58);
}

/* ---- PRD tables ------------------------------------------------------------------------ */

#define FOUR_GIB (1ull << 32)
#define MAX_PRD 16

/* Walk a PRD table as the HBA does and check every rule: the entries
 * cover [phys, phys + bytes) in order, each holds an even count of at most
 * 4 MiB with DBC bit 0 set, none crosses a 4 GiB boundary, and no more
 * entries are used than those rules force. */
static void check_prdt(uint64_t phys, uint64_t bytes)
{
    struct ahci_prd prdt[MAX_PRD];
    uint64_t at = phys, expect_n = 0, left = bytes, a = phys;
    int n = ahci_prd_fill(prdt, MAX_PRD, phys, bytes);

    /* The fewest entries: 4 MiB pieces, restarted at each 4 GiB line. */
    while (left) {
        uint64_t piece = MIN(left, (uint64_t)AHCI_PRD_MAX_BYTES);
        piece = MIN(piece, FOUR_GIB - (a % FOUR_GIB));
        a += piece;
        left -= piece;
        expect_n++;
    }
    if (n != (int)expect_n)
        fail_msg("phys 0x%llx bytes %llu: %d entries, expected %llu", (unsigned long long)phys,
                 (unsigned long long)bytes, n, (unsigned long long)expect_n);
    for (int i = 0; i < n; i++) {
        uint64_t dba = ((uint64_t)prdt[i].dbau << 32) | prdt[i].dba;
        uint32_t count = (prdt[i].dbc & AHCI_PRD_DBC_MASK) + 1;

        assert_int_equal(dba, at);
        assert_int_equal(dba & 1, 0);
        assert_int_equal(prdt[i].dbc & 1, 1);
        assert_int_equal(prdt[i].dbc & ~AHCI_PRD_DBC_MASK, 0); /* no I bit: polled */
        assert_int_equal(prdt[i].reserved, 0);
        assert_true(count <= AHCI_PRD_MAX_BYTES);
        assert_int_equal(count % 2, 0);
        if (dba / FOUR_GIB != (dba + count - 1) / FOUR_GIB)
            fail_msg("entry %d at 0x%llx (%u bytes) crosses 4 GiB", i, (unsigned long long)dba, count);
        at += count;
    }
    assert_int_equal(at, phys + bytes);
}

static void test_prd_split_at_every_alignment(void **state)
{
    static const uint64_t bases[] = {
        0x100000, 0x40000000, FOUR_GIB - (8ull << 20), FOUR_GIB, 3 * FOUR_GIB - (4ull << 20), 0x7ff00000000ull,
    };
    static const uint64_t sizes[] = {
        2, 512, 4096, 65536, 131072, (1ull << 20), (4ull << 20) - 2, 4ull << 20, (4ull << 20) + 2,
        (4ull << 20) + 4096, 8ull << 20, (12ull << 20) + 512,
    };
    (void)state;

    /* Every even offset in the first 4 KiB, and offsets that put the
     * 4 MiB and 4 GiB lines anywhere inside the buffer. */
    for (unsigned b = 0; b < ARRAY_SIZE(bases); b++)
        for (unsigned s = 0; s < ARRAY_SIZE(sizes); s++) {
            for (uint64_t off = 0; off < 4096; off += 2)
                check_prdt(bases[b] + off, sizes[s]);
            for (uint64_t back = 2; back <= sizes[s] + 4096; back = back * 2 + 2)
                check_prdt(bases[b] + (16ull << 20) - back, sizes[s]);
        }
    /* Across the 4 GiB line at every even distance from it. */
    for (uint64_t before = 2; before <= (4ull << 20); before += 510)
        check_prdt(FOUR_GIB - before, 4ull << 20);
}

static void test_prd_largest_transfer_fits_the_table(void **state)
{
    struct ahci_prd prdt[2];
    (void)state;

    /* The driver's table: a contiguous 4 MiB buffer needs at most two
     * entries (one 4 GiB crossing). */
    assert_int_equal(ahci_prd_fill(prdt, 2, 0x10000000, AHCI_MAX_TRANSFER_BYTES), 1);
    assert_int_equal(ahci_prd_fill(prdt, 2, FOUR_GIB - 512, AHCI_MAX_TRANSFER_BYTES), 2);
    assert_int_equal((prdt[0].dbc & AHCI_PRD_DBC_MASK) + 1, 512);
    assert_int_equal(prdt[1].dbau, 1);
    assert_int_equal(prdt[1].dba, 0);
}

static void test_prd_refuses_odd_empty_and_too_long(void **state)
{
    struct ahci_prd prdt[2];
    (void)state;

    assert_int_equal(ahci_prd_fill(prdt, 2, 0x1000, 0), BM_EINVAL);
    assert_int_equal(ahci_prd_fill(prdt, 2, 0x1000, 511), BM_EINVAL);  /* odd count: DBC bit 0 must be 1 */
    assert_int_equal(ahci_prd_fill(prdt, 2, 0x1001, 512), BM_EINVAL); /* DBA bit 0 is reserved */
    assert_int_equal(ahci_prd_fill(prdt, 2, 0x1000, 8ull << 20), 2);
    assert_int_equal(ahci_prd_fill(prdt, 2, 0x1000, (8ull << 20) + 2), BM_ENOSPC);
    assert_int_equal(ahci_prd_fill(prdt, 0, 0x1000, 512), BM_ENOSPC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fis_read_fpdma_queued_layout),
        cmocka_unit_test(test_fis_write_fpdma_queued_and_65536_blocks),
        cmocka_unit_test(test_fis_read_dma_ext_layout),
        cmocka_unit_test(test_fis_identify_and_read_log_ext),
        cmocka_unit_test(test_command_header_fields),
        cmocka_unit_test(test_structure_offsets_match_the_spec),
        cmocka_unit_test(test_prd_split_at_every_alignment),
        cmocka_unit_test(test_prd_largest_transfer_fits_the_table),
        cmocka_unit_test(test_prd_refuses_odd_empty_and_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
