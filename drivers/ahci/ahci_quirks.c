/* AHCI host and ATA drive quirks (see ahci_quirks.h). */
#include "ahci_quirks.h"
#include "../../efi/platform.h"

/* Linux ahci_pci_tbl: the boards whose ahci_port_info carries the flags
 * above (board_ahci_sb600, board_ahci_mv, board_ahci_vt8251). The SB600's
 * 32-bit limit is lifted by Linux only on DMI-listed boards whose BIOS is
 * known good (ahci_sb600_enable_64bit()); we keep it everywhere. */
static const struct {
    uint16_t vendor, device;
    uint32_t quirks;
} ahci_host_table[] = {
    { 0x1002, 0x4380, AHCI_HQUIRK_32BIT_ONLY | AHCI_HQUIRK_SECT255 }, /* ATI SB600 */
    { 0x11ab, 0x6121, AHCI_HQUIRK_NO_NCQ },                           /* Marvell 88SE6121 */
    { 0x11ab, 0x6145, AHCI_HQUIRK_NO_NCQ },                           /* Marvell 88SE6145 */
    { 0x1106, 0x3349, AHCI_HQUIRK_NO_NCQ },                           /* VIA VT8251 */
    { 0x1106, 0x6287, AHCI_HQUIRK_NO_NCQ },                           /* VIA VT8251 */
};

uint32_t ahci_host_quirks(uint16_t vendor, uint16_t device)
{
    for (size_t i = 0; i < ARRAY_SIZE(ahci_host_table); i++)
        if (ahci_host_table[i].vendor == vendor && ahci_host_table[i].device == device)
            return ahci_host_table[i].quirks;
    return 0;
}

/* The entries of Linux __ata_dev_quirks that change how fast or how much
 * a benchmark may read: NCQ off, a transfer limit. ATAPI-only entries are
 * left out (baremark skips ATAPI devices), and so are those that only
 * concern trim, LPM, FUA or HPA; none of them comes before an entry here
 * that the same drive would match, so the first match is Linux's. */
static const struct {
    const char *model, *firmware; /* firmware NULL: any */
    uint32_t quirks;
} ata_dev_table[] = {
    /* Causes silent data corruption with higher max sects. */
    { "ST380013AS", "3.20", ATA_DQUIRK_MAX_SEC_1024 },
    /* These devices time out with higher max sects. */
    { "LITEON CX1-JB*-HP", NULL, ATA_DQUIRK_MAX_SEC_1024 },
    { "LITEON EP1-*", NULL, ATA_DQUIRK_MAX_SEC_1024 },
    /* NCQ is slow */
    { "WDC WD740ADFD-00", NULL, ATA_DQUIRK_NONCQ },
    { "WDC WD740ADFD-00NLR1", NULL, ATA_DQUIRK_NONCQ },
    { "FUJITSU MHT2060BH", NULL, ATA_DQUIRK_NONCQ },
    /* NCQ is broken */
    { "Maxtor *", "BANC*", ATA_DQUIRK_NONCQ },
    { "Maxtor 7V300F0", "VA111630", ATA_DQUIRK_NONCQ },
    { "ST380817AS", "3.42", ATA_DQUIRK_NONCQ },
    { "ST3160023AS", "3.42", ATA_DQUIRK_NONCQ },
    { "OCZ CORE_SSD", "02.10104", ATA_DQUIRK_NONCQ },
    /* Seagate NCQ + FLUSH CACHE firmware bug */
    { "ST31500341AS", "SD1[5-9]", ATA_DQUIRK_NONCQ },
    { "ST31000333AS", "SD1[5-9]", ATA_DQUIRK_NONCQ },
    { "ST3640[36]23AS", "SD1[5-9]", ATA_DQUIRK_NONCQ },
    { "ST3320[68]13AS", "SD1[5-9]", ATA_DQUIRK_NONCQ },
    /* Silicon Image 3124/3132 Windows driver .inf entries */
    { "HTS541060G9SA00", "MB3OC60D", ATA_DQUIRK_NONCQ },
    { "HTS541080G9SA00", "MB4OC60D", ATA_DQUIRK_NONCQ },
    { "HTS541010G9SA00", "MBZOC60D", ATA_DQUIRK_NONCQ },
    { "C300-CTFDDAC128MAG", "0001", ATA_DQUIRK_NONCQ },
    /* Samsung 860/870 and PM883: NCQ errors on ATI hosts. (SanDisk SD7/8/9
     * carry only a trim limit in Linux since it replaced their NCQ entry
     * with ATA_QUIRK_MAX_TRIM_128M: their NCQ is used.) */
    { "Samsung SSD 860*", NULL, ATA_DQUIRK_NO_NCQ_ON_ATI },
    { "Samsung SSD 870*", NULL, ATA_DQUIRK_NO_NCQ_ON_ATI },
    { "SAMSUNG*MZ7LH*", NULL, ATA_DQUIRK_NO_NCQ_ON_ATI },
};

uint32_t ata_dev_quirks(const char *model, const char *firmware)
{
    /* The first entry whose model matches decides, as in Linux. */
    for (size_t i = 0; i < ARRAY_SIZE(ata_dev_table); i++) {
        if (!ata_glob_match(ata_dev_table[i].model, model))
            continue;
        if (!ata_dev_table[i].firmware || ata_glob_match(ata_dev_table[i].firmware, firmware))
            return ata_dev_table[i].quirks;
    }
    return 0;
}

/* One '[...]' class at *pp against c; *pp moves past it. A class without
 * its ']' matches the '[' literally (Linux glob_match() does the same). */
static bool class_match(const char **pp, char c)
{
    const char *p = *pp + 1;
    bool negate = *p == '!' || *p == '^', hit = false;

    if (negate)
        p++;
    /* A ']' first in the class is a member, not its end. */
    for (const char *start = p; *p && (*p != ']' || p == start); p++) {
        char lo = *p, hi = *p;
        if (p[1] == '-' && p[2] && p[2] != ']') {
            hi = p[2];
            p += 2;
        }
        if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
            hit = true;
    }
    if (*p != ']')
        return c == '['; /* unterminated: a literal '[' (pp stays: caller moves one on) */
    *pp = p;
    return hit != negate;
}

bool ata_glob_match(const char *pat, const char *str)
{
    /* Iterative, one backtrack point (the last '*'), as lib/glob.c: no
     * recursion, linear in practice. */
    const char *back_pat = NULL, *back_str = NULL;

    for (;;) {
        char c = *str, d = *pat;

        if (d == '*') {
            back_pat = ++pat;
            back_str = str;
            continue;
        }
        if (c && d == '?') {
            str++, pat++;
            continue;
        }
        if (c && d == '[') {
            const char *p = pat;
            if (class_match(&p, c)) {
                pat = p + 1;
                str++;
                continue;
            }
        } else if (c && c == d) {
            str++, pat++;
            continue;
        } else if (!c && !d) {
            return true;
        }
        if (!back_pat || !*back_str)
            return false;
        pat = back_pat;
        str = ++back_str;
    }
}
