/* MegaRAID Firmware Interface (MFI) frames and data structures: 64-byte
 * message frames in host memory, posted through the inbound queue port;
 * completions come back as the frame's 32-bit context in a reply queue in
 * host memory. Layouts follow the Linux megaraid_sas driver
 * (megaraid_sas.h) and QEMU's hw/scsi/mfi.h; offsets are checked in
 * tests/unit/test_mfi_layout.c. Everything is little-endian. */
#ifndef BAREMARK_MFI_H
#define BAREMARK_MFI_H

#include <stdint.h>

#define MFI_FRAME_BYTES 64
#define MFI_SENSE_BYTES 96
#define MFI_MBOX_BYTES 12

/* Frame commands (header byte 0). */
#define MFI_CMD_INIT 0x00
#define MFI_CMD_LD_READ 0x01
#define MFI_CMD_LD_WRITE 0x02
#define MFI_CMD_LD_SCSI_IO 0x03
#define MFI_CMD_PD_SCSI_IO 0x04
#define MFI_CMD_DCMD 0x05
#define MFI_CMD_ABORT 0x06

/* Frame flags (header offset 0x10). */
#define MFI_FRAME_DONT_POST_IN_REPLY_QUEUE 0x0001
#define MFI_FRAME_SGL64 0x0002
#define MFI_FRAME_SENSE64 0x0004
#define MFI_FRAME_DIR_WRITE 0x0008
#define MFI_FRAME_DIR_READ 0x0010
#define MFI_FRAME_IEEE_SGL 0x0020      /* skinny parts: 16-byte SGEs (Linux MFI_FRAME_IEEE) */
/* A skinny (SAS2004/2008 iMR) I/O frame carries both: IEEE SGEs are
 * 64-bit SGEs, and Linux megasas_build_ldio / megasas_build_dcdb and
 * FreeBSD mfi_data_cb always set SGL64 with the IEEE flag. */
#define MFI_FRAME_SKINNY_SGL (MFI_FRAME_IEEE_SGL | MFI_FRAME_SGL64)

/* Command status (header byte 2). 0xff means "not done yet" for polled
 * frames. */
#define MFI_STAT_OK 0x00
#define MFI_STAT_INVALID_CMD 0x01
#define MFI_STAT_INVALID_DCMD 0x02
#define MFI_STAT_INVALID_PARAMETER 0x03
#define MFI_STAT_DEVICE_NOT_FOUND 0x0c
#define MFI_STAT_LD_LBA_OUT_OF_RANGE 0x19
#define MFI_STAT_MEMORY_NOT_AVAILABLE 0x20
#define MFI_STAT_SCSI_DONE_WITH_ERROR 0x2d
#define MFI_STAT_SCSI_IO_FAILED 0x2e
#define MFI_STAT_RESERVATION_CONFLICT 0x2f
#define MFI_STAT_LD_OFFLINE 0x33
#define MFI_STAT_INVALID_SGL 0x3c
#define MFI_STAT_INVALID_STATUS 0xff

/* Direct commands (DCMD opcodes) baremark uses. */
#define MFI_DCMD_CTRL_GET_INFO 0x01010000u
#define MFI_DCMD_CTRL_CACHE_FLUSH 0x01101000u
#define  MFI_FLUSH_CTRL_CACHE 0x01
#define  MFI_FLUSH_DISK_CACHE 0x02
#define MFI_DCMD_PD_LIST_QUERY 0x02010100u
#define  MFI_PD_QUERY_EXPOSED_TO_HOST 5 /* mbox byte 0: system (JBOD) drives only */
#define MFI_DCMD_PD_GET_INFO 0x02020000u /* mbox bytes 0..1: device id */
#define MFI_DCMD_LD_GET_LIST 0x03010000u
/* The RAID configuration (struct mfi_config_data): arrays, then logical
 * drives, then spares (FreeBSD MFI_DCMD_CFG_READ, mfiutil
 * mfi_config_read). */
#define MFI_DCMD_CFG_READ 0x04010000u
/* JBOD sequence map (Linux MR_DCMD_SYSTEM_PD_MAP_GET_INFO): per PD device
 * id the device handle and configuration sequence number for fast-path
 * system drive I/O (struct mfi_jbod_map). */
#define MFI_DCMD_SYSTEM_PD_MAP_GET_INFO 0x0200e102u

/* Physical drive firmware states (PD info fw_state). */
#define MFI_PD_STATE_UNCONFIGURED_GOOD 0x00
#define MFI_PD_STATE_HOT_SPARE 0x02
#define MFI_PD_STATE_OFFLINE 0x10
#define MFI_PD_STATE_REBUILD 0x14
#define MFI_PD_STATE_ONLINE 0x18        /* member of a logical drive */
#define MFI_PD_STATE_COPYBACK 0x20
#define MFI_PD_STATE_SYSTEM 0x40        /* JBOD: exposed to the host as is */

