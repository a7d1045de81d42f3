/* The one seam between baremark and whatever it runs on.
 *
 * Everything portable (options, records, inventory parsers, engines, drivers)
 * reaches the machine only through these functions. efi/uefi/ implements
 * them on UEFI firmware; efi/host/ implements them on Linux,
 * so the same engines and parsers run in host unit tests and benchmarks.
 *
 * Conventions: physical address == virtual address (the UEFI identity map);
 * errors are negative BM_E* codes; times are nanoseconds from plat_now_ns().
 */
#ifndef BAREMARK_PLATFORM_H
#define BAREMARK_PLATFORM_H

#include "lib/bmlib.h"

/* Error codes: negative, so 0 and positive counts mean success. */
enum {
    BM_OK = 0,
    BM_EINVAL = -1,     /* bad argument or malformed data */
    BM_ENOMEM = -2,     /* allocation failed */
    BM_ETIMEDOUT = -3,  /* hardware did not answer before its deadline */
    BM_EIO = -4,        /* device reported an error */
    BM_ENODEV = -5,     /* no such device / not present */
    BM_ENOTSUP = -6,    /* not supported here */
    BM_EABORT = -7,     /* user pressed Esc */
    BM_EPERM = -8,      /* refused by a safety rule */
    BM_EBUSY = -9,      /* no free slot / queue full */
    BM_ENOSPC = -10,    /* buffer too small */
    BM_EACCES = -11,    /* a server refused access (TFTP access violation) */
};

const char *bm_strerror(int err);

/* ---- Time ---------------------------------------------------------------- */

/* Monotonic nanoseconds since plat_init(), from the calibrated TSC. */
uint64_t plat_now_ns(void);
/* TSC frequency found by calibration (0 if none). */
uint64_t plat_tsc_hz(void);
/* How the TSC was calibrated: "acpi_pm", "hpet", "stall", "clock_gettime". */
const char *plat_clock_source(void);
/* Busy-wait for at least ns nanoseconds. */
void plat_delay_ns(uint64_t ns);
/* Let the boot processor rest for about ns (at least until the firmware's
 * next timer tick: it halts instead of spinning, so under a hypervisor its
 * host thread sleeps). Boot processor only, for loops that have nothing
 * to poll. */
void plat_idle_ns(uint64_t ns);

/* ---- Memory ---------------------------------------------------------------- */

/* Small allocations (records, tables). Zeroed. */
void *plat_alloc(size_t bytes);
void plat_free(void *p);
/* Page-aligned, physically contiguous, zeroed memory for DMA and benchmarks.
 * below_4g: the device cannot address above 4 GiB. */
void *plat_alloc_pages(size_t bytes, bool below_4g);
void plat_free_pages(void *p, size_t bytes);
/* Physical address of a buffer (identity on UEFI). */
uint64_t plat_virt_to_phys(const void *p);
/* Bytes of free conventional memory the platform reports. */
uint64_t plat_free_memory_bytes(void);

/* A usable RAM range, for NUMA-aware allocation. */
void *plat_alloc_pages_in_range(size_t bytes, uint64_t lo, uint64_t hi);

/* ---- CPUs ------------------------------------------------------------------ */

/* Logical processors enabled (BSP included). */
unsigned plat_cpu_count(void);
/* Run fn(cpu_index, arg) on cpus 0..n-1 at the same time (0 is the caller)
 * and return when all have finished. Returns the number of CPUs that ran, or
 * a negative error. */
typedef void (*plat_cpu_fn)(unsigned cpu_index, void *arg);
int plat_run_on_cpus(unsigned n, plat_cpu_fn fn, void *arg);
/* APIC ID of the processor with this index (for NUMA mapping); on AArch64
 * its ACPI processor UID (MADT GICC), the key of SRAT's GICC affinity. */
uint32_t plat_cpu_apic_id(unsigned cpu_index);
/* Is the caller the boot processor (cpu 0)? Firmware services, the console
 * and the records are for it alone: plat_diag() from another CPU is held
 * until the boot processor calls plat_diag_flush(). */
