/* MegaRAID "Fusion" message layouts (SAS2208 Thunderbolt, SAS3108 Invader,
 * SAS3008 MegaRAID Fury): MPI2 request frames of 256 bytes addressed by
 * SMID, a MegaRAID RAID context where MPI2 SCSI IO puts its SGL, 64-bit
 * request descriptors written to the inbound low/high queue ports and
 * 64-bit reply descriptors in a host memory queue. Management still uses
 * MFI frames (mfi.h), reached through the pass-through function.
 *
 * Sources: Linux drivers/scsi/megaraid/megaraid_sas_fusion.h (structures
 * MPI2_RAID_SCSI_IO_REQUEST, RAID_CONTEXT, MPI2_IOC_INIT_REQUEST,
 * MEGASAS_REQUEST_DESCRIPTOR_UNION, MPI2_REPLY_DESCRIPTORS_UNION,
 * MPI25_IEEE_SGE_CHAIN64), megaraid_sas.h (IEEE_SGE_FLAGS_*, MFI_STAT_*),
 * FreeBSD sys/dev/mrsas/mrsas.h. Offsets are pinned in
 * tests/unit/test_megasas_fusion.c. Little-endian throughout. */
#ifndef BAREMARK_FUSION_H
#define BAREMARK_FUSION_H

#include <stdint.h>

#define FUSION_FRAME_BYTES 256          /* MEGA_MPI2_RAID_DEFAULT_IO_FRAME_SIZE */
#define FUSION_SENSE_BYTES 96           /* SCSI_SENSE_BUFFERSIZE */
#define FUSION_MAX_FW_CMDS 1008         /* Linux caps the firmware's figure here */

/* MPI2 functions (byte 3 of a request). */
#define MPI2_FUNCTION_SCSI_IO_REQUEST 0x00
#define MPI2_FUNCTION_SCSI_TASK_MGMT 0x01
#define MPI2_FUNCTION_IOC_INIT 0x02
#define FUSION_FUNCTION_PASSTHRU_IO 0xf0   /* MEGASAS_MPI2_FUNCTION_PASSTHRU_IO_REQUEST: an MFI frame */
#define FUSION_FUNCTION_LD_IO 0xf1         /* MEGASAS_MPI2_FUNCTION_LD_IO_REQUEST: firmware path I/O */

/* IOC INIT values (megaraid_sas_fusion.h MPI2 defines). */
#define MPI2_WHOINIT_HOST_DRIVER 0x04
#define MPI2_VERSION 0x0200                /* major 2, minor 0 */
#define MPI2_HEADER_VERSION 0x1000         /* unit 0x10, dev 0x00 */

/* Driver capabilities in the MFI INIT frame that carries IOC INIT (bytes
 * 4..7, Linux struct megasas_init_frame driver_operations, union
 * MFI_CAPABILITIES, little-endian bit order). */
#define FUSION_INIT_DRV_OPS_OFFSET 0x04
#define MFI_CAP_FP_REMOTE_LUN (1u << 0)
#define MFI_CAP_ADDITIONAL_MSIX (1u << 1)
#define MFI_CAP_MAX_255LDS (1u << 3)
#define MFI_CAP_NDRIVE_R1_LB (1u << 4)
#define MFI_CAP_SECURITY_PROTOCOL_CMDS_FW (1u << 6)
#define MFI_CAP_EXT_QUEUE_DEPTH (1u << 7)
#define MFI_CAP_EXT_IO_SIZE (1u << 8)
#define MFI_CAP_FP_RLBYPASS (1u << 10)
#define MFI_CAP_QD_THROTTLING (1u << 11)
#define MFI_CAP_PD_MAP_TARGET_ID (1u << 12)
#define MFI_CAP_64BIT_MODE (1u << 13)
#define MFI_CAP_NVME_PASSTHRU (1u << 14)
#define MFI_CAP_FW_EXPOSED_DEV_LIST (1u << 15)

/* Request descriptor type, bits 3:1 of RequestFlags
 * (MEGASAS_REQ_DESCRIPT_FLAGS_TYPE_SHIFT = 1). */
