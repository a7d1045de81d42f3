/* SPCR parser. Which tables and widths are accepted follows Linux
 * drivers/acpi/spcr.c acpi_parse_spcr(); where it differs, the comment
 * says why. */
#include "spcr.h"

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static const char *type_name(uint8_t type)
{
    switch (type) {
    case 0x03: return "ARM PL011";
    case 0x0d: return "ARM SBSA 32-bit";
    case 0x0e: return "ARM SBSA generic";
    case 0x0f: return "ARM DCC";
    case 0x10: return "BCM2835";
    case 0x14: return "Intel LPSS";
    default: return "an unknown type";
    }
}

/* The baud rate code (SPCR "Configured Baud Rate"), as Linux maps it;
 * 0 is "as is": the firmware configured the UART and its rate stays. */
static uint32_t baud_from_code(uint8_t code)
{
    switch (code) {
    case 3: return 9600;
    case 4: return 19200;
    case 6: return 57600;
    case 7: return 115200;
    default: return 0;
    }
}

int spcr_parse(const void *table, size_t len, struct plat_uart *u, char *why, size_t whylen)
{
    const uint8_t *t = table;
    uint8_t type, space, bit_width, access;
    uint64_t addr;
    uint32_t tlen;

    memset(u, 0, sizeof(*u));
    if (!t || len < 8 || memcmp(t, "SPCR", 4)) {
        snprintf(why, whylen, "not an SPCR table");
        return BM_EINVAL;
    }
    tlen = le32(t + 4);
    if (tlen < len)
        len = tlen;
    if (len < SPCR_MIN_LENGTH) {
        snprintf(why, whylen, "SPCR table truncated (%u bytes, its fields need %u)", (unsigned)len,
                 SPCR_MIN_LENGTH);
        return BM_EINVAL;
    }
    type = t[SPCR_OFF_INTERFACE_TYPE];
    space = t[SPCR_OFF_BASE_ADDRESS];
    bit_width = t[SPCR_OFF_BASE_ADDRESS + 1];
    access = t[SPCR_OFF_BASE_ADDRESS + 3];
    addr = le64(t + SPCR_OFF_BASE_ADDRESS + 4);

    /* Many servers ship the table with console redirection switched off in
     * setup: the address is then all zero. Linux would hand earlycon
     * address 0; we take it as naming no port. */
    if (addr == 0) {
        snprintf(why, whylen, "SPCR names no port (address 0: console redirection is off)");
        return BM_ENODEV;
    }
    switch (type) {
    case SPCR_TYPE_16550:
    case SPCR_TYPE_16550_SUBSET:
    case SPCR_TYPE_16550_NVIDIA:
    case SPCR_TYPE_16550_GAS:
        break;
    case SPCR_TYPE_PL011:
    case SPCR_TYPE_SBSA_32BIT:
    case SPCR_TYPE_SBSA:
        /* Linux acpi_parse_spcr() hands these to its pl011 earlycon. Their
         * registers are 32 bits on a 4-byte stride whatever the access size
         * says (PL011 TRM 3.2; SBSA Generic UART: 32-bit accesses, which
         * Linux makes "mmio32" for type 0x0D), and only memory mapped. */
        if (space != GAS_SPACE_SYSTEM_MEMORY) {
            snprintf(why, whylen, "SPCR names %s UART in address space %u, not memory", type_name(type), space);
            return BM_ENOTSUP;
        }
        if (addr % 4) {
            snprintf(why, whylen, "SPCR names %s UART at MMIO 0x%llx, not aligned to its 32-bit registers",
                     type_name(type), (unsigned long long)addr);
            return BM_ENOTSUP;
        }
        u->space = PLAT_UART_MMIO;
        u->reg_bytes = 4;
        u->base = addr;
        u->kind = type == SPCR_TYPE_PL011 ? PLAT_UART_PL011 : PLAT_UART_SBSA;
        /* The rate stays as the firmware set it (the table does not give
         * the UART's input clock, without which no divisor can be right). */
        u->baud = 0;
        snprintf(why, whylen, "SPCR names %s UART at MMIO 0x%llx", type_name(type), (unsigned long long)addr);
        return BM_OK;
    default:
        snprintf(why, whylen, "SPCR names %s UART (interface type 0x%02x), not a 16550, PL011 or SBSA UART",
                 type_name(type), type);
        return BM_ENOTSUP;
    }

    if (space == GAS_SPACE_SYSTEM_IO) {
        if (addr > 0xfff8) {
            snprintf(why, whylen, "SPCR names I/O port 0x%llx, beyond the 64K port space", (unsigned long long)addr);
            return BM_ENOTSUP;
        }
        u->space = PLAT_UART_IO;
        u->reg_bytes = 1;
    } else if (space == GAS_SPACE_SYSTEM_MEMORY) {
        u->space = PLAT_UART_MMIO;
        switch (access) {
        case GAS_ACCESS_BYTE:
            u->reg_bytes = 1;
            break;
        case GAS_ACCESS_DWORD:
            u->reg_bytes = 4;
            break;
        case GAS_ACCESS_WORD:
        case GAS_ACCESS_QWORD:
            snprintf(why, whylen, "SPCR names a 16550 at 0x%llx with %u-bit register access, which baremark does not drive",
                     (unsigned long long)addr, access == GAS_ACCESS_WORD ? 16u : 64u);
            return BM_ENOTSUP;
        default:
            /* Access size undefined (legacy tables) or out of range: Linux
             * falls back to bytes; a register bit width of 32 says the
             * registers are dwords, so take that when the table gives it. */
            u->reg_bytes = bit_width == 32 ? 4 : 1;
            break;
        }
        if (addr % u->reg_bytes) {
            snprintf(why, whylen, "SPCR names MMIO 0x%llx, not aligned to its %u-byte registers",
                     (unsigned long long)addr, u->reg_bytes);
            return BM_ENOTSUP;
        }
    } else {
        snprintf(why, whylen, "SPCR names a 16550 in address space %u (neither memory nor I/O)", space);
        return BM_ENOTSUP;
    }
    u->base = addr;
    u->baud = baud_from_code(t[SPCR_OFF_BAUD_RATE]);
    /* Revision 4: a non-zero Precise Baud Rate overrides the code, as in
     * Linux; the UART driver keeps the firmware's rate if it is not one it
     * can program. */
    if (t[8] >= 4 && len >= SPCR_OFF_PRECISE_BAUD + 4 && le32(t + SPCR_OFF_PRECISE_BAUD))
        u->baud = le32(t + SPCR_OFF_PRECISE_BAUD);

    if (u->space == PLAT_UART_IO)
        snprintf(why, whylen, "SPCR names a 16550 at I/O port 0x%llx", (unsigned long long)addr);
    else
        snprintf(why, whylen, "SPCR names a 16550 at MMIO 0x%llx with %u-bit registers", (unsigned long long)addr,
                 u->reg_bytes * 8u);
    return BM_OK;
}