/* PD info ddf_type bits 15:12: the drive's interface (Linux enum
 * MR_PD_TYPE, read from pd_info->state.ddf.pdType.intf). */
#define MFI_PD_INTF_SHIFT 12
#define MFI_PD_INTF_SAS 2
#define MFI_PD_INTF_SATA 3
#define MFI_PD_INTF_NVME 5

/* Logical drive states (LD list). */
#define MFI_LD_STATE_OFFLINE 0
#define MFI_LD_STATE_PARTIALLY_DEGRADED 1
#define MFI_LD_STATE_DEGRADED 2
#define MFI_LD_STATE_OPTIMAL 3

/* The header every frame starts with. */
struct mfi_header {
    uint8_t cmd;            /* 0x00 */
    uint8_t sense_len;      /* 0x01 */
    uint8_t cmd_status;     /* 0x02 */
    uint8_t scsi_status;    /* 0x03 */
    uint8_t target_id;      /* 0x04 */
    uint8_t lun;            /* 0x05 (LD I/O: access byte, must be 0) */
    uint8_t cdb_len;        /* 0x06 */
    uint8_t sge_count;      /* 0x07 */
    uint32_t context;       /* 0x08: echoed in the reply queue */
    uint32_t pad0;          /* 0x0c (upper half of a 64-bit context) */
    uint16_t flags;         /* 0x10 */
    uint16_t timeout;       /* 0x12 */
    uint32_t data_len;      /* 0x14: bytes, or blocks for LD read/write */
} __attribute__((packed));

struct mfi_sge64 {
    uint64_t addr;
    uint32_t len;
} __attribute__((packed));

struct mfi_sge_ieee {       /* skinny parts (MFI_FRAME_IEEE_SGL) */
    uint64_t addr;
    uint32_t len;
    uint32_t flags;
} __attribute__((packed));

union mfi_sgl {
    struct mfi_sge64 sge64;
    struct mfi_sge_ieee ieee;
} __attribute__((packed));

/* MFI_CMD_INIT: points at the queue description below. */
struct mfi_init_frame {
    struct mfi_header hdr;  /* data_len = sizeof(struct mfi_init_qinfo) */
    uint32_t qinfo_new_lo;  /* 0x18 */
    uint32_t qinfo_new_hi;  /* 0x1c */
    uint32_t qinfo_old_lo;  /* 0x20 */
    uint32_t qinfo_old_hi;  /* 0x24 */
    uint32_t reserved[6];   /* 0x28 */
} __attribute__((packed));

struct mfi_init_qinfo {
    uint32_t flags;         /* 0x00 */
    uint32_t rq_entries;    /* 0x04: reply queue length */
    uint32_t rq_addr_lo;    /* 0x08 */
    uint32_t rq_addr_hi;    /* 0x0c */
    uint32_t pi_addr_lo;    /* 0x10: producer index (firmware writes) */
    uint32_t pi_addr_hi;    /* 0x14 */
    uint32_t ci_addr_lo;    /* 0x18: consumer index (host writes) */
    uint32_t ci_addr_hi;    /* 0x1c */
} __attribute__((packed));

/* MFI_CMD_LD_READ / MFI_CMD_LD_WRITE: block I/O to a logical drive. */
struct mfi_io_frame {
    struct mfi_header hdr;  /* data_len = blocks */
    uint32_t sense_lo;      /* 0x18 */
    uint32_t sense_hi;      /* 0x1c */
    uint32_t lba_lo;        /* 0x20 */
    uint32_t lba_hi;        /* 0x24 */
    union mfi_sgl sgl;      /* 0x28 */
} __attribute__((packed));

/* MFI_CMD_LD_SCSI_IO / MFI_CMD_PD_SCSI_IO: a SCSI CDB passed through. */
struct mfi_pass_frame {
    struct mfi_header hdr;  /* data_len = bytes */
    uint32_t sense_lo;      /* 0x18 */
    uint32_t sense_hi;      /* 0x1c */
    uint8_t cdb[16];        /* 0x20 */
    union mfi_sgl sgl;      /* 0x30 */
} __attribute__((packed));

/* MFI_CMD_ABORT: ask the firmware to give back an outstanding frame
 * (Linux struct megasas_abort_frame, megasas_issue_blocked_abort_cmd). */
struct mfi_abort_frame {
    struct mfi_header hdr;  /* cmd, cmd_status, context, flags = 0 */
    uint32_t abort_context; /* 0x18: the context of the frame to abort */
    uint32_t pad1;          /* 0x1c */
    uint32_t abort_frame_lo;/* 0x20: its physical address */
    uint32_t abort_frame_hi;/* 0x24 */
    uint32_t reserved[6];   /* 0x28 */
} __attribute__((packed));