#define FUSION_REQ_TYPE_SHIFT 1
#define FUSION_REQ_TYPE_SCSI_IO 0x0        /* MPI2_REQ_DESCRIPT_FLAGS_SCSI_IO */
#define FUSION_REQ_TYPE_MFA 0x1            /* MEGASAS_REQ_DESCRIPT_FLAGS_MFA: address of an MFI frame */
#define FUSION_REQ_TYPE_NO_LOCK 0x2        /* MEGASAS_REQ_DESCRIPT_FLAGS_NO_LOCK (Invader) */
#define FUSION_REQ_TYPE_HIGH_PRIORITY 0x3  /* MPI2_REQ_DESCRIPT_FLAGS_HIGH_PRIORITY: task management */
#define FUSION_REQ_TYPE_FP_IO 0x6          /* MPI2_REQ_DESCRIPT_FLAGS_FP_IO: fast path I/O */
#define FUSION_REQ_TYPE_LD_IO 0x7          /* MEGASAS_REQ_DESCRIPT_FLAGS_LD_IO */

/* Reply descriptor flags (byte 0). An all-ones descriptor is unused. */
#define MPI2_RPY_TYPE_MASK 0x0f
#define MPI2_RPY_TYPE_SCSI_IO_SUCCESS 0x00
#define MPI2_RPY_TYPE_UNUSED 0x0f
#define FUSION_REPLY_UNUSED 0xffffffffffffffffull

/* SCSI IO fields. */
#define MPI2_SGE_FLAGS_64_BIT_ADDRESSING 0x02  /* SGLFlags */
#define MPI2_SCSIIO_CONTROL_WRITE 0x01000000u
#define MPI2_SCSIIO_CONTROL_READ 0x02000000u
#define MPI25_IOFLAGS_FAST_PATH 0x4000         /* MPI25_SAS_DEVICE0_FLAGS_ENABLED_FAST_PATH */

/* RAID context values. */
#define FUSION_RAID_TYPE_CUDA 0x2              /* MPI2_TYPE_CUDA (Invader) */
#define FUSION_RL_GRANT_DESTINATION_CPU0 0x00  /* MR_RL_FLAGS_GRANT_DESTINATION_CPU0 */
#define FUSION_RL_SEQ_NUM_ENABLE 0x08          /* MR_RL_FLAGS_SEQ_NUM_ENABLE */
#define FUSION_RL_GRANT_DESTINATION_CUDA 0x80  /* MR_RL_FLAGS_GRANT_DESTINATION_CUDA */
#define FUSION_JBOD_TGT_OFFSET 255             /* MAX_PHYSICAL_DEVICES - 1: JBOD target ids sit above the LDs */
#define FUSION_RAID_FLAGS_SUBTYPE_SHIFT 4      /* MR_RAID_CTX_RAID_FLAGS_IO_SUB_TYPE_SHIFT */
#define FUSION_RAID_FLAGS_SUBTYPE_SYSTEM_PD 1  /* MR_RAID_FLAGS_IO_SUB_TYPE_SYSTEM_PD */
#define FUSION_DEVHANDLE_INVALID 0xffff        /* MR_DEVHANDLE_INVALID: firmware picks the path */

/* IEEE SGE flags (megaraid_sas_fusion.h / megaraid_sas.h). */
#define IEEE_SGE_FLAGS_IOCPLBNTA_ADDR 0x03
#define IEEE_SGE_FLAGS_END_OF_LIST 0x40
#define IEEE_SGE_FLAGS_CHAIN_ELEMENT 0x80

/* More MFI command status values the Fusion firmware returns in the RAID
 * context (megaraid_sas.h enum MFI_STAT). */
#define MFI_STAT_LD_INIT_IN_PROGRESS 0x35
#define MFI_STAT_CONFIG_SEQ_MISMATCH 0x67

