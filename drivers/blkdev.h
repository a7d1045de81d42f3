/* The interface every storage driver exposes: a tagged queue, nothing more.
 *
 * A driver probes its controller, then registers one struct bm_disk per
 * namespace / port / logical drive / target. The benchmark engine drives
 * every disk the same way:
 *
 *     submit(disk, queue, tag, op, lba, blocks, buf)   -- non-blocking
 *     poll(disk, queue, completions, max)              -- reap what finished
 *
 * Tags are chosen by the caller, unique among commands in flight on that
 * queue, and below disk->max_qd. The driver never sleeps inside submit or
 * poll; it keeps its own per-command deadline and reports a timed-out command
 * as a completion with status BM_ETIMEDOUT. Buffers come from
 * plat_alloc_pages (physically contiguous, identity-mapped).
 *
 * Drivers know nothing of benchmarks; the engine knows nothing of registers.
 */
#ifndef BAREMARK_BLKDEV_H
#define BAREMARK_BLKDEV_H

#include "../efi/platform.h"

enum bm_io_op {
    BM_IO_READ = 0,
    BM_IO_WRITE = 1,
};

struct bm_completion {
    uint32_t tag;
    int status;           /* BM_OK or a negative BM_E* code */
    char detail[64];      /* decoded device status when status != BM_OK (no device name: the record says where) */
};

struct bm_disk;

/* One ATA SMART attribute (ATA/ATAPI-8 vendor-specific table, as every
 * vendor lays it out: id, flags, value, worst, 6 raw bytes). */
struct bm_health_attr {
    uint8_t id;
    uint8_t value, worst, threshold;
    uint64_t raw;
};

/* Drive health as the drive reports it: the NVMe SMART / Health Information
 * log (NVMe 1.4 section 5.14.1.2) or ATA SMART data. Fields a drive does not
 * report keep their "unknown" value (-1). */
struct bm_health {
    char source[16];          /* "nvme_smart_log", "ata_smart", "scsi_log", "sat_ata_smart" */
    int temperature_c;        /* composite / attribute 194; -1 unknown */
    int critical_warning;     /* NVMe bit field; -1 unknown */
    int percentage_used;      /* NVMe endurance estimate; -1 unknown */
    int64_t media_errors;     /* NVMe media and data integrity errors */
    int64_t power_on_hours;
    int64_t power_cycles;
    int64_t unsafe_shutdowns;
    int64_t data_read_bytes;  /* NVMe data units read x 512000 */
    int64_t data_written_bytes;
    int smart_passed;         /* ATA SMART RETURN STATUS: 1 ok, 0 threshold exceeded, -1 unknown */
    int64_t link_errors;      /* SAS phy error counters (LOG SENSE 18h), summed over the disk's phys */
    unsigned nattrs;
    struct bm_health_attr attrs[30];
};

/* The most member disks one logical drive's health step reads. */
#define BM_MAX_MEMBERS 64

/* A member disk of a RAID logical drive, as member_health() names it. */
struct bm_member {
    char name[16];            /* "pd4": the controller's name for it */
    int32_t device_id;        /* the controller's physical disk id; -1 unknown */
    char serial[48];          /* INQUIRY VPD 80h, "" when it gives none */
    char note[128];           /* why it (or the member list) was not read */
};

/* Set every field of a health report to "unknown". */
void bm_health_init(struct bm_health *h, const char *source);

