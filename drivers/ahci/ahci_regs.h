/* AHCI register map and in-memory structures, as the Serial ATA AHCI 1.3.1
 * specification names them (section 3: HBA memory registers, section 4:
 * system memory structures). Offsets are from ABAR (PCI BAR5). */
#ifndef BAREMARK_AHCI_REGS_H
#define BAREMARK_AHCI_REGS_H

#include <stdint.h>

/* ---- PCI identity (AHCI 1.3.1 section 2.1.3) ---------------------------------- */

#define AHCI_PCI_CLASS 0x010601u   /* mass storage, SATA, AHCI 1.0 programming interface */
#define AHCI_ABAR 5                /* the AHCI base address register is BAR5 */

/* ---- Generic host control (section 3.1) ------------------------------------------ */

#define AHCI_CAP 0x00              /* HBA capabilities */
#define  AHCI_CAP_NP_MASK 0x1fu    /* number of ports, 0-based */
#define  AHCI_CAP_NCS_SHIFT 8      /* number of command slots, 0-based, bits 12:8 */
#define  AHCI_CAP_NCS_MASK 0x1fu
#define  AHCI_CAP_ISS_SHIFT 20     /* interface speed support, bits 23:20 */
#define  AHCI_CAP_ISS_MASK 0xfu
#define  AHCI_CAP_SCLO (1u << 24)  /* supports command list override */
#define  AHCI_CAP_SSS (1u << 27)   /* supports staggered spin-up */
#define  AHCI_CAP_SNCQ (1u << 30)  /* supports native command queuing */
#define  AHCI_CAP_S64A (1u << 31)  /* supports 64-bit addressing */
#define AHCI_GHC 0x04              /* global HBA control */
#define  AHCI_GHC_HR (1u << 0)     /* HBA reset; reads 1 until the reset is done */
#define  AHCI_GHC_IE (1u << 1)     /* interrupt enable (baremark polls: left 0) */
#define  AHCI_GHC_AE (1u << 31)    /* AHCI enable */
#define AHCI_IS 0x08               /* interrupt status, one bit per port */
#define AHCI_PI 0x0c               /* ports implemented (write-once by firmware) */
#define AHCI_VS 0x10               /* version: major 31:16, minor 15:0 (BCD) */
#define AHCI_CAP2 0x24             /* HBA capabilities extended (AHCI 1.2 and later) */
#define  AHCI_VS_1_2 0x00010200u   /* first version with CAP2 */

/* ---- Port registers (section 3.3): port n at 0x100 + n * 0x80 ---------------------- */

#define AHCI_PORT_BASE 0x100
#define AHCI_PORT_STRIDE 0x80
#define AHCI_MAX_PORTS 32

#define AHCI_PxCLB 0x00            /* command list base, 1 KiB aligned */
#define AHCI_PxCLBU 0x04
#define AHCI_PxFB 0x08             /* received FIS base, 256 B aligned */
#define AHCI_PxFBU 0x0c
#define AHCI_PxIS 0x10             /* interrupt status (write 1 to clear) */
#define  AHCI_PxIS_DHRS (1u << 0)  /* device to host register FIS received */
#define  AHCI_PxIS_PSS (1u << 1)   /* PIO setup FIS received */
#define  AHCI_PxIS_DSS (1u << 2)   /* DMA setup FIS received */
#define  AHCI_PxIS_SDBS (1u << 3)  /* set device bits FIS received */
#define  AHCI_PxIS_UFS (1u << 4)   /* unknown FIS */
#define  AHCI_PxIS_DPS (1u << 5)   /* descriptor processed */
#define  AHCI_PxIS_PCS (1u << 6)   /* port connect change */
#define  AHCI_PxIS_DMPS (1u << 7)  /* device mechanical presence */
#define  AHCI_PxIS_PRCS (1u << 22) /* PhyRdy change */
#define  AHCI_PxIS_IPMS (1u << 23) /* incorrect port multiplier status */
#define  AHCI_PxIS_OFS (1u << 24)  /* overflow: device sent more data than the PRDT holds */
#define  AHCI_PxIS_INFS (1u << 26) /* interface non-fatal error (recovered) */
#define  AHCI_PxIS_IFS (1u << 27)  /* interface fatal error */
#define  AHCI_PxIS_HBDS (1u << 28) /* host bus data error */
#define  AHCI_PxIS_HBFS (1u << 29) /* host bus fatal error */
#define  AHCI_PxIS_TFES (1u << 30) /* task file error: the device set STS.ERR */
#define  AHCI_PxIS_CPDS (1u << 31) /* cold port detect */
/* Errors that need a COMRESET, as Linux ahci.h PORT_IRQ_FREEZE (HBFS, IFS,
 * PCS, PRCS, UFS, IPMS) plus HBDS (in PORT_IRQ_ERROR; libahci
 * ahci_error_intr() resets on it too) and OFS (older Linux froze on it;
 * a PRDT overrun leaves the data phase unknown). PRCS and PCS are read-only
 * copies of PxSERR.DIAG.N and DIAG.X (sections 3.3.5, 3.3.12): only
 * clearing PxSERR clears them. */
