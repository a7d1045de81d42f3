/* LSI/Broadcom MegaRAID "MFI" controller registers (the MegaRAID Firmware
 * Interface of the SAS1078, SAS2108 and SAS2004/2008 iMR chips), as laid out
 * in the Linux megaraid_sas driver (megaraid_sas.h, struct
 * megasas_register_set) and QEMU's hw/scsi/mfi.h. All registers are 32 bits
 * in the first memory BAR. */
#ifndef BAREMARK_MEGASAS_REGS_H
#define BAREMARK_MEGASAS_REGS_H

/* ---- Register offsets -------------------------------------------------------------- */
#define MFI_REG_DOORBELL 0x00   /* skinny (SAS2004/2008 iMR) inbound doorbell */
#define MFI_REG_IMSG0 0x10      /* inbound message 0 */
#define MFI_REG_OMSG0 0x18      /* outbound message 0: firmware state on xscale parts */
#define MFI_REG_IDB 0x20        /* inbound doorbell (1078, gen2) */
#define MFI_REG_ISTS 0x24       /* inbound interrupt status */
#define MFI_REG_IMSK 0x28       /* inbound interrupt mask */
#define MFI_REG_ODB 0x2c        /* outbound doorbell */
#define MFI_REG_OSTS 0x30       /* outbound interrupt status */
#define MFI_REG_OMSK 0x34       /* outbound interrupt mask */
#define MFI_REG_IQP 0x40        /* inbound queue port: frame address | count << 1 | 1 */
#define MFI_REG_OQP 0x44        /* outbound queue port */
#define MFI_REG_ODCR0 0xa0      /* outbound doorbell clear (1078, gen2) */
#define MFI_REG_OSP0 0xb0       /* outbound scratch pad 0: firmware state */
#define MFI_REG_OSP1 0xb4
#define MFI_REG_IQPL 0xc0       /* inbound queue port, low 32 bits (skinny) */
#define MFI_REG_IQPH 0xc4       /* inbound queue port, high 32 bits (skinny) */
/* Adapter reset (online controller reset) registers (Linux struct
 * megasas_register_set host_diag / seq_offset and fusion_host_diag /
 * fusion_seq_offset): a key sequence written to the write-sequence
 * register unlocks the host diagnostic register, whose RESET_ADAPTER bit
 * then resets the whole controller. gen2 parts use the pair at 0xf8/0xfc,
 * skinny and Fusion parts the pair at 0x04/0x08. */
#define MFI_REG_HOSTDIAG 0xf8
#define MFI_REG_SEQ 0xfc
#define MFI_REG_FUSION_SEQ 0x04
#define MFI_REG_FUSION_HOSTDIAG 0x08
#define MFI_DIAG_WRITE_ENABLE 0x80u
#define MFI_DIAG_RESET_ADAPTER 0x04u

/* Fusion parts (SAS2208/3108/3008) in the same BAR (Linux megaraid_sas.h
 * struct megasas_register_set; megaraid_sas_fusion.h). The doorbell at 0
 * takes state-change requests; scratch pad 0 (OSP0) has the state and
 * command limit, scratch pad 1 the chain frame size; request descriptors
 * go to IQPL then IQPH (the same 0xc0/0xc4 ports). */
#define FUSION_REG_REPLY_POST_HOST_INDEX 0x6c /* MPI2_REPLY_POST_HOST_INDEX_OFFSET */
#define FUSION_REG_SUP_REPLY_POST_HOST_INDEX 0x30c /* MPI2_SUP_..., only with combined MSI-X */
/* Scratch pad 1 (0xb4, OSP1): max chain frame size, Invader and later
 * (Linux MEGASAS_MAX_CHAIN_SIZE_MASK/_SHIFT/_UNITS_MASK). */
#define FUSION_CHAIN_SIZE_MASK 0x3e0u
#define FUSION_CHAIN_SIZE_SHIFT 5
#define FUSION_CHAIN_SIZE_UNITS_1M 0x400000u  /* units of 512 bytes, else 128 */
#define FUSION_CHAIN_FRAME_MIN 1024u          /* MEGASAS_CHAIN_FRAME_SZ_MIN */
/* Outbound interrupt mask bits Linux unmasks (MFI_FUSION_ENABLE_INTERRUPT_MASK). */
#define FUSION_ENABLE_INTR_MASK 0x00000009u

/* ---- Firmware state in OSP0 (or OMSG0) ------------------------------------------------- */
#define MFI_FWSTATE_MASK 0xf0000000u
#define  MFI_FWSTATE_UNDEFINED 0x00000000u
#define  MFI_FWSTATE_BB_INIT 0x10000000u
#define  MFI_FWSTATE_FW_INIT 0x40000000u
#define  MFI_FWSTATE_WAIT_HANDSHAKE 0x60000000u
#define  MFI_FWSTATE_FW_INIT_2 0x70000000u
#define  MFI_FWSTATE_DEVICE_SCAN 0x80000000u
#define  MFI_FWSTATE_BOOT_MSG_PENDING 0x90000000u
#define  MFI_FWSTATE_FLUSH_CACHE 0xa0000000u
#define  MFI_FWSTATE_READY 0xb0000000u
#define  MFI_FWSTATE_OPERATIONAL 0xc0000000u
#define  MFI_FWSTATE_FAULT 0xf0000000u
#define MFI_FWSTATE_MAXSGL_MASK 0x00ff0000u
#define MFI_FWSTATE_MAXSGL_SHIFT 16
#define MFI_FWSTATE_MAXCMD_MASK 0x0000ffffu

/* ---- Inbound doorbell bits (moving the firmware between states) ------------------------ */
#define MFI_INIT_ABORT 0x00000001u            /* abort all pending commands */
#define MFI_INIT_READY 0x00000002u            /* operational -> ready */
#define MFI_INIT_MFIMODE 0x00000004u
#define MFI_INIT_CLEAR_HANDSHAKE 0x00000008u  /* answer WAIT_HANDSHAKE */
#define MFI_INIT_HOTPLUG 0x00000010u
/* What Linux writes to bring an operational controller back to ready. */
#define MFI_RESET_FLAGS (MFI_INIT_READY | MFI_INIT_MFIMODE | MFI_INIT_ABORT)

/* ---- Outbound interrupt mask values ---------------------------------------------------------- */
#define MFI_OMSK_ALL_MASKED 0xffffffffu
#define MFI_PPC_ENABLE_INTR_MASK 0x80000004u  /* 1078: reply message + doorbell change */
#define MFI_GEN2_ENABLE_INTR_MASK 0x00000005u
#define MFI_SKINNY_ENABLE_INTR_MASK 0x00000001u

/* ---- Inbound queue port encoding ------------------------------------------------------------ */
/* Frames are 64-byte aligned, so the low bits of the address are free:
 * bits 3:1 carry how many 64-byte frames the command spans and bit 0 is
 * set (Linux megasas_fire_cmd_ppc/gen2/skinny). */
#define MFI_IQP_VALID 0x1u
#define MFI_IQP_COUNT_SHIFT 1

#endif
