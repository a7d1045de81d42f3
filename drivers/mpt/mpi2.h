/* Fusion-MPT Message Passing Interface 2.0 / 2.5 messages baremark sends
 * and the replies it reads (SAS2004/2008/2308 speak MPI 2.0, SAS3004/3008
 * MPI 2.5). Layouts and values as in the MPI 2 headers Linux mpt3sas and
 * FreeBSD mps/mpr carry: mpi/mpi2.h (descriptors, registers),
 * mpi2_ioc.h (IOC FACTS/INIT, PORT ENABLE, EVENT NOTIFICATION),
 * mpi2_init.h (SCSI IO), mpi2_cnfg.h (config pages). Offsets are checked in
 * tests/unit/test_mpi_layout.c. Little-endian throughout. */
#ifndef BAREMARK_MPI2_H
#define BAREMARK_MPI2_H

#include <stdint.h>

/* MsgVersion of IOC INIT (mpi2.h MPI2_VERSION_02_00 / MPI2_VERSION_02_05). */
#define MPI2_VERSION_2_0 0x0200
#define MPI2_VERSION_2_5 0x0205

/* Function codes (mpi2.h MPI2_FUNCTION_*). */
#define MPI2_FUNCTION_SCSI_IO_REQUEST 0x00
#define MPI2_FUNCTION_SCSI_TASK_MGMT 0x01
#define MPI2_FUNCTION_IOC_INIT 0x02
#define MPI2_FUNCTION_IOC_FACTS 0x03
#define MPI2_FUNCTION_CONFIG 0x04
#define MPI2_FUNCTION_PORT_ENABLE 0x06
#define MPI2_FUNCTION_EVENT_NOTIFICATION 0x07
#define MPI2_FUNCTION_EVENT_ACK 0x08

#define MPI2_WHOINIT_HOST_DRIVER 0x04 /* mpi2_ioc.h */

/* IOCStatus values MPI 2 adds to MPI 1's (mpi2.h): config requests. */
#define MPI2_IOCSTATUS_CONFIG_INVALID_ACTION 0x0020
#define MPI2_IOCSTATUS_CONFIG_INVALID_TYPE 0x0021
#define MPI2_IOCSTATUS_CONFIG_INVALID_PAGE 0x0022 /* also: GET_NEXT_HANDLE ran past the last device */
#define MPI2_IOCSTATUS_CONFIG_INVALID_DATA 0x0023

/* ---- Request descriptors (mpi2.h MPI2_DEFAULT_REQUEST_DESCRIPTOR) -------------------------------------
 * 64 bits: RequestFlags (0x00), MSIxIndex (0x01), SMID (0x02), LMID (0x04),
 * DevHandle for SCSI IO (0x06). Posted low dword then high dword. */
#define MPI2_REQ_DESCRIPT_FLAGS_SCSI_IO 0x00
#define MPI2_REQ_DESCRIPT_FLAGS_HIGH_PRIORITY 0x06 /* task management requests */
#define MPI2_REQ_DESCRIPT_FLAGS_DEFAULT_TYPE 0x08
#define MPI2_REQ_DESCRIPT_FLAGS_TYPE_MASK 0x1e

/* ---- Reply descriptors (mpi2.h MPI2_DEFAULT_REPLY_DESCRIPTOR) -----------------------------------------
 * 64 bits: ReplyFlags (0x00), MSIxIndex (0x01), SMID (0x02), then
 * TaskTag (success) or ReplyFrameAddress (address reply) at 0x04. */
#define MPI2_RPY_DESCRIPT_FLAGS_TYPE_MASK 0x0f
#define MPI2_RPY_DESCRIPT_FLAGS_SCSI_IO_SUCCESS 0x00
#define MPI2_RPY_DESCRIPT_FLAGS_ADDRESS_REPLY 0x01
#define MPI25_RPY_DESCRIPT_FLAGS_FAST_PATH_SCSI_IO_SUCCESS 0x06
#define MPI2_RPY_DESCRIPT_FLAGS_UNUSED 0x0f
#define MPI2_RPY_DESCRIPT_UNUSED_WORD 0xffffffffu /* both dwords of an unused descriptor */

struct mpi2_reply_descriptor {
    uint8_t reply_flags;        /* 0x00 */
    uint8_t msix_index;         /* 0x01 */
    uint16_t smid;              /* 0x02 */
    uint32_t dependent;         /* 0x04: TaskTag or ReplyFrameAddress */
} __attribute__((packed));