/* MPI2 SCSI task management (MPI2_SCSI_TASK_MANAGE_REQUEST, 0x34 bytes)
 * followed by the MegaRAID flags word (Linux struct MR_TASK_MANAGE_REQUEST:
 * tmReqFlags, where the firmware later writes its TM reply). */
#define MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK 0x01
#define MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET 0x03
#define FUSION_TM_FOR_LD 0x1                   /* tmReqFlags.isTMForLD */
#define FUSION_TM_FOR_PD 0x2                   /* tmReqFlags.isTMForPD */
struct fusion_tm_request {
    uint16_t dev_handle;    /* 0x00 */
    uint8_t chain_offset;   /* 0x02 */
    uint8_t function;       /* 0x03: MPI2_FUNCTION_SCSI_TASK_MGMT */
    uint8_t reserved1;      /* 0x04 */
    uint8_t task_type;      /* 0x05 */
    uint8_t reserved2;      /* 0x06 */
    uint8_t msg_flags;      /* 0x07 */
    uint8_t vp_id, vf_id;   /* 0x08 */
    uint16_t reserved3;     /* 0x0a */
    uint8_t lun[8];         /* 0x0c */
    uint32_t reserved4[7];  /* 0x14 */
    uint16_t task_mid;      /* 0x30: the SMID to abort */
    uint16_t reserved5;     /* 0x32 */
    uint32_t tm_req_flags;  /* 0x34: FUSION_TM_FOR_* */
    uint32_t reserved6;     /* 0x38 */
} __attribute__((packed));

/* 16-byte IEEE SGE, simple or chain (MPI25_IEEE_SGE_CHAIN64). */
struct fusion_sge {
    uint64_t addr;          /* 0x00 */
    uint32_t len;           /* 0x08 */
    uint16_t reserved1;     /* 0x0c */
    uint8_t next_chain_offset; /* 0x0e */
    uint8_t flags;          /* 0x0f */
} __attribute__((packed));

/* RAID_CONTEXT for Thunderbolt and Invader/Fury (Ventura's G35 differs). */
struct fusion_raid_context {
    uint8_t type_nseg;      /* 0x00: type in bits 3:0, nseg in bits 7:4 (little-endian bitfield) */
    uint8_t resvd0;         /* 0x01 */
    uint16_t timeout_value; /* 0x02: seconds */
    uint8_t reg_lock_flags; /* 0x04 */
    uint8_t resvd1;         /* 0x05 */
    uint16_t virtual_disk_tgt_id; /* 0x06 */
    uint64_t reg_lock_row_lba;    /* 0x08 */
    uint32_t reg_lock_length;     /* 0x10 */
    uint16_t next_lmid;     /* 0x14 */
    uint8_t ex_status;      /* 0x16: out: SCSI status on SCSI_DONE_WITH_ERROR */
    uint8_t status;         /* 0x17: out: MFI status */
    uint8_t raid_flags;     /* 0x18 */
    uint8_t num_sge;        /* 0x19 */
    uint16_t config_seq_num;/* 0x1a */
    uint8_t span_arm;       /* 0x1c */
    uint8_t priority;       /* 0x1d */
    uint8_t num_sge_ext;    /* 0x1e */
    uint8_t resvd2;         /* 0x1f */
} __attribute__((packed));

/* MPI2_RAID_SCSI_IO_REQUEST: MPI2 SCSI IO with the RAID context at 0x60
 * and the SGL moved to 0x80. */