bool plat_on_bsp(void);
/* Start fn(cpu, arg) on application processor cpu (1 .. plat_cpu_count()
 * - 1) and return at once (the disk engine's CPUs). BM_OK; BM_EINVAL: no
 * such CPU; BM_EBUSY: it still runs (or hangs in) an earlier job;
 * BM_ENOTSUP: no MP services; BM_EIO: the firmware refused. */
int plat_cpu_start(unsigned cpu, plat_cpu_fn fn, void *arg);
/* Wait at most timeout_ns (0: just look) for the job started on cpu to
 * return: BM_OK, the CPU is free again; BM_ETIMEDOUT, it still runs and
 * stays taken (plat_cpu_start answers BM_EBUSY until it returns); BM_EIO
 * (BIOS build), it stopped on a CPU exception and is left out from then on. */
int plat_cpu_wait(unsigned cpu, uint64_t timeout_ns);

/* ---- Firmware tables ------------------------------------------------------ */

/* SMBIOS structure table: its address, length and version. */
int plat_smbios_table(const void **table, size_t *len, int *major, int *minor);
/* ACPI table by signature ("FACP", "SRAT", "MCFG", "HPET"), instance 0.. */
const void *plat_acpi_table(const char sig[4], unsigned instance);
/* Firmware vendor and revision, e.g. "EDK II 0x10000". */
void plat_firmware_info(char *buf, size_t len);
/* Secure Boot as the firmware reports it: "on" (images are verified),
 * "setup" (no platform key: nothing is verified), "off", or "unknown"
 * (the firmware has no SecureBoot variable, e.g. before UEFI 2.3.1). */
const char *plat_secure_boot(void);
/* The name for the SecureBoot and SetupMode variables' values (-1: absent),
 * shared by both builds' plat_secure_boot(). */
const char *secure_boot_state(int secure_boot, int setup_mode);
/* Wall-clock time from the firmware, ISO 8601 ("2026-11-30T12:00:00Z"),
 * and the compact form used in file names ("20261130-120000"). */
void plat_time_iso(char *iso, size_t iso_len, char *compact, size_t compact_len);

/* ---- PCI ------------------------------------------------------------------ */

struct pci_addr {
    uint16_t seg;
    uint8_t bus, dev, fn;
};
uint32_t plat_pci_read32(struct pci_addr a, uint16_t off);
void plat_pci_write32(struct pci_addr a, uint16_t off, uint32_t v);
uint16_t plat_pci_read16(struct pci_addr a, uint16_t off);
void plat_pci_write16(struct pci_addr a, uint16_t off, uint16_t v);
uint8_t plat_pci_read8(struct pci_addr a, uint16_t off);
/* Number of PCI segments and the bus range of each. */
int plat_pci_segments(uint16_t *segs, uint8_t *bus_start, uint8_t *bus_end, int max);
/* Take a device from the firmware: disconnect firmware drivers from its
 * handle so they stop touching it. Release hands it back (reconnects). */
int plat_pci_claim(struct pci_addr a);
void plat_pci_release(struct pci_addr a);
/* May native drivers DMA to and from plat_alloc_pages() memory for
 * devices on PCI segment seg without cache maintenance? BM_OK on x86 and
 * the host; on Arm, when ACPI IORT says the segment's root complex is
 * coherent (or, with no IORT, as SBSA requires of PCIe); BM_ENOTSUP with
 * why otherwise (platform_common.c). */
int plat_dma_coherent(uint16_t seg, char *why, size_t whylen);
/* Map a BAR's MMIO window; returns a pointer (identity on UEFI), or NULL. */
volatile void *plat_pci_map_bar(struct pci_addr a, int bar, uint64_t *size);

/* MMIO accessors. The firmware build reads and writes the device; the host
 * build defines them in efi/host/sim_pci_host.c, where the BARs of
 * simulated PCI functions (efi/platform_sim.h) are plain memory whose
 * accesses go to a device model instead. */
#ifdef BAREMARK_HOST
uint32_t mmio_read32(volatile void *base, uint32_t off);
void mmio_write32(volatile void *base, uint32_t off, uint32_t v);
/* Byte-wide MMIO, for devices whose registers are bytes (a 16550 on an
 * 8-bit bus). */
