/* ATA facts that need no hardware: command FISes, IDENTIFY DEVICE, the NCQ
 * error log and error decoding. */
#include "ata.h"
#include "../blkdev.h"

/* Little-endian 16-bit word n of an IDENTIFY block or log page. */
static uint16_t word_at(const uint8_t *d, unsigned n)
{
    return (uint16_t)(d[2 * n] | (d[2 * n + 1] << 8));
}

void ata_fis_h2d(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t command, uint16_t features, uint64_t lba,
                 uint16_t count, uint8_t device)
{
    memset(fis, 0, SATA_FIS_H2D_BYTES);
    fis[FIS_TYPE] = SATA_FIS_TYPE_H2D;
    fis[FIS_FLAGS] = SATA_FIS_H2D_C; /* port multiplier port 0 */
    fis[FIS_COMMAND] = command;
    fis[FIS_FEATURE_LO] = (uint8_t)features;
    fis[FIS_FEATURE_HI] = (uint8_t)(features >> 8);
    fis[FIS_LBA0] = (uint8_t)lba;
    fis[FIS_LBA1] = (uint8_t)(lba >> 8);
    fis[FIS_LBA2] = (uint8_t)(lba >> 16);
    fis[FIS_LBA3] = (uint8_t)(lba >> 24);
    fis[FIS_LBA4] = (uint8_t)(lba >> 32);
    fis[FIS_LBA5] = (uint8_t)(lba >> 40);
    fis[FIS_DEVICE] = device;
    fis[FIS_COUNT_LO] = (uint8_t)count;
    fis[FIS_COUNT_HI] = (uint8_t)(count >> 8);
}

void ata_fis_fpdma(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, unsigned tag, uint64_t lba, uint32_t blocks)
{
    /* 65536 blocks is encoded as 0; the tag rides in COUNT 7:3 and COUNT
     * 15:8 holds the priority (0: normal). */
    ata_fis_h2d(fis, write ? ATA_CMD_WRITE_FPDMA_QUEUED : ATA_CMD_READ_FPDMA_QUEUED, (uint16_t)blocks, lba,
                (uint16_t)((tag & (ATA_NCQ_TAGS - 1)) << ATA_NCQ_TAG_SHIFT), ATA_DEV_LBA);
}

void ata_fis_dma_ext(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, uint64_t lba, uint32_t blocks)
{
    ata_fis_h2d(fis, write ? ATA_CMD_WRITE_DMA_EXT : ATA_CMD_READ_DMA_EXT, 0, lba, (uint16_t)blocks, ATA_DEV_LBA);
}

int ata_fis_dma28(uint8_t fis[SATA_FIS_H2D_BYTES], bool write, uint64_t lba, uint32_t blocks)
{
    /* As Linux ata_build_rw_tf() for a device without ATA_DFLAG_LBA48:
     * LBA 27:24 go into the device register next to the LBA bit, the
     * count register is 8 bits wide and 0 means 256. */
    if (blocks == 0 || blocks > ATA_LBA28_MAX_BLOCKS || lba >= ATA_LBA28_LIMIT || blocks > ATA_LBA28_LIMIT - lba)
        return BM_EINVAL;
    ata_fis_h2d(fis, write ? ATA_CMD_WRITE_DMA : ATA_CMD_READ_DMA, 0, lba & 0xffffff, (uint16_t)(blocks & 0xff),
                (uint8_t)(ATA_DEV_LBA | ((lba >> 24) & 0xf)));
    return BM_OK;
}

void ata_fis_set_features(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t subcommand)
{
    ata_fis_h2d(fis, ATA_CMD_SET_FEATURES, subcommand, 0, 0, 0);
}

enum ata_puis ata_identify_puis(const uint8_t d[ATA_SECTOR_BYTES])
{
    /* The two values of word 2 Linux ata_dev_read_id() acts on; 8C73h and
     * C837h say the drive spins up by itself. */
    switch (word_at(d, 2)) {
    case ATA_ID2_PUIS_SPINUP_INCOMPLETE: return ATA_PUIS_SPINUP_INCOMPLETE;
    case ATA_ID2_PUIS_SPINUP_COMPLETE: return ATA_PUIS_SPINUP_COMPLETE;
    default: return ATA_PUIS_NONE;
    }
}

void ata_fis_identify(uint8_t fis[SATA_FIS_H2D_BYTES])
{
    ata_fis_h2d(fis, ATA_CMD_IDENTIFY_DEVICE, 0, 0, 0, 0);
}

void ata_fis_read_log_ext(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t log, uint16_t page, uint16_t pages)
{
    /* ACS-3 section 7.24: LBA 7:0 log address, 15:8 page 7:0, 39:32 page 15:8. */
    uint64_t lba = (uint64_t)log | ((uint64_t)(page & 0xff) << 8) | ((uint64_t)(page >> 8) << 32);
    ata_fis_h2d(fis, ATA_CMD_READ_LOG_EXT, 0, lba, pages, 0);
}

