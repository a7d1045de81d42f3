/* The Intel MP configuration table (mptable.h), as Linux
 * arch/x86/kernel/mpparse.c reads it: smp_scan_config() for the floating
 * pointer, smp_check_mpc() for the header, smp_read_mpc() for the entries. */
#include "mptable.h"

static uint8_t sum8(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s += *p++;
    return s;
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

long mptable_find(const uint8_t *mem, size_t len, struct mptable_fps *fps)
{
    for (size_t off = 0; off + MPTABLE_FPS_LEN <= len; off += 16) {
        const uint8_t *p = mem + off;
        /* smp_scan_config(): signature, length 1 (in 16-byte units), checksum, revision 1 or 4 */
        if (memcmp(p, "_MP_", 4) || p[8] != 1 || sum8(p, MPTABLE_FPS_LEN) || (p[9] != 1 && p[9] != 4))
            continue;
        fps->config_addr = le32(p + 4);
        fps->spec_rev = p[9];
        fps->default_config = p[11];
        return (long)off;
    }
    return -1;
}

static void add_cpu(struct madt_info *out, uint32_t id)
{
    for (unsigned i = 0; i < out->ncpus; i++)
        if (out->cpus[i].apic_id == id)
            return;             /* listed twice: one CPU */
    if (out->ncpus >= MADT_MAX_CPUS) {
        out->dropped++;
        return;
    }
    out->cpus[out->ncpus++] = (struct madt_cpu){ id, true, false };
}

int mptable_parse(const uint8_t *cfg, size_t avail, struct madt_info *out, char *why, size_t why_len)
{
    uint16_t len, count;
    size_t off;
    unsigned seen = 0;

    memset(out, 0, sizeof(*out));
    if (why_len)
        why[0] = '\0';
    if (avail < MPTABLE_HEADER_LEN || memcmp(cfg, "PCMP", 4)) {
        snprintf(why, why_len, "the MP floating pointer leads to no configuration table (no \"PCMP\")");
        return BM_EINVAL;
    }
    len = le16(cfg + 4);
    if (len < MPTABLE_HEADER_LEN || len > avail) {
        snprintf(why, why_len, "MP configuration table length %u is not possible", len);
        return BM_EINVAL;
    }
    if (sum8(cfg, len)) {
        snprintf(why, why_len, "MP configuration table checksum error");
        return BM_EINVAL;
    }
    if (cfg[6] != 1 && cfg[6] != 4) {
        snprintf(why, why_len, "MP configuration table revision %u is not 1 or 4", cfg[6]);
        return BM_EINVAL;
    }
    out->lapic_base = le32(cfg + 36);
    count = le16(cfg + 34);
    for (off = MPTABLE_HEADER_LEN; off < len && seen < count; seen++) {
        const uint8_t *e = cfg + off;
        size_t elen = e[0] == MPTABLE_ENTRY_PROCESSOR ? MPTABLE_PROCESSOR_LEN : MPTABLE_OTHER_LEN;
        if (e[0] > MPTABLE_ENTRY_LINT) {
            snprintf(why, why_len, "MP configuration table entry %u has unknown type %u", seen, e[0]);
            goto refused;
        }
        if (off + elen > len) {
            snprintf(why, why_len, "MP configuration table entry %u runs past the table's end", seen);
            goto refused;
        }
        if (e[0] == MPTABLE_ENTRY_PROCESSOR && (e[3] & MPTABLE_CPU_EN))
            add_cpu(out, e[1]);
        off += elen;
    }
    if (!out->ncpus) {
        snprintf(why, why_len, "MP configuration table lists no usable processor");
        return BM_EINVAL;
    }
    return BM_OK;

refused:
    /* Nothing of a table refused: not the processors read before the bad entry. */
    out->ncpus = out->dropped = 0;
    return BM_EINVAL;
}

int mptable_default_config(uint8_t config, struct madt_info *out)
{
    memset(out, 0, sizeof(*out));
    if (config < 1 || config > 7)
        return BM_EINVAL;
    out->lapic_base = MPTABLE_LAPIC_DEFAULT;
    add_cpu(out, 0);
    add_cpu(out, 1);
    return BM_OK;
}