/* MFI_CMD_DCMD: a firmware management command. */
struct mfi_dcmd_frame {
    struct mfi_header hdr;
    uint32_t opcode;        /* 0x18 */
    uint8_t mbox[MFI_MBOX_BYTES]; /* 0x1c */
    union mfi_sgl sgl;      /* 0x28 */
} __attribute__((packed));

union mfi_frame {
    struct mfi_header hdr;
    struct mfi_init_frame init;
    struct mfi_abort_frame abort;
    struct mfi_io_frame io;
    struct mfi_pass_frame pass;
    struct mfi_dcmd_frame dcmd;
    uint8_t bytes[MFI_FRAME_BYTES];
};

/* MFI_DCMD_LD_GET_LIST reply. */
#define MFI_MAX_LD 64
struct mfi_ld_list {
    uint32_t count;         /* 0x00 */
    uint32_t reserved;      /* 0x04 */
    struct {
        uint8_t target_id;  /* +0 */
        uint8_t reserved0;
        uint16_t seq;
        uint8_t state;      /* +4: MFI_LD_STATE_* */
        uint8_t reserved1[3];
        uint64_t size;      /* +8: blocks */
    } __attribute__((packed)) ld[MFI_MAX_LD]; /* 0x08, 16 bytes each */
} __attribute__((packed));

/* MFI_DCMD_PD_LIST_QUERY reply. */
#define MFI_MAX_PD 256
struct mfi_pd_address {
    uint16_t device_id;     /* +0x00 */
    uint16_t encl_device_id;/* +0x02 */
    uint8_t encl_index;     /* +0x04 */
    uint8_t slot_number;    /* +0x05 */
    uint8_t scsi_dev_type;  /* +0x06: 0 = disk */
    uint8_t connect_port_bitmap;
    uint64_t sas_addr[2];   /* +0x08 */
} __attribute__((packed));

struct mfi_pd_list {
    uint32_t size;          /* 0x00: bytes of this structure filled */
    uint32_t count;         /* 0x04 */
    struct mfi_pd_address addr[MFI_MAX_PD]; /* 0x08, 24 bytes each */
} __attribute__((packed));

/* MFI_DCMD_CFG_READ reply (FreeBSD mfireg.h struct mfi_config_data):
 * this header, array_count arrays of array_size bytes each, then
 * log_drv_count logical drive configurations of log_drv_size bytes each,
 * then the spares. size: the bytes of the whole reply. */
struct mfi_config_hdr {
    uint32_t size;          /* 0x00 */
    uint16_t array_count;   /* 0x04 */
    uint16_t array_size;    /* 0x06: bytes of one array */
    uint16_t log_drv_count; /* 0x08 */
    uint16_t log_drv_size;  /* 0x0a: bytes of one logical drive configuration */
    uint16_t spares_count;  /* 0x0c */
    uint16_t spares_size;   /* 0x0e */
    uint8_t reserved[16];
} __attribute__((packed));

/* One array: the drives one span of a logical drive is striped over. */
#define MFI_MAX_ROW_SIZE 32
#define MFI_PD_NONE 0xffffu  /* an unused drive slot of an array */
struct mfi_array {
    uint64_t size;          /* 0x00 */
    uint8_t num_drives;     /* 0x08 */
    uint8_t reserved;
    uint16_t array_ref;     /* 0x0a */
    uint8_t pad[20];
    struct {
        uint16_t device_id; /* +0: union mfi_pd_ref */
        uint16_t seq_num;
        uint16_t fw_state;  /* +4: MFI_PD_STATE_* */
        uint8_t encl_pd, encl_slot;
    } __attribute__((packed)) pd[MFI_MAX_ROW_SIZE]; /* 0x20, 8 bytes each */
} __attribute__((packed));

/* One logical drive's configuration: properties (target id first),
 * parameters (span depth), and the spans, each naming its array. */
#define MFI_MAX_SPAN_DEPTH 8
struct mfi_ld_config {
    uint8_t target_id;      /* 0x00: properties.ld.v.target_id */
    uint8_t props_rest[31];
    uint8_t primary_raid_level, raid_level_qualifier, secondary_raid_level, stripe_size; /* 0x20 */
    uint8_t num_drives;     /* 0x24 */
    uint8_t span_depth;     /* 0x25 */
    uint8_t state;          /* 0x26 */
    uint8_t params_rest[25];
    struct {
        uint64_t start_block, num_blocks;
        uint16_t array_ref; /* +0x10 */
        uint8_t reserved[6];
    } __attribute__((packed)) span[MFI_MAX_SPAN_DEPTH]; /* 0x40, 24 bytes each */
} __attribute__((packed));