uint8_t mmio_read8(volatile void *base, uint32_t off);
void mmio_write8(volatile void *base, uint32_t off, uint8_t v);
/* One 8-byte write (see below). */
void mmio_write64_whole(volatile void *base, uint32_t off, uint64_t v);
#elif defined(__aarch64__)
/* Arm: device accesses as Linux arm64 readl()/writel() (arch/arm64/include/
 * asm/io.h): one LDR/STR in assembly (no writeback addressing the compiler
 * might pick, which a hypervisor cannot emulate), a write preceded by
 * __iowmb() (dma_wmb, DMB OSHST: the CPU's stores to DMA memory are seen
 * before the doorbell), a read followed by __iormb() (dma_rmb, DMB OSHLD,
 * and a control dependency: what the device wrote to memory is read after
 * the status that says it is there). */
static inline void plat_iowmb(void) { __asm__ __volatile__("dmb oshst" ::: "memory"); }
static inline void plat_iormb(uint64_t v)
{
    uint64_t tmp;
    __asm__ __volatile__("dmb oshld" ::: "memory");
    __asm__ __volatile__("eor %0, %1, %1\n\tcbnz %0, ." : "=r"(tmp) : "r"(v) : "memory");
}
static inline uint32_t mmio_read32(volatile void *base, uint32_t off)
{
    uint32_t v;
    __asm__ __volatile__("ldr %w0, [%1]" : "=r"(v) : "r"((volatile uint8_t *)base + off));
    plat_iormb(v);
    return v;
}
static inline void mmio_write32(volatile void *base, uint32_t off, uint32_t v)
{
    plat_iowmb();
    __asm__ __volatile__("str %w0, [%1]" ::"rZ"(v), "r"((volatile uint8_t *)base + off));
}
static inline uint8_t mmio_read8(volatile void *base, uint32_t off)
{
    uint8_t v;
    __asm__ __volatile__("ldrb %w0, [%1]" : "=r"(v) : "r"((volatile uint8_t *)base + off));
    plat_iormb(v);
    return v;
}
static inline void mmio_write8(volatile void *base, uint32_t off, uint8_t v)
{
    plat_iowmb();
    __asm__ __volatile__("strb %w0, [%1]" ::"rZ"(v), "r"((volatile uint8_t *)base + off));
}
/* One 8-byte store (see the x86 one below): Linux writeq. */
static inline void mmio_write64_whole(volatile void *base, uint32_t off, uint64_t v)
{
    plat_iowmb();
    __asm__ __volatile__("str %x0, [%1]" ::"rZ"(v), "r"((volatile uint8_t *)base + off));
}
#else
static inline uint32_t mmio_read32(volatile void *base, uint32_t off)
{
    return *(volatile uint32_t *)((volatile uint8_t *)base + off);
}
static inline void mmio_write32(volatile void *base, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)((volatile uint8_t *)base + off) = v;
}
static inline uint8_t mmio_read8(volatile void *base, uint32_t off) { return *((volatile uint8_t *)base + off); }
static inline void mmio_write8(volatile void *base, uint32_t off, uint8_t v) { *((volatile uint8_t *)base + off) = v; }
/* One 8-byte write: a single store, one PCIe transaction. Only for the
 * 64-bit registers a chip takes whole, where Linux uses writeq on 64-bit
 * kernels (the MPI2 request descriptor post, mpt3sas _base_writeq; the
 * MegaRAID Fusion inbound queue port, megasas_write_64bit_req_desc). */
static inline void mmio_write64_whole(volatile void *base, uint32_t off, uint64_t v)
{
    *(volatile uint64_t *)((volatile uint8_t *)base + off) = v;
}
#endif
static inline uint64_t mmio_read64(volatile void *base, uint32_t off)
{
    /* Two dword reads, low first: many controllers do not take 64-bit MMIO. */
    uint64_t lo = mmio_read32(base, off);
    uint64_t hi = mmio_read32(base, off + 4);
    return lo | (hi << 32);
}
static inline void mmio_write64(volatile void *base, uint32_t off, uint64_t v)
{
    mmio_write32(base, off, (uint32_t)v);
    mmio_write32(base, off + 4, (uint32_t)(v >> 32));
}

