/* The firmware's tables (ACPI, SMBIOS), its identity and the real-time clock. */
#include "uefi_private.h"
#include "../fw/fw_private.h"

/* An entry of the system table's configuration table, by GUID. */
static void *config_table(EFI_GUID *guid)
{
    for (UINTN i = 0; i < bm_st->NumberOfTableEntries; i++)
        if (!CompareMem(&bm_st->ConfigurationTable[i].VendorGuid, guid, sizeof(EFI_GUID)))
            return bm_st->ConfigurationTable[i].VendorTable;
    return NULL;
}

/* The RSDP of the configuration table (ACPI 2.0 GUID), walked with every
 * table's length and checksum checked (efi/fw/acpi_fw.c). */
const void *plat_acpi_table(const char sig[4], unsigned instance)
{
    EFI_GUID acpi20 = ACPI_20_TABLE_GUID;

    return fw_acpi_table(config_table(&acpi20), sig, instance);
}

int plat_smbios_table(const void **table, size_t *len, int *major, int *minor)
{
    EFI_GUID g3 = SMBIOS3_TABLE_GUID, g2 = SMBIOS_TABLE_GUID;
    const uint8_t *ep;

    /* SMBIOS 3.3 section 5.2: "_SM3_" 64-bit entry point, "_SM_" 32-bit. */
    ep = config_table(&g3);
    if (ep && !memcmp(ep, "_SM3_", 5)) {
        *major = ep[7];
        *minor = ep[8];
        *len = *(const uint32_t *)(ep + 0x0c);
        *table = (const void *)(uintptr_t) * (const uint64_t *)(ep + 0x10);
        return BM_OK;
    }
    ep = config_table(&g2);
    if (ep && !memcmp(ep, "_SM_", 4)) {
        *major = ep[6];
        *minor = ep[7];
        *len = *(const uint16_t *)(ep + 0x16);
        *table = (const void *)(uintptr_t) * (const uint32_t *)(ep + 0x18);
        return BM_OK;
    }
    return BM_ENODEV;
}

void plat_firmware_info(char *buf, size_t len)
{
    char vendor[64];
    uefi_ucs2_to_ascii(vendor, sizeof(vendor), bm_st->FirmwareVendor, 63);
    snprintf(buf, len, "%s 0x%08x (UEFI %u.%u)", vendor, bm_st->FirmwareRevision, bm_st->Hdr.Revision >> 16,
             (bm_st->Hdr.Revision & 0xffff) / 10);
}

/* One byte of an EFI global variable; -1 when it is absent or not one byte. */
static int global_flag(CHAR16 *name)
{
    EFI_GUID global = EFI_GLOBAL_VARIABLE;
    UINT8 v = 0;
    UINTN size = sizeof(v);
    UINT32 attr;

    if (uefi_call_wrapper(bm_st->RuntimeServices->GetVariable, 5, name, &global, &attr, &size, &v) != EFI_SUCCESS ||
        size != 1)
        return -1;
    return v;
}

const char *plat_secure_boot(void)
{
    return secure_boot_state(global_flag(L"SecureBoot"), global_flag(L"SetupMode"));
}

void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len)
{
    EFI_TIME t;

    memset(&t, 0, sizeof(t));
    if (uefi_call_wrapper(bm_st->RuntimeServices->GetTime, 2, &t, NULL) != EFI_SUCCESS) {
        t.Year = 1970;
        t.Month = 1;
        t.Day = 1;
    }
    /* The RTC usually keeps local time with an unspecified zone
     * (TimeZone 0x7ff); we say so by leaving the offset off. */
    if (t.TimeZone == EFI_UNSPECIFIED_TIMEZONE)
        snprintf(iso, iso_len, "%04u-%02u-%02uT%02u:%02u:%02u", t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second);
    else
        snprintf(iso, iso_len, "%04u-%02u-%02uT%02u:%02u:%02u%c%02d:%02d", t.Year, t.Month, t.Day, t.Hour, t.Minute,
                 t.Second, t.TimeZone <= 0 ? '+' : '-', (t.TimeZone < 0 ? -t.TimeZone : t.TimeZone) / 60,
                 (t.TimeZone < 0 ? -t.TimeZone : t.TimeZone) % 60);
    snprintf(compact, compact_len, "%04u%02u%02u-%02u%02u%02u", t.Year, t.Month, t.Day, t.Hour, t.Minute, t.Second);
}
