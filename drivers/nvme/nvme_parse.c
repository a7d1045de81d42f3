/* Identify data and transfer limits (NVMe 1.4 section 5.15.2). Pure: the
 * probe feeds it what the controller returned, unit tests feed it made-up
 * structures. */
#include "nvme.h"
#include "nvme_regs.h"

static uint16_t le16_at(const uint8_t *p, size_t off)
{
    return (uint16_t)(p[off] | (p[off + 1] << 8));
}

static uint32_t le32_at(const uint8_t *p, size_t off)
{
    return (uint32_t)le16_at(p, off) | ((uint32_t)le16_at(p, off + 2) << 16);
}

static uint64_t le64_at(const uint8_t *p, size_t off)
{
    return (uint64_t)le32_at(p, off) | ((uint64_t)le32_at(p, off + 4) << 32);
}

static bool is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

void nvme_parse_identify_ctrl(const uint8_t *id, struct nvme_ctrl_info *out)
{
    memset(out, 0, sizeof(*out));
    out->vid = le16_at(id, NVME_IDC_VID);
    bm_copy_padded(out->serial, sizeof(out->serial), id + NVME_IDC_SN, NVME_IDC_SN_LEN);
    bm_copy_padded(out->model, sizeof(out->model), id + NVME_IDC_MN, NVME_IDC_MN_LEN);
    bm_copy_padded(out->firmware, sizeof(out->firmware), id + NVME_IDC_FR, NVME_IDC_FR_LEN);
    out->mdts = id[NVME_IDC_MDTS];
    out->sqes = id[NVME_IDC_SQES];
    out->cqes = id[NVME_IDC_CQES];
    out->nn = le32_at(id, NVME_IDC_NN);
    out->awupf = le16_at(id, NVME_IDC_AWUPF);
    out->rtd3e_us = le32_at(id, NVME_IDC_RTD3E);
    for (unsigned i = 0; i < 3; i++)
        out->crdt[i] = le16_at(id, NVME_IDC_CRDT1 + 2 * i);
    out->hmpre = le32_at(id, NVME_IDC_HMPRE);
    out->hmmin = le32_at(id, NVME_IDC_HMMIN);
    out->hmminds = le32_at(id, NVME_IDC_HMMINDS);
    out->hmmaxd = le16_at(id, NVME_IDC_HMMAXD);
    out->vs3 = id[NVME_IDC_VS + 3];
}

/* Linux drivers/nvme/host/pci.c nvme_id_table (the entries with
 * NVME_QUIRK_DELAY_BEFORE_CHK_RDY, _STRIPE_SIZE, _DMA_ADDRESS_BITS_48,
 * _QDEPTH_ONE, _128_BYTES_SQES, _SHARED_TAGS) and nvme_pci_enable()
 * (PM1725 depth). */
static const struct {
    uint16_t vendor, device;
    uint32_t quirks;
} nvme_quirk_table[] = {
    { 0x1bb1, 0x0100, NVME_QUIRK_DELAY_BEFORE_CHK_RDY },   /* Seagate Nytro Flash Storage */
    { 0x1c58, 0x0003, NVME_QUIRK_DELAY_BEFORE_CHK_RDY },   /* HGST adapter */
    { 0x1c58, 0x0023, NVME_QUIRK_DELAY_BEFORE_CHK_RDY },   /* WDC SN200 adapter */
    { 0x1c5f, 0x0540, NVME_QUIRK_DELAY_BEFORE_CHK_RDY },   /* Memblaze Pblaze4 adapter */
    { 0x144d, 0xa821, NVME_QUIRK_DELAY_BEFORE_CHK_RDY | NVME_QUIRK_MQES0_DEPTH_64 }, /* Samsung PM1725 */
    { 0x144d, 0xa822, NVME_QUIRK_DELAY_BEFORE_CHK_RDY | NVME_QUIRK_MQES0_DEPTH_64 }, /* Samsung PM1725a */
    { 0x8086, 0x0953, NVME_QUIRK_STRIPE_SIZE },            /* Intel 750/P3500/P3600/P3700 */
    { 0x8086, 0x0a53, NVME_QUIRK_STRIPE_SIZE },            /* Intel P3520 */
    { 0x8086, 0x0a54, NVME_QUIRK_STRIPE_SIZE },            /* Intel P4500/P4600 */
    { 0x8086, 0x0a55, NVME_QUIRK_STRIPE_SIZE },            /* Dell Express Flash P4600 */
    { 0x1d0f, 0x0061, NVME_QUIRK_DMA_ADDRESS_BITS_48 },    /* Amazon EC2 NVMe */
    { 0x1d0f, 0x0065, NVME_QUIRK_DMA_ADDRESS_BITS_48 },
    { 0x1d0f, 0x8061, NVME_QUIRK_DMA_ADDRESS_BITS_48 },
    { 0x1d0f, 0xcd00, NVME_QUIRK_DMA_ADDRESS_BITS_48 },
    { 0x1d0f, 0xcd01, NVME_QUIRK_DMA_ADDRESS_BITS_48 },
    { 0x1d0f, 0xcd02, NVME_QUIRK_DMA_ADDRESS_BITS_48 },
    { 0x106b, 0x2001, NVME_QUIRK_QDEPTH_ONE },             /* Apple MacBook 7,1/8,1 */
    { 0x106b, 0x2005, NVME_QUIRK_128_BYTES_SQES | NVME_QUIRK_SHARED_TAGS }, /* Apple T2 */
};

