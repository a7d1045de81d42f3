/* Nothing goes missing: every whole disk the firmware shows when baremark
 * starts ends up in the run, as a disk (native or firmware path) or in a
 * note (an error with driver=native) that names it.
 *
 * The firmware's disks are file disks placed on a controller with
 * BAREMARK_HOST_DISKS (+pci=..+sata=N, fwblk.h); the native side is a
 * small AHCI model (two ports: a disk on port 0, and on port 1 a device
 * whose link never comes up, as a drive with a bad cable or a SATA PHY
 * the firmware's driver brings up and ours does not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "efi/disk/discover.h"
#include "efi/platform_sim.h"
#include "efi/record.h"
#include "capture_sink.h"

#define MIB (1u << 20)

static char dir[256];

/* ---- Records ---------------------------------------------------------------------------- */

static void dump_records(void)
{
    for (unsigned i = 0; i < nrecs; i++)
        if (strcmp(rec_type[i], "log"))
            fprintf(stderr, "  %s %s\n", rec_type[i], rec_json[i]);
}

/* ---- A two-port AHCI HBA (AHCI 1.3.1 section 3) ------------------------------------------ */

#define HBA_CAP 0x00
#define HBA_GHC 0x04
#define HBA_PI 0x0c
#define HBA_VS 0x10
#define GHC_HR (1u << 0)
#define GHC_AE (1u << 31)
#define PORT_BASE 0x100
#define PORT_STRIDE 0x80
#define PX_CLB 0x00
#define PX_CLBU 0x04
#define PX_IS 0x10
#define PX_CMD 0x18
#define PX_TFD 0x20
#define PX_SIG 0x24
#define PX_SSTS 0x28
#define PX_SCTL 0x2c
#define PX_SERR 0x30
#define PX_CI 0x38
#define CMD_ST (1u << 0)
#define CMD_FRE (1u << 4)
#define CMD_FR (1u << 14)
#define CMD_CR (1u << 15)

enum port_kind { PORT_EMPTY, PORT_DISK, PORT_NO_LINK };

struct mini_port {
    enum port_kind kind;
    uint32_t clb, clbu, is, cmd, tfd, sctl, serr, ci, regs[32];
    bool comreset;          /* SControl.DET = 1 is being held */
};

struct mini_ahci {
    struct plat_sim_dev dev;
    uint32_t ghc;
    struct mini_port port[2];
    char serial[2][21];
};

static void attach(struct plat_sim_dev *d);

static void *phys(uint32_t lo, uint32_t hi) { return (void *)(uintptr_t)(((uint64_t)hi << 32) | lo); }

/* ACS-3 strings: two characters per word, the first in the high byte. */
static void id_string(uint8_t *id, unsigned word, unsigned nwords, const char *s)
{
    for (unsigned i = 0; i < nwords * 2; i++)
        id[word * 2 + (i ^ 1)] = (uint8_t)(i < strlen(s) ? s[i] : ' ');
}

static void id_word(uint8_t *id, unsigned word, uint16_t v)
{
    id[word * 2] = (uint8_t)v;
    id[word * 2 + 1] = (uint8_t)(v >> 8);
}

/* IDENTIFY DEVICE of a 48-bit LBA disk of 1 GB (ACS-3 table 45). */
static void identify(const struct mini_ahci *m, unsigned port, uint8_t id[512])
{
    memset(id, 0, 512);
    id_word(id, 0, 0x0040);
    id_word(id, 2, 0xc837);     /* complete, no spin-up needed */
    id_string(id, 10, 10, m->serial[port]);
    id_string(id, 23, 4, "1.0");
    id_string(id, 27, 20, "MINI DISK");
    id_word(id, 49, (1u << 9) | (1u << 8)); /* LBA, DMA */
    id_word(id, 60, (uint16_t)2000000u);
    id_word(id, 61, (uint16_t)(2000000u >> 16));
    id_word(id, 83, 0x4000 | (1u << 10));
    id_word(id, 100, (uint16_t)2000000u);
    id_word(id, 101, (uint16_t)(2000000u >> 16));
    id_word(id, 106, 0x4000);
}

