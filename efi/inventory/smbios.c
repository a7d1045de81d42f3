/* SMBIOS structure table parser. Section numbers are DSP0134 3.6.0. */
#include "smbios.h"
#include "../platform.h" /* BM_E* codes only */

/* One structure: its formatted area and its string set, both bounded. */
struct smb_struct {
    const uint8_t *p;       /* formatted area, len bytes (header included) */
    uint8_t type, len;
    uint16_t handle;
    size_t offset;          /* in the table, for messages */
    const uint8_t *strings; /* string set, strings_len bytes, without the final NUL */
    size_t strings_len;
};

/* Count a malformation; keep the first one's text. */
/* Count a malformation; keep the first one's text. */
static void problem(struct smbios_info *si, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct smbios_info *si, const char *fmt, ...)
{
    va_list ap;

    if (si->problems++)
        return;
    va_start(ap, fmt);
    vsnprintf(si->problem, sizeof(si->problem), fmt, ap);
    va_end(ap);
}

/* Fields past the structure's Length are absent (an older revision of
 * the structure): they read as zero. Section 6.1.2: software uses the
 * Length to find which fields are present. */
static uint8_t get8(const struct smb_struct *s, unsigned off)
{
    return off + 1 <= s->len ? s->p[off] : 0;
}

/* Little-endian word of the formatted area, 0 when past its length. */
static uint16_t get16(const struct smb_struct *s, unsigned off)
{
    return off + 2 <= s->len ? (uint16_t)(s->p[off] | s->p[off + 1] << 8) : 0;
}

/* Little-endian dword of the formatted area, 0 when past its length. */
static uint32_t get32(const struct smb_struct *s, unsigned off)
{
    return off + 4 <= s->len ? (uint32_t)get16(s, off) | (uint32_t)get16(s, off + 2) << 16 : 0;
}

/* Whether the formatted area holds a field. */
static bool has(const struct smb_struct *s, unsigned off, unsigned size)
{
    return off + size <= s->len;
}

/* String number idx (1-based) of the structure, into dst; "" for 0 (no
 * string) and, with a problem noted, for an index past the set. Section
 * 6.1.3: strings follow the formatted area, each NUL-terminated, the set
 * ending with a second NUL. Bytes outside printable ASCII become '?'. */
static void get_str(struct smbios_info *si, const struct smb_struct *s, unsigned off, char *dst, size_t cap)
{
    unsigned idx = get8(s, off), k = 1;
    size_t pos = 0;

    dst[0] = '\0';
    if (idx == 0)
        return;
    while (pos < s->strings_len && k < idx) {
        while (pos < s->strings_len && s->strings[pos])
            pos++;
        pos++; /* the terminator */
        k++;
    }
    if (pos >= s->strings_len) {
        problem(si, "type %u structure (handle 0x%04x) refers to string %u, past its %u string%s", s->type,
                s->handle, idx, k - 1, k == 2 ? "" : "s");
        return;
    }
    {
        size_t n = 0;
        for (; pos < s->strings_len && s->strings[pos] && n + 1 < cap; pos++)
            dst[n++] = (s->strings[pos] >= 0x20 && s->strings[pos] < 0x7f) ? (char)s->strings[pos] : '?';
        dst[n] = '\0';
    }
    {
        char *t = bm_trim(dst); /* trims the end in place, returns past the leading blanks */
        memmove(dst, t, strlen(t) + 1);
    }
}

/* Name of a Memory Type byte. */
const char *smbios_memory_type_name(uint8_t code)
{
    /* 7.18.2 Memory Device — Type. 15h-17h are reserved. */
    static const char *const names[] = {
        [0x01] = "Other",   [0x02] = "Unknown",      [0x03] = "DRAM",    [0x04] = "EDRAM",
        [0x05] = "VRAM",    [0x06] = "SRAM",         [0x07] = "RAM",     [0x08] = "ROM",
        [0x09] = "Flash",   [0x0a] = "EEPROM",       [0x0b] = "FEPROM",  [0x0c] = "EPROM",
        [0x0d] = "CDRAM",   [0x0e] = "3DRAM",        [0x0f] = "SDRAM",   [0x10] = "SGRAM",
        [0x11] = "RDRAM",   [0x12] = "DDR",          [0x13] = "DDR2",    [0x14] = "DDR2 FB-DIMM",
        [0x18] = "DDR3",    [0x19] = "FBD2",         [0x1a] = "DDR4",    [0x1b] = "LPDDR",
        [0x1c] = "LPDDR2",  [0x1d] = "LPDDR3",       [0x1e] = "LPDDR4",  [0x1f] = "Logical NVD",
        [0x20] = "HBM",     [0x21] = "HBM2",         [0x22] = "DDR5",    [0x23] = "LPDDR5",
        [0x24] = "HBM3",
    };
    if (code < ARRAY_SIZE(names) && names[code])
        return names[code];
    return code ? "Reserved" : "Unknown";
}

