/* Polled PL011 / SBSA Generic UART output (pl011.h). */
#include "pl011.h"
#include "pl011_regs.h"

static volatile void *base_of(const struct plat_uart *u) { return (volatile void *)(uintptr_t)u->base; }

/* The PrimeCell component ID every PL011 carries at 0xff0-0xffc (TRM
 * 3.3.17): the proof that the address holds a PrimeCell, not RAM or
 * nothing. The SBSA Generic UART need not have it. */
static bool primecell_id_ok(volatile void *b)
{
    static const uint8_t id[4] = { 0x0d, 0xf0, 0x05, 0xb1 };

    for (unsigned i = 0; i < 4; i++)
        if ((mmio_read32(b, PL011_CELLID0 + 4 * i) & 0xff) != id[i])
            return false;
    return true;
}

int pl011_init(const struct plat_uart *u)
{
    volatile void *b = base_of(u);
    uint32_t cr;

    if (u->space != PLAT_UART_MMIO || !u->base || u->base % 4 || u->reg_bytes != 4)
        return BM_EINVAL;
    /* A floating bus reads all ones; no UART has every flag set at once
     * (TXFF and TXFE together). */
    if (mmio_read32(b, PL011_FR) == 0xffffffffu)
        return BM_ENODEV;
    if (u->kind != PLAT_UART_PL011)
        return BM_OK; /* SBSA Generic UART: no control register to look at */
    if (!primecell_id_ok(b))
        return BM_ENODEV;
    /* The firmware's console runs on it, so it is normally on; if the
     * transmitter was left off, bytes would sit in the FIFO forever. Only
     * UARTEN and TXE are added: rate, format and FIFO stay (Linux earlycon
     * programs nothing either). */
    cr = mmio_read32(b, PL011_CR);
    if ((cr & (PL011_CR_UARTEN | PL011_CR_TXE)) != (PL011_CR_UARTEN | PL011_CR_TXE))
        mmio_write32(b, PL011_CR, cr | PL011_CR_UARTEN | PL011_CR_TXE);
    return BM_OK;
}

void pl011_write(const struct plat_uart *u, const char *data, size_t len)
{
    volatile void *b = base_of(u);

    for (size_t i = 0; i < len; i++) {
        /* As uart16550.c: 10 ms for room in the FIFO, else the UART is
         * stuck (flow control held off) and the rest is dropped. */
        uint64_t deadline = plat_now_ns() + 10000000ull;
        while (mmio_read32(b, PL011_FR) & PL011_FR_TXFF)
            if (plat_now_ns() > deadline)
                return;
        mmio_write32(b, PL011_DR, (uint8_t)data[i]);
    }
}