/* Run the command in slot 0 (the probe issues one at a time). */
static void run_slot0(struct mini_ahci *m, unsigned n)
{
    struct mini_port *p = &m->port[n];
    uint32_t *hdr = phys(p->clb, p->clbu);
    uint8_t *table = phys(hdr[2], hdr[3]);
    uint32_t *prd = (uint32_t *)(table + 0x80);
    uint8_t data[512];

    p->ci &= ~1u;
    if (table[2] != 0xec || (hdr[0] >> 16) < 1) {
        p->tfd = (0x04u << 8) | 0x51; /* ERR, ABRT: only IDENTIFY is known here */
        p->is |= 1u << 30;
        return;
    }
    identify(m, n, data);
    memcpy(phys(prd[0], prd[1]), data, MIN(512u, (prd[3] & 0x3fffff) + 1));
    hdr[1] = 512;
    p->tfd = 0x50;
    p->is |= 1u << 1; /* PIO Setup FIS */
}

static uint32_t mini_read(void *ctx, int bar, uint32_t off)
{
    struct mini_ahci *m = ctx;
    (void)bar;

    if (off < PORT_BASE) {
        switch (off) {
        case HBA_CAP: return 1u | (31u << 8) | (1u << 31); /* 2 ports, 32 slots, 64-bit */
        case HBA_GHC: return m->ghc;
        case HBA_PI: return 0x3;
        case HBA_VS: return 0x00010300;
        default: return 0;
        }
    }
    if (off >= PORT_BASE + 2 * PORT_STRIDE)
        return 0;
    {
        unsigned n = (off - PORT_BASE) / PORT_STRIDE, r = (off - PORT_BASE) % PORT_STRIDE;
        struct mini_port *p = &m->port[n];

        switch (r) {
        case PX_CLB: return p->clb;
        case PX_CLBU: return p->clbu;
        case PX_IS: return p->is;
        case PX_CMD:
            /* CR follows ST and FR follows FRE at once. */
            return (p->cmd & ~(CMD_CR | CMD_FR)) | ((p->cmd & CMD_ST) ? CMD_CR : 0) | ((p->cmd & CMD_FRE) ? CMD_FR : 0);
        case PX_TFD: return p->kind == PORT_DISK ? p->tfd : 0x7f;
        case PX_SIG: return p->kind == PORT_DISK ? 0x00000101u : 0xffffffffu;
        case PX_SSTS:
            if (p->kind == PORT_NO_LINK) {
                /* A device is there (DET=1) but the link never comes up:
                 * let the driver's deadline pass quickly. */
                plat_sim_advance_ns(5000000);
                return 0x1;
            }
            if (p->kind == PORT_EMPTY) {
                plat_sim_advance_ns(5000000);
                return 0x0;
            }
            return p->comreset ? 0x1 : 0x123; /* DET=3, Gen 2, active */
        case PX_SCTL: return p->sctl;
        case PX_SERR: return p->serr;
        case PX_CI: return p->ci;
        default: return p->regs[r / 4];
        }
    }
}

static void mini_write(void *ctx, int bar, uint32_t off, uint32_t v)
{
    struct mini_ahci *m = ctx;
    (void)bar;

    if (off < PORT_BASE) {
        if (off == HBA_GHC) {
            m->ghc = (v & GHC_AE) | (m->ghc & GHC_AE);
            if (v & GHC_HR)
                for (unsigned n = 0; n < 2; n++) {
                    m->port[n].cmd = m->port[n].ci = m->port[n].is = 0;
                    m->port[n].tfd = 0x50;
                }
        }
        return;
    }
    if (off >= PORT_BASE + 2 * PORT_STRIDE)
        return;
    {
        unsigned n = (off - PORT_BASE) / PORT_STRIDE, r = (off - PORT_BASE) % PORT_STRIDE;
        struct mini_port *p = &m->port[n];

        switch (r) {
        case PX_CLB: p->clb = v; break;
        case PX_CLBU: p->clbu = v; break;
        case PX_IS: p->is &= ~v; break;
        case PX_CMD: p->cmd = v; break;
        case PX_SCTL:
            p->sctl = v;
            p->comreset = (v & 0xf) == 1;
            break;
        case PX_SERR: p->serr &= ~v; break;
        case PX_CI:
            p->ci |= v;
            if ((p->ci & 1u) && (p->cmd & CMD_ST) && p->kind == PORT_DISK)
                run_slot0(m, n);
            break;
        default: p->regs[r / 4] = v; break;
        }
    }
}