void ata_copy_string(char *dst, size_t cap, const uint8_t *words, size_t nwords)
{
    uint8_t swapped[80];
    size_t n = MIN(nwords * 2, sizeof(swapped));

    for (size_t i = 0; i + 1 < n; i += 2) {
        swapped[i] = words[i + 1];
        swapped[i + 1] = words[i];
    }
    bm_copy_padded(dst, cap, swapped, n);
}

int ata_parse_identify(const uint8_t d[ATA_SECTOR_BYTES], struct ata_identity *id)
{
    uint16_t w106, w76, w255 = word_at(d, 255);
    uint64_t blocks;

    memset(id, 0, sizeof(*id));
    /* Word 0 bit 15 is 0 for ATA devices (ATAPI sets it). */
    if (word_at(d, 0) & 0x8000)
        return BM_EINVAL;
    /* Word 255: signature A5h in 7:0, then a checksum making all 512 bytes
     * sum to 0 mod 256 (ACS-3 section 7.12.7.91). */
    if ((w255 & 0xff) == 0xa5) {
        uint8_t sum = 0;
        for (unsigned i = 0; i < ATA_SECTOR_BYTES; i++)
            sum = (uint8_t)(sum + d[i]);
        if (sum != 0)
            return BM_EINVAL;
    }

    ata_copy_string(id->serial, sizeof(id->serial), d + 2 * 10, 10);
    ata_copy_string(id->firmware, sizeof(id->firmware), d + 2 * 23, 4);
    ata_copy_string(id->model, sizeof(id->model), d + 2 * 27, 20);

    /* 48-bit addressing as Linux ata_id_has_lba48() decides it: word 83
     * valid (bits 15:14 = 01b), its bit 10 set, and a capacity in words
     * 100-103. (Word 86 bit 10 is a copy of word 83 bit 10 in ACS; Linux
     * stopped looking at it in 6.2.) Without it the disk takes 28-bit
     * commands only and its capacity is words 60-61, which needs LBA
     * addressing (word 49 bit 9): a CHS-only device is refused. */
    blocks = (uint64_t)word_at(d, 100) | ((uint64_t)word_at(d, 101) << 16) | ((uint64_t)word_at(d, 102) << 32) |
             ((uint64_t)word_at(d, 103) << 48);
    id->lba48 = (word_at(d, 83) & 0xc000) == 0x4000 && (word_at(d, 83) & (1u << 10)) && blocks != 0;
    if (!id->lba48) {
        if (!(word_at(d, 49) & (1u << 9)))
            return BM_EINVAL;
        blocks = (uint64_t)word_at(d, 60) | ((uint64_t)word_at(d, 61) << 16);
        if (blocks > ATA_LBA28_LIMIT - 1)
            blocks = ATA_LBA28_LIMIT - 1;
    }
    id->blocks = blocks;

    /* Word 106 is valid when bits 15:14 read 01b. */
    id->logical_bytes = ATA_SECTOR_BYTES;
    id->physical_bytes = ATA_SECTOR_BYTES;
    w106 = word_at(d, 106);
    if ((w106 & 0xc000) == 0x4000) {
        if (w106 & (1u << 12)) {
            /* Words 117-118: logical sector size in 16-bit words. */
            uint32_t words = (uint32_t)word_at(d, 117) | ((uint32_t)word_at(d, 118) << 16);
            id->logical_bytes = words * 2;
        }
        id->physical_bytes = id->logical_bytes;
        if (w106 & (1u << 13))
            id->physical_bytes = id->logical_bytes << (w106 & 0xf);
    }
    if (id->logical_bytes < ATA_SECTOR_BYTES || (id->logical_bytes & (id->logical_bytes - 1)) ||
        id->logical_bytes > 65536 || id->physical_bytes > (1u << 24))
        return BM_EINVAL;

    /* Word 76 (SATA capabilities) is 0000h or FFFFh on devices that are not
     * Serial ATA; bit 8 is NCQ. */
    w76 = word_at(d, 76);
    if (w76 != 0x0000 && w76 != 0xffff && (w76 & (1u << 8))) {
        id->ncq = true;
        id->ncq_depth = (word_at(d, 75) & 0x1f) + 1u;
    }
    /* Word 76 bits 3:1: Gen3 (6.0), Gen2 (3.0), Gen1 (1.5 Gb/s) supported
     * (ACS-3 section 7.12.7, SATA Capabilities; Linux ata_id_has_ncq's
     * neighbours in include/linux/ata.h). The highest set bit counts. */
    if (w76 != 0x0000 && w76 != 0xffff)
        id->sata_max_gbps = (w76 & (1u << 3)) ? 6.0 : (w76 & (1u << 2)) ? 3.0 : (w76 & (1u << 1)) ? 1.5 : 0.0;
    /* General purpose logging: word 84 bit 5 (supported), 87 bit 5 (enabled);
     * both words valid when bits 15:14 read 01b. */
    id->dma = (word_at(d, 49) & (1u << 8)) != 0;
    id->gpl = ((word_at(d, 84) & 0xc000) == 0x4000 && (word_at(d, 84) & (1u << 5))) ||
              ((word_at(d, 87) & 0xc000) == 0x4000 && (word_at(d, 87) & (1u << 5)));

    if (id->blocks == 0)
        return BM_EINVAL;
    return BM_OK;
}