/* MFI_DCMD_PD_GET_INFO reply (512 bytes); the fields we read. */
struct mfi_pd_info {
    uint16_t device_id;     /* 0x00 */
    uint16_t seq_num;       /* 0x02 */
    uint8_t inquiry_data[96]; /* 0x04 */
    uint8_t vpd_page83[64]; /* 0x64 */
    uint8_t not_supported;  /* 0xa4 */
    uint8_t scsi_dev_type;  /* 0xa5 */
    uint8_t connected_port_bitmap;
    uint8_t device_speed;
    uint32_t media_err_count;  /* 0xa8 */
    uint32_t other_err_count;  /* 0xac */
    uint32_t pred_fail_count;  /* 0xb0 */
    uint32_t last_pred_fail_event_seq_num; /* 0xb4 */
    uint16_t fw_state;      /* 0xb8: MFI_PD_STATE_* */
    uint8_t disabled_for_removal; /* 0xba */
    uint8_t link_speed;     /* 0xbb */
    uint16_t ddf_type;      /* 0xbc: bits 15:12 the interface (MFI_PD_INTF_*) */
    uint16_t ddf_reserved;  /* 0xbe */
    uint8_t rest[512 - 0xc0];
} __attribute__((packed));

/* MFI_DCMD_CTRL_GET_INFO reply (2048 bytes); the fields we read. */
struct mfi_ctrl_info {
    uint16_t pci_vendor, pci_device, pci_subvendor, pci_subdevice; /* 0x000 */
    uint8_t pci_reserved[24];
    uint8_t host_interface[72];      /* 0x020: type, reserved[6], ports, 8 SAS addresses */
    uint8_t device_interface[72];    /* 0x068 */
    uint32_t image_check_word;       /* 0x0b0 */
    uint32_t image_component_count;  /* 0x0b4 */
    uint8_t image_component[8][72];  /* 0x0b8: name[8] version[32] date[16] time[16] */
    uint32_t pending_image_component_count; /* 0x2f8 */
    uint8_t pending_image_component[8][72]; /* 0x2fc */
    uint8_t max_arms, max_spans, max_arrays, max_lds; /* 0x53c */
    char product_name[80];           /* 0x540 */
    char serial_number[32];          /* 0x590 */
    uint32_t hw_present;             /* 0x5b0 */
    uint32_t current_fw_time;        /* 0x5b4 */
    uint16_t max_cmds;               /* 0x5b8 */
    uint16_t max_sg_elements;        /* 0x5ba */
    uint32_t max_request_size;       /* 0x5bc: sectors per command */
    uint16_t lds_present;            /* 0x5c0 */
    uint8_t counts[0x5da - 0x5c2];   /* 0x5c2: degraded/offline LDs, PDs, memory, errors, cluster */
    uint16_t max_strips_per_io;      /* 0x5da: strips one command may span */
    uint32_t raid_levels;            /* 0x5dc */
    uint32_t adapter_operations;     /* 0x5e0 */
    uint32_t ld_operations;          /* 0x5e4 */
    uint8_t stripe_sz_min;           /* 0x5e8: log2 of the smallest strip, in 512-byte sectors */
    uint8_t stripe_sz_max;           /* 0x5e9 */
    uint8_t stripe_sz_reserved[2];
    uint8_t rest1[0x7e8 - 0x5ec];
    uint32_t adapter_operations3;    /* 0x7e8: MFI_CTRL_OPS3_* */
    uint8_t rest[2048 - 0x7ec];
} __attribute__((packed));

/* adapterOperations3 bits (Linux megaraid_sas.h struct megasas_ctrl_info,
 * little-endian bitfield order). */
#define MFI_CTRL_OPS3_USE_SEQ_NUM_JBOD_FP (1u << 24) /* useSeqNumJbodFP: the JBOD sequence map exists */

/* MFI_DCMD_SYSTEM_PD_MAP_GET_INFO reply (Linux MR_PD_CFG_SEQ_NUM_SYNC with
 * MAX_PHYSICAL_DEVICES entries: 8 + 256 x 8 = 2056 bytes). */
#define MFI_JBOD_MAP_ENTRIES 256
#define MFI_JBOD_TM_CAPABLE 0x01     /* capability bit 0: tmCapable */
struct mfi_jbod_map {
    uint32_t size;          /* 0x00 */
    uint32_t count;         /* 0x04 */
    struct {
        uint16_t seq_num;   /* +0: goes to the RAID context's config_seq_num */
        uint16_t dev_handle;/* +2: the fast-path device handle */
        uint8_t capability; /* +4: MFI_JBOD_TM_CAPABLE */
        uint8_t reserved;
        uint16_t pd_target_id; /* +6: Ventura and later only */
    } __attribute__((packed)) seq[MFI_JBOD_MAP_ENTRIES]; /* 0x08, indexed by PD device id */
} __attribute__((packed));

#endif
