/* What the BIOS platform files share (efi/bios/, the *_bios.c files).
 * Each file implements one job of efi/platform.h on a legacy BIOS PC, after
 * boot/bios/setup.S and head_bios.S brought us to 64-bit mode with the first
 * 4 GiB identity mapped. */
#ifndef BAREMARK_BIOS_PRIVATE_H
#define BAREMARK_BIOS_PRIVATE_H

#include "../platform.h"
#include "../disk/edd.h"
#include "../disk/int13_io.h"

/* The boot_params "zero page" (Documentation/arch/x86/zero-page.rst). */
#define ZP_E820_ENTRIES 0x1e8   /* u8 */
#define ZP_SETUP_HEADER 0x1f1
#define ZP_CMD_LINE_PTR 0x228   /* u32, in the setup header */
#define ZP_E820_TABLE 0x2d0     /* struct bios_e820[128] */
#define ZP_ALT_MEM_K 0x1e0      /* u32: INT 15h E801h, KiB above 1 MiB (boot/bios/setup.S) */
#define ZP_EXT_MEM_K 0x002      /* u16 screen_info.ext_mem_k: INT 15h AH=88h */
#define ZP_E820_MAX 128

#define E820_RAM 1
#define E820_ACPI 3

struct bios_e820 {
    uint64_t addr, size;
    uint32_t type;
} __attribute__((packed));

/* Copied out of the zero page first thing (it lies in memory we give away). */
extern struct bios_e820 bios_e820_map[ZP_E820_MAX];
extern unsigned bios_e820_count;

/* The image's end (linker script): memory above it is ours to allocate. */
extern char _end[];

void bios_memory_init(void);
void bios_clock_init(void);
void bios_console_init(void);
/* Copy the loader's command line (load_options_bios.c); after bios_initrd_init(). */
void bios_load_options_init(const uint8_t *zero_page);
void bios_firmware_init(void);
/* The baremark_stick=GUID word of the loader's command line ("" if none; load_options_bios.c). */
const char *bios_stick_guid(void);
void bios_idt_init(void);
/* CR4.MCE on the calling CPU (its IDT loaded): a machine check becomes an
 * error record, not a shutdown (idt_bios.c). */
void bios_mce_enable(void);
/* A fault's message goes to claim first; true means claim reports it and the
 * faulting CPU only halts (an application processor: cpus_bios.c). */
void bios_idt_on_fault(bool (*claim)(const char *msg));
/* fn is called after every BIOS call with its vector and the eax passed
 * (realmode_bios.c); idt_bios.c hooks its machine check look there, so the
 * thunk needs nothing of the IDT's. */
void bios_rm_after_call(void (*fn)(uint8_t vector, uint32_t eax));
/* Gate vector of an IDT (16-byte gates) to handler (idt_bios.c). */
void bios_idt_set(void *table, unsigned vector, uint64_t handler);
#define BIOS_IDT_GATE_BYTES 16
/* Start the application processors of the ACPI MADT (cpus_bios.c); after
 * bios_firmware_init(). Physical 0x8000-0x8FFF holds their real-mode
 * trampoline (SIPI vector 0x08). */
void bios_cpus_init(void);
/* Write straight to the screen and the first COM port, for a message when
 * nothing else may work (exception, no memory). */
void bios_console_emergency(const char *s);

/* ---- Real-mode BIOS calls (realmode_bios.S/.c) ----
 * Low memory of ours: the thunk page (code + GDT at BIOS_RM_BASE, the
 * register block at BIOS_RM_REGS), the 8 KiB real-mode stack below 0x7000 and the
 * bounce buffer for BIOS data (0x10000-0x1ffff, segment 0x1000). Mirrored in
 * realmode_bios.S. */
#define BIOS_RM_BASE 0x9000u
#define BIOS_RM_BLOB_MAX 0x800u
#define BIOS_RM_REGS 0x9800u
#define BIOS_RM_STACK_LO 0x5000u        /* the real-mode stack: 0x5000-0x6fff, SS:SP = 0:0x7000 */
#define BIOS_RM_STACK_TOP 0x7000u
#define BIOS_RM_CANARY_BYTES 256u       /* its lowest bytes: touched = the stack nearly overflowed */
#define BIOS_BOUNCE 0x10000u
#define BIOS_BOUNCE_BYTES 0x10000u
#define BIOS_BOUNCE_SEG 0x1000u

