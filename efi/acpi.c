/* ACPI table parsers (efi/acpi.h). Offsets are the ACPI 6.5 ones; where a
 * choice follows ACPICA or Linux, the comment names the function. */
#include "acpi.h"
#include "platform.h"

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

uint32_t acpi_table_len(const void *table, size_t avail)
{
    uint32_t len;

    if (!table || avail < ACPI_HEADER_LEN)
        return 0;
    len = le32((const uint8_t *)table + 4);
    return len >= ACPI_HEADER_LEN && len <= ACPI_MAX_TABLE_LEN ? len : 0;
}

bool acpi_checksum_ok(const void *bytes, size_t len)
{
    const uint8_t *p = bytes;
    uint8_t sum = 0;

    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + p[i]);
    return sum == 0;
}

int acpi_rsdp_parse(const void *p, size_t avail, struct acpi_rsdp *r, char *why, size_t why_len)
{
    const uint8_t *b = p;
    uint32_t xlen;

    memset(r, 0, sizeof(*r));
    if (!b || avail < 20 || memcmp(b, "RSD PTR ", 8)) {
        snprintf(why, why_len, "no RSDP signature");
        return BM_EINVAL;
    }
    /* ACPICA acpi_tb_validate_rsdp(): the ACPI 1.0 checksum over the first
     * 20 bytes always, the extended one over Length (36) from revision 2. */
    if (!acpi_checksum_ok(b, 20)) {
        snprintf(why, why_len, "RSDP checksum wrong");
        return BM_EINVAL;
    }
    r->revision = b[15];
    if (r->revision >= 2 && avail >= 36) {
        xlen = le32(b + 20);
        if (xlen >= 36 && xlen <= avail && acpi_checksum_ok(b, 36) && le64(b + 24)) {
            r->sdt = le64(b + 24);
            r->xsdt = true;
            return BM_OK;
        }
    }
    /* ACPICA acpi_tb_parse_root_table(): the RSDT when there is no usable
     * XSDT address (ACPI 1.0, or a zero XSDT pointer). */
    r->sdt = le32(b + 16);
    if (!r->sdt) {
        snprintf(why, why_len, "RSDP names neither an XSDT nor an RSDT");
        return BM_EINVAL;
    }
    return BM_OK;
}

/* A table at phys, mapped whole and checked: its bytes or NULL. */
static const uint8_t *map_table(uint64_t phys, acpi_map_fn map, void *ctx, uint32_t *len)
{
    const uint8_t *h, *t;
    uint32_t n;

    if (!phys || !(h = map(phys, ACPI_HEADER_LEN, ctx)))
        return NULL;
    n = acpi_table_len(h, ACPI_HEADER_LEN);
    if (!n || !(t = map(phys, n, ctx)) || !acpi_checksum_ok(t, n))
        return NULL;
    *len = n;
    return t;
}

const void *acpi_find_table(const struct acpi_rsdp *r, const char sig[4], unsigned instance, acpi_map_fn map,
                            void *ctx, uint32_t *len)
{
    const uint8_t *sdt, *t;
    uint32_t sdt_len, n, esize = r->xsdt ? 8 : 4;
    struct acpi_fadt f;

    *len = 0;
    sdt = map_table(r->sdt, map, ctx, &sdt_len);
    if (!sdt || memcmp(sdt, r->xsdt ? "XSDT" : "RSDT", 4))
        return NULL;
    n = (sdt_len - ACPI_HEADER_LEN) / esize;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *e = sdt + ACPI_HEADER_LEN + i * esize;
        uint64_t addr = esize == 8 ? le64(e) : le32(e);
        uint32_t tlen;
        const uint8_t *h = addr ? map(addr, ACPI_HEADER_LEN, ctx) : NULL;
        if (!h || memcmp(h, sig, 4))
            continue;
        if (!(t = map_table(addr, map, ctx, &tlen)))
            continue;
        if (instance-- == 0) {
            *len = tlen;
            return t;
        }
    }
    /* The DSDT is not listed: the FADT points at it. */
    if (!memcmp(sig, "DSDT", 4) && instance == 0) {
        uint32_t flen, dlen;
        const uint8_t *fadt = acpi_find_table(r, "FACP", 0, map, ctx, &flen);
        if (!fadt || acpi_fadt_parse(fadt, flen, &f) != BM_OK)
            return NULL;
        t = map_table(f.dsdt, map, ctx, &dlen);
        if (t && !memcmp(t, "DSDT", 4)) {
            *len = dlen;
            return t;
        }
    }
    return NULL;
}