struct bm_disk_ops {
    /* Queue one command. BM_EBUSY if the queue has no room (retry after
     * poll), BM_EINVAL for a bad argument, BM_EIO if the device is dead. */
    int (*submit)(struct bm_disk *d, unsigned queue, uint32_t tag, enum bm_io_op op,
                  uint64_t lba, uint32_t blocks, void *buf);
    /* Reap up to max completions; returns how many were written to out. */
    int (*poll)(struct bm_disk *d, unsigned queue, struct bm_completion *out, int max);
    /* Optional: tell the device about the commands submitted on queue
     * since the last flush (one doorbell write for a batch). A driver with
     * flush may hold submitted commands until flush() or the next poll()
     * of that queue; NULL: submit tells the device at once. */
    void (*flush)(struct bm_disk *d, unsigned queue);
    /* Optional: read the drive's health log. Called only with no I/O in
     * flight on the disk; blocks at most a few seconds (bounded waits). */
    int (*health)(struct bm_disk *d, struct bm_health *out);
    /* Optional, for a RAID logical drive: the health of its index-th
     * member disk, read through the controller's physical-disk
     * pass-through (read-only commands). who names the member (and, on a
     * failure, why). Index 0 reads the volume's member list afresh.
     * BM_ENODEV: no member at index (the end of the list); another error
     * with who->name "": the member list itself was not read (who->note
     * says why); with who->name set: that member was not read. Same
     * calling rules as health(). */
    int (*member_health)(struct bm_disk *d, unsigned index, struct bm_member *who, struct bm_health *out);
    /* Optional: what the driver is doing to get commands back that are
     * late ("TARGET RESET for slot 3, 1200 ms so far"; after one ended
     * "last recovery: ABORT TASK, 12 ms (step 3 ms)"), "" when nothing
     * ran. Never blocks; the engine puts it in the record of a disk that
     * stalls. */
    void (*recovery)(struct bm_disk *d, char *out, size_t len);
};

/* Which path drives the disk. */
#define BM_PATH_NATIVE "native"
#define BM_PATH_FIRMWARE "firmware"

struct bm_disk {
    char id[24];          /* "nvme0n1", "ahci0p2", "megasas0d1", "fw0" */
    char driver[16];      /* "nvme", "ahci", "megasas", "mpt", "blockio", "blockio2", "scsi_passthru" */
    const char *path;     /* BM_PATH_NATIVE or BM_PATH_FIRMWARE */
    char model[48];
    char serial[48];
    char firmware[24];
    uint32_t lba_bytes;   /* logical block size: 512 or 4096 */
    uint32_t phys_bytes;  /* physical block size (512e disks: 4096) */
    uint64_t blocks;      /* capacity in logical blocks */
    char pci[16];         /* controller BDF "0000:00:1f.2", "" if none */
    struct pci_addr pci_addr;
    bool has_pci;
    uint32_t port;        /* namespace id / port / target, for boot-disk identity */
    uint32_t lun;
    bool controller_serial; /* serial is the controller's, carried by each of its disks and told apart
                             * by port: NVMe namespaces (NVMe 1.4 section 6.1). The write safety rules
                             * then do not count two of them as one serial on two disks. */
    double link_gbps;     /* SATA/SAS negotiated link, 0 if not applicable */
    double link_port_max_gbps;  /* SATA: what the host port supports (AHCI CAP.ISS), 0 unknown */
    double link_drive_max_gbps; /* SATA: what the drive supports (IDENTIFY word 76), 0 unknown */

    unsigned nqueues;     /* independent queues (NVMe I/O queue pairs), >= 1 */
    bool mp_queues;       /* its queues may be driven from different CPUs at once, and alongside the other
                           * disks of its controller (NVMe: a queue pair per CPU); else the engine keeps
                           * all disks of one controller on one CPU */
    uint32_t max_qd;      /* commands in flight per queue */
    uint32_t max_transfer_bytes; /* largest single command */
    uint32_t chunk_bytes; /* no command may cross a multiple of this (Linux chunk_sectors: the Intel 0953
                           * stripe); the engine splits an I/O there. 0: none */
    /* What the device itself says about its blocks and I/O (SCSI: READ
     * CAPACITY(16), VPD B0h and 83h; 0 / "" when it does not say). */
    uint32_t opt_transfer_bytes; /* optimal transfer length (VPD B0h) */
    uint32_t align_lba;   /* lowest aligned LBA: the first LBA at a physical block boundary */
    uint8_t pi_type;      /* protection information the medium is formatted with: 0 none, 1..3 T10 PI type
                           * (NVMe: the driver has the controller insert and strip it, PRACT) */
    char wwn[40];         /* world wide name: "naa.5000c500a1b2c3d4", "eui.0025385b71b23c4d" */