/* 7.2.1 System — UUID: all-ones means not present, all-zeros not set.
 * From version 2.6 the first three fields are little-endian. */
static void decode_uuid(const struct smb_struct *s, int major, int minor, char *dst, size_t cap)
{
    const uint8_t *u = s->p + 0x08;
    bool ones = true, zeros = true, le = major > 2 || (major == 2 && minor >= 6);

    dst[0] = '\0';
    if (!has(s, 0x08, 16))
        return;
    for (int i = 0; i < 16; i++) {
        ones &= u[i] == 0xff;
        zeros &= u[i] == 0x00;
    }
    if (ones || zeros)
        return;
    if (le)
        snprintf(dst, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-", u[3], u[2], u[1], u[0], u[5], u[4], u[7], u[6]);
    else
        snprintf(dst, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]);
    snprintf(dst + strlen(dst), cap - strlen(dst), "%02x%02x-%02x%02x%02x%02x%02x%02x", u[8], u[9], u[10], u[11],
             u[12], u[13], u[14], u[15]);
}

/* 7.5 Processor Information (Type 4). */
static void parse_processor(struct smbios_info *si, const struct smb_struct *s)
{
    struct smbios_proc *p;
    uint8_t cores, enabled, threads;

    if (si->nprocs >= SMBIOS_MAX_PROCS)
        return;
    p = &si->procs[si->nprocs++];
    get_str(si, s, 0x04, p->socket, sizeof(p->socket));
    get_str(si, s, 0x07, p->manufacturer, sizeof(p->manufacturer));
    get_str(si, s, 0x10, p->version, sizeof(p->version));
    p->populated = (get8(s, 0x18) & 0x40) != 0; /* Status bit 6: socket populated */
    /* 7.5, Core Count 2 / Core Enabled 2 / Thread Count 2 (3.0+): a count
     * byte of FFh means the count is in the 16-bit field (256 or more);
     * 0 is unknown. */
    cores = get8(s, 0x23);
    enabled = get8(s, 0x24);
    threads = get8(s, 0x25);
    p->cores = cores == 0xff && has(s, 0x2a, 2) ? get16(s, 0x2a) : cores;
    p->cores_enabled = enabled == 0xff && has(s, 0x2c, 2) ? get16(s, 0x2c) : enabled;
    p->threads = threads == 0xff && has(s, 0x2e, 2) ? get16(s, 0x2e) : threads;
}

/* 7.18 Memory Device (Type 17): size rules of the Size and Extended Size
 * fields. Size 0 = no device installed, FFFFh = unknown; bit 15 gives the
 * unit (0 = MB, 1 = KB); 7FFFh means the size (in MB) is in Extended
 * Size, bits 30:0 (2.7+, for 32 GB - 1 MB and more). */
static void decode_size(const struct smb_struct *s, struct dimm *d)
{
    uint16_t size = get16(s, 0x0c);

    d->size_mb = 0;
    d->size_unknown = false;
    if (size == 0)
        return;
    if (size == 0xffff) {
        d->size_unknown = true;
    } else if (size == 0x7fff) {
        if (has(s, 0x1c, 4))
            d->size_mb = get32(s, 0x1c) & 0x7fffffffu;
        if (d->size_mb == 0)
            d->size_unknown = true; /* points at an extended size that is absent */
    } else if (size & 0x8000) {
        /* KB granularity: round up, so a tiny device does not read as empty. */
        d->size_mb = ((uint32_t)(size & 0x7fff) + 1023) / 1024;
    } else {
        d->size_mb = size;
    }
}

/* Speed fields (MT/s): 0 = unknown; FFFFh = see the 32-bit extended
 * field (3.3+), bits 30:0. */
static uint32_t decode_speed(const struct smb_struct *s, unsigned off, unsigned ext_off)
{
    uint16_t v = get16(s, off);

    if (v == 0xffff)
        return has(s, ext_off, 4) ? get32(s, ext_off) & 0x7fffffffu : 0;
    return v;
}

