/* SCSI constants from the T10 standards: SPC-4 (primary commands, sense
 * data), SBC-3 (block commands) and SAM-5 (status codes). Only what
 * baremark sends or decodes. */
#ifndef BAREMARK_SCSI_SPC_H
#define BAREMARK_SCSI_SPC_H

/* ---- Operation codes (SPC-4, SBC-3) ---------------------- */
#define SCSI_OP_TEST_UNIT_READY 0x00
#define SCSI_OP_REQUEST_SENSE 0x03
#define SCSI_OP_INQUIRY 0x12
#define SCSI_OP_START_STOP_UNIT 0x1b
#define  SCSI_START_STOP_START 0x01       /* CDB byte 4 bit 0 */
#define SCSI_OP_READ_CAPACITY_10 0x25
#define SCSI_OP_READ_10 0x28
#define SCSI_OP_WRITE_10 0x2a
#define SCSI_OP_READ_16 0x88
#define SCSI_OP_WRITE_16 0x8a
#define SCSI_OP_SERVICE_ACTION_IN_16 0x9e
#define  SCSI_SAI_READ_CAPACITY_16 0x10 /* service action, CDB byte 1 bits 4:0 */
#define SCSI_OP_REPORT_LUNS 0xa0
#define SCSI_OP_LOG_SENSE 0x4d
#define  SCSI_LOG_SENSE_PC_CUMULATIVE 0x40 /* CDB byte 2 bits 7:6 = 01b: cumulative values */
#define SCSI_OP_ATA_PASS_THROUGH_16 0x85  /* SAT-3 12.2.2 */

/* CDB lengths. */
#define SCSI_CDB6 6
#define SCSI_CDB10 10
#define SCSI_CDB12 12
#define SCSI_CDB16 16

/* READ(10)/WRITE(10) reach LBA 0xffffffff and 65535 blocks per command;
 * beyond either, READ(16)/WRITE(16) (SBC-3). */
#define SCSI_RW10_MAX_LBA 0xffffffffull
#define SCSI_RW10_MAX_BLOCKS 0xffffu

/* ---- INQUIRY (SPC-4) ------------------------------------------------ */
#define SCSI_INQ_EVPD 0x01                /* CDB byte 1 */
#define SCSI_INQ_STD_LEN 36               /* the standard data we read */
/* Standard data byte 0: peripheral qualifier 7:5, device type 4:0. */
#define SCSI_INQ_QUAL(b0) ((b0) >> 5)
#define SCSI_INQ_TYPE(b0) ((b0) & 0x1f)
#define  SCSI_QUAL_CONNECTED 0            /* a device is connected to this LUN */
#define  SCSI_QUAL_NOT_CONNECTED 1
#define  SCSI_QUAL_NOT_SUPPORTED 3
#define  SCSI_TYPE_DISK 0x00              /* direct access block device (SBC) */
#define  SCSI_TYPE_RBC 0x0e               /* simplified direct access (RBC) */
#define  SCSI_TYPE_NONE 0x1f
#define SCSI_INQ_VENDOR_OFF 8             /* T10 vendor identification, 8 bytes */
#define SCSI_INQ_VENDOR_LEN 8
#define SCSI_INQ_PRODUCT_OFF 16           /* product identification, 16 bytes */
#define SCSI_INQ_PRODUCT_LEN 16
#define SCSI_INQ_REV_OFF 32               /* product revision level, 4 bytes */
#define SCSI_INQ_REV_LEN 4
#define SCSI_INQ_VERSION_OFF 2            /* VERSION: 3 SPC, 4 SPC-2, 5 SPC-3, 6 SPC-4, 7 SPC-5 */
#define  SCSI_INQ_VERSION_ANSI_MASK 0x0f /* the ANSI version (bits 7:4: obsolete ISO/ECMA versions) */
#define  SCSI_VERSION_SPC 3
#define  SCSI_VERSION_SPC3 5
#define SCSI_INQ_PROTECT_OFF 5            /* byte 5 bit 0 PROTECT: protection information supported */
#define  SCSI_INQ_PROTECT 0x01
/* VPD pages (SPC-4). Page header: byte 1 page code, bytes
 * 2..3 page length (big endian), data from byte 4. */