/* Port I/O (x86). On Arm there is none: plat_has_port_io() is false, reads
 * return all ones and writes go nowhere (efi/fw/ioport_aa64.c). */
void plat_outb(uint16_t port, uint8_t v);
uint8_t plat_inb(uint16_t port);
void plat_outl(uint16_t port, uint32_t v);
uint32_t plat_inl(uint16_t port);
#if defined(__aarch64__)
static inline bool plat_has_port_io(void) { return false; }
#else
static inline bool plat_has_port_io(void) { return true; }
#endif
/* The architecture, for records and messages ("x86_64", "aarch64"). */
#if defined(__aarch64__)
#define PLAT_ARCH_NAME "aarch64"
#else
#define PLAT_ARCH_NAME "x86_64"
#endif

/* Compiler + CPU barriers for DMA descriptors; plat_cpu_relax() in a spin
 * loop. Arm: as Linux arm64 mb()/rmb()/wmb() (DSB SY/LD/ST) and
 * cpu_relax() (YIELD). */
#if defined(__aarch64__)
static inline void plat_wmb(void) { __asm__ __volatile__("dsb st" ::: "memory"); }
static inline void plat_rmb(void) { __asm__ __volatile__("dsb ld" ::: "memory"); }
static inline void plat_mb(void) { __asm__ __volatile__("dsb sy" ::: "memory"); }
static inline void plat_cpu_relax(void) { __asm__ __volatile__("yield" ::: "memory"); }
#else
static inline void plat_wmb(void) { __asm__ __volatile__("sfence" ::: "memory"); }
static inline void plat_rmb(void) { __asm__ __volatile__("lfence" ::: "memory"); }
static inline void plat_mb(void) { __asm__ __volatile__("mfence" ::: "memory"); }
static inline void plat_cpu_relax(void) { __asm__ __volatile__("pause" ::: "memory"); }
#endif

/* ---- Console, input, files --------------------------------------------------- */

/* The human-readable screen (firmware console; stderr on the host). */
void plat_console_write(const char *utf8);
/* True once the user pressed Esc (checked without blocking). */
bool plat_abort_requested(void);
/* Debug/log line to the screen (and nothing else). */
void plat_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A driver's diagnostic about a controller or disk that a person reading
 * only the serial log or the results file must also see: a port skipped, a
 * quirk applied, a retry, a device hidden on purpose. where names the
 * controller (its BDF, "0000:03:00.0") or the disk ("nvme0n1"); the message
 * carries no prefix of its own. It goes to the installed sink (the app makes
 * it a `log` record on every sink), or to plat_log until one is installed. */
