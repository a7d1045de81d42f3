/* SPD over SMBus into records: spd per DIMM, note when the bus is absent,
 * disabled by the firmware, or has nothing to say. */
#include "spd_inventory.h"
#include "../../drivers/pci.h"
#include "../record.h"
#include "cpuid.h"
#include "spd_match.h"
#include "spd_mch.h"
#include "spd_imc.h"
#include "spd_platform.h"
#include "spd_read.h"

static enum spd_mode spd_mode_set = SPD_MODE_ON;

void spd_inventory_mode(enum spd_mode mode)
{
    spd_mode_set = mode;
}

/* One spd record and its screen row. */
static void emit_spd_record(const struct spd_dimm *s, const struct spd_raw *raw, const struct dimm *d)
{
    static struct record r;
    const struct spd_info *in = &s->info;
    char human[200], addr[16], id[24];

    /* Behind the MCH the same EEPROM address repeats on every channel:
     * the branch and channel come first ("b0c1:0x51"). */
    if (raw->where[0])
        snprintf(addr, sizeof(addr), "%s:0x%02x", raw->where, s->addr);
    else
        snprintf(addr, sizeof(addr), "0x%02x", s->addr);
    record_begin(&r, "spd");
    json_str(&r.j, "address", addr);
    if (s->dimm_index >= 0) {
        json_str(&r.j, "locator", d[s->dimm_index].locator);
        json_str(&r.j, "match", s->match);
    } else {
        json_null(&r.j, "locator");
        json_null(&r.j, "match");
    }
    json_str(&r.j, "mem_type", in->mem_type);
    json_str(&r.j, "module_type", in->module_type);
    json_u64(&r.j, "size_mb", in->size_mb);
    json_u64(&r.j, "ranks", in->ranks);
    json_u64(&r.j, "data_width", in->data_width);
    json_bool(&r.j, "ecc", in->ecc);
    json_u64(&r.j, "device_width", in->device_width);
    json_str(&r.j, "manufacturer", in->manufacturer);
    if (in->mfr_bank)
        snprintf(id, sizeof(id), "%u:0x%02x", in->mfr_bank, in->mfr_code);
    else
        id[0] = '\0';
    json_str(&r.j, "jep106", id);
    json_str(&r.j, "part", in->part);
    json_str(&r.j, "amb_vendor", in->amb_vendor);
    if (in->amb_bank)
        snprintf(id, sizeof(id), "%u:0x%02x", in->amb_bank, in->amb_code);
    else
        id[0] = '\0';
    json_str(&r.j, "amb_jep106", id);
    json_str(&r.j, "serial", in->serial);
    json_str(&r.j, "date", in->date);
    json_u64(&r.j, "speed_mts", in->speed_mts);
    json_u64(&r.j, "tck_ps", in->tck_ps);
    json_u64(&r.j, "cl", in->cl);
    json_u64(&r.j, "trcd", in->trcd);
    json_u64(&r.j, "trp", in->trp);
    json_u64(&r.j, "tras", in->tras);
    json_bool(&r.j, "crc_ok", in->crc_ok);
    json_str(&r.j, "crc_note", in->crc_note);
    json_bool(&r.j, "truncated", in->truncated);
    json_u64(&r.j, "bytes_read", raw->len);
    json_str(&r.j, "note", raw->note);
    spd_disagreement(s, d, id, sizeof(id));
    json_str(&r.j, "smbios_disagrees", id);
    snprintf(human, sizeof(human), "  SPD %s %-22.22s %6llu MB  %-5s %-8s %4u CL%u-%u-%u-%u %s %s%s", addr,
             s->dimm_index >= 0 ? d[s->dimm_index].locator : "(no SMBIOS slot)", (unsigned long long)in->size_mb,
             in->mem_type, in->module_type, (unsigned)in->speed_mts, in->cl, in->trcd, in->trp, in->tras,
             in->manufacturer, in->part, in->crc_ok ? "" : " CRC BAD");
    record_emit(&r, human);
}

/* Notes for devices that answered but gave no decodable image. */
static void note_undecoded(const struct spd_raw *raw, unsigned nraw)
{
    char list[160];
    size_t n = 0;
    unsigned empty = 0;

    list[0] = '\0';
    for (unsigned i = 0; i < nraw; i++) {
        if (!raw[i].present)
            continue;
        if (raw[i].note[0])
            record_note("spd", "%s", raw[i].note);
        if (raw[i].rc == BM_OK && raw[i].len >= 3 && spd_bytes_wanted(raw[i].data[2]) == 0) {
            empty++;
            if (n < sizeof(list))
                n += (size_t)snprintf(list + n, sizeof(list) - n, "%s0x%02x", empty > 1 ? ", " : "", raw[i].addr);
        }
    }
    if (empty)
        record_note("spd", "no SPD data: %u device%s answer%s but hold%s no SPD image (unknown key byte 2): %s",
                    empty, empty == 1 ? "" : "s", empty == 1 ? "s" : "", empty == 1 ? "s" : "", list);
}

