/* Which serial port the records go to, and why.
 *
 * serial=auto (the default) follows the firmware's console redirection,
 * since that is the port a BMC's Serial over LAN (IPMI SOL, iDRAC, iLO VSP)
 * captures: the ACPI SPCR table, else the 16550 in the UEFI console's
 * device path, else COM1. Each candidate is tried in turn; the first UART
 * that answers is used and the run record says which and why. Without a
 * usable SPCR, COM2 comes after COM1: the port iLO, iDRAC and Supermicro
 * Serial over LAN usually take on a server whose BIOS redirects nothing;
 * when COM1 answers, COM2 gets the records too if its scratch register
 * answers (plat_serial_open_also). */
#ifndef BAREMARK_SERIAL_PORT_H
#define BAREMARK_SERIAL_PORT_H

#include "config.h"
#include "json.h"

#define SERIAL_MAX_CANDIDATES 4
#define SERIAL_DETAIL_LEN 128

#define SERIAL_MAX_NOTES 6

/* Sources in order of preference. */
enum serial_source { SERIAL_SRC_OPTION, SERIAL_SRC_SPCR, SERIAL_SRC_CONSOLE, SERIAL_SRC_DEFAULT };

struct serial_candidate {
    struct plat_uart uart;
    enum serial_source source;
    char detail[SERIAL_DETAIL_LEN];   /* what named it */
};

struct serial_plan {
    bool off;                         /* serial=off */
    unsigned count;
    struct serial_candidate c[SERIAL_MAX_CANDIDATES];
    int chosen;                       /* index opened, -1 before or when none answered */
    int also;                         /* COM2 written as well as COM1 (index), -1: no */
    unsigned notes;                   /* why a source gave no usable port */
    struct {
        enum serial_source source;
        char text[SERIAL_DETAIL_LEN];
    } note[SERIAL_MAX_NOTES];
};

/* "option", "spcr", "console", "default". */
const char *serial_source_name(enum serial_source s);

/* The UART a UEFI console device path (ConOut: instances separated by
 * end-of-instance nodes) sends output to: the first instance whose UART
 * node hangs off an ACPI PNP0501/PNP0500 node: its I/O port from the
 * Super I/O protocol (plat_sio_io_port), else UID n as COM(n+1), as EDK2's
 * SioBusDxe numbers them. The baud is
 * the UART node's when it is a rate the 16550 driver programs, else 0.
 * desc names the nodes ("PNP0501 UID 1, Uart 115200"). BM_ENODEV when no
 * instance has one (a console on a PCI serial card or a firmware serial
 * library says where it is only to its own driver); BM_EINVAL for a
 * malformed path. */
int serial_console_path_uart(const void *path, size_t len, struct plat_uart *u, char *desc, size_t desc_len);

/* The candidates, best first. c: the options (NULL after bad options:
 * auto at the default baud); spcr: the SPCR table or NULL; conout /
 * conout_len: the console device path (conout_len <= 0: none). */
void serial_plan_build(struct serial_plan *p, const struct config *c, const void *spcr, const void *conout,
                       long conout_len);
/* Open the first candidate whose UART answers (plat_serial_open); when
 * that is the default COM1 and COM2 follows it, COM2 too if it answers
 * (plat_serial_open_also). Returns BM_OK, or BM_ENODEV when none did (or
 * serial=off). */
int serial_plan_open(struct serial_plan *p);
/* The port as the serial= option spells it: "0x2f8", "mmio:0xfe030000,32". */
void serial_port_name(const struct plat_uart *u, char *buf, size_t len);
/* The run record's "serial" object: port, source, baud (0: the rate the
 * firmware set, kept), detail, also (the second port written, COM2, when
 * it answered), and passed_over when a better source was not usable. */
void serial_plan_json(const struct serial_plan *p, struct json *j);
/* The same for people, appended to the run line: "\nrecords on serial
 * 0x2f8 (SPCR names ...)". */
void serial_plan_human(const struct serial_plan *p, char *buf, size_t len);

#endif