void plat_diag(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
typedef void (*plat_diag_sink_fn)(const char *where, const char *message);
void plat_set_diag_sink(plat_diag_sink_fn fn);
/* Emit the diagnostics other CPUs made (boot processor only; see plat_on_bsp),
 * once a sink is installed. */
void plat_diag_flush(void);
/* A diagnostic made before the records start (plat_init: the BIOS build's
 * clock calibration and MTRR check): held, and emitted as a record by the
 * first plat_diag_flush() after a sink is installed (app.c: right after the
 * run record). */
void plat_diag_later(const char *where, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The options the app was started with (UEFI load options / argv joined). */
const char *plat_load_options(void);

/* Files the app was loaded with. Paths use '\' separators.
 * Read a whole file: returns bytes read, or negative error. The path is
 * tried on the boot volume, then its base name at the volume's root (how
 * iPXE serves fetched files), then, after a PXE boot, as a TFTP file in
 * the boot file's directory on the boot server. */
long plat_boot_file_read(const char *path, char *buf, size_t cap);
/* Where plat_boot_file_read looks, as text for a note ("the boot volume
 * (\baremark\, then its root), tftp://10.0.0.2/ (server from the
 * pxe_reply)"). Returns its length. */
size_t plat_boot_file_places(char *buf, size_t cap);
/* Why the last plat_boot_file_read that failed other than "not there"
 * failed, in the boot server's words ("the TFTP server at 10.0.0.2 refused
 * it: TFTP error 2, access violation"); 0 when nothing more is known. */
size_t plat_boot_file_error(char *buf, size_t cap);
/* The IPv4 address the boot NIC got for the netboot (UEFI: the PXE base
 * code's station address; BIOS: the loader's ip= word); false when none. */
bool plat_boot_nic_ip(uint8_t ip[4]);
/* The MAC address of the NIC the app was netbooted through (or whose
 * path the boot device has); false when there is none. */
bool plat_boot_nic_mac(uint8_t mac[6]);
/* How the app was loaded: "disk", "pxe" (firmware PXE/TFTP), "ipxe"
 * (an iPXE-provided file system), or "unknown". */
const char *plat_boot_source(void);
/* Is there a boot volume we can write to? */
bool plat_boot_volume_writable(void);
/* Open (create/truncate) a file for writing, creating its folders; returns
 * a handle or NULL. "LABEL:\path" picks the FAT volume with that label
 * ("*:\path" the first writable volume); a bare path is on the boot volume.
 * The volume used becomes the results volume (plat_results_location). */
void *plat_file_create(const char *path);
int plat_file_write(void *f, const void *data, size_t len);
int plat_file_flush(void *f);
void plat_file_close(void *f);
/* The name the file plat_file_create(path) made has on its volume, for
 * people: path itself, except on a legacy BIOS, where files cannot be
 * created and the results go into ones the image preallocated. */
void plat_file_stored_as(const char *path, char *out, size_t cap);

/* Read a whole file on the results volume (the one plat_file_create
 * used; path without a label): bytes read, or BM_ENODEV / BM_ENOSPC. */
long plat_results_file_read(const char *path, char *buf, size_t cap);

/* ---- Network ------------------------------------------------------------------ */

/* One TCP exchange with an IPv4 server through the boot NIC: connect to
 * ip:port, send head then body, read the answer into resp until the
 * server closes, resp is full or it holds a whole HTTP head ("\r\n\r\n"),
 * close. Everything ends by deadline_ns (plat_now_ns). Returns the bytes
 * received, or BM_ENODEV (no TCP/IPv4 stack or no address here),
 * BM_ETIMEDOUT, BM_EIO (refused, reset); why says what happened. */
long plat_tcp_exchange(const uint8_t ip[4], uint16_t port, const void *head, size_t head_len, const void *body,
                       size_t body_len, char *resp, size_t resp_cap, uint64_t deadline_ns, char *why,
                       size_t why_len);

/* ---- The screen as a grid of characters ---------------------------------------- */

/* What the console can do. A console without positioning gets plain
 * scrolling text (plat_console_write); one with it, a fixed layout. */
struct plat_screen_info {
    bool positioning;      /* clear the screen and place the cursor */
    bool colour;           /* colours per character */
    unsigned cols, rows;   /* the text mode's size */
    int mode;              /* the firmware's text mode number (-1: none) */
    unsigned modes;        /* text modes the console offers */
};

/* Portable colours: the UEFI build maps them to text attributes. */
enum plat_colour {
    PLAT_COLOUR_NORMAL = 0, /* light grey on black */
    PLAT_COLOUR_TITLE,      /* white on blue: the header and frame lines */
    PLAT_COLOUR_LABEL,      /* cyan: field names */
    PLAT_COLOUR_VALUE,      /* white: figures */
    PLAT_COLOUR_ERROR,      /* white on red: errors */
    PLAT_COLOUR_WARN,       /* yellow: notes and warnings */
    PLAT_COLOUR_GOOD,       /* green: a finished run without errors */
    PLAT_COLOUR_COUNT
};

/* Switch the console to the largest text mode it offers and clear it;
 * fills info (positioning false: draw nothing, write scrolling text). */
int plat_screen_open(struct plat_screen_info *info);
/* Write utf8 at (col, row) in that colour; the text must fit the row. */
void plat_screen_put(unsigned col, unsigned row, enum plat_colour colour, const char *utf8);
/* Leave the cursor below the layout, in the normal colour. */
void plat_screen_park(unsigned row);
/* Wait for a key, as long as the person takes (ConIn); returns at once on
 * the host. */
void plat_wait_key(void);

/* ---- Serial port ------------------------------------------------------------ */

/* A 16550-compatible UART: at an I/O port (the PC's COM ports) or memory
 * mapped, as ACPI SPCR describes it (its Generic Address Structure). */
enum plat_uart_space { PLAT_UART_IO = 0, PLAT_UART_MMIO };
/* The register set: a 16550, an Arm PL011 (SPCR type 0x03), or the SBSA
 * Generic UART (types 0x0D, 0x0E: the PL011's data and flag registers
 * only, no line setup), both memory mapped with 32-bit registers. */
enum plat_uart_kind { PLAT_UART_16550 = 0, PLAT_UART_PL011, PLAT_UART_SBSA };
struct plat_uart {
    enum plat_uart_space space;
    uint64_t base;        /* I/O port, or physical address of register 0 */
    uint8_t reg_bytes;    /* MMIO: access width and register stride, 1 or 4 (I/O: 1) */
    uint32_t baud;        /* 0: keep the rate the firmware programmed */
    enum plat_uart_kind kind;
};

/* Open the record channel: the UART u on UEFI, standard output on the
 * host. BM_ENODEV when no UART answers there. */
int plat_serial_open(const struct plat_uart *u);
/* A second UART that gets every record too (COM2 beside COM1: serial_port.h),
 * after plat_serial_open. BM_ENODEV when no UART answers there (always on
 * the host, unless a unit test says otherwise: platform_sim.h). */
int plat_serial_open_also(const struct plat_uart *u);
void plat_serial_write(const char *data, size_t len);
/* What plat_exit(PLAT_EXIT_WAIT) writes on the record channel once every
 * file is closed, before it waits for a key (tools/qemu_harness stops QEMU
 * there instead of waiting out its grace). */
#define PLAT_WAIT_KEY_LINE "\r\nbaremark: files closed, waiting for a key\r\n"
/* Where the firmware's console output goes: the UEFI ConOut variable, a
 * multi-instance device path, copied raw into buf. Returns its length, or
 * BM_ENODEV (none; always on the host) / BM_ENOSPC. */
long plat_console_device_path(void *buf, size_t cap);
/* The I/O port of the Super I/O device whose device path is the first
 * prefix_len bytes of path (which goes on to an end node), from its
 * EFI_SIO_PROTOCOL resources, as EDK2 PciSioSerialDxe finds a COM port's
 * base. BM_ENODEV when no such device says (always on the host). */
int plat_sio_io_port(const void *path, size_t prefix_len, uint16_t *port);

/* ---- Identity of the boot medium, for write-safety --------------------------- */

/* Where the app was loaded from, from its device path. has_pci is false for
 * netboot without a disk, or when the path holds no PCI node. port/lun are
 * the NVMe namespace id, SATA port, or SCSI target/lun of the boot disk
 * (has_port false when the path names none, e.g. USB). */
struct plat_boot_location {
    bool has_volume;        /* a file system the app was loaded from */
    bool disk_unknown;      /* loaded from storage the platform cannot name
                             * (a legacy BIOS boot): every disk counts as the
                             * boot disk, so none may be written */
    bool has_pci;
    struct pci_addr pci;    /* the controller the boot disk hangs off */
    bool has_port;
    uint32_t port, lun;
    char description[96];   /* the device path as text, for messages */
};
void plat_boot_location(struct plat_boot_location *loc);
/* The same for the volume results are written to (after plat_file_create);
 * has_volume false when no results file is open. */
void plat_results_location(struct plat_boot_location *loc);

/* ---- End of the run ----------------------------------------------------------- */

/* WAIT closes the files like the others, then waits for a key
 * (plat_wait_key) and returns to the firmware. */
enum plat_exit_mode { PLAT_EXIT_RETURN, PLAT_EXIT_REBOOT, PLAT_EXIT_SHUTDOWN, PLAT_EXIT_WAIT };
void plat_exit(enum plat_exit_mode mode);
/* Is there a firmware to go back to (UEFI, the host)? Without one (legacy
 * BIOS) RETURN halts and WAIT's key restarts the machine. */
bool plat_exit_returns(void);

/* Set up clocks, watchdog, console. Returns BM_OK or an error. */
int plat_init(void);

#endif
