/* The MegaRAID MFI transport's controller, shared by its two files:
 * megasas_mfi.c (frames, the reply queue, DCMDs, SCSI pass-through, the
 * disks' I/O, discovery) and megasas_mfi_init.c (bring-up and release).
 * The bring-up file calls the I/O file, never the other way round. */
#ifndef BAREMARK_MFI_CTRL_H
#define BAREMARK_MFI_CTRL_H

#include "megasas_internal.h"
#include "megasas_regs.h"
#include "mfi.h"
#include "../scsi/hba_disk.h"


#define MFI_SLOTS_MAX 1024            /* frames we allocate at most */
#define MFI_DCMD_TIMEOUT_NS (60ull * 1000000000ull)
#define MFI_INIT_TIMEOUT_NS (30ull * 1000000000ull)
/* Linux MEGASAS_RESET_WAIT_TIME: a state (device scan on a full
 * enclosure) may legitimately last minutes. */
#define MFI_STATE_WAIT_NS (180ull * 1000000000ull)
#define MFI_SCRATCH_BYTES 8192        /* DCMD replies (PD list is ~6 KiB) */
#include "../../efi/time_units.h"

enum mfi_family {
    MFI_FAMILY_PPC,     /* SAS1078: doorbell at IDB, frames through IQP */
    MFI_FAMILY_GEN2,    /* SAS2108: same ports, other interrupt bits */
    MFI_FAMILY_SKINNY,  /* SAS2004/2008 iMR: doorbell at 0, 64-bit IQPL/IQPH, IEEE SGEs */
};

/* A supported part (megasas_mfi_init.c lists them). */
struct mfi_id {
    uint16_t device;
    enum mfi_family family;
    const char *chip;
};

struct mfi_ctrl {
    struct megasas_ctrl base;  /* transport = &megasas_mfi_transport; PCI place, host */
    unsigned index;
    const struct mfi_id *id;
    volatile void *regs;
    uint32_t fw_max_cmds, fw_max_sge;
    uint32_t max_transfer_bytes;
    bool operational;         /* INIT done: the firmware owns our queues */
    bool failed;              /* firmware faulted */
    bool keep_memory;         /* release could not stop the firmware: its frames and queues are never freed */

    uint32_t nslots;
    union mfi_frame *frames;  /* one 64-byte frame per slot, below 4 GiB */
    size_t frames_bytes;
    uint8_t *sense;           /* MFI_SENSE_BYTES per slot, below 4 GiB */
    size_t sense_bytes;
    uint8_t *rq_mem;          /* producer, consumer, reply queue, init qinfo */
    size_t rq_bytes;
    volatile uint32_t *producer, *consumer, *reply_queue;
    struct mfi_init_qinfo *qinfo;
    uint8_t *nodata;          /* target of the SGE no-data commands carry */
    uint32_t rq_entries, rq_next;
    uint8_t *scratch;         /* DCMD reply buffer, below 4 GiB */
    uint32_t tm_slot;         /* the abort frame the recovery posted last */
};

/* ---- Registers -------------------------------------------------------------------------- */

/* Read a controller register. */
static inline uint32_t mfi_read(struct mfi_ctrl *c, uint32_t off) { return mmio_read32(c->regs, off); }
/* Write a controller register. */
static inline void mfi_write(struct mfi_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->regs, off, v); }

/* The firmware status word (state, max SGEs, max commands): scratch pad
 * 0 on every family we drive (OMSG0 only on the older xscale parts). */
static inline uint32_t mfi_fw_status(struct mfi_ctrl *c) { return mfi_read(c, MFI_REG_OSP0); }

/* Physical address of host memory we placed below 4 GiB. */
static inline uint32_t mfi_pa32(const void *p) { return (uint32_t)plat_virt_to_phys(p); }

/* ---- What megasas_mfi.c gives the bring-up ------------------------------------------------ */

/* Post one frame through the inbound queue port. */
void mfi_post(struct mfi_ctrl *c, uint32_t slot);
/* One DCMD reading len bytes into c->scratch, waited for. */
int mfi_dcmd_read(struct mfi_ctrl *c, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                  char *err, size_t errlen);
/* megasas_transport.dcmd_read and .pd_exec of MFI. */
int mfi_member_dcmd(struct megasas_ctrl *m, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                    const uint8_t **data, char *err, size_t errlen);
int mfi_pd_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len);
/* Find the controller's logical and system drives and add them to disks. */
void mfi_scan(struct mfi_ctrl *c, struct bm_disk_list *disks);
/* The shared HBA glue's view of this transport. */
extern const struct hba_host_ops mfi_host_ops;

#endif
