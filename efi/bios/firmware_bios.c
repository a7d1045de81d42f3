/* Firmware tables on a BIOS PC, found by their entry-point scans: the ACPI
 * RSDP in the EBDA's first KiB or 0xE0000-0xFFFFF (ACPI 6.5 section
 * 5.2.5.1), the SMBIOS anchors in 0xF0000-0xFFFFF (DSP0134 section 5.2),
 * and the wall clock from the CMOS RTC. */
#include "bios_private.h"
#include "../fw/fw_private.h"

#define EBDA_SEG_PTR 0x40e            /* BIOS data area: EBDA segment, u16 */
#define RTC_INDEX 0x70
#define RTC_DATA 0x71
#define RTC_NMI_OFF 0x80              /* keep NMI masked as setup.S left it */

static const uint8_t *rsdp;
static const uint8_t *smbios_ep;

static uint8_t checksum(const uint8_t *p, size_t n)
{
    uint8_t s = 0;
    while (n--)
        s += *p++;
    return s;
}

/* A 16-byte aligned anchor in [lo, hi) whose first len bytes sum to 0. */
static const uint8_t *scan(uint64_t lo, uint64_t hi, const char *anchor, size_t len)
{
    size_t alen = strlen(anchor);
    for (uint64_t a = lo; a + len <= hi; a += 16) {
        const uint8_t *p = (const uint8_t *)(uintptr_t)a;
        if (!memcmp(p, anchor, alen) && !checksum(p, len))
            return p;
    }
    return NULL;
}

void bios_firmware_init(void)
{
    const volatile uint16_t *bda = (const volatile uint16_t *)EBDA_SEG_PTR;
    uint64_t ebda;

    /* The compiler takes a pointer into page 0 for a bug; it is the BDA. */
    __asm__("" : "+r"(bda));
    ebda = (uint64_t)*bda << 4;

    rsdp = NULL;
    if (ebda >= 0x80000 && ebda < 0xa0000)
        rsdp = scan(ebda, ebda + 1024, "RSD PTR ", 20);
    if (!rsdp)
        rsdp = scan(0xe0000, 0x100000, "RSD PTR ", 20);
    /* SMBIOS 3 first (64-bit table address), as Linux dmi_scan does. */
    smbios_ep = scan(0xf0000, 0x100000, "_SM3_", 0x18);
    if (!smbios_ep)
        smbios_ep = scan(0xf0000, 0x100000, "_SM_", 0x1f);
}

/* The tables under the RSDP the scan found, walked with every table's
 * length and checksum checked (efi/fw/acpi_fw.c). */
const void *plat_acpi_table(const char sig[4], unsigned instance)
{
    return fw_acpi_table(rsdp, sig, instance);
}

int plat_smbios_table(const void **table, size_t *len, int *major, int *minor)
{
    const uint8_t *ep = smbios_ep;

    if (!ep)
        return BM_ENODEV;
    if (!memcmp(ep, "_SM3_", 5)) {
        *major = ep[7];
        *minor = ep[8];
        *len = *(const uint32_t *)(ep + 0x0c);
        *table = (const void *)(uintptr_t) * (const uint64_t *)(ep + 0x10);
    } else {
        *major = ep[6];
        *minor = ep[7];
        *len = *(const uint16_t *)(ep + 0x16);
        *table = (const void *)(uintptr_t) * (const uint32_t *)(ep + 0x18);
    }
    return BM_OK;
}

/* SMBIOS type 0 (BIOS information): vendor (string at offset 4) and
 * version (offset 5), as the UEFI build names FirmwareVendor. */
void plat_firmware_info(char *buf, size_t len)
{
    const uint8_t *t;
    size_t tlen;
    int maj, min;
    const char *strs[2] = { "unknown", "" };

    if (plat_smbios_table((const void **)&t, &tlen, &maj, &min) == BM_OK && tlen > 6 && t[0] == 0 &&
        t[1] >= 6 && t[1] < tlen) {
        const char *s = (const char *)t + t[1];
        const char *end = (const char *)t + tlen;
        for (unsigned i = 1; s < end && *s; i++) {
            if (i == t[4])
                strs[0] = s;
            if (i == t[5])
                strs[1] = s;
            s += strnlen(s, (size_t)(end - s)) + 1;
        }
    }
    snprintf(buf, len, "%s %s (legacy BIOS)", strs[0], strs[1]);
}

static uint8_t rtc_read(uint8_t reg)
{
    plat_outb(RTC_INDEX, RTC_NMI_OFF | reg);
    return plat_inb(RTC_DATA);
}

static unsigned bcd(uint8_t v, bool binary) { return binary ? v : (v >> 4) * 10 + (v & 15); }

/* The MC146818 RTC: wait (bounded) while an update is in progress (status
 * A bit 7), read; status B bit 2 says binary, bit 1 24-hour. Local time of
 * an unknown zone, so no offset, as the UEFI build does for TimeZone 0x7ff. */
void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    unsigned y, mo, d, h, mi, s;
    uint8_t b, hr;
    bool bin;

    for (unsigned spin = 0; spin < 1000000 && (rtc_read(0x0a) & 0x80); spin++)
        ;
    b = rtc_read(0x0b);
    bin = b & 0x04;
    s = bcd(rtc_read(0x00), bin);
    mi = bcd(rtc_read(0x02), bin);
    hr = rtc_read(0x04);
    h = bcd(hr & 0x7f, bin);
    if (!(b & 0x02) && (hr & 0x80))
        h = (h % 12) + 12;
    d = bcd(rtc_read(0x07), bin);
    mo = bcd(rtc_read(0x08), bin);
    y = 2000 + bcd(rtc_read(0x09), bin);
    snprintf(iso, iso_len, "%04u-%02u-%02uT%02u:%02u:%02u", y, mo, d, h, mi, s);
    snprintf(compact, compact_len, "%04u%02u%02u-%02u%02u%02u", y, mo, d, h, mi, s);
}

/* A legacy BIOS verifies nothing it boots. */
const char *plat_secure_boot(void) { return "off"; }