int ata_parse_ncq_error_log(const uint8_t p[ATA_SECTOR_BYTES], struct ata_ncq_error *e)
{
    uint8_t sum = 0;

    /* Byte 511 makes the page sum to 0 mod 256. */
    for (unsigned i = 0; i < ATA_SECTOR_BYTES; i++)
        sum = (uint8_t)(sum + p[i]);
    memset(e, 0, sizeof(*e));
    e->bad_checksum = sum != 0;
    /* Byte 0: NQ bit 7, tag 4:0; 2 status; 3 error; 4-6 and 8-10 the LBA. */
    e->nq = (p[0] & 0x80) != 0;
    e->tag = p[0] & 0x1f;
    e->status = p[2];
    e->error = p[3];
    e->lba = (uint64_t)p[4] | ((uint64_t)p[5] << 8) | ((uint64_t)p[6] << 16) | ((uint64_t)p[8] << 24) |
             ((uint64_t)p[9] << 32) | ((uint64_t)p[10] << 40);
    return BM_OK;
}

char *ata_describe_error(char *dst, size_t cap, uint8_t status, uint8_t error, bool has_lba, uint64_t lba)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } bits[] = {
        /* The bits ACS-3 still defines; the obsolete ones show in the raw value. */
        { ATA_ERR_ICRC, "ICRC" }, { ATA_ERR_UNC, "UNC" }, { ATA_ERR_IDNF, "IDNF" }, { ATA_ERR_ABRT, "ABRT" },
    };
    char names[24] = "";
    size_t n = 0;

    for (unsigned i = 0; i < ARRAY_SIZE(bits); i++) {
        if (!(error & bits[i].bit))
            continue;
        n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? "," : "", bits[i].name);
    }
    if (!n)
        snprintf(names, sizeof(names), "%s", (status & ATA_STS_DF) ? "DF" : "ERR");
    if (has_lba)
        snprintf(dst, cap, "%s sts 0x%02x err 0x%02x lba %llu", names, status, error, (unsigned long long)lba);
    else
        snprintf(dst, cap, "%s sts 0x%02x err 0x%02x", names, status, error);
    return dst;
}

void ata_fis_smart(uint8_t fis[SATA_FIS_H2D_BYTES], uint8_t feature)
{
    ata_fis_h2d(fis, ATA_CMD_SMART, feature, ATA_SMART_LBA_SIGNATURE, 1, 0);
}

void ata_parse_smart(const uint8_t data[ATA_SECTOR_BYTES], const uint8_t *thresholds, struct bm_health *h)
{
    bm_health_init(h, "ata_smart");
    for (unsigned i = 0; i < 30; i++) {
        const uint8_t *a = data + 2 + i * 12;
        struct bm_health_attr *out;
        uint64_t raw = 0;

        if (a[0] == 0)
            continue;
        for (int b = 5; b >= 0; b--)
            raw = (raw << 8) | a[5 + b];
        out = &h->attrs[h->nattrs++];
        out->id = a[0];
        out->value = a[3];
        out->worst = a[4];
        out->raw = raw;
        if (thresholds)
            for (unsigned k = 0; k < 30; k++)
                if (thresholds[2 + k * 12] == a[0])
                    out->threshold = thresholds[2 + k * 12 + 1];
        switch (a[0]) {
        case 9:   /* power-on hours: the low 32 bits on every drive */
            h->power_on_hours = (int64_t)(raw & 0xffffffffu);
            break;
        case 12:  /* power cycle count */
            h->power_cycles = (int64_t)(raw & 0xffffffffu);
            break;
        case 190: /* airflow temperature: only when 194 is absent */
            if (h->temperature_c < 0)
                h->temperature_c = (int)(raw & 0xff);
            break;
        case 194: /* temperature, Celsius in the low byte */
            h->temperature_c = (int)(raw & 0xff);
            break;
        }
    }
    /* A normalised value at or below a non-zero threshold is the drive's own
     * "failing" (SMART RETURN STATUS would say so too). */
    if (thresholds) {
        h->smart_passed = 1;
        for (unsigned i = 0; i < h->nattrs; i++)
            if (h->attrs[i].threshold && h->attrs[i].value <= h->attrs[i].threshold)
                h->smart_passed = 0;
    }
}