#define  AHCI_PxIS_RESET (AHCI_PxIS_HBFS | AHCI_PxIS_HBDS | AHCI_PxIS_IFS | AHCI_PxIS_OFS | AHCI_PxIS_PCS | \
                          AHCI_PxIS_PRCS | AHCI_PxIS_UFS | AHCI_PxIS_IPMS)
/* Every error bit: Linux PORT_IRQ_ERROR (the above and TFES, the device's error). */
#define  AHCI_PxIS_FATAL (AHCI_PxIS_TFES | AHCI_PxIS_RESET)
/* The bits that say a FIS updated PxTFD. */
#define  AHCI_PxIS_FIS_RX (AHCI_PxIS_DHRS | AHCI_PxIS_PSS | AHCI_PxIS_SDBS)
#define AHCI_PxIE 0x14             /* interrupt enable (baremark polls: left 0) */
#define AHCI_PxCMD 0x18            /* command and status */
#define  AHCI_PxCMD_ST (1u << 0)   /* start: process the command list */
#define  AHCI_PxCMD_SUD (1u << 1)  /* spin-up device (CAP.SSS: software starts the link) */
#define  AHCI_PxCMD_POD (1u << 2)  /* power on device (cold presence detect) */
#define  AHCI_PxCMD_CLO (1u << 3)  /* command list override: clears BSY/DRQ */
#define  AHCI_PxCMD_FRE (1u << 4)  /* FIS receive enable */
#define  AHCI_PxCMD_CCS_SHIFT 8    /* current command slot, bits 12:8 */
#define  AHCI_PxCMD_FR (1u << 14)  /* FIS receive running */
#define  AHCI_PxCMD_CR (1u << 15)  /* command list running */
#define  AHCI_PxCMD_HPCP (1u << 18) /* hot plug capable port (HwInit, written by firmware) */
#define  AHCI_PxCMD_MPSP (1u << 19) /* mechanical presence switch attached (HwInit) */
#define  AHCI_PxCMD_CPD (1u << 20) /* cold presence detection (HwInit) */
#define  AHCI_PxCMD_ESP (1u << 21) /* external SATA port (HwInit) */
#define  AHCI_PxCMD_FBSCP (1u << 22) /* FIS-based switching capable (HwInit) */
/* The firmware-written capability bits a GHC.HR may lose (Linux PORT_CMD_CAP). */
#define  AHCI_PxCMD_CAPS (AHCI_PxCMD_HPCP | AHCI_PxCMD_MPSP | AHCI_PxCMD_CPD | AHCI_PxCMD_ESP | AHCI_PxCMD_FBSCP)
#define  AHCI_PxCMD_ICC_MASK (0xfu << 28) /* interface communication control */
#define  AHCI_PxCMD_ICC_ACTIVE (1u << 28)
#define AHCI_PxTFD 0x20            /* task file data: status 7:0, error 15:8 */
#define  AHCI_PxTFD_ERR_SHIFT 8
#define AHCI_PxSIG 0x24            /* signature from the first D2H register FIS */
#define  AHCI_SIG_ATA 0x00000101u  /* ATA disk */
#define  AHCI_SIG_ATAPI 0xeb140101u /* ATAPI (CD/DVD, tape) */
#define  AHCI_SIG_SEMB 0xc33c0101u /* enclosure management bridge */
#define  AHCI_SIG_PM 0x96690101u   /* port multiplier */
#define AHCI_PxSSTS 0x28           /* SStatus (SATA 3.x section 14.2.1) */
#define  AHCI_PxSSTS_DET_MASK 0xfu /* device detection */
#define  AHCI_PxSSTS_DET_NONE 0x0u
#define  AHCI_PxSSTS_DET_NOPHY 0x1u /* device seen, no communication yet */
#define  AHCI_PxSSTS_DET_UP 0x3u   /* device present, phy communication established */
#define  AHCI_PxSSTS_SPD_SHIFT 4   /* negotiated speed, bits 7:4: 1 Gen1, 2 Gen2, 3 Gen3 */
#define  AHCI_PxSSTS_SPD_MASK 0xfu
#define AHCI_PxSCTL 0x2c           /* SControl */
#define  AHCI_PxSCTL_DET_MASK 0xfu
#define  AHCI_PxSCTL_DET_COMRESET 0x1u /* hold COMRESET on the link */
#define  AHCI_PxSCTL_IPM_MASK (0xfu << 8)
#define  AHCI_PxSCTL_IPM_NONE (0x3u << 8) /* no partial or slumber: steady latency */
#define  AHCI_PxSCTL_SPD_MASK (0xfu << 4) /* speed limit: kept across a COMRESET */
#define AHCI_PxSERR 0x30           /* SError: ERR 15:0, DIAG 31:16 (write 1 to clear) */
#define AHCI_PxSACT 0x34           /* SActive: NCQ tags outstanding (write 1 to set) */
#define AHCI_PxCI 0x38             /* commands issued (write 1 to set) */

