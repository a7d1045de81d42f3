/* Intel ICH/PCH SMBus host controller ("i801"): PCI configuration and the
 * host I/O registers, as the ICH/PCH datasheets and Linux i2c-i801.c name
 * them. The host registers sit in the I/O window of BAR4. */
#ifndef BAREMARK_I801_REGS_H
#define BAREMARK_I801_REGS_H

/* ---- PCI configuration ------------------------------------------------------- */

#define I801_PCI_SMBBAR 0x20        /* BAR4: SMBus I/O base, bit 0 = I/O space */
#define I801_PCI_HOSTC 0x40         /* host configuration (Linux SMBHSTCFG) */
#define  I801_HOSTC_HST_EN 0x01     /* SMBus host enable: the I/O window decodes */
#define  I801_HOSTC_SMB_SMI_EN 0x02 /* completion interrupts go to SMI# (firmware) */
#define  I801_HOSTC_I2C_EN 0x04     /* I2C timing instead of SMBus: baremark clears it */
#define  I801_HOSTC_SPD_WD 0x10     /* SPD write disable: writes to 0x50-0x57 refused */

/* ---- Host I/O registers (offsets from the BAR4 base) -------------------------- */

#define I801_HST_STS 0x00           /* host status; flags are cleared by writing 1 */
#define  I801_STS_HOST_BUSY 0x01    /* a transaction is running */
#define  I801_STS_INTR 0x02         /* the transaction completed */
#define  I801_STS_DEV_ERR 0x04      /* no acknowledge, bad command or bus timeout */
#define  I801_STS_BUS_ERR 0x08      /* lost arbitration */
#define  I801_STS_FAILED 0x10       /* killed */
#define  I801_STS_SMBALERT 0x20
#define  I801_STS_INUSE 0x40        /* semaphore: reads 0 once, then 1 until written 1 */
#define  I801_STS_BYTE_DONE 0x80
#define  I801_STS_ERRORS (I801_STS_DEV_ERR | I801_STS_BUS_ERR | I801_STS_FAILED)
#define  I801_STS_FLAGS (I801_STS_ERRORS | I801_STS_INTR | I801_STS_BYTE_DONE)
#define I801_HST_CNT 0x02           /* host control */
#define  I801_CNT_INTREN 0x01
#define  I801_CNT_KILL 0x02         /* stop the running transaction */
#define  I801_CNT_CMD_MASK 0x1c     /* bits 4:2, the protocol */
#define  I801_CNT_START 0x40
#define  I801_CNT_PEC_EN 0x80
#define I801_HST_CMD 0x03           /* command byte (the EEPROM offset) */
#define I801_HST_ADD 0x04           /* 7-bit address << 1 | 1 for read */
#define I801_HST_DAT0 0x05
#define I801_HST_DAT1 0x06
#define I801_AUX_CTL 0x0d           /* ICH4 and later */
#define  I801_AUXCTL_CRC 0x01       /* append/check PEC */
#define  I801_AUXCTL_E32B 0x02      /* 32-byte block buffer */
#define I801_IO_SIZE 0x20

/* Protocols for HST_CNT bits 4:2. */
#define I801_QUICK 0x00
#define I801_BYTE 0x04
#define I801_BYTE_DATA 0x08
#define I801_WORD_DATA 0x0c

#endif
