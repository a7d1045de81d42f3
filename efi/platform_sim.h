/* Simulated PCI functions for the host build's driver tests.
 *
 * A test attaches a device model at a PCI address. From then on the host
 * platform answers config space reads and writes from the model's config
 * array, lets plat_pci_claim() succeed, and maps each BAR the model sizes
 * to a window of host memory whose 32-bit accesses (mmio_read32 and
 * mmio_write32) are handed to the model's callbacks. Host memory is the
 * "physical" memory the driver programs (plat_virt_to_phys is the
 * identity on the host), so a model reads the driver's queues and frames
 * and writes its replies straight into them, synchronously inside the
 * register write that rang its doorbell.
 *
 * Host build only; the firmware build has no such thing.
 */
#ifndef BAREMARK_PLATFORM_SIM_H
#define BAREMARK_PLATFORM_SIM_H

#include "platform.h"

#define PLAT_SIM_BARS 6

/* How many simulated functions are attached (0: the host's own PCI). */
extern int plat_sim_devices;

struct plat_sim_dev {
    struct pci_addr addr;
    uint8_t config[4096];                   /* config space as the driver sees it */
    uint64_t bar_size[PLAT_SIM_BARS];       /* 0: no MMIO window for that BAR */
    void *ctx;                              /* the model's state */
    uint32_t (*mmio_read32)(void *ctx, int bar, uint32_t off);
    void (*mmio_write32)(void *ctx, int bar, uint32_t off, uint32_t v);
    /* Optional: told of every config write after it is stored. */
    void (*config_written)(void *ctx, uint16_t off, unsigned bytes);
    /* Optional: told of every config read before it is answered from
     * config[], so a model can change what the read returns (a status
     * register that moves on each poll). */
    void (*config_read)(void *ctx, uint16_t off, unsigned bytes);
    /* Optional: byte-wide accesses (mmio_read8/mmio_write8). A model
     * without them does not decode byte accesses: reads see 0xff, writes
     * are lost, as on a bus that only takes dword cycles. */
    uint8_t (*mmio_read8)(void *ctx, int bar, uint32_t off);
    void (*mmio_write8)(void *ctx, int bar, uint32_t off, uint8_t v);
    /* Optional: 8-byte writes (mmio_write64_whole). A model without it
     * gets them as two dword writes, low then high, as a bridge that
     * splits them would deliver them. */
    void (*mmio_write64)(void *ctx, int bar, uint32_t off, uint64_t v);

    /* Kept by the platform. */
    uint8_t *bar_window[PLAT_SIM_BARS];
    int claims, releases;
};

/* Make d visible at d->addr (config reads, claim, BAR mapping). */
void plat_sim_attach(struct plat_sim_dev *d);
/* Remove it again and free its BAR windows. */
void plat_sim_detach(struct plat_sim_dev *d);
/* A simulated block of I/O ports (plat_inb/plat_outb on the host build):
 * ports base..base+len-1 go to the model's callbacks. Ports no model
 * claims read 0xff and drop writes, as on a bus where nothing decodes. */
struct plat_sim_io {
    uint16_t base, len;
    void *ctx;
    uint8_t (*inb)(void *ctx, uint16_t off);
    void (*outb)(void *ctx, uint16_t off, uint8_t v);
};
void plat_sim_io_attach(struct plat_sim_io *io);
void plat_sim_io_detach(struct plat_sim_io *io);

/* Move plat_now_ns() forward: a model of a device that never answers
 * calls this from its register reads, so a driver's multi-second
 * deadlines pass in microseconds of test time. */
void plat_sim_advance_ns(uint64_t ns);
/* The host console as a screen: cols x rows cells that plat_screen_put
 * writes into (positioning false, or cols 0: plain text on stderr, the
 * default). Tests read the cells back. */
void plat_sim_screen(unsigned cols, unsigned rows, bool positioning);
/* Row row of the grid as UTF-8 (trailing blanks kept), and a cell's colour. */
void plat_sim_screen_row(unsigned row, char *buf, size_t cap);
enum plat_colour plat_sim_screen_colour(unsigned col, unsigned row);

/* Press (or release) Esc: plat_abort_requested() answers this. */
void plat_sim_set_abort(bool pressed);
/* Has the code asked plat_abort_requested() since Esc was pressed (has it
 * seen the key)? */
bool plat_sim_abort_seen(void);
/* Does a second UART (COM2) answer plat_serial_open_also()? Default no. */
void plat_sim_serial_also(bool answers);

#endif