/* One Memory Device (type 17) into the next dimm slot. */
static void parse_memory_device(struct smbios_info *si, const struct smb_struct *s)
{
    struct dimm *d;

    if (si->ndimms >= SMBIOS_MAX_DIMMS) {
        si->dimms_dropped++;
        return;
    }
    d = &si->dimms[si->ndimms++];
    memset(d, 0, sizeof(*d));
    get_str(si, s, 0x10, d->locator, sizeof(d->locator));
    get_str(si, s, 0x11, d->bank, sizeof(d->bank));
    decode_size(s, d);
    d->type_code = get8(s, 0x12);
    bm_strlcpy(d->mem_type, smbios_memory_type_name(d->type_code), sizeof(d->mem_type));
    d->speed_mts = decode_speed(s, 0x15, 0x54);
    /* Configured Memory Speed (2.7+; "Configured Memory Clock Speed"
     * before 3.1, in MT/s on most firmware despite the old name). */
    d->configured_mts = decode_speed(s, 0x20, 0x58);
    /* 2.7-3.0 defined it as a clock in MHz, and some firmware wrote the
     * clock (half the MT/s): dimm_summarize() does not call that slow. */
    d->configured_may_be_clock = si->major < 3 || (si->major == 3 && si->minor < 1);
    get_str(si, s, 0x17, d->manufacturer, sizeof(d->manufacturer));
    get_str(si, s, 0x18, d->serial, sizeof(d->serial));
    get_str(si, s, 0x1a, d->part, sizeof(d->part));
    d->ranks = get8(s, 0x1b) & 0x0f; /* Attributes bits 3:0, 0 = unknown (2.6+) */
}

/* Route a structure to the parser of its type. */
static void dispatch(struct smbios_info *si, const struct smb_struct *s)
{
    switch (s->type) {
    case SMBIOS_TYPE_BIOS:
        get_str(si, s, 0x04, si->bios_vendor, sizeof(si->bios_vendor));
        get_str(si, s, 0x05, si->bios_version, sizeof(si->bios_version));
        get_str(si, s, 0x08, si->bios_date, sizeof(si->bios_date));
        break;
    case SMBIOS_TYPE_SYSTEM:
        get_str(si, s, 0x04, si->sys_manufacturer, sizeof(si->sys_manufacturer));
        get_str(si, s, 0x05, si->sys_product, sizeof(si->sys_product));
        get_str(si, s, 0x06, si->sys_version, sizeof(si->sys_version));
        get_str(si, s, 0x07, si->sys_serial, sizeof(si->sys_serial));
        decode_uuid(s, si->major, si->minor, si->sys_uuid, sizeof(si->sys_uuid));
        break;
    case SMBIOS_TYPE_BASEBOARD:
        /* A multi-board system has several; the first is the main board. */
        if (si->board_manufacturer[0] || si->board_product[0])
            break;
        get_str(si, s, 0x04, si->board_manufacturer, sizeof(si->board_manufacturer));
        get_str(si, s, 0x05, si->board_product, sizeof(si->board_product));
        get_str(si, s, 0x07, si->board_serial, sizeof(si->board_serial));
        break;
    case SMBIOS_TYPE_PROCESSOR:
        parse_processor(si, s);
        break;
    case SMBIOS_TYPE_MEMORY_DEVICE:
        parse_memory_device(si, s);
        break;
    default:
        break;
    }
}

/* Walk the structure table. */
int smbios_parse(const void *table, size_t len, int major, int minor, struct smbios_info *out)
{
    const uint8_t *t = table;
    size_t off = 0;

    memset(out, 0, sizeof(*out));
    out->major = major;
    out->minor = minor;
    if (!t || len == 0) {
        problem(out, "no SMBIOS table");
        return BM_EINVAL;
    }
    /* Section 6.1.2: each structure is a 4-byte header (type, length,
     * handle), the formatted area (length bytes, header included), then
     * the string set. Type 127 ends the table; the 3.x entry point gives
     * only a maximum size, so the end structure is what counts. */
    while (off + 4 <= len) {
        struct smb_struct s;
        size_t end;

        s.p = t + off;
        s.type = t[off];
        s.len = t[off + 1];
        s.handle = (uint16_t)(t[off + 2] | t[off + 3] << 8);
        s.offset = off;
        if (s.len < 4) {
            problem(out, "structure at offset %zu (type %u) has length %u, less than its 4-byte header", off, s.type,
                    s.len);
            break;
        }
        if (off + s.len > len) {
            problem(out, "structure at offset %zu (type %u, length %u) runs past the table end (%zu bytes)", off,
                    s.type, s.len, len);
            break;
        }
        /* The string set ends at the first double NUL at or after the
         * formatted area ("\0\0" right away when there are no strings). */
        s.strings = t + off + s.len;
        for (end = off + s.len; end + 1 < len; end++)
            if (t[end] == 0 && t[end + 1] == 0)
                break;
        if (end + 1 >= len) {
            problem(out, "strings of the type %u structure at offset %zu are not terminated before the table end",
                    s.type, off);
            s.strings_len = len - (off + s.len);
            dispatch(out, &s); /* what it says before the cut is still usable */
            out->structures++;
            break;
        }
        s.strings_len = end - (off + s.len);
        out->structures++;
        if (s.type == SMBIOS_TYPE_END) {
            out->saw_end = true;
            break;
        }
        dispatch(out, &s);
        off = end + 2;
    }
    if (!out->saw_end && !out->problems)
        problem(out, "the table ends after %u structures without an end-of-table structure", out->structures);
    return out->problems ? BM_EINVAL : BM_OK;
}