uint32_t nvme_pci_quirks(uint16_t vendor, uint16_t device)
{
    for (size_t i = 0; i < ARRAY_SIZE(nvme_quirk_table); i++)
        if (nvme_quirk_table[i].vendor == vendor && nvme_quirk_table[i].device == device)
            return nvme_quirk_table[i].quirks;
    return 0;
}

uint32_t nvme_stripe_bytes(uint8_t vs3, unsigned mpsmin)
{
    /* Above 2 GiB it is no stripe anyone builds; a bogus byte must not
     * shrink transfers to nothing either (vs3 = 0: none). */
    if (!vs3 || vs3 + 12u + mpsmin > 31)
        return 0;
    return 1u << (vs3 + 12u + mpsmin);
}

bool nvme_dma_reachable(uint64_t phys, uint64_t bytes, unsigned dma_bits)
{
    if (dma_bits == 0 || dma_bits >= 64)
        return true;
    return phys < (1ull << dma_bits) && bytes <= (1ull << dma_bits) - phys;
}

void nvme_cmb_note(uint32_t cmbloc, uint32_t cmbsz, char *buf, size_t len)
{
    (void)cmbloc;
    buf[0] = '\0';
    if (!(cmbsz & NVME_CMBSZ_SQS) || !NVME_CMBSZ_SZ(cmbsz))
        return;
    /* Linux puts SQs there only with use_cmb_sqes and P2P DMA memory
     * (nvme_alloc_sq_cmds()); a command written into it is MMIO writes
     * to a BAR, which our per-command budget (one doorbell) does not
     * have, and a controller reset leaves its contents undefined. */
    snprintf(buf, len, "controller memory buffer offers submission queues (CMBSZ.SQS): not used, "
                       "SQs stay in host memory");
}

int nvme_retry_delay_ms(uint16_t st, const uint16_t crdt[3], unsigned retries)
{
    unsigned crd = NVME_CQE_CRD(st);

    if ((NVME_CQE_SC(st) == 0 && NVME_CQE_SCT(st) == 0) || NVME_CQE_DNR(st) || retries >= NVME_MAX_RETRIES)
        return -1;
    /* CRDT goes up to 6553.5 s; no retry waits longer than an I/O timeout
     * (every wait is bounded). */
    if (crd)
        return (int)MIN((unsigned)crdt[crd - 1] * 100u, NVME_RETRY_DELAY_MAX_MS);
    if (NVME_CQE_SCT(st) == NVME_SCT_GENERIC && NVME_CQE_SC(st) == NVME_SC_NS_NOT_READY)
        return 1000;
    return 0;
}

