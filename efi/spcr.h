/* ACPI SPCR (Serial Port Console Redirection) table: which UART the
 * firmware's console redirection uses, as Windows and Linux read it. */
#ifndef BAREMARK_SPCR_H
#define BAREMARK_SPCR_H

#include "platform.h"

/* Table layout (Microsoft SPCR specification, revisions 1-4; offsets
 * from the start of the table, header included). */
#define SPCR_OFF_INTERFACE_TYPE 36
#define SPCR_OFF_BASE_ADDRESS 40   /* ACPI Generic Address Structure, 12 bytes */
#define SPCR_OFF_BAUD_RATE 58
#define SPCR_OFF_PRECISE_BAUD 81   /* revision 4: a rate in bits/s that overrides the code */
#define SPCR_MIN_LENGTH 59         /* through the baud rate code: what the parser reads */

/* Generic Address Structure (ACPI 6.5 section 5.2.3.2). */
#define GAS_SPACE_SYSTEM_MEMORY 0
#define GAS_SPACE_SYSTEM_IO 1
#define GAS_ACCESS_UNDEFINED 0
#define GAS_ACCESS_BYTE 1
#define GAS_ACCESS_WORD 2
#define GAS_ACCESS_DWORD 3
#define GAS_ACCESS_QWORD 4

/* Interface types (the DBG2 serial subtypes). The 16550-compatible ones,
 * those Linux acpi_parse_spcr() hands to its 8250 driver: */
#define SPCR_TYPE_16550 0x00          /* fully 16550-compatible */
#define SPCR_TYPE_16550_SUBSET 0x01   /* 16550 subset (16450) compatible with DBGP rev 1 */
#define SPCR_TYPE_16550_NVIDIA 0x05   /* NVIDIA 16550 */
#define SPCR_TYPE_16550_GAS 0x12      /* 16550-compatible, parameters in the GAS */
/* The Arm ones, those Linux hands to its pl011 earlycon: */
#define SPCR_TYPE_PL011 0x03          /* ARM PL011 */
#define SPCR_TYPE_SBSA_32BIT 0x0d     /* ARM SBSA Generic UART, 32-bit accesses only (the SBSA 2.x name) */
#define SPCR_TYPE_SBSA 0x0e           /* ARM SBSA Generic UART */

/* The UART an SPCR table names, into u (baud 0 when the table says "as
 * is", or gives a code it does not define). len: the bytes readable at
 * table (the header's own length is honoured when shorter). why gets one
 * sentence either way: what the table names, or why it names nothing
 * usable.
 * Returns BM_OK; BM_ENODEV when the address is all zero (console
 * redirection off); BM_ENOTSUP when the port is not a 16550, PL011 or SBSA
 * UART, or not one we can reach (16- or 64-bit 16550 registers, an address
 * space other than memory or I/O, a PL011 not in memory); BM_EINVAL for a table that is not SPCR or is truncated. */
int spcr_parse(const void *table, size_t len, struct plat_uart *u, char *why, size_t whylen);

#endif
