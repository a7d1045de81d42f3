/* Fusion-MPT Message Passing Interface 1.5 messages baremark sends and
 * the replies it reads (MPI 1.5 specification; layouts as in QEMU's
 * hw/scsi/mpi.h and the Linux mptfusion lsi/mpi_*.h headers). Offsets are
 * checked in tests/unit/test_mpi_layout.c. Little-endian throughout. */
#ifndef BAREMARK_MPI_H
#define BAREMARK_MPI_H

#include <stdint.h>

#define MPI_VERSION_1_5 0x0105
#define MPI_HEADER_VERSION 0x0c00   /* header set unit 0x0c, dev 0x00 (an MPI 1.05 header set) */

/* Function codes (header byte 3). */
#define MPI_FUNCTION_SCSI_IO_REQUEST 0x00
#define MPI_FUNCTION_SCSI_TASK_MGMT 0x01
#define MPI_FUNCTION_IOC_INIT 0x02
#define MPI_FUNCTION_IOC_FACTS 0x03
#define MPI_FUNCTION_PORT_FACTS 0x05
#define MPI_FUNCTION_PORT_ENABLE 0x06

#define MPI_WHOINIT_HOST_DRIVER 0x04

/* IOCStatus (reply offset 0x0e), low 15 bits. */
#define MPI_IOCSTATUS_MASK 0x7fff
#define MPI_IOCSTATUS_LOG_INFO_AVAILABLE 0x8000
#define MPI_IOCSTATUS_SUCCESS 0x0000
#define MPI_IOCSTATUS_INVALID_FUNCTION 0x0001
#define MPI_IOCSTATUS_BUSY 0x0002
#define MPI_IOCSTATUS_INVALID_SGL 0x0003
#define MPI_IOCSTATUS_INTERNAL_ERROR 0x0004
#define MPI_IOCSTATUS_INSUFFICIENT_RESOURCES 0x0006
#define MPI_IOCSTATUS_INVALID_FIELD 0x0007
#define MPI_IOCSTATUS_INVALID_STATE 0x0008
#define MPI_IOCSTATUS_SCSI_RECOVERED_ERROR 0x0040
#define MPI_IOCSTATUS_SCSI_INVALID_BUS 0x0041
#define MPI_IOCSTATUS_SCSI_INVALID_TARGETID 0x0042
#define MPI_IOCSTATUS_SCSI_DEVICE_NOT_THERE 0x0043
#define MPI_IOCSTATUS_SCSI_DATA_OVERRUN 0x0044
#define MPI_IOCSTATUS_SCSI_DATA_UNDERRUN 0x0045
#define MPI_IOCSTATUS_SCSI_IO_DATA_ERROR 0x0046
#define MPI_IOCSTATUS_SCSI_PROTOCOL_ERROR 0x0047
#define MPI_IOCSTATUS_SCSI_TASK_TERMINATED 0x0048
#define MPI_IOCSTATUS_SCSI_RESIDUAL_MISMATCH 0x0049
#define MPI_IOCSTATUS_SCSI_TASK_MGMT_FAILED 0x004a
#define MPI_IOCSTATUS_SCSI_IOC_TERMINATED 0x004b
#define MPI_IOCSTATUS_SCSI_EXT_TERMINATED 0x004c

/* ---- Scatter/gather element ---------------------------------------------- */
#define MPI_SGE_FLAGS_LAST_ELEMENT 0x80000000u
#define MPI_SGE_FLAGS_END_OF_BUFFER 0x40000000u
#define MPI_SGE_FLAGS_SIMPLE_ELEMENT 0x10000000u
#define MPI_SGE_FLAGS_HOST_TO_IOC 0x04000000u     /* direction: data out */
#define MPI_SGE_FLAGS_64_BIT_ADDRESSING 0x02000000u
#define MPI_SGE_FLAGS_END_OF_LIST 0x01000000u
#define MPI_SGE_LENGTH_MASK 0x00ffffffu

struct mpi_sge64 {
    uint32_t flags_length;
    uint64_t addr;
} __attribute__((packed));