/* An Intel AHCI controller (8086:2922, class 01:06:01) at a. */
static void mini_ahci_attach(struct mini_ahci *m, struct pci_addr a, enum port_kind p0, enum port_kind p1)
{
    memset(m, 0, sizeof(*m));
    m->dev.addr = a;
    m->dev.config[0] = 0x86, m->dev.config[1] = 0x80, m->dev.config[2] = 0x22, m->dev.config[3] = 0x29;
    m->dev.config[9] = 0x01, m->dev.config[10] = 0x06, m->dev.config[11] = 0x01;
    m->dev.bar_size[5] = 0x1000;
    m->dev.ctx = m;
    m->dev.mmio_read32 = mini_read;
    m->dev.mmio_write32 = mini_write;
    m->port[0].kind = p0;
    m->port[1].kind = p1;
    bm_strlcpy(m->serial[0], "SER0", sizeof(m->serial[0]));
    bm_strlcpy(m->serial[1], "SER1", sizeof(m->serial[1]));
    attach(&m->dev);
}

/* A function only its config space answers for: with it attached, the
 * host build sees simulated functions only (not the machine's own). */
static void config_only(struct plat_sim_dev *dev, struct pci_addr a, uint16_t vendor, uint16_t device, uint32_t cls)
{
    memset(dev, 0, sizeof(*dev));
    dev->addr = a;
    dev->config[0] = (uint8_t)vendor, dev->config[1] = (uint8_t)(vendor >> 8);
    dev->config[2] = (uint8_t)device, dev->config[3] = (uint8_t)(device >> 8);
    dev->config[9] = (uint8_t)cls, dev->config[10] = (uint8_t)(cls >> 8), dev->config[11] = (uint8_t)(cls >> 16);
    attach(dev);
}

/* A root port (type 1 header) leading to bus sec, found with its command
 * register off: the native driver must turn it on, the hand-back put it
 * back. */
static void root_port(struct plat_sim_dev *dev, struct pci_addr a, uint8_t sec)
{
    config_only(dev, a, 0x8086, 0x29c1, 0x060400);
    dev->config[0x0e] = 1;
    dev->config[0x19] = sec;
    dev->config[0x1a] = sec;
}

static uint16_t command_of(const struct plat_sim_dev *d) { return (uint16_t)(d->config[4] | d->config[5] << 8); }

/* ---- Running discovery -------------------------------------------------------------------- */

static struct disk_set set;
static struct plat_sim_dev host_bridge;
static struct plat_sim_dev *attached[8];   /* detached after each test, pass or fail */
static unsigned nattached;

static void attach(struct plat_sim_dev *d)
{
    plat_sim_attach(d);
    if (nattached < ARRAY_SIZE(attached))
        attached[nattached++] = d;
}

static void make_file(const char *name, char *path, size_t len)
{
    FILE *f;

    snprintf(path, len, "%s/%s", dir, name);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), 4 * MIB), 0);
    fclose(f);
}

/* disk_discover() with BAREMARK_HOST_DISKS = env and driver= mode. */
static void discover(const char *env, enum bm_driver_mode mode)
{
    static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
    struct plat_boot_location boot, results;
    struct config c;

    setenv("BAREMARK_HOST_DISKS", env, 1);
    config_defaults(&c);
    c.driver = mode;
    memset(&boot, 0, sizeof(boot));
    memset(&results, 0, sizeof(results));
    sinks_reset();
    sinks_add(&sink);
    nrecs = 0;
    disk_discover(&c, &boot, &results, &set);
}