/* What SMBIOS says the populated DIMMs are, as Linux i2c_register_spd()
 * reads it: slots with type Other/Unknown (<= 0x02) are skipped, one type
 * must be common to all the others (DDR4 0x1a, DDR5 0x22), and the slot
 * count is every memory device listed. */
static void bus_hint(const struct dimm *d, unsigned n, struct spd_bus_hint *h)
{
    uint8_t common = 0;
    bool mixed = false;

    memset(h, 0, sizeof(*h));
    h->smbios_slots = n;
    for (unsigned i = 0; i < n; i++) {
        if (!dimm_populated(&d[i]) || d[i].type_code <= 0x02)
            continue;
        if (common && d[i].type_code != common)
            mixed = true;
        common = d[i].type_code;
    }
    h->smbios_ddr4 = !mixed && common == 0x1a;
    h->smbios_ddr5 = !mixed && common == 0x22;
}

/* Decode what answered in raw[0..nraw) into s (raw_of: which raw each
 * came from). Returns how many decoded. */
static int decode_raw(const struct spd_raw *raw, unsigned nraw, struct spd_dimm *s, int *raw_of)
{
    int ns = 0;

    for (unsigned i = 0; i < nraw; i++)
        if (raw[i].present && raw[i].len >= 3 && spd_decode(raw[i].data, raw[i].len, &s[ns].info) == BM_OK) {
            s[ns].addr = raw[i].addr;
            raw_of[ns++] = (int)i;
        }
    return ns;
}

/* A memory controller's own SPD path (spd_mch_read, spd_imc_read): up
 * to cap raw DIMMs into raw, a note for what it refused or left. */
typedef int (*spd_path_read)(const struct pci_list *l, struct spd_raw *raw, unsigned cap, char *note, size_t note_len);

/* Read and decode one memory-controller SPD path; cap bounds raw, none
 * is the note when nothing decoded there. Returns how many DIMMs decoded,
 * 0 when none did (notes written), -1 when the machine has no such
 * controller. */
static int read_spd_path(spd_path_read read, unsigned cap, const char *none, const struct pci_list *l,
                         struct spd_raw *raw, unsigned *nraw, struct spd_dimm *s, int *raw_of)
{
    char note[600];
    int rc = read(l, raw, cap, note, sizeof(note));

    if (rc == BM_ENODEV)
        return -1;
    if (note[0])
        record_note("spd", "%s", note);
    *nraw = rc > 0 ? (unsigned)rc : 0;
    rc = decode_raw(raw, *nraw, s, raw_of);
    if (rc == 0) {
        for (unsigned i = 0; i < *nraw; i++)
            if (raw[i].note[0])
                record_note("spd", "%s", raw[i].note);
        record_note("spd", "%s", none);
    }
    return rc;
}

/* Read the SPD: through the MCH's SPD registers or the Xeon IMC's SMBus where the machine has
 * them, else over the chipset SMBus; the decoded DIMMs into s. Returns
 * how many, or -1 when there is nothing to emit (a note was written). */