/* ---- Scatter/gather elements --------------------------------------------------------------------------------
 * MPI simple SGE (MPI2_SGE_SIMPLE64): FlagsLength (flags in bits 31:24),
 * 64-bit address. The flag values are MPI 1's (mpi.h MPI_SGE_FLAGS_*),
 * so mpi2 reuses them; a chain element (MPI2_SGE_CHAIN64) is Length,
 * NextChainOffset, Flags, Address. */
#define MPI2_SGE_FLAGS_CHAIN_ELEMENT 0x30000000u
#define MPI2_SGE_CHAIN_OFFSET_SHIFT 16

struct mpi2_sge_simple64 {
    uint32_t flags_length;      /* 0x00 */
    uint64_t address;           /* 0x04 */
} __attribute__((packed));

struct mpi2_sge_chain64 {
    uint16_t length;            /* 0x00: bytes of the next segment */
    uint8_t next_chain_offset;  /* 0x02: dwords into it of its chain element, 0 if none */
    uint8_t flags;              /* 0x03: CHAIN_ELEMENT | 64_BIT_ADDRESSING */
    uint64_t address;           /* 0x04 */
} __attribute__((packed));

/* IEEE SGE (MPI2_IEEE_SGE_SIMPLE64, the only SCSI IO SGE of MPI 2.5). */
#define MPI2_IEEE_SGE_FLAGS_SIMPLE_ELEMENT 0x00
#define MPI2_IEEE_SGE_FLAGS_CHAIN_ELEMENT 0x80
#define MPI2_IEEE_SGE_FLAGS_SYSTEM_ADDR 0x00
#define MPI25_IEEE_SGE_FLAGS_END_OF_LIST 0x40

struct mpi2_ieee_sge64 {
    uint64_t address;           /* 0x00 */
    uint32_t length;            /* 0x08 */
    uint16_t reserved1;         /* 0x0c */
    uint8_t reserved2;          /* 0x0e: NextChainOffset in a chain element (MPI25_IEEE_SGE_CHAIN64) */
    uint8_t flags;              /* 0x0f */
} __attribute__((packed));

/* MPI 2.5 SCSI IO: ChainOffset (request byte 0x02) and a chain element's
 * NextChainOffset count 16-byte IEEE elements; MPI 2.0 counts dwords
 * (Linux mpt3sas _base_build_sg_scmd_ieee / _base_build_sg_scmd). An MPI
 * 2.0 chain segment is at most a request frame; MPI 2.5 IOC FACTS gives
 * IOCMaxChainSegmentSize in 16-byte units, 0 meaning 128 bytes (mpt3sas
 * DEFAULT_NUM_FWCHAIN_ELEMTS * MAX_CHAIN_ELEMT_SZ). */
#define MPI25_CHAIN_SEGMENT_UNIT 16
#define MPI25_DEFAULT_CHAIN_SEGMENT_BYTES 128

/* ---- Default reply header (every MPI 2 reply) ----------------------------------------------------------- */
struct mpi2_default_reply {
    uint16_t function_dependent1; /* 0x00 */
    uint8_t msg_length;         /* 0x02: dwords */
    uint8_t function;           /* 0x03 */
    uint16_t function_dependent2; /* 0x04 */
    uint8_t function_dependent3; /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved1;         /* 0x0a */
    uint16_t function_dependent5; /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
} __attribute__((packed));

/* ---- IOC FACTS (mpi2_ioc.h) ---------------------------------------------------------------------------- */
struct mpi2_ioc_facts_request {
    uint16_t reserved1;         /* 0x00 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved2;         /* 0x04 */
    uint8_t reserved3;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved4;         /* 0x0a */
} __attribute__((packed));