static void discover_end(void)
{
    disk_release(&set);
    sinks_close();
    unsetenv("BAREMARK_HOST_DISKS");
}

/* Index of the disk at this controller and port, or -1. */
static int disk_at(const char *bdf, uint32_t port)
{
    for (unsigned i = 0; i < set.list.count; i++)
        if (!strcmp(set.list.disks[i]->pci, bdf) && set.list.disks[i]->port == port)
            return (int)i;
    return -1;
}

/* ---- Tests ------------------------------------------------------------------------------------- */

static void test_ahci_port_that_will_not_come_up_hands_the_controller_back(void **state)
{
    static struct mini_ahci m;
    static struct plat_sim_dev port;
    char a[512], b[512], env[1400];
    int d0, d1;
    (void)state;

    /* The firmware showed two disks on 0000:03:00.0; our driver brings up
     * port 0 only. Both must be benchmarked: through the firmware. */
    root_port(&port, (struct pci_addr){ 0, 0, 1, 0 }, 3);
    mini_ahci_attach(&m, (struct pci_addr){ 0, 3, 0, 0 }, PORT_DISK, PORT_NO_LINK);
    make_file("p0.img", a, sizeof(a));
    make_file("p1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0+model=MINI DISK,"
                               "%s=SER1+pci=0000:03:00.0+sata=1+model=MINI DISK",
             a, b);
    discover(env, DRIVER_AUTO);
    if (set.list.count != 2)
        dump_records();
    assert_int_equal(m.dev.claims, 1);
    assert_int_equal(m.dev.releases, 1);     /* handed back */
    assert_int_equal(command_of(&port), 0);  /* the bridge above as found */
    assert_int_equal(set.nctrls, 0);
    assert_int_equal(set.list.count, 2);
    d0 = disk_at("0000:03:00.0", 0);
    d1 = disk_at("0000:03:00.0", 1);
    assert_true(d0 >= 0 && d1 >= 0);
    assert_string_equal(set.list.disks[d0]->path, BM_PATH_FIRMWARE);
    assert_string_equal(set.list.disks[d1]->path, BM_PATH_FIRMWARE);
    assert_int_equal(count_records("note", "\"where\":\"0000:03:00.0\"",
                                   "ahci driver found 1 of the 2 disks the firmware shows on this controller "
                                   "(not found: port 1 (serial SER1))"),
                     1);
    assert_int_equal(count_records("note", "handed back to the firmware: its disks use firmware Block I/O", NULL), 1);
    /* nothing left over to name */
    assert_int_equal(count_records("note", "is in no test", NULL), 0);
    assert_int_equal(count_records("error", NULL, NULL), 0);
    discover_end();
}

static void test_ahci_that_finds_no_disk_hands_both_back(void **state)
{
    static struct mini_ahci m;
    char a[512], b[512], env[1400];
    (void)state;

    /* Issue 11: "an AHCI probe that finds no disk on a port keeps the
     * controller and its disks vanish". */
    mini_ahci_attach(&m, (struct pci_addr){ 0, 3, 0, 0 }, PORT_NO_LINK, PORT_NO_LINK);
    make_file("q0.img", a, sizeof(a));
    make_file("q1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0,%s=SER1+pci=0000:03:00.0+sata=1", a, b);
    discover(env, DRIVER_AUTO);
    assert_int_equal(m.dev.releases, 1);
    assert_int_equal(set.nctrls, 0);
    assert_int_equal(set.list.count, 2);
    assert_int_equal(count_records("note", "\"where\":\"0000:03:00.0\"",
                                   "ahci driver found 0 of the 2 disks the firmware shows on this controller "
                                   "(not found: port 0 (serial SER0), port 1 (serial SER1))"),
                     1);
    assert_int_equal(count_records("note", "found no disk", NULL), 0);
    discover_end();
}