/* ---- Every message starts with this ---------------------------------------------------------------- */
struct mpi_request_header {
    uint8_t reserved[2];        /* 0x00: function specific */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t reserved1[3];       /* 0x04 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
} __attribute__((packed));

struct mpi_default_reply {
    uint8_t reserved[2];        /* 0x00 */
    uint8_t msg_length;         /* 0x02: dwords */
    uint8_t function;           /* 0x03 */
    uint8_t reserved1[3];       /* 0x04 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint8_t reserved2[2];       /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
} __attribute__((packed));

/* ---- IOC FACTS ------------------------------------------------------------------------ */
struct mpi_ioc_facts_request {
    uint8_t reserved[2];
    uint8_t chain_offset;
    uint8_t function;           /* 0x03 */
    uint8_t reserved1[3];
    uint8_t msg_flags;
    uint32_t msg_context;       /* 0x08 */
} __attribute__((packed));

struct mpi_ioc_facts_reply {
    uint16_t msg_version;       /* 0x00 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t header_version;    /* 0x04 */
    uint8_t ioc_number;         /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint16_t ioc_exceptions;    /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint8_t max_chain_depth;    /* 0x14 */
    uint8_t who_init;           /* 0x15 */
    uint8_t block_size;         /* 0x16: dwords */
    uint8_t flags;              /* 0x17 */
    uint16_t reply_queue_depth; /* 0x18 */
    uint16_t request_frame_size;/* 0x1a: dwords */
    uint16_t reserved_fw_version;/* 0x1c */
    uint16_t product_id;        /* 0x1e */
    uint32_t current_host_mfa_high_addr; /* 0x20 */
    uint16_t global_credits;    /* 0x24: requests the host may have outstanding */
    uint8_t number_of_ports;    /* 0x26 */
    uint8_t event_state;        /* 0x27 */
    uint32_t current_sense_buffer_high_addr; /* 0x28 */
    uint16_t cur_reply_frame_size; /* 0x2c */
    uint8_t max_devices;        /* 0x2e */
    uint8_t max_buses;          /* 0x2f */
    uint32_t fw_image_size;     /* 0x30 */
    uint32_t ioc_capabilities;  /* 0x34: MPI_IOCFACTS_CAPABILITY_* */
    uint8_t fw_version_dev;     /* 0x38 */
    uint8_t fw_version_unit;    /* 0x39 */
    uint8_t fw_version_minor;   /* 0x3a */
    uint8_t fw_version_major;   /* 0x3b */
    uint16_t high_priority_queue_depth; /* 0x3c */
    uint16_t reserved2;         /* 0x3e */
    struct mpi_sge64 host_page_buffer_sge; /* 0x40: a buffer the IOC wants, if any */
    uint32_t reply_fifo_host_signaling_addr; /* 0x4c */
} __attribute__((packed));

#define MPI_IOCFACTS_CAPABILITY_HIGH_PRI_Q 0x00000001u /* a high-priority request FIFO */

/* ---- IOC INIT ---------------------------------------------------------------------------- */
struct mpi_ioc_init_request {
    uint8_t who_init;           /* 0x00 */
    uint8_t reserved;           /* 0x01 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t flags;              /* 0x04 */
    uint8_t max_devices;        /* 0x05 */
    uint8_t max_buses;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint16_t reply_frame_size;  /* 0x0c: bytes */
    uint8_t reserved1[2];       /* 0x0e */
    uint32_t host_mfa_high_addr;/* 0x10: upper 32 bits of request and reply frames */
    uint32_t sense_buffer_high_addr; /* 0x14 */
    uint32_t reply_fifo_host_signaling_addr; /* 0x18 */
    struct mpi_sge64 host_page_buffer_sge; /* 0x1c */
    uint16_t msg_version;       /* 0x28 */
    uint16_t header_version;    /* 0x2a */
} __attribute__((packed));

/* ---- PORT FACTS / PORT ENABLE --------------------------------------------------- */
struct mpi_port_request {       /* both messages share this layout */
    uint8_t reserved[2];
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t reserved1[2];       /* 0x04 */
    uint8_t port_number;        /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
} __attribute__((packed));

struct mpi_port_facts_reply {
    uint16_t reserved;          /* 0x00 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint16_t reserved1;         /* 0x04 */
    uint8_t port_number;        /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint16_t reserved2;         /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint8_t reserved3;          /* 0x14 */
    uint8_t port_type;          /* 0x15 */
    uint16_t max_devices;       /* 0x16 */
    uint16_t port_scsi_id;      /* 0x18: the IOC's own id on this port */
    uint16_t protocol_flags;    /* 0x1a */
    uint16_t max_posted_cmd_buffers; /* 0x1c */
    uint16_t max_persistent_ids;/* 0x1e */
    uint16_t max_lan_buckets;   /* 0x20 */
    uint8_t max_initiators;     /* 0x22 */
    uint8_t reserved4;          /* 0x23 */
    uint32_t reserved5;         /* 0x24 */
} __attribute__((packed));

#define MPI_PORTFACTS_PORTTYPE_INACTIVE 0x00
#define MPI_PORTFACTS_PORTTYPE_SCSI 0x01
#define MPI_PORTFACTS_PORTTYPE_FC 0x10
#define MPI_PORTFACTS_PORTTYPE_SAS 0x30
#define MPI_PORTFACTS_PROTOCOL_INITIATOR 0x08

/* ---- SCSI IO ------------------------------------------------------------------------------ */
struct mpi_scsi_io_request {
    uint8_t target_id;          /* 0x00 */
    uint8_t bus;                /* 0x01 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t cdb_length;         /* 0x04 */
    uint8_t sense_buffer_length;/* 0x05 */
    uint8_t reserved;           /* 0x06 */
    uint8_t msg_flags;          /* 0x07: sense buffer 32-bit, in host memory */
    uint32_t msg_context;       /* 0x08 */
    uint8_t lun[8];             /* 0x0c: SAM LUN, single level in byte 1 */
    uint32_t control;           /* 0x14 */
    uint8_t cdb[16];            /* 0x18 */
    uint32_t data_length;       /* 0x28 */
    uint32_t sense_buffer_low_addr; /* 0x2c */
    struct mpi_sge64 sgl;       /* 0x30 */
} __attribute__((packed));

#define MPI_SCSIIO_CONTROL_NODATATRANSFER 0x00000000u
#define MPI_SCSIIO_CONTROL_WRITE 0x01000000u
#define MPI_SCSIIO_CONTROL_READ 0x02000000u
#define MPI_SCSIIO_CONTROL_SIMPLEQ 0x00000000u

struct mpi_scsi_io_reply {
    uint8_t target_id;          /* 0x00 */
    uint8_t bus;                /* 0x01 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t cdb_length;         /* 0x04 */
    uint8_t sense_buffer_length;/* 0x05 */
    uint8_t reserved;           /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint8_t scsi_status;        /* 0x0c */
    uint8_t scsi_state;         /* 0x0d */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint32_t transfer_count;    /* 0x14 */
    uint32_t sense_count;       /* 0x18 */
    uint32_t response_info;     /* 0x1c */
    uint16_t task_tag;          /* 0x20 */
    uint16_t reserved1;         /* 0x22 */
} __attribute__((packed));

/* ---- SCSI TASK MANAGEMENT (mpi_init.h MSG_SCSI_TASK_MGMT / _REPLY) --------------------------------------- */
#define MPI_SCSITASKMGMT_TASKTYPE_ABORT_TASK 0x01
#define MPI_SCSITASKMGMT_TASKTYPE_TARGET_RESET 0x03

struct mpi_scsi_task_mgmt_request {
    uint8_t target_id;          /* 0x00 */
    uint8_t bus;                /* 0x01 */
    uint8_t chain_offset;       /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t reserved;           /* 0x04 */
    uint8_t task_type;          /* 0x05 */
    uint8_t reserved1;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint8_t lun[8];             /* 0x0c */
    uint32_t reserved2[7];      /* 0x14 */
    uint32_t task_msg_context;  /* 0x30: the MsgContext of the request to abort */
} __attribute__((packed));

struct mpi_scsi_task_mgmt_reply {
    uint8_t target_id;          /* 0x00 */
    uint8_t bus;                /* 0x01 */
    uint8_t msg_length;         /* 0x02 */
    uint8_t function;           /* 0x03 */
    uint8_t response_code;      /* 0x04 */
    uint8_t task_type;          /* 0x05 */
    uint8_t reserved1;          /* 0x06 */
    uint8_t msg_flags;          /* 0x07 */
    uint32_t msg_context;       /* 0x08 */
    uint16_t reserved2;         /* 0x0c */
    uint16_t ioc_status;        /* 0x0e */
    uint32_t ioc_log_info;      /* 0x10 */
    uint32_t termination_count; /* 0x14 */
} __attribute__((packed));

/* SCSIState bits. */
#define MPI_SCSI_STATE_AUTOSENSE_VALID 0x01
#define MPI_SCSI_STATE_AUTOSENSE_FAILED 0x02
#define MPI_SCSI_STATE_NO_SCSI_STATUS 0x04
#define MPI_SCSI_STATE_TERMINATED 0x08
#define MPI_SCSI_STATE_RESPONSE_INFO_VALID 0x10
#define MPI_SCSI_STATE_QUEUE_TAG_REJECTED 0x20

#endif