    bool failed;          /* set by the engine after a fatal error */

    /* Commands that completed after the device corrected an error itself
     * (SCSI RECOVERED ERROR sense): done, with their data, and counted
     * here since the driver took the disk. The driver adds with
     * bm_disk_count_recovered() (from whichever CPU polls); the engine
     * reads it with bm_disk_recovered() and knows nothing of sense keys. */
    uint64_t recovered;

    /* Hardware quirks the driver applied to this disk or its controller
     * ("mqes0_depth64", "no_lba48"), comma-separated; the disk record
     * lists them. Add with bm_disk_add_quirk(). */
    char quirks[96];

    const struct bm_disk_ops *ops;
    void *priv;           /* driver state */
};

struct bm_disk_list;

/* A controller driver: probe one PCI function, register its disks. */
struct bm_driver {
    const char *name;
    /* Does this driver handle the PCI function? */
    bool (*match)(uint16_t vendor, uint16_t device, uint32_t class_code);
    /* Take the controller and add its disks with disk_list_add(). Returns
     * BM_OK or a negative error (the controller is then left as found) with
     * a one-line reason in err. Disks that fail alone are skipped with a
     * plat_diag() line and do not fail the probe. A probe that succeeds but
     * leaves disks out on purpose (a limit of ours or of the controller)
     * says so in err too; the caller turns that into a note record. err
     * names no device: the caller's record says where.
     *
     * index is the controller's number among this driver's, decided by
     * discovery (efi/disk/discover.c): how many controllers of this driver
     * were taken and kept before it, so a probe that fails or a controller
     * handed back to the firmware uses no number. The driver builds its
     * disk ids from it ("nvme<index>n1", "ahci<index>p0") and keeps no
     * count of its own. */
    int (*probe)(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out,
                 char *err, size_t errlen);
    /* Quiesce and hand the controller back to the firmware. */
    void (*release)(void *ctrl);
};

/* The list of disks found by every driver. */
#define BM_MAX_DISKS 64
struct bm_disk_list {
    struct bm_disk *disks[BM_MAX_DISKS];
    unsigned count;
    unsigned dropped;     /* disks refused because the list was full */
};
int disk_list_add(struct bm_disk_list *l, struct bm_disk *d);

/* The I/O command timeout: how long an engine command (read or write) may
 * go without a completion before the driver reports it BM_ETIMEDOUT and
 * starts its recovery (NVMe Abort, AHCI COMRESET, an HBA's task
 * management), in every native driver and the firmware paths. Set once
 * from io_timeout= (efi/disk/discover.c) before any controller is probed,
 * read by the drivers; until then, and for 0, the default: 30 s, Linux's
 * nvme_core.io_timeout and SCSI disk SD_TIMEOUT. Admin, identify, task
 * management and reset timeouts are the drivers' own and do not follow. */
#define BM_IO_TIMEOUT_DEFAULT_NS (30ull * 1000000000ull)
void bm_set_io_timeout_ns(uint64_t ns);
uint64_t bm_io_timeout_ns(void);

/* Name a quirk applied to a disk (kept once; a full list drops the rest). */
void bm_disk_add_quirk(struct bm_disk *d, const char *name);

/* One more command the device completed after correcting an error (bm_disk.recovered). */
static inline void bm_disk_count_recovered(struct bm_disk *d)
{
    __atomic_fetch_add(&d->recovered, 1, __ATOMIC_RELAXED);
}
/* How many so far. */
static inline uint64_t bm_disk_recovered(const struct bm_disk *d)
{
    return __atomic_load_n(&d->recovered, __ATOMIC_RELAXED);
}

#endif
