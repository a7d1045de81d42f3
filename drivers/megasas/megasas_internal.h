/* What the two MegaRAID transports share: the MFI one in megasas_mfi.c
 * (frames posted through the inbound queue port, contexts in a reply
 * queue) and the MPI2-style "Fusion" one in megasas_fusion.c
 * (SAS2208/3108/3008: request frames by SMID, request descriptors, reply
 * descriptor queue). Both keep MFI frames for management, so the firmware
 * state machine, DCMD status names and drive discovery (LD list, system
 * PD list) live in megasas.c and are used by both; megasas.c reaches a
 * transport only through its struct megasas_transport. */
#ifndef BAREMARK_MEGASAS_INTERNAL_H
#define BAREMARK_MEGASAS_INTERNAL_H

#include "megasas.h"
#include "../scsi/hba_disk.h"

struct megasas_ctrl;

/* One command transport: the driver entry in megasas.c picks the one
 * whose supports() takes the PCI device id (vendor LSI). */
struct megasas_transport {
    const char *name;           /* "MFI", "Fusion" */
    bool (*supports)(uint16_t device);
    /* Take the controller, bring up its firmware, add its disks; *ctrl_out
     * is the struct megasas_ctrl inside the transport's own controller. */
    int (*probe)(struct pci_addr a, unsigned index, struct bm_disk_list *disks, struct megasas_ctrl **ctrl_out,
                 char *err, size_t errlen);
    /* Release, first step: flush the cache and take the firmware back to
     * READY (before the PCI command register is restored). */
    void (*stop)(struct megasas_ctrl *m);
    /* Release, last step: free the transport's memory and its controller
     * structure (the disks and slots are gone already). */
    void (*free)(struct megasas_ctrl *m);
    /* Member health (megasas_member_health): a DCMD reading len bytes,
     * which *data then points at (the controller's scratch buffer). */
    int (*dcmd_read)(struct megasas_ctrl *m, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len,
                     const uint8_t **data, char *err, size_t errlen);
    /* ... and one CDB to a physical disk by device id in an MFI PD SCSI
     * I/O frame (ctx: a struct hba_target with logical false), as Linux
     * megasas_mgmt_fw_ioctl passes smartctl's -d megaraid,N frames to
     * the firmware on both transports. */
    scsi_exec_fn pd_exec;
};

/* Part of every transport's controller structure: what any MegaRAID
 * controller has and what release (megasas_driver.c) needs. The transport
 * gets its own structure back with MEGASAS_CTRL_OF. */
struct megasas_ctrl {
    const struct megasas_transport *transport;
    struct pci_addr pci;
    char bdf[16];               /* "0000:03:00.0": where diagnostics come from */
    uint16_t pci_cmd_saved;     /* the command register as the firmware left it */
    struct hba_host h;          /* the slot table and the disks */
};
#define MEGASAS_CTRL_OF(m, type) ((type *)(void *)((char *)(m) - offsetof(type, base)))

/* Take a MegaRAID's PCI function from the firmware for a transport: m's
 * place and BDF set, the function claimed, its command register kept,
 * memory decoding and bus mastering on, its first memory BAR mapped (Linux
 * megasas_init_fw) at *regs. On failure err says why and nothing is
 * held (m->pci and m->bdf stay set). */
int megasas_take_pci(struct megasas_ctrl *m, struct pci_addr a, uint64_t bar_min_bytes, volatile void **regs,
                     char *err, size_t errlen);
/* Give back what megasas_take_pci took (a failed probe). */
void megasas_give_back_pci(struct megasas_ctrl *m);

extern const struct megasas_transport megasas_mfi_transport;
extern const struct megasas_transport megasas_fusion_transport;

/* Firmware state and MFI command status as text, for messages. */
const char *mfi_state_name(uint32_t state);
const char *mfi_status_name(uint8_t st);

/* After the reset request that ends OPERATIONAL state: wait, bounded by
 * Linux's MEGASAS_RESET_WAIT_TIME, for the firmware to leave it; logs
 * when it does not. True once it has left it. */
bool mfi_wait_not_operational(volatile void *regs, const char *where);