static void test_native_only_keeps_the_controller_and_names_the_lost_disk_in_an_error(void **state)
{
    static struct mini_ahci m;
    static struct plat_sim_dev port;
    char a[512], b[512], env[1400];
    (void)state;

    /* driver=native: the user asked for native drivers only. The disk our
     * driver found is benchmarked natively; the one it lost is an error
     * that names it. */
    root_port(&port, (struct pci_addr){ 0, 0, 1, 0 }, 3);
    mini_ahci_attach(&m, (struct pci_addr){ 0, 3, 0, 0 }, PORT_DISK, PORT_NO_LINK);
    make_file("n0.img", a, sizeof(a));
    make_file("n1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0+model=MINI DISK,"
                               "%s=SER1+pci=0000:03:00.0+sata=1+model=MINI DISK",
             a, b);
    discover(env, DRIVER_NATIVE);
    assert_int_equal(set.nctrls, 1);
    assert_int_equal(m.dev.releases, 0);
    assert_int_equal(command_of(&port), 0x0006); /* memory space and bus master while in use */
    assert_int_equal(set.list.count, 1);
    assert_string_equal(set.list.disks[0]->path, BM_PATH_NATIVE);
    assert_int_equal(set.list.disks[0]->port, 0);
    assert_int_equal(count_records("error", "\"where\":\"0000:03:00.0\"",
                                   "ahci driver did not find the firmware's disk on port 1 (model \\\"MINI DISK\\\", "
                                   "serial \\\"SER1\\\""),
                     1);
    assert_int_equal(count_records("error", NULL, NULL), 1);
    discover_end();
    assert_int_equal(m.dev.releases, 1);
    assert_int_equal(command_of(&port), 0);
}

static void test_ahci_that_finds_every_disk_keeps_the_controller(void **state)
{
    static struct mini_ahci m;
    char a[512], env[1400];
    (void)state;

    mini_ahci_attach(&m, (struct pci_addr){ 0, 3, 0, 0 }, PORT_DISK, PORT_EMPTY);
    make_file("k0.img", a, sizeof(a));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0", a);
    discover(env, DRIVER_AUTO);
    assert_int_equal(set.nctrls, 1);
    assert_int_equal(m.dev.releases, 0);
    assert_int_equal(set.list.count, 1);
    assert_string_equal(set.list.disks[0]->path, BM_PATH_NATIVE);
    assert_int_equal(count_records("note", NULL, NULL), 0);
    assert_int_equal(count_records("error", NULL, NULL), 0);
    discover_end();
}

static void test_controller_whose_probe_fails_runs_its_disks_on_the_firmware_path(void **state)
{
    static struct plat_sim_dev nvme;
    char a[512], env[1400];
    (void)state;

    /* An NVMe controller with config space only: the probe fails. */
    config_only(&nvme, (struct pci_addr){ 0, 4, 0, 0 }, 0x1b36, 0x0010, 0x010802);
    make_file("f0.img", a, sizeof(a));
    snprintf(env, sizeof(env), "%s=NS1+pci=0000:04:00.0+nvme=1", a);
    discover(env, DRIVER_AUTO);
    assert_int_equal(set.nctrls, 0);
    assert_int_equal(set.list.count, 1);
    assert_string_equal(set.list.disks[0]->path, BM_PATH_FIRMWARE);
    assert_int_equal(count_records("note", "\"where\":\"0000:04:00.0\"", "its disks use firmware Block I/O"), 1);
    /* The controller is named once, by the record's where: the driver's
     * own "NVME 0000:04:00.0: " prefix is dropped from its reason. */
    for (unsigned i = 0; i < nrecs; i++)
        if (!strcmp(rec_type[i], "note") && strstr(rec_json[i], "could not take"))
            assert_null(strstr(strstr(rec_json[i], "0000:04:00.0") + 1, "0000:04:00.0"));
    assert_int_equal(count_records("note", "is in no test", NULL), 0);
    discover_end();
}

/* The id of the native disk on controller bdf, port 0 ("" if none). */
static const char *native_id_at(const char *bdf)
{
    int i = disk_at(bdf, 0);

    return i >= 0 && !strcmp(set.list.disks[i]->path, BM_PATH_NATIVE) ? set.list.disks[i]->id : "";
}

