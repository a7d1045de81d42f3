/* Arm PrimeCell UART (PL011) registers, ARM DDI 0183G (PL011 Technical
 * Reference Manual) section 3.2, and the subset the SBSA Generic UART keeps
 * (Arm SBSA, appendix B "Generic UART": UARTDR, UARTFR, and no line
 * control). Every register is 32 bits wide, on a 4-byte stride. */
#ifndef BAREMARK_PL011_REGS_H
#define BAREMARK_PL011_REGS_H

#define PL011_DR 0x000      /* data register: a write queues one byte */
#define PL011_FR 0x018      /* flag register (3.3.3) */
#define PL011_IBRD 0x024    /* integer baud rate divisor */
#define PL011_FBRD 0x028    /* fractional baud rate divisor */
#define PL011_LCR_H 0x02c   /* line control (3.3.7) */
#define PL011_CR 0x030      /* control register (3.3.8) */
#define PL011_IMSC 0x038    /* interrupt mask set/clear */
#define PL011_PERIPHID0 0xfe0
#define PL011_CELLID0 0xff0 /* PrimeCell ID: 0x0d, 0xf0, 0x05, 0xb1 at 0xff0..0xffc */

#define PL011_FR_BUSY (1u << 3)
#define PL011_FR_RXFE (1u << 4)
#define PL011_FR_TXFF (1u << 5) /* transmit FIFO full (or holding register full, FIFO off) */
#define PL011_FR_TXFE (1u << 7)

#define PL011_LCR_H_FEN (1u << 4)
#define PL011_LCR_H_WLEN_8 (3u << 5)

#define PL011_CR_UARTEN (1u << 0)
#define PL011_CR_TXE (1u << 8)
#define PL011_CR_RXE (1u << 9)

#endif