struct mpi2_ioc_facts_reply {
    uint16_t msg_version;       /* 0x00 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t header_version;    /* 0x04 */
    uint8_t ioc_number;         /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved1;         /* 0x0a */
    uint16_t ioc_exceptions;    /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint8_t max_chain_depth;    /* 0x14 */
    uint8_t who_init;           /* 0x15 */
    uint8_t number_of_ports;    /* 0x16 */
    uint8_t max_msix_vectors;   /* 0x17 */
    uint16_t request_credit;    /* 0x18: requests the host may have outstanding */
    uint16_t product_id;        /* 0x1a */
    uint32_t ioc_capabilities;  /* 0x1c */
    uint8_t fw_version_dev;     /* 0x20 */
    uint8_t fw_version_unit;    /* 0x21 */
    uint8_t fw_version_minor;   /* 0x22 */
    uint8_t fw_version_major;   /* 0x23 */
    uint16_t ioc_request_frame_size; /* 0x24: dwords */
    uint16_t ioc_max_chain_segment_size; /* 0x26: MPI 2.5 */
    uint16_t max_initiators;    /* 0x28 */
    uint16_t max_targets;       /* 0x2a */
    uint16_t max_sas_expanders; /* 0x2c */
    uint16_t max_enclosures;    /* 0x2e */
    uint16_t protocol_flags;    /* 0x30 */
    uint16_t high_priority_credit; /* 0x32 */
    uint16_t max_reply_descriptor_post_queue_depth; /* 0x34 */
    uint8_t reply_frame_size;   /* 0x36: dwords */
    uint8_t max_volumes;        /* 0x37 */
    uint16_t max_dev_handle;    /* 0x38 */
    uint16_t max_persistent_entries; /* 0x3a */
    uint16_t min_dev_handle;    /* 0x3c */
    uint8_t current_host_page_size; /* 0x3e */
    uint8_t reserved4;          /* 0x3f */
} __attribute__((packed));

#define MPI2_IOCFACTS_PROTOCOL_SCSI_INITIATOR 0x0002
#define MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID 0x00001000u /* IR firmware */

/* ---- IOC INIT (mpi2_ioc.h) --------------------------------------------------------------------------------- */
struct mpi2_ioc_init_request {
    uint8_t who_init;           /* 0x00 */
    uint8_t reserved1;          /* 0x01 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved2;         /* 0x04 */
    uint8_t reserved3;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved4;         /* 0x0a */
    uint16_t msg_version;       /* 0x0c */
    uint16_t header_version;    /* 0x0e */
    uint32_t reserved5;         /* 0x10 */
    uint16_t configuration_flags; /* 0x14 */
    uint8_t host_page_size;     /* 0x16 */
    uint8_t host_msix_vectors;  /* 0x17 */
    uint16_t reserved8;         /* 0x18 */
    uint16_t system_request_frame_size; /* 0x1a: dwords */
    uint16_t reply_descriptor_post_queue_depth; /* 0x1c */
    uint16_t reply_free_queue_depth; /* 0x1e */
    uint32_t sense_buffer_address_high; /* 0x20 */
    uint32_t system_reply_address_high; /* 0x24 */
    uint64_t system_request_frame_base_address; /* 0x28 */
    uint64_t reply_descriptor_post_queue_address; /* 0x30 */
    uint64_t reply_free_queue_address; /* 0x38 */
    uint64_t time_stamp;        /* 0x40: milliseconds since 1970 */
} __attribute__((packed));

/* ---- PORT ENABLE (mpi2_ioc.h) ----------------------------------------------------------------------------- */
struct mpi2_port_enable_request {
    uint16_t reserved1;         /* 0x00 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t reserved2;          /* 0x04 */
    uint8_t port_flags;         /* 0x05 */
    uint8_t reserved3;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved4;         /* 0x0a */
} __attribute__((packed));

/* ---- EVENT NOTIFICATION (mpi2_ioc.h); a set mask bit turns an event off ------------------------------------------ */
struct mpi2_event_notification_request {
    uint16_t reserved1;         /* 0x00 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved2;         /* 0x04 */
    uint8_t reserved3;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved4;         /* 0x0a */
    uint32_t reserved5;         /* 0x0c */
    uint32_t reserved6;         /* 0x10 */
    uint32_t event_masks[4];    /* 0x14 */
    uint16_t sas_broadcast_primitive_masks; /* 0x24 */
    uint16_t sas_notify_primitive_masks; /* 0x26 */
    uint32_t reserved8;         /* 0x28 */
} __attribute__((packed));

/* ---- SCSI TASK MANAGEMENT (mpi2_init.h MPI2_SCSI_TASK_MANAGE_REQUEST / _REPLY) ------------------------------------ */
#define MPI2_SCSITASKMGMT_TASKTYPE_ABORT_TASK 0x01
#define MPI2_SCSITASKMGMT_TASKTYPE_TARGET_RESET 0x03
#define MPI2_SCSITASKMGMT_RSP_TM_COMPLETE 0x00
#define MPI2_SCSITASKMGMT_RSP_TM_SUCCEEDED 0x08

