/* The per-I/O CPU cost benchmark (make bench): the disk engine and the
 * real NVMe or AHCI driver against an instant controller (nvme_instant.h,
 * ahci_instant.h), on the host build, without QEMU.
 *
 * Three loops, each timed with the thread's CPU clock over many I/Os:
 *   full    engine_run() on a 4 KiB random-read job (the product's path);
 *   driver  the driver's submit/poll alone, driven by a minimal caller that
 *           resubmits each completed tag at once;
 *   model   the instant controller's own cost: a register write (an NVMe
 *           doorbell) and a register read through the host's simulated
 *           MMIO routing, and a command executed.
 * The model's share of a run is its per-write cost times the register
 * writes it counted, plus its per-read cost times the reads, plus its
 * per-command cost times the commands: that is subtracted, so "engine" is
 * full - driver and "driver" is driver - model, per I/O. The MMIO reads
 * and writes per I/O are printed too: on real hardware an uncached
 * register read costs far more than anything the model subtracts (AHCI's
 * completion is in registers, NVMe's in host memory). Figures on a loaded
 * machine scatter; take the best of a few. */
#ifndef BAREMARK_IOBENCH_H
#define BAREMARK_IOBENCH_H

#include "platform_sim.h"
#include "drivers/blkdev.h"
#include "nvme_instant.h"
#include "ahci_instant.h"

enum iobench_kind { IOBENCH_NVME, IOBENCH_AHCI };

struct iobench_row {
    uint32_t qd;
    bool hist;                /* the engine kept the latency histogram */
    uint64_t ios;             /* I/Os the full loop completed */
    double full_ns;           /* CPU ns per I/O, engine + driver, model subtracted */
    double engine_ns;         /* ...of which the engine */
    double driver_ns;         /* ...and the driver */
    double model_ns;          /* what was subtracted: the model's cost per I/O in the full loop */
    double sq_per_doorbell;   /* commands per doorbell write (NVMe SQ tail, AHCI PxCI) in the full loop */
    double reads_per_io;      /* MMIO register reads per I/O in the full loop */
    double writes_per_io;     /* MMIO register writes per I/O in the full loop */
};

struct iobench {
    enum iobench_kind kind;
    struct nvme_instant model;
    struct ahci_instant ahci;
    struct bm_disk *disk;
    void *ctrl;
    double doorbell_ns;       /* the model: one register (doorbell) write */
    double read_ns;           /* the model: one register read */
    double command_ns;        /* the model: one command executed */
};

/* Attach the instant NVMe controller and probe it with the real driver. */
int iobench_open(struct iobench *b, char *err, size_t errlen);
/* The same for a controller of kind kind. */
int iobench_open_kind(struct iobench *b, enum iobench_kind kind, char *err, size_t errlen);
void iobench_close(struct iobench *b);
/* Measure the model's own costs (doorbell_ns, read_ns, command_ns). */
void iobench_measure_model(struct iobench *b, uint64_t commands);
/* One row: QD qd, histogram on or off, the full loop run for measure_ns. */
int iobench_row(struct iobench *b, uint32_t qd, bool hist, uint64_t measure_ns, struct iobench_row *row);
/* The table header and one row, as make bench prints them. */
void iobench_print_header(FILE *f, const struct iobench *b);
void iobench_print_row(FILE *f, const struct iobench_row *r);

/* The surface scan against SEQ1M-Q8T1 on a disk that answers at once
 * (scanbench.c): CPU ns per I/O and the depth kept. false on a failure. */
bool scanbench_print(FILE *f, uint64_t ms);
/* The same on a bandwidth-bound model disk (a link of fixed MB/s and a
 * per-command latency, on the host's clock): both MB/s and their ratio. */
bool scanbench_link_print(FILE *f, uint64_t ms);

#endif
