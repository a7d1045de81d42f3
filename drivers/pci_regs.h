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

/* PCI Express capability (offsets from the capability) */
#define PCI_EXP_FLAGS 0x02         /* version 3:0, device/port type 7:4 */
#define  PCI_EXP_TYPE_ENDPOINT 0x0
#define  PCI_EXP_TYPE_LEG_END 0x1
#define  PCI_EXP_TYPE_ROOT_PORT 0x4
#define  PCI_EXP_TYPE_UPSTREAM 0x5
#define  PCI_EXP_TYPE_DOWNSTREAM 0x6
#define  PCI_EXP_TYPE_PCI_BRIDGE 0x7
#define  PCI_EXP_TYPE_RC_END 0x9   /* root complex integrated endpoint: no link */
#define PCI_EXP_LNKCAP 0x0c        /* max speed 3:0, max width 9:4 */
#define PCI_EXP_LNKSTA 0x12        /* current speed 3:0, negotiated width 9:4 */
#define PCI_EXP_LNKCAP2 0x2c       /* supported speeds vector 7:1 (r3.0+) */

#endif
