/* The MegaRAID Fusion transport's controller, shared by its two files:
 * megasas_fusion.c (requests, completions, DCMDs, SCSI and task
 * management, the disks' I/O) and megasas_fusion_init.c (bring-up,
 * discovery, release). The bring-up file calls the I/O file, never the
 * other way round. */
#ifndef BAREMARK_FUSION_CTRL_H
#define BAREMARK_FUSION_CTRL_H

#include "megasas_internal.h"
#include "megasas_regs.h"
#include "mfi.h"
#include "fusion.h"
#include "../scsi/hba_disk.h"


#define FU_DCMD_TIMEOUT_NS (60ull * 1000000000ull)
#define FU_INIT_TIMEOUT_NS (30ull * 1000000000ull)    /* Linux MFI_POLL_TIMEOUT_SECS 60; 30 is plenty */
#define FU_DOORBELL_WAIT_NS (10ull * 1000000000ull)   /* Linux waits 10 s for doorbell bit 0 before INIT */
#define FU_STATE_WAIT_NS (180ull * 1000000000ull)
#define FU_SENSE_STRIDE 128           /* 96-byte sense buffers, 64-byte aligned as Linux's pool */
#define FU_SCRATCH_BYTES 8192
#define FU_CDB_TIMEOUT_S 30
/* Linux MEGASAS_DEFAULT_TM_TIMEOUT: what megasas_issue_tm waits for an
 * ABORT_TASK or TARGET_RESET when the target has no timeouts of its own. */
#define FU_TM_TIMEOUT_NS (50ull * 1000000000ull)
#define FU_FP_PD_TIMEOUT_S 255        /* Linux caps a fast-path disk command's timeout here */
#include "../../efi/time_units.h"

enum fu_gen {
    FU_THUNDERBOLT,     /* SAS2208 */
    FU_INVADER,         /* SAS3108, SAS3008 MegaRAID: CUDA RAID context, end-of-list SGE flag */
};

/* A supported part (megasas_fusion_init.c lists them). */
struct fu_id {
    uint16_t device;
    enum fu_gen gen;
    const char *chip;
};

struct fu_ctrl {
    struct megasas_ctrl base;  /* transport = &megasas_fusion_transport; PCI place, host */
    unsigned index;
    const struct fu_id *id;
    volatile void *regs;
    uint32_t fw_max_cmds, fw_max_sge, max_chain_bytes, max_transfer_bytes;
    uint32_t max_io_sge;      /* SGEs one I/O may carry: main frame plus chain frame */
    bool operational;         /* IOC INIT done */
    bool failed;
    bool keep_memory;         /* release could not stop the firmware: its frames and queues are never freed */

    uint32_t nslots;          /* slot s is SMID s + 1 */
    uint8_t *req;             /* (nslots + 1) request frames; SMID 0's unused */
    size_t req_bytes;
    uint8_t *sense;           /* FU_SENSE_STRIDE per slot */
    size_t sense_bytes;
    union mfi_frame *mfi;     /* one MFI frame per slot, for DCMDs */
    size_t mfi_bytes;
    volatile uint64_t *reply; /* reply descriptor post queue */
    size_t reply_bytes;
    uint32_t reply_depth, reply_next;
    uint8_t *init_mem;        /* MFI INIT frame at 0, IOC INIT request at 256 */
    uint8_t *scratch;         /* DCMD data */
    struct mfi_jbod_map *jbod_map; /* MR_DCMD_SYSTEM_PD_MAP_GET_INFO, read once at probe */
    bool jbod_fp;             /* system drive reads/writes take the fast path with it */
    uint32_t tm_slot;         /* the task management request the recovery posted last */
};

/* ---- Registers ---------------------------------------------------------------------------- */

/* Read a controller register. */
static inline uint32_t fu_read(struct fu_ctrl *c, uint32_t off) { return mmio_read32(c->regs, off); }
/* Write a controller register. */
static inline void fu_write(struct fu_ctrl *c, uint32_t off, uint32_t v) { mmio_write32(c->regs, off, v); }
/* Firmware status word: scratch pad 0 (Linux megasas_read_fw_status_reg_fusion). */
static inline uint32_t fu_fw_status(struct fu_ctrl *c) { return fu_read(c, MFI_REG_OSP0); }

/* Write a request descriptor: low half first, then high half, which makes
 * the firmware take it (Linux megasas_fire_cmd_fusion without writeq). */
static inline void fu_fire(struct fu_ctrl *c, uint32_t lo, uint32_t hi)
{
    plat_wmb(); /* the frame must be in memory before the firmware hears of it */
    /* The whole descriptor in one 8-byte write to IQPL, as Linux
     * megasas_write_64bit_req_desc() on 64-bit kernels (writeq); its
     * 32-bit fallback writes IQPL then IQPH. One write per command either
     * way: a descriptor names one SMID, so commands cannot share a post. */
    mmio_write64_whole(c->regs, MFI_REG_IQPL, (uint64_t)hi << 32 | lo);
}

/* ---- What megasas_fusion.c gives the bring-up ----------------------------------------------- */

/* What discovery's callbacks get: the controller and the disk list. */
struct fu_scan_ctx {
    struct fu_ctrl *c;
    struct bm_disk_list *disks;
};

/* An MFI status as text. */
const char *fu_status_name(uint8_t st);
/* One DCMD through an MPI2 pass-through request, waited for; len bytes
 * of data land in c->scratch. */
int fu_dcmd(struct fu_ctrl *c, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, bool write,
            char *err, size_t errlen);
/* mfi_scan_ops.dcmd_read and .add_disk (ctx: struct fu_scan_ctx). */
int fu_dcmd_read(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                 size_t errlen);
void fu_add_disk(void *ctx, bool logical, uint16_t target, uint32_t max_qd);
/* megasas_transport.dcmd_read and .pd_exec of Fusion. */
int fu_member_dcmd(struct megasas_ctrl *m, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                   const uint8_t **data, char *err, size_t errlen);
int fu_pd_exec(void *ctx, struct scsi_cmd *cmd, char *detail, size_t detail_len);
/* The shared HBA glue's view of this transport. */
extern const struct hba_host_ops fu_host_ops;

#endif