/* Disk ids are decided by discovery (blkdev.h): a controller's number is
 * how many of its driver's controllers were taken and kept before it. One
 * whose probe fails and one the census hands back use no number, so the
 * next controller's disks are ahci0p0, not ahci1p0 or ahci2p0. */
static void test_failed_or_handed_back_controller_uses_no_disk_number(void **state)
{
    static struct plat_sim_dev dead;
    static struct mini_ahci back, kept;
    char a[512], b[512], k[512], env[2000];
    (void)state;

    config_only(&dead, (struct pci_addr){ 0, 2, 0, 0 }, 0x8086, 0x2922, 0x010601); /* no BAR5: probe fails */
    mini_ahci_attach(&back, (struct pci_addr){ 0, 3, 0, 0 }, PORT_DISK, PORT_NO_LINK);
    mini_ahci_attach(&kept, (struct pci_addr){ 0, 5, 0, 0 }, PORT_DISK, PORT_EMPTY);
    make_file("i0.img", a, sizeof(a));
    make_file("i1.img", b, sizeof(b));
    make_file("i2.img", k, sizeof(k));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0,%s=SER1+pci=0000:03:00.0+sata=1,"
                               "%s=KEPT+pci=0000:05:00.0+sata=0",
             a, b, k);
    discover(env, DRIVER_AUTO);
    assert_int_equal(back.dev.releases, 1); /* handed back */
    assert_int_equal(set.nctrls, 1);
    assert_string_equal(native_id_at("0000:05:00.0"), "ahci0p0");
    discover_end();
}

/* Controllers that are all kept are numbered in discovery order. */
static void test_kept_controllers_are_numbered_in_discovery_order(void **state)
{
    static struct mini_ahci first, second;
    char a[512], b[512], k[512], env[2000];
    (void)state;

    mini_ahci_attach(&first, (struct pci_addr){ 0, 3, 0, 0 }, PORT_DISK, PORT_NO_LINK);
    mini_ahci_attach(&second, (struct pci_addr){ 0, 5, 0, 0 }, PORT_DISK, PORT_EMPTY);
    make_file("o0.img", a, sizeof(a));
    make_file("o1.img", b, sizeof(b));
    make_file("o2.img", k, sizeof(k));
    snprintf(env, sizeof(env), "%s=SER0+pci=0000:03:00.0+sata=0,%s=SER1+pci=0000:03:00.0+sata=1,"
                               "%s=KEPT+pci=0000:05:00.0+sata=0",
             a, b, k);
    discover(env, DRIVER_NATIVE); /* the first keeps its one disk too */
    assert_int_equal(set.nctrls, 2);
    assert_string_equal(native_id_at("0000:03:00.0"), "ahci0p0");
    assert_string_equal(native_id_at("0000:05:00.0"), "ahci1p0");
    discover_end();
}

static void test_disk_the_firmware_no_longer_shows_gets_a_note(void **state)
{
    char a[512], b[512], env[1400];
    (void)state;

    /* Shown at start, gone by the time the disks are collected (and on a
     * controller nobody probed): a note names it. */
    make_file("g0.img", a, sizeof(a));
    make_file("g1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=KEEP+pci=0000:05:00.0+nvme=1,%s=GONE1+pci=0000:05:00.0+nvme=2+model=LOST+gone", a,
             b);
    discover(env, DRIVER_AUTO);
    assert_int_equal(set.list.count, 1);
    assert_int_equal(count_records("note", "\"where\":\"0000:05:00.0\"",
                                   "the firmware's disk on namespace 2 (model \\\"LOST\\\", serial \\\"GONE1\\\", "
                                   "0.0 GB) was there when baremark started but is in no test: the firmware no "
                                   "longer exposes it"),
                     1);
    assert_int_equal(count_records("note", "is in no test", NULL), 1);
    discover_end();
}

static void test_disks_placed_by_count_are_each_counted_once(void **state)
{
    char a[512], b[512], env[1400];
    (void)state;

    /* Two disks whose device paths name no place, one gone: one disk
     * cannot account for both. */
    make_file("c0.img", a, sizeof(a));
    make_file("c1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=ONE+pci=0000:06:00.0,%s=TWO+pci=0000:06:00.0+gone", a, b);
    discover(env, DRIVER_AUTO);
    assert_int_equal(set.list.count, 1);
    assert_int_equal(count_records("note", "\"where\":\"0000:06:00.0\"", "is in no test"), 1);
    discover_end();
}