int nvme_parse_identify_ns(const uint8_t *id, uint16_t ctrl_awupf, struct nvme_ns_info *out, char *why,
                           size_t whylen)
{
    uint8_t flbas = id[NVME_IDNS_FLBAS], nlbaf = id[NVME_IDNS_NLBAF], nsfeat = id[NVME_IDNS_NSFEAT];
    unsigned idx = NVME_FLBAS_INDEX(flbas), pit = NVME_DPS_PIT(id[NVME_IDNS_DPS]);
    uint32_t lbaf, ms, lbads, atomic_blocks;
    uint64_t phys;

    memset(out, 0, sizeof(*out));
    if (why && whylen)
        why[0] = '\0';
    out->blocks = le64_at(id, NVME_IDNS_NSZE);
    if (out->blocks == 0) {
        snprintf(why, whylen, "size 0 (inactive)");
        return BM_ENODEV;
    }
    /* An index beyond NLBAF (or the 64 formats NVMe 2.0 has room for)
     * describes no format we could trust the block size of. */
    if (idx > nlbaf || idx >= NVME_IDNS_LBAF_COUNT) {
        snprintf(why, whylen, "FLBAS names LBA format %u of %u", idx, nlbaf + 1u);
        return BM_ENOTSUP;
    }
    lbaf = le32_at(id, NVME_IDNS_LBAF + 4 * idx);
    ms = NVME_LBAF_MS(lbaf);
    lbads = NVME_LBAF_LBADS(lbaf);
    out->lbaf_index = (uint8_t)idx;

    /* Metadata (section 8.2) and protection information (8.3): when the
     * metadata is exactly the 8 bytes of PI, PRACT = 1 has the controller
     * insert and strip it, and a command moves data only, whether the PI
     * sits at the end of each block (extended LBA) or in a separate buffer
     * (NVM command set 5.2.1.2). Linux drives these (nvme_ns_has_pi()) and
     * gives other metadata formats capacity 0 without an integrity buffer
     * (nvme_update_disk_info()); so do we: name them, not measure them. */
    if (pit > 3) {
        snprintf(why, whylen, "protection information type %u is reserved", pit);
        return BM_ENOTSUP;
    }
    if (pit && ms != NVME_PI_BYTES) {
        snprintf(why, whylen, "protection information type %u in %u bytes of metadata per block (%s): not measured",
                 pit, ms, (flbas & NVME_FLBAS_EXTENDED) ? "extended LBA" : "separate buffer");
        return BM_ENOTSUP;
    }
    if (!pit && ms) {
        snprintf(why, whylen, "formatted with %u bytes of metadata per block (%s)", ms,
                 (flbas & NVME_FLBAS_EXTENDED) ? "extended LBA" : "separate buffer");
        return BM_ENOTSUP;
    }
    out->pi_type = (uint8_t)pit;
    out->extended_lba = pit && (flbas & NVME_FLBAS_EXTENDED);
    if (lbads != 9 && lbads != 12) {
        if (lbads < 32)
            snprintf(why, whylen, "%lu-byte blocks (512 and 4096 are supported)", 1ul << lbads);
        else
            snprintf(why, whylen, "LBADS %u is invalid", lbads);
        return BM_ENOTSUP;
    }
    out->lba_bytes = 1u << lbads;

    /* Physical block: the preferred write granularity (NPWG, valid with
     * NSFEAT.OPTPERF), but no more than what is written atomically on power
     * fail (namespace NAWUPF with NSFEAT.NSABP, else controller AWUPF),
     * which is how Linux reports it too. */
    phys = out->lba_bytes;
    if (nsfeat & NVME_NSFEAT_OPTPERF)
        phys = (uint64_t)out->lba_bytes * (le16_at(id, NVME_IDNS_NPWG) + 1u);
    atomic_blocks = (nsfeat & NVME_NSFEAT_NSABP) ? le16_at(id, NVME_IDNS_NAWUPF) + 1u : ctrl_awupf + 1u;
    phys = MIN(phys, (uint64_t)out->lba_bytes * atomic_blocks);
    out->phys_bytes = (is_pow2(phys) && phys <= (1u << 20)) ? (uint32_t)phys : out->lba_bytes;
    return BM_OK;
}

int nvme_parse_ns_csi(const uint8_t *descs)
{
    /* Walk the descriptors: each is 4 bytes of header and NIDL bytes; the
     * list ends at a zero NIDT or at the end of the 4 KiB (Linux
     * nvme_identify_ns_descs() / nvme_process_ns_desc()). */
    for (size_t off = 0; off + 4 <= NVME_IDENTIFY_BYTES;) {
        uint8_t nidt = descs[off], nidl = descs[off + 1];
        if (!nidt || !nidl)
            break;
        if (off + 4 + nidl > NVME_IDENTIFY_BYTES)
            break;
        if (nidt == NVME_NIDT_CSI)
            return nidl == 1 ? descs[off + 4] : -1;
        off += 4u + nidl;
    }
    return -1;
}

void nvme_csi_name(int csi, char *buf, size_t len)
{
    if (csi == NVME_CSI_ZNS)
        snprintf(buf, len, "zoned namespace");
    else if (csi == NVME_CSI_KV)
        snprintf(buf, len, "key-value namespace");
    else
        snprintf(buf, len, "command set %02xh namespace", (unsigned)csi & 0xffu);
}