#define SCSI_VPD_SUPPORTED_PAGES 0x00
#define SCSI_VPD_UNIT_SERIAL 0x80
#define SCSI_VPD_DEVICE_ID 0x83           /* device identification: designation descriptors */
#define SCSI_VPD_ATA_INFO 0x89            /* ATA information (SAT): a SATL in front of an ATA disk */
#define SCSI_VPD_BLOCK_LIMITS 0xb0        /* SBC-3 block limits */
/* Block limits (SBC-3 6.6.4): bytes 6..7 optimal transfer length
 * granularity, 8..11 maximum transfer length, 12..15 optimal transfer
 * length, all in logical blocks (0: not reported). */
#define SCSI_VPD_BL_OPT_GRAN_OFF 6
#define SCSI_VPD_BL_MAX_XFER_OFF 8
#define SCSI_VPD_BL_OPT_XFER_OFF 12
#define SCSI_VPD_BL_MIN_LEN 16
/* Device identification designation descriptor (SPC-4 7.8.6.1): byte 0
 * code set 3:0, byte 1 association 5:4 and designator type 3:0, byte 3
 * length, designator from byte 4. */
#define SCSI_DESIG_ASSOC(b1) (((b1) >> 4) & 0x3)
#define  SCSI_DESIG_ASSOC_LU 0
#define SCSI_DESIG_TYPE(b1) ((b1) & 0x0f)
#define  SCSI_DESIG_EUI64 0x2
#define  SCSI_DESIG_NAA 0x3
#define SCSI_VPD_HDR_LEN 4

/* ---- READ CAPACITY (SBC-3) ------------------------------- */
#define SCSI_RC10_LEN 8                   /* last LBA (4), block length (4) */
#define SCSI_RC16_LEN 32                  /* last LBA (8), block length (4), ... */
#define SCSI_RC16_LBPPBE(b13) ((b13) & 0x0f) /* logical blocks per physical block exponent */
#define SCSI_RC10_LBA_OVERFLOW 0xffffffffu /* "use READ CAPACITY(16)" */
/* READ CAPACITY(16) byte 12: P_TYPE 3:1, PROT_EN 0; bytes 14..15 bits
 * 13:0 LOWEST ALIGNED LOGICAL BLOCK ADDRESS (SBC-3 5.16.2). */
#define SCSI_RC16_PROT_EN 0x01
#define SCSI_RC16_P_TYPE(b12) (((b12) >> 1) & 0x7)
#define SCSI_RC16_LALBA(w) ((w) & 0x3fff)

/* ---- LOG SENSE (SPC-4 6.6, 7.3) -------------------------------------- */
/* Page header: byte 0 page code 5:0, byte 1 subpage, bytes 2..3 page
 * length. Parameters: bytes 0..1 code, 2 control, 3 length, value. */
#define SCSI_LOG_HDR_LEN 4
#define SCSI_LOG_PARAM_HDR_LEN 4
#define SCSI_LOG_SUPPORTED_PAGES 0x00
#define SCSI_LOG_TEMPERATURE 0x0d         /* param 0000h: byte 5 degrees C (FFh: unknown) */
#define SCSI_LOG_BACKGROUND_SCAN 0x15     /* SBC-3: param 0000h power-on minutes, 0001h.. medium scan */
#define SCSI_LOG_PROTOCOL_PORT 0x18       /* SAS (SPL): per-port phy error counters */
#define SCSI_LOG_INFO_EXCEPTIONS 0x2f     /* param 0000h: IE ASC, ASCQ, most recent temperature */
#define SCSI_LOG_TEMP_UNKNOWN 0xff
#define SCSI_PROTOCOL_SAS 0x6             /* protocol identifier (SPC-4 7.6.1) */

/* ---- ATA PASS-THROUGH(16) (SAT-3 12.2.2) -------------------------------- */
/* byte 1 PROTOCOL 4:1 (4: PIO data-in); byte 2 T_DIR (3) from the device,
 * BYTE_BLOCK (2) count in blocks, T_LENGTH 1:0 = 2: length in COUNT;
 * bytes 3..14 the ATA registers (features, count, LBA, device, command). */
#define SAT_PROTOCOL_PIO_IN 4
#define SAT_T_DIR_IN 0x08
#define SAT_BYTE_BLOCK 0x04
#define SAT_T_LENGTH_COUNT 0x02