static void test_native_only_names_disks_on_controllers_without_a_native_driver(void **state)
{
    char a[512], env[1400];
    (void)state;

    /* driver=native and a disk the firmware shows on a controller
     * baremark has no driver for: left out on purpose, and said so. */
    make_file("u0.img", a, sizeof(a));
    snprintf(env, sizeof(env), "%s=USB1+pci=0000:00:14.0", a);
    discover(env, DRIVER_NATIVE);
    assert_int_equal(set.list.count, 0);
    assert_int_equal(count_records("note", "\"where\":\"0000:00:14.0\"",
                                   "the firmware's disk (serial \\\"USB1\\\", 0.0 GB) was there when baremark started "
                                   "but is in no test: baremark has no native driver for its controller "
                                   "(driver=native)"),
                     1);
    assert_int_equal(count_records("error", NULL, NULL), 0);
    discover_end();
}

static void test_removable_media_are_not_in_the_census(void **state)
{
    struct fwblk_census c;
    char a[512], b[512], env[1400];
    (void)state;

    make_file("r0.img", a, sizeof(a));
    make_file("r1.img", b, sizeof(b));
    snprintf(env, sizeof(env), "%s=CD+pci=0000:03:00.0+sata=2+removable,%s=HD+pci=0000:03:00.0+sata=0", a, b);
    setenv("BAREMARK_HOST_DISKS", env, 1);
    assert_int_equal(fwblk_census(&c), 1);
    assert_string_equal(c.disks[0].serial, "HD");
    assert_int_equal(c.disks[0].at, FWBLK_AT_SATA);
    assert_int_equal(c.disks[0].port, 0);
    assert_true(c.disks[0].has_pci);
    assert_int_equal(c.disks[0].bytes, 4 * MIB);
    unsetenv("BAREMARK_HOST_DISKS");
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/baremark-census-XXXXXX");
    assert_non_null(mkdtemp(dir));
    plat_init();
    /* A host bridge, so the machine's own PCI functions stay out of view. */
    config_only(&host_bridge, (struct pci_addr){ 0, 0, 0, 0 }, 0x8086, 0x29c0, 0x060000);
    nattached = 0;  /* the host bridge stays for every test */
    return 0;
}

/* After each test, passed or failed: nothing carries over. */
static int cleanup(void **state)
{
    (void)state;
    discover_end();
    while (nattached)
        plat_sim_detach(attached[--nattached]);
    return 0;
}

static int teardown(void **state)
{
    char cmd[300];
    (void)state;
    plat_sim_detach(&host_bridge);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ahci_port_that_will_not_come_up_hands_the_controller_back, cleanup),
        cmocka_unit_test_teardown(test_ahci_that_finds_no_disk_hands_both_back, cleanup),
        cmocka_unit_test_teardown(test_native_only_keeps_the_controller_and_names_the_lost_disk_in_an_error, cleanup),
        cmocka_unit_test_teardown(test_ahci_that_finds_every_disk_keeps_the_controller, cleanup),
        cmocka_unit_test_teardown(test_controller_whose_probe_fails_runs_its_disks_on_the_firmware_path, cleanup),
        cmocka_unit_test_teardown(test_failed_or_handed_back_controller_uses_no_disk_number, cleanup),
        cmocka_unit_test_teardown(test_kept_controllers_are_numbered_in_discovery_order, cleanup),
        cmocka_unit_test_teardown(test_disk_the_firmware_no_longer_shows_gets_a_note, cleanup),
        cmocka_unit_test_teardown(test_disks_placed_by_count_are_each_counted_once, cleanup),
        cmocka_unit_test_teardown(test_native_only_names_disks_on_controllers_without_a_native_driver, cleanup),
        cmocka_unit_test_teardown(test_removable_media_are_not_in_the_census, cleanup),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