void nvme_pi_rw_fields(unsigned pi_type, uint64_t lba, uint32_t *cdw12, uint32_t *cdw14)
{
    *cdw14 = 0;
    if (!pi_type)
        return;
    *cdw12 |= NVME_RW_PRACT;
    if (pi_type == 3) {
        *cdw12 |= NVME_RW_PRCHK_GUARD;
    } else {
        *cdw12 |= NVME_RW_PRCHK_GUARD | NVME_RW_PRCHK_REF;
        *cdw14 = (uint32_t)lba;
    }
}

/* A 128-bit little-endian counter, saturated to what int64_t holds. */
static int64_t counter_at(const uint8_t *p, size_t off)
{
    uint64_t lo = le64_at(p, off), hi = le64_at(p, off + 8);

    if (hi || lo > (uint64_t)INT64_MAX)
        return INT64_MAX;
    return (int64_t)lo;
}

static int64_t units_to_bytes(int64_t units)
{
    if (units > INT64_MAX / (int64_t)NVME_SMART_DATA_UNIT_BYTES)
        return INT64_MAX;
    return units * (int64_t)NVME_SMART_DATA_UNIT_BYTES;
}

void nvme_parse_smart_log(const uint8_t *log, struct bm_health *out)
{
    uint16_t kelvin = le16_at(log, NVME_SMART_COMPOSITE_TEMP);

    bm_health_init(out, "nvme_smart_log");
    out->critical_warning = log[NVME_SMART_CRITICAL_WARNING];
    if (kelvin)
        out->temperature_c = (int)kelvin - 273;
    out->percentage_used = log[NVME_SMART_PERCENTAGE_USED];
    out->data_read_bytes = units_to_bytes(counter_at(log, NVME_SMART_DATA_UNITS_READ));
    out->data_written_bytes = units_to_bytes(counter_at(log, NVME_SMART_DATA_UNITS_WRITTEN));
    out->power_cycles = counter_at(log, NVME_SMART_POWER_CYCLES);
    out->power_on_hours = counter_at(log, NVME_SMART_POWER_ON_HOURS);
    out->unsafe_shutdowns = counter_at(log, NVME_SMART_UNSAFE_SHUTDOWNS);
    out->media_errors = counter_at(log, NVME_SMART_MEDIA_ERRORS);
}

uint64_t nvme_mdts_bytes(uint8_t mdts, unsigned mpsmin)
{
    if (mdts == 0)
        return 0;
    if (mdts + 12u + mpsmin >= 63)
        return UINT64_MAX >> 1;
    return 1ull << (mdts + 12u + mpsmin);
}

void nvme_io_limits(uint8_t mdts, unsigned mpsmin, unsigned nqueues, unsigned qd, struct nvme_io_limits *out)
{
    uint64_t target = NVME_MAX_TRANSFER_BYTES, limit = nvme_mdts_bytes(mdts, mpsmin);
    uint64_t entries, list_bytes = NVME_PRP_LIST_MIN_BYTES;
    uint64_t tags = (uint64_t)MAX(nqueues, 1u) * MAX(qd, 1u);

    if (limit && limit < target)
        target = limit;
    target &= ~(uint64_t)(NVME_PAGE_BYTES - 1);
    if (target < NVME_PAGE_BYTES)
        target = NVME_PAGE_BYTES;
    /* A buffer of N pages at any dword offset touches N + 1 pages: PRP1
     * takes the first, the list the other N. */
    entries = target / NVME_PAGE_BYTES;
    while (list_bytes < entries * 8 && list_bytes < NVME_PAGE_BYTES)
        list_bytes *= 2;
    while (list_bytes > NVME_PRP_LIST_MIN_BYTES && tags * list_bytes > NVME_PRP_BUDGET_BYTES)
        list_bytes /= 2;
    out->list_bytes = (uint32_t)list_bytes;
    out->max_transfer_bytes = (uint32_t)MIN(target, list_bytes / 8 * NVME_PAGE_BYTES);
}

/* The shutdown bound from RTD3E (see nvme.h). */
uint32_t nvme_shutdown_timeout_ms(uint32_t rtd3e_us, uint32_t min_ms, uint32_t max_ms)
{
    uint64_t ms;

    if (!rtd3e_us)
        return min_ms;
    ms = ((uint64_t)rtd3e_us + 999999u) / 1000000u * 1000u;
    return (uint32_t)MIN(MAX(ms, (uint64_t)min_ms), (uint64_t)max_ms);
}