/* ---- REPORT LUNS (SPC-4) -------------------------------------------- */
#define SCSI_REPORT_LUNS_HDR 8            /* list length (4), reserved (4) */

/* ---- Status codes (SAM-5) ---------------------------------------------- */
#define SCSI_STATUS_GOOD 0x00
#define SCSI_STATUS_CHECK_CONDITION 0x02
#define SCSI_STATUS_CONDITION_MET 0x04
#define SCSI_STATUS_BUSY 0x08
#define SCSI_STATUS_RESERVATION_CONFLICT 0x18
#define SCSI_STATUS_TASK_SET_FULL 0x28
#define SCSI_STATUS_ACA_ACTIVE 0x30
#define SCSI_STATUS_TASK_ABORTED 0x40

/* ---- Sense data (SPC-4) -------------------------------------------------------------- */
#define SCSI_SENSE_RESPONSE_CODE(b0) ((b0) & 0x7f)
#define  SCSI_SENSE_FIXED_CURRENT 0x70
#define  SCSI_SENSE_FIXED_DEFERRED 0x71
#define  SCSI_SENSE_DESC_CURRENT 0x72
#define  SCSI_SENSE_DESC_DEFERRED 0x73
/* Fixed format (SPC-4): byte 0 bit 7 VALID (information field
 * valid), byte 2 bits 3:0 sense key, bytes 3..6 information, byte 7
 * additional length, byte 12 ASC, byte 13 ASCQ. */
#define SCSI_SENSE_FIXED_VALID 0x80
#define SCSI_SENSE_FIXED_KEY_OFF 2
#define SCSI_SENSE_FIXED_INFO_OFF 3
#define SCSI_SENSE_FIXED_ADDLEN_OFF 7
#define SCSI_SENSE_FIXED_ASC_OFF 12
#define SCSI_SENSE_FIXED_ASCQ_OFF 13
/* Descriptor format (SPC-4): byte 1 key, byte 2 ASC, byte 3 ASCQ,
 * byte 7 additional length, descriptors from byte 8 (type, length, ...). */
#define SCSI_SENSE_DESC_KEY_OFF 1
#define SCSI_SENSE_DESC_ASC_OFF 2
#define SCSI_SENSE_DESC_ASCQ_OFF 3
#define SCSI_SENSE_DESC_ADDLEN_OFF 7
#define SCSI_SENSE_DESC_FIRST 8
#define  SCSI_SENSE_DESCRIPTOR_INFORMATION 0x00 /* byte 2 bit 7 VALID, bytes 4..11 information */

/* Sense keys (SPC-4 sense key table). */
#define SCSI_KEY_NO_SENSE 0x0
#define SCSI_KEY_RECOVERED_ERROR 0x1
#define SCSI_KEY_NOT_READY 0x2
#define SCSI_KEY_MEDIUM_ERROR 0x3
#define SCSI_KEY_HARDWARE_ERROR 0x4
#define SCSI_KEY_ILLEGAL_REQUEST 0x5
#define SCSI_KEY_UNIT_ATTENTION 0x6
#define SCSI_KEY_DATA_PROTECT 0x7
#define SCSI_KEY_BLANK_CHECK 0x8
#define SCSI_KEY_VENDOR_SPECIFIC 0x9
#define SCSI_KEY_COPY_ABORTED 0xa
#define SCSI_KEY_ABORTED_COMMAND 0xb
#define SCSI_KEY_VOLUME_OVERFLOW 0xd
#define SCSI_KEY_MISCOMPARE 0xe
#define SCSI_KEY_COMPLETED 0xf

/* Additional sense codes we act on (SPC-4 ASC/ASCQ assignments). */
#define SCSI_ASC_LUN_NOT_READY 0x04       /* ASCQ 01: becoming ready */
#define  SCSI_ASCQ_BECOMING_READY 0x01
#define SCSI_ASC_INVALID_OPCODE 0x20
#define SCSI_ASC_INVALID_FIELD_IN_CDB 0x24
#define SCSI_ASC_POWER_ON_RESET 0x29
#define SCSI_ASC_PARAMETERS_CHANGED 0x2a
#define SCSI_ASC_MEDIUM_NOT_PRESENT 0x3a

#endif