struct fusion_io_request {
    uint16_t dev_handle;    /* 0x00 */
    uint8_t chain_offset;   /* 0x02: in 16-byte units */
    uint8_t function;       /* 0x03 */
    uint16_t reserved1;     /* 0x04 */
    uint8_t reserved2;      /* 0x06 */
    uint8_t msg_flags;      /* 0x07 */
    uint8_t vp_id;          /* 0x08 */
    uint8_t vf_id;          /* 0x09 */
    uint16_t reserved3;     /* 0x0a */
    uint32_t sense_buffer_low; /* 0x0c */
    uint16_t sgl_flags;     /* 0x10 */
    uint8_t sense_buffer_length; /* 0x12 */
    uint8_t reserved4;      /* 0x13 */
    uint8_t sgl_offset0;    /* 0x14: in 4-byte units */
    uint8_t sgl_offset1, sgl_offset2, sgl_offset3; /* 0x15 */
    uint32_t skip_count;    /* 0x18 */
    uint32_t data_length;   /* 0x1c */
    uint32_t bidi_data_length; /* 0x20 */
    uint16_t io_flags;      /* 0x24: CDB length in the low bits */
    uint16_t eedp_flags;    /* 0x26 */
    uint32_t eedp_block_size; /* 0x28 */
    uint32_t secondary_ref_tag; /* 0x2c */
    uint16_t secondary_app_tag; /* 0x30 */
    uint16_t app_tag_translation_mask; /* 0x32 */
    uint8_t lun[8];         /* 0x34 */
    uint32_t control;       /* 0x3c */
    uint8_t cdb[32];        /* 0x40 */
    struct fusion_raid_context raid_context; /* 0x60 */
    struct fusion_sge sgl[8]; /* 0x80: to the end of the 256-byte frame */
} __attribute__((packed));

#define FUSION_SGL_OFFSET 0x80
#define FUSION_SGES_IN_FRAME ((FUSION_FRAME_BYTES - FUSION_SGL_OFFSET) / 16)

/* MPI2_IOC_INIT_REQUEST, wrapped in an MFI INIT frame. */
struct fusion_ioc_init {
    uint8_t who_init;       /* 0x00 */
    uint8_t reserved1;      /* 0x01 */
    uint8_t chain_offset;   /* 0x02 */
    uint8_t function;       /* 0x03 */
    uint16_t reserved2;     /* 0x04 */
    uint8_t reserved3;      /* 0x06 */
    uint8_t msg_flags;      /* 0x07 */
    uint8_t vp_id;          /* 0x08 */
    uint8_t vf_id;          /* 0x09 */
    uint16_t reserved4;     /* 0x0a */
    uint16_t msg_version;   /* 0x0c */
    uint16_t header_version;/* 0x0e */
    uint32_t reserved5;     /* 0x10 */
    uint16_t reserved6;     /* 0x14 */
    uint8_t host_page_size; /* 0x16 */
    uint8_t host_msix_vectors; /* 0x17 */
    uint16_t reserved8;     /* 0x18 */
    uint16_t system_request_frame_size; /* 0x1a: in 4-byte units */
    uint16_t reply_descriptor_post_queue_depth; /* 0x1c */
    uint16_t reply_free_queue_depth; /* 0x1e */
    uint32_t sense_buffer_address_high; /* 0x20 */
    uint32_t system_reply_address_high; /* 0x24 */
    uint64_t system_request_frame_base_address; /* 0x28: the frame of SMID 0 */
    uint64_t reply_descriptor_post_queue_address; /* 0x30 */
    uint64_t reply_free_queue_address; /* 0x38 */
    uint64_t time_stamp;    /* 0x40 */
} __attribute__((packed));

/* Request descriptor (MPI2_SCSI_IO_REQUEST_DESCRIPTOR); an MFA descriptor
 * is instead the MFI frame's address with RequestFlags in its low byte. */
struct fusion_request_desc {
    uint8_t request_flags;  /* 0x00: type << 1 */
    uint8_t msix_index;     /* 0x01 */
    uint16_t smid;          /* 0x02 */
    uint16_t lmid;          /* 0x04 */
    uint16_t dev_handle;    /* 0x06 */
} __attribute__((packed));

/* Reply descriptor (MPI2_SCSI_IO_SUCCESS_REPLY_DESCRIPTOR and friends:
 * the SMID is at 0x02 in every type the firmware posts for us). */
struct fusion_reply_desc {
    uint8_t reply_flags;    /* 0x00 */
    uint8_t msix_index;     /* 0x01 */
    uint16_t smid;          /* 0x02 */
    uint32_t type_dependent;/* 0x04 */
} __attribute__((packed));

#endif