int acpi_fadt_parse(const void *t, size_t len, struct acpi_fadt *f)
{
    const uint8_t *b = t;
    uint32_t n = acpi_table_len(t, len);

    memset(f, 0, sizeof(*f));
    if (n > len)
        n = (uint32_t)len;
    if (!n || memcmp(b, "FACP", 4) || n < 116)
        return BM_EINVAL;
    f->smi_cmd = le32(b + 48);
    f->acpi_enable = b[52];
    f->pm1a_cnt = le32(b + 64);
    f->pm1b_cnt = le32(b + 68);
    f->pm_tmr_port = le32(b + 76);
    f->pm_tmr_32bit = le32(b + 112) & (1u << 8);
    f->dsdt = le32(b + 40);
    /* ACPI 2.0+: X_DSDT at 140 (8 bytes) wins when non-zero (ACPICA
     * acpi_tb_select_address() with the 64-bit addresses preferred). */
    if (n >= 148 && le64(b + 140))
        f->dsdt = le64(b + 140);
    /* X_PM_TMR_BLK: a GAS at 208 (space id, width, offset, access, address
     * at 212); taken when it is system I/O and non-zero below 64 KiB, as
     * ACPICA acpi_tb_convert_fadt() prefers the X block. */
    if (n >= 220 && b[208] == 1 && le64(b + 212) && le64(b + 212) <= 0xffff)
        f->pm_tmr_port = (uint32_t)le64(b + 212);
    return BM_OK;
}

int acpi_hpet_parse(const void *t, size_t len, uint64_t *base)
{
    const uint8_t *b = t;
    uint32_t n = acpi_table_len(t, len);

    *base = 0;
    if (!n || n > len || memcmp(b, "HPET", 4) || n < 56)
        return BM_EINVAL;
    /* Linux hpet_table_parse(): the register block must be in memory. */
    if (b[40] != 0 || !le64(b + 44))
        return BM_EINVAL;
    *base = le64(b + 44);
    return BM_OK;
}

int acpi_mcfg_parse(const void *t, size_t len, struct acpi_mcfg_window *out, int max)
{
    const uint8_t *b = t;
    uint32_t n = acpi_table_len(t, len);
    int count = 0;

    if (!n || memcmp(b, "MCFG", 4))
        return 0;
    if (n > len)
        n = (uint32_t)len;
    for (uint32_t off = 44; off + 16 <= n && count < max; off += 16) {
        struct acpi_mcfg_window w = { le64(b + off), le16(b + off + 8), b[off + 10], b[off + 11] };
        if (!w.base || w.bus_end < w.bus_start)
            continue;
        out[count++] = w;
    }
    return count;
}

/* An AML integer of the \_S5 package: ZeroOp, OneOp, OnesOp, BytePrefix,
 * WordPrefix (ACPI 6.5 section 20.2.3). Returns its size, 0 if not one or
 * past the end. */
static size_t aml_int(const uint8_t *p, const uint8_t *end, unsigned *v)
{
    if (p >= end)
        return 0;
    switch (p[0]) {
    case 0x00: *v = 0; return 1;
    case 0x01: *v = 1; return 1;
    case 0x0a: if (end - p < 2) return 0; *v = p[1]; return 2;
    case 0x0b: if (end - p < 3) return 0; *v = le16(p + 1); return 3;
    default: return 0;
    }
}

bool acpi_dsdt_s5(const void *dsdt, size_t len, unsigned *typ_a, unsigned *typ_b)
{
    const uint8_t *b = dsdt, *end;
    uint32_t n = acpi_table_len(dsdt, len);

    if (!n)
        return false;
    if (n > len)
        n = (uint32_t)len;
    end = b + n;
    for (const uint8_t *p = b + ACPI_HEADER_LEN; end - p >= 8; p++) {
        const uint8_t *q;
        size_t pkglen_bytes, used;
        /* NameOp (0x08), possibly with a root prefix '\' before the name. */
        if (memcmp(p, "_S5_", 4) || p[4] != 0x12)
            continue;
        if (!(p[-1] == 0x08 || (p[-1] == '\\' && p > b + ACPI_HEADER_LEN && p[-2] == 0x08)))
            continue;
        q = p + 5;
        pkglen_bytes = 1 + (q[0] >> 6);  /* PkgLength: bits 7:6 count the bytes after the first */
        q += pkglen_bytes;
        if (q >= end)
            return false;
        if (q[0] < 2)                     /* NumElements */
            return false;
        q++;
        if (!(used = aml_int(q, end, typ_a)))
            return false;
        q += used;
        if (!aml_int(q, end, typ_b))
            return false;
        return true;
    }
    return false;
}