struct mpi2_scsi_task_manage_request {
    uint16_t dev_handle;        /* 0x00 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t reserved1;          /* 0x04 */
    uint8_t task_type;          /* 0x05 */
    uint8_t reserved2;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved3;         /* 0x0a */
    uint8_t lun[8];             /* 0x0c */
    uint32_t reserved4[7];      /* 0x14 */
    uint16_t task_mid;          /* 0x30: the SMID to abort */
    uint16_t reserved5;         /* 0x32 */
} __attribute__((packed));

struct mpi2_scsi_task_manage_reply {
    uint16_t dev_handle;        /* 0x00 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t response_code;      /* 0x04 */
    uint8_t task_type;          /* 0x05 */
    uint8_t reserved1;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved2;         /* 0x0a */
    uint16_t reserved3;         /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint32_t termination_count; /* 0x14 */
    uint32_t response_info;     /* 0x18 */
} __attribute__((packed));

/* ---- CONFIG (mpi2.h header, mpi2_cnfg.h request and pages) ------------------------------------------------------ */
#define MPI2_CONFIG_ACTION_PAGE_HEADER 0x00
#define MPI2_CONFIG_ACTION_PAGE_READ_CURRENT 0x01
#define MPI2_CONFIG_PAGETYPE_EXTENDED 0x0f
#define MPI2_CONFIG_EXTPAGETYPE_SAS_DEVICE 0x12
#define MPI2_SASDEVICE0_PAGEVERSION 0x08
#define MPI2_SAS_DEVICE_PGAD_FORM_GET_NEXT_HANDLE 0x00000000u
#define MPI2_SAS_DEVICE_PGAD_FORM_HANDLE 0x20000000u
#define MPI2_SAS_DEVICE_PGAD_HANDLE_MASK 0x0000ffffu

struct mpi2_config_ext_page_header {
    uint8_t page_version;       /* 0x00 */
    uint8_t reserved1;          /* 0x01 */
    uint8_t page_number;        /* 0x02 */
    uint8_t page_type;          /* 0x03: EXTENDED */
    uint16_t ext_page_length;   /* 0x04: dwords */
    uint8_t ext_page_type;      /* 0x06 */
    uint8_t reserved2;          /* 0x07 */
} __attribute__((packed));

struct mpi2_config_request {
    uint8_t action;             /* 0x00 */
    uint8_t sgl_flags;          /* 0x01 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t ext_page_length;   /* 0x04 */
    uint8_t ext_page_type;      /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved1;         /* 0x0a */
    uint8_t reserved2;          /* 0x0c */
    uint8_t proxy_vf_id;        /* 0x0d */
    uint16_t reserved4;         /* 0x0e */
    uint32_t reserved3;         /* 0x10 */
    uint8_t header_page_version; /* 0x14: MPI2_CONFIG_PAGE_HEADER */
    uint8_t header_page_length; /* 0x15 */
    uint8_t header_page_number; /* 0x16 */
    uint8_t header_page_type;   /* 0x17 */
    uint32_t page_address;      /* 0x18 */
    struct mpi2_sge_simple64 page_buffer_sge; /* 0x1c */
} __attribute__((packed));

struct mpi2_config_reply {
    uint8_t action;             /* 0x00 */
    uint8_t sgl_flags;          /* 0x01 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t ext_page_length;   /* 0x04 */
    uint8_t ext_page_type;      /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved1;         /* 0x0a */
    uint16_t reserved2;         /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint8_t header_page_version; /* 0x14 */
    uint8_t header_page_length; /* 0x15 */
    uint8_t header_page_number; /* 0x16 */
    uint8_t header_page_type;   /* 0x17 */
} __attribute__((packed));

