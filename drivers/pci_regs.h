/* PCI configuration space layout (PCI Local Bus 3.0, PCI Express Base 4.0
 * section 7.5.3). */
#ifndef BAREMARK_PCI_REGS_H
#define BAREMARK_PCI_REGS_H

#define PCI_VENDOR_ID 0x00
#define PCI_DEVICE_ID 0x02
#define PCI_COMMAND 0x04
#define  PCI_COMMAND_IO 0x0001     /* I/O space decode */
#define  PCI_COMMAND_MEMORY 0x0002 /* memory space decode */
#define  PCI_COMMAND_MASTER 0x0004 /* bus master (DMA) */
#define  PCI_COMMAND_INTX_DISABLE 0x0400
#define PCI_STATUS 0x06
#define  PCI_STATUS_CAP_LIST 0x0010
#define PCI_CLASS_REVISION 0x08    /* revision 7:0, prog-if 15:8, sub 23:16, base 31:24 */
#define PCI_HEADER_TYPE 0x0e
#define  PCI_HEADER_TYPE_MASK 0x7f
#define  PCI_HEADER_MULTIFUNCTION 0x80
#define  PCI_HEADER_NORMAL 0
#define  PCI_HEADER_BRIDGE 1
#define PCI_BAR0 0x10
#define  PCI_BAR_IO 0x1                 /* bit 0: I/O space */
#define  PCI_BAR_MEM_TYPE_MASK 0x6      /* bits 2:1: memory BAR type */
#define  PCI_BAR_MEM_TYPE_64 0x4        /* 64-bit: the next BAR holds the upper half */
#define PCI_PRIMARY_BUS 0x18       /* type 1: primary, secondary, subordinate */
#define PCI_SECONDARY_BUS 0x19
#define PCI_SUBORDINATE_BUS 0x1a
#define PCI_CAPABILITY_LIST 0x34

#define PCI_CLASS_STORAGE 0x01
#define PCI_CLASS_BRIDGE 0x06
#define  PCI_SUBCLASS_BRIDGE_HOST 0x00
#define  PCI_SUBCLASS_BRIDGE_PCI 0x04

/* Capability IDs */
#define PCI_CAP_ID_PM 0x01
#define PCI_CAP_ID_MSI 0x05
#define PCI_CAP_ID_EXP 0x10        /* PCI Express */
#define PCI_CAP_ID_MSIX 0x11

/* Capability list entries (PCI Local Bus 3.0 section 6.7): byte 0 the
 * ID, byte 1 the offset of the next entry (0 ends the list). Entries live
 * in the device-specific area above the 64-byte header, dword aligned. */
#define PCI_CAP_LIST_ID 0x00
#define PCI_CAP_LIST_NEXT 0x01
#define PCI_CAP_FIRST_OFFSET 0x40   /* lowest legal capability offset */
#define PCI_CAP_MAX_ENTRIES 48      /* (256 - 64) / 4: more means a loop */

/* PCI Express capability (offsets from the capability), PCI Express Base
 * 4.0 section 7.5.3. */
#define PCI_EXP_FLAGS 0x02         /* PCI Express Capabilities register, 7.5.3.2 */
#define  PCI_EXP_FLAGS_VERS 0x000f /* capability version: 2 has the *2 registers */
#define  PCI_EXP_FLAGS_TYPE 0x00f0 /* device/port type */
#define  PCI_EXP_FLAGS_TYPE_SHIFT 4
#define  PCI_EXP_TYPE_ENDPOINT 0x0
#define  PCI_EXP_TYPE_LEG_END 0x1  /* legacy PCI Express endpoint */
#define  PCI_EXP_TYPE_ROOT_PORT 0x4
#define  PCI_EXP_TYPE_UPSTREAM 0x5   /* switch upstream port */
#define  PCI_EXP_TYPE_DOWNSTREAM 0x6 /* switch downstream port */
#define  PCI_EXP_TYPE_PCI_BRIDGE 0x7 /* PCI Express to PCI/PCI-X bridge */
#define  PCI_EXP_TYPE_PCIE_BRIDGE 0x8 /* PCI/PCI-X to PCI Express bridge */
#define  PCI_EXP_TYPE_RC_END 0x9   /* root complex integrated endpoint: no link */
#define  PCI_EXP_TYPE_RC_EC 0xa    /* root complex event collector: no link */
#define PCI_EXP_LNKCAP 0x0c        /* Link Capabilities, 7.5.3.6 */
#define  PCI_EXP_LNKCAP_SLS 0x0000000f /* Max Link Speed (an index into LNKCAP2's vector) */
#define  PCI_EXP_LNKCAP_MLW 0x000003f0 /* Maximum Link Width: 1, 2, 4, 8, 12, 16, 32 */
#define  PCI_EXP_LNKCAP_MLW_SHIFT 4
#define PCI_EXP_LNKSTA 0x12        /* Link Status, 7.5.3.8 */
#define  PCI_EXP_LNKSTA_CLS 0x000f /* Current Link Speed (same encoding as SLS) */
#define  PCI_EXP_LNKSTA_NLW 0x03f0 /* Negotiated Link Width */
#define  PCI_EXP_LNKSTA_NLW_SHIFT 4
#define  PCI_EXP_LNKSTA_LT 0x0800  /* Link Training in progress */
#define  PCI_EXP_LNKSTA_DLLLA 0x2000 /* Data Link Layer Link Active */
#define PCI_EXP_LNKCAP2 0x2c       /* Link Capabilities 2, 7.5.3.18 (capability version 2) */
#define  PCI_EXP_LNKCAP2_SLSV 0x000000fe /* Supported Link Speeds Vector: bit 1 = 2.5 GT/s ... bit 6 = 64 GT/s */
#define  PCI_EXP_LNKCAP2_SLSV_SHIFT 1

/* Link speed encodings shared by LNKCAP.SLS, LNKSTA.CLS and the bit
 * positions of LNKCAP2.SLSV (7.5.3.18). */
#define PCI_EXP_SPEED_2_5GT 1
#define PCI_EXP_SPEED_5GT 2
#define PCI_EXP_SPEED_8GT 3
#define PCI_EXP_SPEED_16GT 4
#define PCI_EXP_SPEED_32GT 5
#define PCI_EXP_SPEED_64GT 6

#endif