/* ---- System memory structures (section 4.2) --------------------------------------- */

#define AHCI_CMD_LIST_ALIGN 1024   /* PxCLB */
#define AHCI_RFIS_ALIGN 256        /* PxFB */
#define AHCI_RFIS_BYTES 256
#define AHCI_CMD_TABLE_ALIGN 128   /* CTBA bits 6:0 are reserved */
#define AHCI_SLOTS_MAX 32

/* Offsets of the FISes in the received FIS area (section 4.2.1). */
#define AHCI_RFIS_DSFIS 0x00       /* DMA setup */
#define AHCI_RFIS_PSFIS 0x20       /* PIO setup */
#define AHCI_RFIS_RFIS 0x40        /* D2H register */
#define AHCI_RFIS_SDBFIS 0x58      /* set device bits */
#define AHCI_RFIS_UFIS 0x60        /* unknown FIS (up to 64 bytes) */

/* Command header (section 4.2.2): 32 bytes, one per slot. */
struct ahci_cmd_header {
    uint32_t dw0;                  /* CFL 4:0, A 5, W 6, P 7, R 8, B 9, C 10, PMP 15:12, PRDTL 31:16 */
    uint32_t prdbc;                /* bytes transferred, written by the HBA */
    uint32_t ctba;                 /* command table base, 128 B aligned */
    uint32_t ctbau;
    uint32_t reserved[4];
};
#define  AHCI_HDR_CFL_MASK 0x1fu   /* command FIS length in dwords (2..16) */
#define  AHCI_HDR_A (1u << 5)      /* ATAPI */
#define  AHCI_HDR_W (1u << 6)      /* write: data goes host to device */
#define  AHCI_HDR_P (1u << 7)      /* prefetchable */
#define  AHCI_HDR_C (1u << 10)     /* clear busy upon R_OK */
#define  AHCI_HDR_PRDTL_SHIFT 16   /* PRD table length in entries */

/* Physical region descriptor (section 4.2.3.3). */
struct ahci_prd {
    uint32_t dba;                  /* data base address; bit 0 reserved: word aligned */
    uint32_t dbau;
    uint32_t reserved;
    uint32_t dbc;                  /* byte count - 1 in 21:0 (bit 0 always 1), I bit 31 */
};
#define  AHCI_PRD_DBC_MASK 0x3fffffu
#define  AHCI_PRD_I (1u << 31)
#define  AHCI_PRD_MAX_BYTES (4u << 20) /* 22-bit byte count: 4 MiB per entry */

/* Command table (section 4.2.3): command FIS, ATAPI command, then the PRDT. */
#define AHCI_CT_CFIS 0x00
#define AHCI_CT_CFIS_BYTES 64
#define AHCI_CT_ACMD 0x40
#define AHCI_CT_PRDT 0x80

_Static_assert(sizeof(struct ahci_cmd_header) == 32, "AHCI 1.3.1 figure 25: 32-byte command header");
_Static_assert(sizeof(struct ahci_prd) == 16, "AHCI 1.3.1 figure 28: 16-byte PRD entry");

#endif