/* How long release waits for the commands the firmware still holds
 * before it resets the controller to take them back (Linux
 * megasas_wait_for_outstanding / _fusion wait resetwaittime, 180 s, from
 * the first timeout). Ours is shorter: release comes only after every
 * job has ended, so each command still out has already had its 30 s
 * timeout, the abort and the engine's 60 s stall limit; a firmware that
 * was about to answer does so within seconds, and the reset that follows
 * takes the rest back anyway. */
#define MEGASAS_RELEASE_DRAIN_NS (10ull * 1000000000ull)

/* Reset the whole adapter through the host diagnostic register, as Linux
 * megasas_adp_reset_gen2 (gen2, skinny) and megasas_adp_reset_fusion: the
 * unlock keys to seq_reg, wait (bounded, 10 s) for DIAG_WRITE_ENABLE,
 * set RESET_ADAPTER, wait (bounded, 100 s as Linux's 1000 x 100 ms) for
 * it to clear, then (bounded, Linux MEGASAS_RESET_WAIT_TIME) for the
 * firmware to leave OPERATIONAL. True when the adapter is reset: it owns
 * no command and writes no host memory any more. */
bool mfi_adapter_reset(volatile void *regs, const char *where, uint32_t seq_reg, uint32_t diag_reg,
                       const uint32_t *keys, size_t nkeys);
/* Wait (bounded, looked at every ms) for the firmware to clear the
 * doorbell's bit 0, which says it took the last request written there
 * (Linux megasas_transition_to_ready and megasas_init_adapter_fusion wait
 * for it). BM_ETIMEDOUT, err naming the register, otherwise. */
int mfi_wait_doorbell_taken(volatile void *regs, uint64_t timeout_ns, char *err, size_t errlen);
struct mfi_header;
/* Wait (bounded, looked at every 10 us) for the firmware to write the
 * status of a frame posted to be polled (MFI INIT, Fusion's IOC INIT in
 * its MFI frame; Linux megasas_issue_polled -> wait_and_poll): the
 * status, or BM_ETIMEDOUT. */
int mfi_wait_polled_status(const struct mfi_header *hdr, uint64_t timeout_ns);

/* What stopping one transport's firmware at release takes
 * (megasas_stop_firmware). */
struct megasas_stop_ops {
    volatile void *regs;
    uint32_t doorbell_reg;          /* where the reset request goes */
    bool fusion;                    /* the doorbell's bit 0 is waited for after it */
    bool (*faulted)(void *ctrl);    /* hba_host_wait_idle's early way out: the firmware FAULTed */
    int (*flush)(void *ctrl, char *err, size_t errlen); /* the cache flush DCMD */
    uint32_t seq_reg, diag_reg;     /* the adapter reset's registers ... */
    const uint32_t *keys;           /* ... and unlock keys; NULL: no adapter reset (SAS1078 ppc) */
    size_t nkeys;
    const char *unit;               /* what the firmware holds, in messages: "command(s)", "SMID(s)" */
    size_t memory_bytes;            /* what it may still write, in the "not stopped" message */
};
/* Hand the firmware back in READY state and make sure it owns nothing of
 * ours any more: wait (bounded, MEGASAS_RELEASE_DRAIN_NS) for what it
 * still holds (Linux megasas_wait_for_outstanding(_fusion)), flush the
 * caches, send the reset request that aborts every command and leaves
 * OPERATIONAL; a firmware that does not leave it (or that FAULTed holding
 * commands) gets the adapter reset (Linux megasas_adp_reset_gen2 /
 * megasas_adp_reset_fusion, the OCR step). Stopped: every held command is
 * given back (hbaq_return_all) and true returned; not stopped: false,
 * and the transport keeps the memory the firmware may still write, as
 * nvme_teardown does. The one release path of MFI and Fusion. */
bool megasas_stop_firmware(struct megasas_ctrl *m, const struct megasas_stop_ops *o, bool operational, bool failed);

/* Fill an MFI ABORT frame (context: its own) naming the frame of
 * abort_ctx at abort_pa (Linux megasas_issue_blocked_abort_cmd); MFI and
 * Fusion (through the pass-through) both send it. */
union mfi_frame;
void mfi_build_abort(union mfi_frame *f, uint32_t context, uint32_t abort_ctx, uint64_t abort_pa);