/* SAS Device Page 0 (mpi2_cnfg.h MPI2_CONFIG_PAGE_SAS_DEV_0). */
struct mpi2_sas_device_page0 {
    struct mpi2_config_ext_page_header header; /* 0x00 */
    uint16_t slot;              /* 0x08 */
    uint16_t enclosure_handle;  /* 0x0a */
    uint64_t sas_address;       /* 0x0c */
    uint16_t parent_dev_handle; /* 0x14 */
    uint8_t phy_num;            /* 0x16 */
    uint8_t access_status;      /* 0x17 */
    uint16_t dev_handle;        /* 0x18 */
    uint8_t attached_phy_identifier; /* 0x1a */
    uint8_t zone_group;         /* 0x1b */
    uint32_t device_info;       /* 0x1c */
    uint16_t flags;             /* 0x20 */
    uint8_t physical_port;      /* 0x22 */
    uint8_t max_port_connections; /* 0x23 */
    uint64_t device_name;       /* 0x24 */
    uint8_t port_groups;        /* 0x2c */
    uint8_t dma_group;          /* 0x2d */
    uint8_t control_group;      /* 0x2e */
    uint8_t enclosure_level;    /* 0x2f */
    uint8_t connector_name[4];  /* 0x30 */
    uint32_t reserved3;         /* 0x34 */
} __attribute__((packed));

/* DeviceInfo (mpi2_cnfg.h MPI2_SAS_DEVICE_INFO_*). */
#define MPI2_SAS_DEVICE_INFO_DEVICE_TYPE_MASK 0x00000007u
#define MPI2_SAS_DEVICE_INFO_END_DEVICE 0x00000001u
#define MPI2_SAS_DEVICE_INFO_SSP_INITIATOR 0x00000040u
#define MPI2_SAS_DEVICE_INFO_SATA_DEVICE 0x00000080u
#define MPI2_SAS_DEVICE_INFO_STP_TARGET 0x00000400u
#define MPI2_SAS_DEVICE_INFO_SSP_TARGET 0x00000800u
/* Flags and AccessStatus (MPI2_SAS_DEVICE0_FLAGS_*, _ASTATUS_*). */
#define MPI2_SAS_DEVICE0_FLAGS_DEVICE_PRESENT 0x0001
#define MPI2_SAS_DEVICE0_ASTATUS_NO_ERRORS 0x00
#define MPI2_SAS_DEVICE0_ASTATUS_SATA_NEEDS_INITIALIZATION 0x02

/* RAID Physical Disk Page 0 (mpi2_cnfg.h MPI2_CONFIG_PAGE_RD_PDISK_0): one
 * per disk IR firmware has made a volume member (or hot spare). */
#define MPI2_CONFIG_PAGETYPE_RAID_PHYSDISK 0x0a
#define MPI2_RAIDPHYSDISKPAGE0_PAGEVERSION 0x05
#define MPI2_PHYSDISK_PGAD_FORM_GET_NEXT_PHYSDISKNUM 0x00000000u

/* RAID Volume Page 0 (mpi2_cnfg.h MPI2_CONFIG_PAGE_RAID_VOL_0), by
 * GET_NEXT_HANDLE; the fixed part before the PhysDisk[] entries. */
#define MPI2_CONFIG_PAGETYPE_RAID_VOLUME 0x08
#define MPI2_RAIDVOLPAGE0_PAGEVERSION 0x0a
#define MPI2_RAID_VOLUME_PGAD_FORM_GET_NEXT_HANDLE 0x00000000u

struct mpi2_config_page_header {
    uint8_t page_version;       /* 0x00 */
    uint8_t page_length;        /* 0x01: dwords */
    uint8_t page_number;        /* 0x02 */
    uint8_t page_type;          /* 0x03 */
} __attribute__((packed));

struct mpi2_raid_volume_page0 {
    struct mpi2_config_page_header header; /* 0x00 */
    uint16_t dev_handle;        /* 0x04 */
    uint8_t volume_state;       /* 0x06 */
    uint8_t volume_type;        /* 0x07: 0 RAID0, 1 RAID1E, 2 RAID1, 5 RAID10 */
    uint32_t volume_status_flags; /* 0x08 */
    uint32_t volume_settings;   /* 0x0c */
    uint64_t max_lba;           /* 0x10 */
    uint32_t stripe_size;       /* 0x18 */
    uint16_t block_size;        /* 0x1c */
    uint16_t reserved1;         /* 0x1e */
    uint8_t supported_phys_disks; /* 0x20 */
    uint8_t resync_rate;        /* 0x21 */
    uint16_t data_scrub_duration; /* 0x22 */
    uint8_t num_phys_disks;     /* 0x24 */
    uint8_t reserved2[3];       /* 0x25 */
} __attribute__((packed));