static int read_spd(const struct dimm *d, unsigned n, struct spd_raw *raw, unsigned *nraw, struct spd_dimm *s,
                    int *raw_of)
{
    static struct smbus bus;
    struct pci_list *l = plat_alloc(sizeof(*l));
    static struct cpu_ident cpu;
    struct spd_bus_hint hint;
    char note[200], elsewhere[240];
    bool other_path;
    int rc, ns = 0;

    if (!l) {
        record_error("spd", "no memory for the PCI function list");
        return -1;
    }
    pci_enumerate(l);
    cpu_identify(&cpu);
    /* Servers that keep SPD on the memory controller: say where, so an
     * empty chipset bus is not reported as "no SPD". */
    other_path = spd_platform_elsewhere(l, cpu.brand, elsewhere, sizeof(elsewhere));
    ns = read_spd_path(spd_mch_read, SPD_MCH_DIMMS, "no DIMM decoded from the memory controller hub's SPD registers "
                       "(Intel 5000P/5000V/5000X, 5100, 5400, 7300)", l, raw, nraw, s, raw_of);
    if (ns > 0) {
        plat_free(l);
        return ns;
    }
    ns = read_spd_path(spd_imc_read, SPD_IMC_DIMMS, "no DIMM decoded from the memory controller's SMBus (Xeon E5 "
                       "v1-v4, Xeon Scalable Skylake-SP/Cascade Lake-SP)", l, raw, nraw, s, raw_of);
    if (ns > 0) {
        plat_free(l);
        return ns;
    }
    /* The MCH or the IMC was read (and noted): their "not read" note would be wrong. */
    other_path = other_path && !spd_mch_present(l) && !spd_imc_present(l);
    ns = 0;
    rc = smbus_open(l, spd_mode_set == SPD_MODE_FORCE ? SMBUS_OPEN_ENABLE_HOST : 0, &bus, note, sizeof(note));
    plat_free(l);
    if (rc != BM_OK) {
        record_note("spd", "%s", other_path ? elsewhere : note);
        return -1;
    }
    bus_hint(d, n, &hint);
    note[0] = '\0';
    rc = spd_read_bus(&bus, &hint, raw, note, sizeof(note));
    smbus_close(&bus);
    if (rc <= 0) {
        record_note("spd", "SMBus %s (%s): %s", bus.where, bus.kind, other_path ? elsewhere : note);
        return -1;
    }
    *nraw = SPD_SLOTS;
    ns = decode_raw(raw, SPD_SLOTS, s, raw_of);
    if (other_path && ns == 0)
        record_note("spd", "%s", elsewhere);
    return ns;
}

#define SPD_RAW_MAX (SPD_IMC_DIMMS > SPD_MCH_DIMMS ? SPD_IMC_DIMMS : SPD_MCH_DIMMS)

/* What spd_inventory_read() found, for the DIMM table and the records. */
static struct {
    bool read;
    int ns;
    unsigned nraw;
    struct spd_raw raw[SPD_RAW_MAX];      /* the MCH has up to 32 (7300), the IMC 64, the SMBus SPD_SLOTS */
    struct spd_dimm s[SPD_RAW_MAX];
    int raw_of[SPD_RAW_MAX];              /* s[i] came from raw[raw_of[i]] */
} found;

void spd_inventory_read(const struct dimm *d, unsigned n)
{
    memset(&found, 0, sizeof(found));
    found.read = true;
    found.ns = -1;
    if (spd_mode_set == SPD_MODE_OFF) {
        record_note("spd", "SPD not read (spd=off)");
        return;
    }
    found.ns = read_spd(d, n, found.raw, &found.nraw, found.s, found.raw_of);
    if (found.ns < 0)
        return;
    note_undecoded(found.raw, found.nraw);
    spd_match_dimms(found.s, (unsigned)found.ns, d, n);
}

const struct spd_dimm *spd_inventory_of_dimm(unsigned dimm_index)
{
    for (int i = 0; found.read && i < found.ns; i++)
        if (found.s[i].dimm_index == (int)dimm_index)
            return &found.s[i];
    return NULL;
}

void spd_table_columns(char *buf, size_t cap, const struct spd_dimm *s, const struct dimm *d)
{
    char type[40], timing[24], ranks[8], differ[16];
    const struct spd_info *in;

    if (!s) {
        snprintf(buf, cap, "%-17s %5s %-8s %-3s %-18s", "-", "-", "-", "-", "-");
        return;
    }
    in = &s->info;
    /* "DDR4 RDIMM"; an FB-DIMM's module type says it all. */
    if (in->gen == SPD_GEN_DDR2_FB || !in->module_type[0])
        snprintf(type, sizeof(type), "%s", in->gen == SPD_GEN_DDR2_FB ? in->module_type : in->mem_type);
    else
        snprintf(type, sizeof(type), "%s %s", in->mem_type, in->module_type);
    snprintf(timing, sizeof(timing), "%u-%u-%u", in->cl, in->trcd, in->trp);
    snprintf(ranks, sizeof(ranks), "%uR", in->ranks);
    spd_disagreement(s, d, differ, sizeof(differ));
    snprintf(buf, cap, "%-17.17s %5u %-8s %-3s %-18.18s%s%s", type, (unsigned)in->speed_mts, timing, ranks,
             in->part[0] ? in->part : "-", differ[0] ? " DIFFERS: " : "", differ);
}

void spd_inventory_emit(const struct dimm *d, unsigned n, struct dimm_summary *sum)
{
    if (!found.read)
        spd_inventory_read(d, n);
    if (found.ns < 0)
        return;
    for (int i = 0; i < found.ns; i++)
        emit_spd_record(&found.s[i], &found.raw[found.raw_of[i]], d);
    spd_match_warnings(found.s, (unsigned)found.ns, d, n, sum);
}