/* The unlock keys of the two generations (Linux megasas_adp_reset_gen2;
 * MPI2_WRSEQ_*_KEY_VALUE for Fusion). */
extern const uint32_t mfi_gen2_reset_keys[6];
extern const uint32_t mfi_fusion_reset_keys[7];

struct mfi_ctrl_info;
/* The largest command given the I/O SGE limit and the controller info's
 * strip and request limits (Linux megasas_init_fw); ci may be NULL. */
uint32_t mfi_max_transfer_bytes(uint32_t max_sge, const struct mfi_ctrl_info *ci);

/* Drive the firmware to READY (Linux megasas_transition_to_ready).
 * doorbell_reg is where state-change requests go; fusion parts also
 * want the doorbell's bit 0 to clear after a reset request. */
int mfi_fw_to_ready(volatile void *regs, const char *where, uint32_t doorbell_reg, bool fusion, char *err,
                    size_t errlen);

/* Discovery through DCMDs, with the transport's own DCMD and disk
 * creation. dcmd_read reads len bytes into scratch. */
struct mfi_scan_ops {
    void *ctx;
    const char *where;          /* the controller's BDF, for plat_diag */
    uint8_t *scratch;
    uint32_t max_pd_target;     /* largest PD device id a frame can address */
    int (*dcmd_read)(void *ctx, uint32_t opcode, const uint8_t *mbox, size_t mbox_len, uint32_t len, char *err,
                     size_t errlen);
    /* max_qd: the per-device queue depth Linux gives this kind of drive
     * (megasas_set_static_target_properties). */
    void (*add_disk)(void *ctx, bool logical, uint16_t target, uint32_t max_qd);
};
/* Per-device queue depths (Linux megaraid_sas.h): logical drives and SAS
 * system drives MEGASAS_DEFAULT_CMD_PER_LUN / MEGASAS_SAS_QD (256), SATA
 * system drives MEGASAS_SATA_QD (32), NVMe MEGASAS_NVME_QD (64). */
#define MFI_LD_QD 256u
#define MFI_SAS_PD_QD 256u
#define MFI_SATA_PD_QD 32u
#define MFI_NVME_PD_QD 64u

/* How a transport reaches its drives, for megasas_add_disk. */
struct megasas_disk_kind {
    void *ctrl;                 /* the transport's controller (hba_target.ctrl) */
    unsigned index;             /* the controller's number: megasas<index>... */
    uint32_t max_transfer_bytes;
    scsi_exec_fn exec;          /* identification commands */
    const struct bm_disk_ops *ops;
};
/* Identify one LD or system PD and add it as a disk ("megasas0d1",
 * "megasas0p4"; "ld1", "pd4" in messages); failures of one drive are
 * logged and skipped. */
void megasas_add_disk(struct megasas_ctrl *m, const struct megasas_disk_kind *k, struct bm_disk_list *disks,
                      bool logical, uint16_t target, uint32_t max_qd);

/* The member disks of logical drive target in a MFI_DCMD_CFG_READ reply
 * (cfg, len bytes): the device ids of the drives of each array its spans
 * name, in span and row order, empty slots (MFI_PD_NONE) left out; at
 * most max into ids, the count in *n. BM_ENODEV: no such logical drive;
 * BM_EINVAL: a malformed reply. */
int mfi_config_ld_members(const uint8_t *cfg, size_t len, uint8_t target, uint16_t *ids, unsigned max,
                          unsigned *n);
/* bm_disk_ops.member_health of both transports: a logical drive's member
 * disks, from the configuration (MFI_DCMD_CFG_READ, read again at index
 * 0), each read through the PD pass-through (INQUIRY, then LOG SENSE or
 * SAT SMART: scsi_read_health). A system drive has none (BM_ENODEV). */
int megasas_member_health(struct bm_disk *d, unsigned index, struct bm_member *who, struct bm_health *out);

/* Logical drives that are not offline, in target order. */
void mfi_scan_lds(const struct mfi_scan_ops *ops);
/* Physical drives the firmware exposes to the host (JBOD / system). */
void mfi_scan_system_pds(const struct mfi_scan_ops *ops);

#endif