struct mpi2_raid_physdisk_page0 {
    struct mpi2_config_page_header header; /* 0x00 */
    uint16_t dev_handle;        /* 0x04 */
    uint8_t reserved1;          /* 0x06 */
    uint8_t phys_disk_num;      /* 0x07 */
    uint32_t phys_disk_settings; /* 0x08 */
    uint32_t reserved2;         /* 0x0c */
    uint8_t inquiry_data[60];   /* 0x10: vendor, product, revision, serial */
    uint32_t reserved3;         /* 0x4c */
    uint8_t phys_disk_state;    /* 0x50 */
    uint8_t offline_reason;     /* 0x51 */
    uint8_t incompatible_reason; /* 0x52 */
    uint8_t phys_disk_attributes; /* 0x53 */
    uint32_t phys_disk_status_flags; /* 0x54 */
    uint64_t device_max_lba;    /* 0x58 */
    uint64_t host_max_lba;      /* 0x60 */
    uint64_t coerced_max_lba;   /* 0x68 */
    uint16_t block_size;        /* 0x70 */
    uint16_t reserved5;         /* 0x72 */
    uint32_t reserved6;         /* 0x74 */
} __attribute__((packed));

/* ---- SCSI IO (mpi2_init.h MPI2_SCSI_IO_REQUEST / MPI25_SCSI_IO_REQUEST) -------------------------------------------- */
#define MPI2_SCSIIO_MSGFLAGS_SYSTEM_SENSE_ADDR 0x00
#define MPI2_SCSIIO_CONTROL_NODATATRANSFER 0x00000000u
#define MPI2_SCSIIO_CONTROL_WRITE 0x01000000u
#define MPI2_SCSIIO_CONTROL_READ 0x02000000u
#define MPI2_SCSIIO_CONTROL_SIMPLEQ 0x00000000u
#define MPI2_SCSIIO_IOFLAGS_CDBLENGTH_MASK 0x001f

struct mpi2_scsi_io_request {
    uint16_t dev_handle;        /* 0x00 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved1;         /* 0x04 */
    uint8_t reserved2;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved3;         /* 0x0a */
    uint32_t sense_buffer_low_address; /* 0x0c */
    uint16_t sgl_flags;         /* 0x10 */
    uint8_t sense_buffer_length; /* 0x12 */
    uint8_t reserved4;          /* 0x13 */
    uint8_t sgl_offset0;        /* 0x14: dwords */
    uint8_t sgl_offset1;        /* 0x15 */
    uint8_t sgl_offset2;        /* 0x16 */
    uint8_t sgl_offset3;        /* 0x17 */
    uint32_t skip_count;        /* 0x18 */
    uint32_t data_length;       /* 0x1c */
    uint32_t bidirectional_data_length; /* 0x20 */
    uint16_t io_flags;          /* 0x24: CDB length in bits 4:0 */
    uint16_t eedp_flags;        /* 0x26 */
    uint32_t eedp_block_size;   /* 0x28 */
    uint32_t secondary_reference_tag; /* 0x2c */
    uint16_t secondary_application_tag; /* 0x30 */
    uint16_t application_tag_translation_mask; /* 0x32 */
    uint8_t lun[8];             /* 0x34 */
    uint32_t control;           /* 0x3c */
    uint8_t cdb[32];            /* 0x40 */
    union {                     /* 0x60 */
        struct mpi2_sge_simple64 mpi;
        struct mpi2_ieee_sge64 ieee;
    } sgl;
} __attribute__((packed));

#define MPI2_SCSIIO_SGL_OFFSET 0x60

struct mpi2_scsi_io_reply {
    uint16_t dev_handle;        /* 0x00 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved1;         /* 0x04 */
    uint8_t reserved2;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint8_t vp_id;              /* 0x08 */
    uint8_t vf_id;              /* 0x09 */
    uint16_t reserved3;         /* 0x0a */
    uint8_t scsi_status;        /* 0x0c */
    uint8_t scsi_state;         /* 0x0d: MPI 1's MPI_SCSI_STATE_* bits */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint32_t transfer_count;    /* 0x14 */
    uint32_t sense_count;       /* 0x18 */
    uint32_t response_info;     /* 0x1c */
    uint16_t task_tag;          /* 0x20 */
    uint16_t scsi_status_qualifier; /* 0x22 */
    uint32_t bidirectional_transfer_count; /* 0x24 */
    uint32_t reserved5[3];      /* 0x28 */
} __attribute__((packed));

#endif