struct bios_rm_regs {
    uint32_t eax, ebx, ecx, edx, esi, edi, ebp;
    uint16_t ds, es;
    uint32_t eflags;        /* out: the flags after the INT (CF = bit 0) */
    uint8_t vector;         /* set by bios_int() */
} __attribute__((packed));

#define BIOS_EFLAGS_CF 0x1u

/* Copy the thunk to low memory (once); false if it cannot run. */
bool bios_rm_init(void);
/* Run INT vector in real mode with r's registers; r gets the BIOS's.
 * Returns the call's duration in ns (0 if the thunk is not available). */
uint64_t bios_int(uint8_t vector, struct bios_rm_regs *r);
/* Was Esc pressed while the BIOS had the keyboard (during a BIOS call)? */
bool bios_esc_seen(void);
/* The deepest a BIOS call went into the real-mode stack so far, in bytes. */
uint32_t bios_rm_stack_peak(void);
/* The slowest BIOS call so far, in ns. */
uint64_t bios_rm_slowest_ns(void);

/* ---- INT 13h drives (int13_bios.c) ---- */
#define BIOS_DRIVES_MAX 16

struct bios_drive {
    uint8_t dl;                 /* 80h.. hard disks, 00h.. floppy drives (an emulated stick) */
    struct i13_drive io;        /* the INT 13h calls (efi/disk/int13_io.c) */
    uint8_t edd_version;        /* AH from 41h */
    struct edd_params params;   /* AH=48h's block, or the AH=08h geometry's size (sectors, 512-byte) */
    bool boot;                  /* the stick we booted from (stick_bios.c) */
    bool has_sector1;           /* sector1 read at the scan (512-byte sectors only), */
    uint8_t sector1[512];       /* before any native driver ran: tells it from native disks */
    bool retired;               /* its controller is a native driver's now */
    uint32_t errors_noted;      /* io's retries + halvings + CHS fallbacks already in a log record */
};

/* Every INT 13h drive that answers, with or without EDD (scanned once). */
unsigned bios_drives(struct bios_drive **out);
int bios_drive_rw(struct bios_drive *d, bool write, uint64_t lba, uint32_t count, void *buf, uint8_t *status);
void bios_drive_retire(struct bios_drive *d, const char *why);
void bios_drive_describe(const struct bios_drive *d, char *buf, size_t len);
/* A log record of the retries, halvings and CHS fallbacks since the last one. */
void bios_drive_note_errors(struct bios_drive *d);

/* ---- The boot stick (stick_bios.c) ---- */
/* Find the boot drive and its FAT volume (once); the boot drive or NULL. */
struct bios_drive *bios_stick(void);
/* The drives and how the stick was found, as log records (once). */
void bios_stick_report(void);
/* Copy the loader's initrd (a baremark.cfg for PXE) out of the zero page's
 * ramdisk fields, before memory_bios.c hands that memory out. */
void bios_initrd_init(const uint8_t *zero_page);
/* \baremark\NAME on the stick, then NAME at its root, then the initrd (as
 * baremark.cfg): bytes read or BM_ENODEV/BM_ENOSPC. */
long bios_stick_file_read(const char *path, char *buf, size_t cap);
/* The files make image preallocates on the stick for a BIOS run. */
#define BIOS_RESULTS_PATH "\\baremark\\results\\bios.jsonl"
#define BIOS_REPORT_PATH "\\baremark\\results\\bios.html"
/* Is there a results file on the stick to write (bios.jsonl)? */
bool bios_results_available(void);
/* The preallocated results file, this run's records appended after the
 * earlier runs' (path: the name the UEFI build would give the file):
 * NULL when there is none to write or no room. */
void *bios_results_create(const char *path);
/* "\baremark\results\bios.jsonl run 3, 3.7 MiB left (NAME)": where this
 * run's records are (just the path before the file is open). */
void bios_results_describe(char *out, size_t cap);
/* The preallocated HTML report beside it, blank again and written from its
 * start (each call); NULL when there is none. Written like the results. */
void *bios_report_create(void);
int bios_results_write(void *f, const void *data, size_t len);
int bios_results_flush(void *f, bool now);
bool bios_results_is_open(void);
/* Write what the results file holds so far to the stick now (before native
 * drivers take controllers). */
void bios_results_sync_now(void);

#endif
