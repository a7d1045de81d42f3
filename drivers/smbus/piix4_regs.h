/* PIIX4-compatible SMBus host (Intel PIIX4, ATI/AMD SB600..SB800, AMD
 * Hudson-2/FCH, Hygon), as Linux i2c-piix4.c names the registers. */
#ifndef BAREMARK_PIIX4_REGS_H
#define BAREMARK_PIIX4_REGS_H

/* ---- PCI configuration (PIIX4 and pre-SB800 ATI) ------------------------------ */

#define PIIX4_PCI_SMBBA 0x90        /* SMBus I/O base (bits 15:4) */
#define PIIX4_PCI_HSTCFG 0xd2       /* host configuration */
#define  PIIX4_HSTCFG_EN 0x01       /* SMBus host enable */

/* ---- SB800 power-management index/data ports --------------------------------- */

#define SB800_PM_INDEX 0xcd6
#define SB800_PM_DATA 0xcd7
#define SB800_PM_SMB_EN 0x2c        /* SmBus0En: base 15:5, enable bit 0 (SB800..Hudson-2) */
#define SB800_PM_DECODE_EN 0x00     /* FCH DecodeEn: SMBus base high byte at 0x01, enable bit 4 */
#define  SB800_PM_DECODE_SMB_EN 0x10
#define SB800_PM_PORT_SEL 0x2e      /* SB800 port select, bits 2:1 (when 0x2f bit 0 set) */
#define SB800_PM_PORT_SEL_SWITCH 0x2f
#define SB800_PM_PORT_MASK 0x06
#define KERNCZ_PM_PORT_SEL 0x02     /* Hudson-2 rev >= 0x1f and FCH: SmBus0Sel, bits 4:3 */
#define KERNCZ_PM_PORT_MASK 0x18

/* ---- Host I/O registers ------------------------------------------------------- */

#define PIIX4_HST_STS 0x00
#define  PIIX4_STS_HOST_BUSY 0x01
#define  PIIX4_STS_INTR 0x02
#define  PIIX4_STS_DEV_ERR 0x04     /* no acknowledge */
#define  PIIX4_STS_BUS_ERR 0x08     /* collision */
#define  PIIX4_STS_FAILED 0x10
#define  PIIX4_STS_ALL 0x1f
#define PIIX4_HST_CNT 0x02
#define  PIIX4_CNT_START 0x40
#define PIIX4_HST_CMD 0x03
#define PIIX4_HST_ADD 0x04
#define PIIX4_HST_DAT0 0x05
#define PIIX4_HST_DAT1 0x06
#define PIIX4_SLV_CNT 0x08          /* SB800: bit 4 host semaphore request/grant, bit 5 release */
#define  SB800_SLVCNT_HOST_SEM 0x10
#define  SB800_SLVCNT_HOST_SEM_CLR 0x20
#define PIIX4_IO_SIZE 0x10

#define PIIX4_QUICK 0x00
#define PIIX4_BYTE 0x04
#define PIIX4_BYTE_DATA 0x08
#define PIIX4_WORD_DATA 0x0c

#endif
