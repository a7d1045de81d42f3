/* INT 13h transfers the way SYSLINUX does them (core/fs/diskio_bios.c
 * edd_rdwr_sectors() / chs_rdwr_sectors(), and the older ldlinux.asm
 * xint13 that resets the disk system between tries): a failed request is
 * retried after a reset (AH=00h) up to I13_RETRIES times, then halved down
 * to one block (the smaller size is kept for the drive), then, for an EDD
 * drive, tried once more through CHS (AH=02h/03h with the AH=08h geometry)
 * before it is an error. A drive without the extensions (AH=41h fails: old
 * BIOSes, a stick emulated as a floppy) is driven through CHS throughout.
 *
 * Pure: the INT itself is a callback (efi/bios/int13_bios.c runs it in real
 * mode; tests/unit/test_int13_io.c has a model of a BIOS that fails as real
 * ones do), so this file knows no real-mode thunk. */
#ifndef BAREMARK_DISK_INT13_IO_H
#define BAREMARK_DISK_INT13_IO_H

#include "../platform.h"

#define I13_RETRIES 6              /* SYSLINUX RETRY_COUNT */
#define I13_MAX_BLOCKS 127u        /* EDD 3.0: at most 127 blocks per extended request */
#define I13_DAP_BYTES 16

/* The registers of one INT 13h call (16-bit halves: all INT 13h uses). */
struct i13_regs {
    uint16_t ax, bx, cx, dx, si, ds, es;
    bool cf;                       /* out: carry flag, set on error */
};

struct i13_drive {
    uint8_t dl;                    /* 00h.. floppies, 80h.. hard disks */
    /* The environment (set by the caller before i13_probe). */
    void (*intcall)(void *ctx, struct i13_regs *r);
    void *ctx;
    uint8_t *dap;                  /* I13_DAP_BYTES where the BIOS reads the disk address packet */
    uint16_t dap_seg, dap_off;     /* ... and its real-mode address */
    uint8_t *bounce;               /* the transfer buffer the BIOS reads and writes */
    uint16_t bounce_seg;           /* its real-mode segment (offset 0) */
    uint32_t bounce_bytes;
    /* What i13_probe learned. */
    bool edd;                      /* AH=41h answered: extended read/write (42h/43h) */
    uint8_t edd_version;           /* AH from 41h */
    uint16_t cyls, heads, spt;     /* AH=08h geometry; spt 0: none */
    uint32_t bytes_per_sector;     /* 512 unless AH=48h says otherwise */
    uint32_t max_blocks;           /* per request; halved for good after a size that kept failing */
    /* What the errors cost so far (for the drive's log record). */
    uint32_t retries, halvings, chs_fallbacks;
    uint8_t last_error;            /* the BIOS status of the last failed call */
};

/* AH=41h (BX=55AAh, answer AA55h with CX bit 0, as Linux get_edd_info())
 * and AH=08h, each retried after a reset before it counts as absent. Sets
 * edd, edd_version, the geometry, max_blocks. False when neither answers:
 * no drive there. */
bool i13_probe(struct i13_drive *d);
/* AH=48h into the bounce buffer (the length field preset to len), retried
 * after a reset: true when the BIOS filled it. */
bool i13_params(struct i13_drive *d, unsigned len);
/* The size through CHS: cylinders x heads x sectors (0 without geometry). */
uint64_t i13_chs_sectors(const struct i13_drive *d);
/* count blocks at lba to or from buf (bytes_per_sector each), through the
 * bounce buffer, with the retries, halving and CHS fallback above. BM_OK,
 * or BM_EIO with the BIOS status in *status (BM_EINVAL: beyond what CHS
 * reaches on a drive without EDD). */
int i13_rw(struct i13_drive *d, bool write, uint64_t lba, uint32_t count, void *buf, uint8_t *status);

#endif
