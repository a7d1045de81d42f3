/* Findings drawn from records: each from its evidence, none from bad or
 * emulated evidence (a note then says why). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "efi/findings.h"

static struct findings fs;

static int reset(void **state)
{
    (void)state;
    findings_reset();
    memset(&fs, 0, sizeof(fs));
    return 0;
}

static void feed(const char *type, const char *json)
{
    findings_observe(type, json);
}

static const struct finding *find(const char *type)
{
    for (unsigned i = 0; i < fs.count; i++)
        if (!strcmp(fs.f[i].type, type))
            return &fs.f[i];
    return NULL;
}

static double num(const struct finding *f, const char *name)
{
    for (unsigned i = 0; i < f->nnumbers; i++)
        if (!strcmp(f->numbers[i].name, name))
            return f->numbers[i].value;
    fail_msg("no number %s", name);
    return 0;
}

static bool has_subject(const struct finding *f, const char *s)
{
    for (unsigned i = 0; i < f->nsubjects; i++)
        if (!strcmp(f->subjects[i], s))
            return true;
    return false;
}

static bool noted(const char *needle)
{
    for (unsigned i = 0; i < fs.nnotes; i++)
        if (strstr(fs.notes[i], needle))
            return true;
    return false;
}

/* The C226 of the seeds: the chipset record as inventory writes it. */
static const char *C226 =
    "{\"type\":\"chipset\",\"known\":true,\"name\":\"Intel 8 series/C220 (Lynx Point)\",\"vendor\":\"0x8086\","
    "\"device\":\"0x8c56\",\"bdf\":\"0000:00:1f.0\",\"emulated\":false,\"uplink\":\"DMI 2.0 x4\",\"uplink_mbps\":2000,"
    "\"uplink_visible\":false,\"source\":\"x\",\"note\":\"\"}";

static void c226_with_four_sata(double aggregate, double used_pct)
{
    char all[1024];
    feed("chipset", C226);
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:00:1f.2\",\"vendor\":\"0x8086\",\"device\":\"0x8c02\",\"class\":"
                "\"0x010601\",\"kind\":\"storage\",\"attach\":\"chipset\",\"port_type\":\"pci\",\"link\":null,"
                "\"path\":[],\"path_ceiling_mbps\":null}");
    for (int i = 0; i < 4; i++) {
        char d[256];
        snprintf(d, sizeof(d), "{\"type\":\"disk\",\"id\":\"ahci0p%d\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\","
                 "\"link_gbps\":6.0,\"link_port_max_gbps\":6.0,\"link_drive_max_gbps\":6.0}", i);
        feed("disk", d);
    }
    snprintf(all, sizeof(all), "{\"type\":\"disk_result\",\"disk\":\"all\",\"disks\":[\"ahci0p0\",\"ahci0p1\","
             "\"ahci0p2\",\"ahci0p3\"],\"test\":\"SEQ1M-Q8T1\",\"rw\":\"read\",\"mbps\":%.1f,\"link\":{\"hop\":"
             "\"chipset\",\"width_speed\":\"DMI 2.0 x4\",\"disks_behind\":4,\"ceiling_mbps\":2000,\"used_pct\":%.1f,"
             "\"chipset_uplink\":true,\"text\":\"4 disks behind\",\"emulated\":false}}", aggregate, used_pct);
    feed("disk_result", all);
}

static void test_sata_aggregate_at_the_c226_dmi_names_the_link(void **state)
{
    const struct finding *f;
    (void)state;
    c226_with_four_sata(1710.0, 85.5);
    findings_evaluate(&fs);
    f = find("shared_ceiling");
    assert_non_null(f);
    assert_true(f->warn);
    assert_non_null(strstr(f->text, "4 SATA disks behind the Intel 8 series/C220 (Lynx Point)'s DMI 2.0 x4: 1.71 of "
                                    "2.00 GB/s"));
    assert_true(num(f, "aggregate_mbps") == 1710.0);
    assert_true(num(f, "ceiling_mbps") == 2000.0);
    assert_true(has_subject(f, "ahci0p3"));
    assert_true(has_subject(f, "chipset_uplink"));
}

static void test_aggregate_well_below_the_ceiling_is_no_finding(void **state)
{
    (void)state;
    c226_with_four_sata(900.0, 45.0);
    findings_evaluate(&fs);
    assert_null(find("shared_ceiling"));
}

static void test_aggregate_above_the_ceiling_is_a_note_not_a_finding(void **state)
{
    (void)state;
    c226_with_four_sata(2600.0, 130.0);
    findings_evaluate(&fs);
    assert_null(find("shared_ceiling"));
    assert_true(noted("contradicts the measurement"));
}

/* The Z370 seed: a Gen3 x4 NVMe in a chipset Gen2 x4 slot. */
static void z370_nvme_in_gen2_slot(const char *chipset_json, bool downtrained)
{
    char pci[768];
    feed("chipset", chipset_json);
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:00:1b.4\",\"class\":\"0x060400\",\"kind\":\"bridge\",\"attach\":"
                "\"chipset\",\"port_type\":\"root_port\",\"link\":{\"speed_gts\":5.0,\"width\":4,\"max_speed_gts\":"
                "5.0,\"max_width\":4,\"partner_max_speed_gts\":8.0,\"partner_max_width\":4,\"downtrained\":false,"
                "\"mbps\":2000},\"path\":[]}");
    snprintf(pci, sizeof(pci), "{\"type\":\"pci\",\"bdf\":\"0000:03:00.0\",\"class\":\"0x010802\",\"kind\":"
             "\"storage\",\"attach\":\"chipset\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":%s,\"width\":4,"
             "\"max_speed_gts\":8.0,\"max_width\":4,\"partner_max_speed_gts\":5.0,\"partner_max_width\":4,"
             "\"downtrained\":%s,\"mbps\":2000},\"path\":[\"0000:00:1b.4\"],\"path_ceiling_mbps\":2000}",
             downtrained ? "2.5" : "5.0", downtrained ? "true" : "false");
    feed("pci", pci);
    feed("disk", "{\"type\":\"disk\",\"id\":\"nvme0n1\",\"driver\":\"nvme\",\"pci\":\"0000:03:00.0\"}");
    feed("disk_result", "{\"type\":\"disk_result\",\"disk\":\"nvme0n1\",\"test\":\"SEQ1M-Q8T1\",\"rw\":\"read\","
                        "\"mbps\":1580.2}");
}

static const char *Z370 =
    "{\"type\":\"chipset\",\"known\":true,\"name\":\"Intel 200 series/Z370 (Union Point)\",\"emulated\":false,"
    "\"uplink\":\"DMI 3.0 x4\",\"uplink_mbps\":3938,\"note\":\"\"}";

static void test_gen3_nvme_in_gen2_chipset_slot_is_slot_limited(void **state)
{
    const struct finding *f;
    (void)state;
    z370_nvme_in_gen2_slot(Z370, false);
    findings_evaluate(&fs);
    f = find("slot_limit");
    assert_non_null(f);
    assert_true(f->warn);
    assert_true(has_subject(f, "nvme0n1"));
    assert_true(has_subject(f, "0000:03:00.0"));
    assert_non_null(strstr(f->text, "3.94 GB/s on its own x4 8.0 GT/s link"));
    assert_non_null(strstr(f->text, "(a chipset root port) allows x4 5.0 GT/s, 2.00 GB/s"));
    assert_non_null(strstr(f->text, "1.58 GB/s"));
    assert_true(num(f, "slot_mbps") == 2000.0);
    /* Its own link (3.94) does not outrun the DMI 3.0 x4 (3.94): no
     * chipset_attached claim on top. */
    assert_null(find("chipset_attached"));
}

static void test_downtrained_link_names_the_disks_behind_it(void **state)
{
    const struct finding *f;
    (void)state;
    z370_nvme_in_gen2_slot(Z370, true);
    findings_evaluate(&fs);
    f = find("downtrained_link");
    assert_non_null(f);
    assert_true(has_subject(f, "nvme0n1"));
    assert_non_null(strstr(f->text, "trained to x4 2.5 GT/s, below the x4 5.0 GT/s both ends support"));
    assert_true(num(f, "disks") == 1);
}

static void test_gen4_nvme_behind_dmi_3_would_run_faster_on_cpu_lanes(void **state)
{
    const struct finding *f;
    (void)state;
    feed("chipset", Z370);
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:04:00.0\",\"class\":\"0x010802\",\"kind\":\"storage\",\"attach\":"
                "\"chipset\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":8.0,\"width\":4,\"max_speed_gts\":"
                "16.0,\"max_width\":4,\"partner_max_speed_gts\":16.0,\"partner_max_width\":4,\"downtrained\":false,"
                "\"mbps\":3938},\"path\":[\"0000:00:1d.0\"],\"path_ceiling_mbps\":3938}");
    feed("disk", "{\"type\":\"disk\",\"id\":\"nvme1n1\",\"driver\":\"nvme\",\"pci\":\"0000:04:00.0\"}");
    findings_evaluate(&fs);
    f = find("chipset_attached");
    assert_non_null(f);
    assert_true(has_subject(f, "nvme1n1"));
    assert_non_null(strstr(f->text, "7.88 GB/s on CPU lanes"));
    assert_true(num(f, "uplink_mbps") == 3938.0);
}

static void test_contradictory_link_capability_gives_a_note_and_no_finding(void **state)
{
    (void)state;
    feed("chipset", Z370);
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:05:00.0\",\"class\":\"0x010802\",\"kind\":\"storage\",\"attach\":"
                "\"chipset\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":8.0,\"width\":4,\"max_speed_gts\":"
                "5.0,\"max_width\":4,\"partner_max_speed_gts\":2.5,\"partner_max_width\":4,\"downtrained\":false,"
                "\"mbps\":3938},\"path\":[]}");
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:06:00.0\",\"class\":\"0x010802\",\"kind\":\"storage\",\"attach\":"
                "\"cpu\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":0,\"width\":0,\"max_speed_gts\":0,"
                "\"max_width\":0,\"partner_max_speed_gts\":8.0,\"partner_max_width\":4,\"downtrained\":false,"
                "\"mbps\":0},\"path\":[]}");
    findings_evaluate(&fs);
    assert_null(find("slot_limit"));
    assert_null(find("chipset_attached"));
    assert_true(noted("0000:05:00.0: negotiated above its own capability"));
    assert_true(noted("0000:06:00.0: no link capability"));
}

static void test_emulated_machine_says_links_are_not_enforced_instead(void **state)
{
    const struct finding *f;
    (void)state;
    z370_nvme_in_gen2_slot("{\"type\":\"chipset\",\"known\":true,\"name\":\"QEMU q35 (emulated 82G33 MCH + ICH9)\","
                           "\"emulated\":true,\"uplink\":\"DMI x4\",\"uplink_mbps\":1000,\"note\":\"emulated\"}",
                           true);
    findings_evaluate(&fs);
    assert_null(find("slot_limit"));
    assert_null(find("downtrained_link"));
    f = find("links_not_enforced");
    assert_non_null(f);
    assert_false(f->warn);
    assert_non_null(strstr(f->text, "Links are not enforced on this emulated machine"));
    assert_true(num(f, "slot_below_device") == 1);
    assert_true(num(f, "downtrained") == 1);
}

/* An emulated machine with only integrated controllers has no link to
 * refuse: no finding at all (every QEMU run would carry one otherwise). */
static void test_emulated_machine_without_links_has_no_finding(void **state)
{
    (void)state;
    feed("chipset", "{\"type\":\"chipset\",\"known\":true,\"name\":\"QEMU q35\",\"emulated\":true,\"uplink\":"
                    "\"DMI x4\",\"uplink_mbps\":1000,\"note\":\"emulated\"}");
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:00:1f.2\",\"class\":\"0x010601\",\"kind\":\"storage\","
                "\"attach\":\"chipset\",\"port_type\":\"pci\",\"link\":null,\"path\":[]}");
    findings_evaluate(&fs);
    assert_int_equal(fs.count, 0);
}

static void test_unknown_chipset_is_a_note(void **state)
{
    (void)state;
    feed("chipset", "{\"type\":\"chipset\",\"known\":false,\"name\":\"\",\"emulated\":false,\"uplink\":\"\","
                    "\"uplink_mbps\":null,\"note\":\"unknown chipset (LPC/ISA bridge 8086:0284)\"}");
    findings_evaluate(&fs);
    assert_true(noted("unknown chipset (LPC/ISA bridge 8086:0284)"));
    assert_int_equal(fs.count, 0);
}

static void test_sata_link_below_port_and_drive(void **state)
{
    const struct finding *f;
    (void)state;
    feed("chipset", C226);
    feed("disk", "{\"type\":\"disk\",\"id\":\"ahci0p2\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\",\"link_gbps\":"
                 "3.0,\"link_port_max_gbps\":6.0,\"link_drive_max_gbps\":6.0}");
    feed("disk", "{\"type\":\"disk\",\"id\":\"ahci0p3\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\",\"link_gbps\":"
                 "3.0,\"link_port_max_gbps\":3.0,\"link_drive_max_gbps\":6.0}");
    feed("disk", "{\"type\":\"disk\",\"id\":\"ahci0p4\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\",\"link_gbps\":"
                 "6.0,\"link_port_max_gbps\":3.0,\"link_drive_max_gbps\":3.0}");
    /* Only the port's maximum known: the drive may be what holds the link. */
    feed("disk", "{\"type\":\"disk\",\"id\":\"ahci0p5\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\",\"link_gbps\":"
                 "3.0,\"link_port_max_gbps\":6.0}");
    findings_evaluate(&fs);
    assert_int_equal(fs.count, 2);
    assert_true(noted("ahci0p5: the SATA link runs at 3.0 Gb/s, the port supports 6.0; the drive does not say"));
    f = find("sata_link");
    assert_non_null(f);
    assert_true(f->warn);
    assert_true(has_subject(f, "ahci0p2"));
    assert_non_null(strstr(f->text, "runs at 3.0 Gb/s although the port and the drive support 6.0 Gb/s"));
    f = &fs.f[1];
    assert_string_equal(f->type, "sata_link");
    assert_false(f->warn);
    assert_true(has_subject(f, "ahci0p3"));
    assert_true(noted("ahci0p4: the SATA link reads 6.0 Gb/s, above"));
}

/* The C600 seed: an LSI SAS2008 with 8 SSDs against the chipset's own. */
static void test_hba_against_chipset_controller(void **state)
{
    const struct finding *f;
    (void)state;
    feed("chipset", "{\"type\":\"chipset\",\"known\":true,\"name\":\"Intel C600/X79 (Patsburg)\",\"emulated\":false,"
                    "\"uplink\":\"DMI 2.0 x4\",\"uplink_mbps\":2000,\"note\":\"\"}");
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:03:00.0\",\"class\":\"0x010700\",\"kind\":\"storage\",\"attach\":"
                "\"cpu\",\"port_type\":\"endpoint\",\"link\":{\"speed_gts\":5.0,\"width\":8,\"max_speed_gts\":5.0,"
                "\"max_width\":8,\"partner_max_speed_gts\":8.0,\"partner_max_width\":8,\"downtrained\":false,"
                "\"mbps\":4000},\"path\":[\"0000:00:02.0\"],\"path_ceiling_mbps\":4000}");
    feed("pci", "{\"type\":\"pci\",\"bdf\":\"0000:00:1f.2\",\"class\":\"0x010601\",\"kind\":\"storage\",\"attach\":"
                "\"chipset\",\"port_type\":\"pci\",\"link\":null,\"path\":[]}");
    for (int i = 0; i < 8; i++) {
        char d[256], r[256];
        snprintf(d, sizeof(d), "{\"type\":\"disk\",\"id\":\"mpt0t%d\",\"driver\":\"mpt\",\"pci\":\"0000:03:00.0\"}", i);
        feed("disk", d);
        snprintf(r, sizeof(r), "{\"type\":\"disk_result\",\"disk\":\"mpt0t%d\",\"test\":\"SEQ1M-Q8T1\",\"rw\":\"read\","
                 "\"mbps\":350}", i);
        feed("disk_result", r);
    }
    for (int i = 0; i < 4; i++) {
        char d[256], r[256];
        snprintf(d, sizeof(d), "{\"type\":\"disk\",\"id\":\"ahci0p%d\",\"driver\":\"ahci\",\"pci\":\"0000:00:1f.2\"}", i);
        feed("disk", d);
        snprintf(r, sizeof(r), "{\"type\":\"disk_result\",\"disk\":\"ahci0p%d\",\"test\":\"SEQ1M-Q8T1\",\"rw\":"
                 "\"read\",\"mbps\":220}", i);
        feed("disk_result", r);
    }
    findings_evaluate(&fs);
    f = find("hba_vs_chipset");
    assert_non_null(f);
    assert_true(num(f, "hba_disks") == 8);
    assert_true(num(f, "hba_sum_mbps") == 2800);
    assert_true(num(f, "chipset_disks") == 4);
    assert_true(num(f, "chipset_sum_mbps") == 880);
    assert_non_null(strstr(f->text, "8 disks on the HBA/RAID controller at 0000:03:00.0 (path 4.00 GB/s)"));
}

static void test_single_and_uneven_channels(void **state)
{
    const struct finding *f;
    (void)state;
    feed("dimm_summary", "{\"type\":\"dimm_summary\",\"populated\":5,\"slots\":8,\"grouping\":\"channel\","
                         "\"channels\":[{\"name\":\"CPU1/A\",\"slots\":2,\"populated\":2},{\"name\":\"CPU1/B\","
                         "\"slots\":2,\"populated\":0},{\"name\":\"CPU2/A\",\"slots\":2,\"populated\":2},"
                         "{\"name\":\"CPU2/B\",\"slots\":2,\"populated\":1}],\"warnings\":[]}");
    findings_evaluate(&fs);
    f = &fs.f[0];
    assert_string_equal(f->type, "mem_channels");
    assert_non_null(strstr(f->text, "Only one of 2 memory channels of CPU1 is populated (CPU1/A=2, CPU1/B=0)"));
    f = &fs.f[1];
    assert_string_equal(f->type, "mem_channels");
    assert_non_null(strstr(f->text, "of CPU2 are unevenly populated"));
    assert_true(num(f, "min_per_channel") == 1);
}

static void test_channels_unknown_is_a_note(void **state)
{
    (void)state;
    feed("dimm", "{\"type\":\"dimm\",\"locator\":\"DIMM 0\",\"size_mb\":4096,\"mem_type\":\"DDR4\",\"speed_mts\":2400,"
                 "\"configured_mts\":2400}");
    feed("dimm_summary", "{\"type\":\"dimm_summary\",\"populated\":1,\"slots\":1,\"grouping\":\"none\",\"channels\":"
                         "null,\"channels_note\":\"slot names tell no channel\",\"warnings\":[]}");
    findings_evaluate(&fs);
    assert_null(find("mem_channels"));
    assert_true(noted("slot names tell no channel"));
}

static void test_dimms_below_rated_speed_and_half_speed_is_ambiguous(void **state)
{
    const struct finding *f;
    (void)state;
    feed("dimm", "{\"type\":\"dimm\",\"locator\":\"A1\",\"size_mb\":8192,\"mem_type\":\"DDR4\",\"speed_mts\":2666,"
                 "\"configured_mts\":2133}");
    feed("dimm", "{\"type\":\"dimm\",\"locator\":\"B1\",\"size_mb\":8192,\"mem_type\":\"DDR4\",\"speed_mts\":2666,"
                 "\"configured_mts\":2666}");
    feed("dimm", "{\"type\":\"dimm\",\"locator\":\"C1\",\"size_mb\":8192,\"mem_type\":\"DDR3\",\"speed_mts\":1600,"
                 "\"configured_mts\":800}");
    feed("dimm", "{\"type\":\"dimm\",\"locator\":\"D1\",\"size_mb\":0,\"mem_type\":\"\",\"speed_mts\":0,"
                 "\"configured_mts\":0}");
    findings_evaluate(&fs);
    f = find("dimm_speed");
    assert_non_null(f);
    assert_true(has_subject(f, "A1"));
    assert_false(has_subject(f, "C1"));
    assert_non_null(strstr(f->text, "1 of 3 DIMMs run below their rated speed, e.g. A1 at 2133 of 2666 MT/s"));
    assert_true(noted("exactly half the rated one"));
}

/* The seed's 5000P with 8 FB-DIMMs on 4 channels. */
static void test_fbdimm_population_with_measured_latency(void **state)
{
    const struct finding *f;
    (void)state;
    for (int i = 0; i < 8; i++) {
        char d[256];
        snprintf(d, sizeof(d), "{\"type\":\"dimm\",\"locator\":\"DIMM%d%c\",\"size_mb\":2048,\"mem_type\":"
                 "\"DDR2 FB-DIMM\",\"speed_mts\":667,\"configured_mts\":667}", i / 4 + 1, 'A' + i % 4);
        feed("dimm", d);
    }
    feed("dimm_summary", "{\"type\":\"dimm_summary\",\"channels\":[{\"name\":\"A\",\"slots\":2,\"populated\":2},"
                         "{\"name\":\"B\",\"slots\":2,\"populated\":2},{\"name\":\"C\",\"slots\":2,\"populated\":2},"
                         "{\"name\":\"D\",\"slots\":2,\"populated\":2}],\"warnings\":[]}");
    feed("mem_latency", "{\"type\":\"mem_latency\",\"bytes\":67108864,\"pattern\":\"random\",\"ns\":120.5}");
    feed("mem_latency", "{\"type\":\"mem_latency\",\"bytes\":536870912,\"pattern\":\"random\",\"ns\":187.25}");
    feed("mem_latency", "{\"type\":\"mem_latency\",\"bytes\":536870912,\"pattern\":\"sequential\",\"ns\":9.0}");
    findings_evaluate(&fs);
    f = find("fbdimm_channels");
    assert_non_null(f);
    if (!f)
        return; /* (for the compiler: assert_non_null does not return on NULL) */
    assert_non_null(strstr(f->text, "8 FB-DIMMs (up to 2 per channel on 4 channels)"));
    assert_non_null(strstr(f->text, "187 ns measured"));
    assert_true(num(f, "latency_ns") == 187.25);
    assert_null(find("mem_channels"));
}

static void test_remote_numa_latency_ratio(void **state)
{
    const struct finding *f;
    (void)state;
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":0,\"to_node\":0,\"latency_ns\":85.0}");
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":0,\"to_node\":1,\"latency_ns\":140.0}");
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":1,\"to_node\":1,\"latency_ns\":86.0}");
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":1,\"to_node\":0,\"latency_ns\":139.0}");
    findings_evaluate(&fs);
    f = find("numa_remote");
    assert_non_null(f);
    assert_false(f->warn);
    assert_true(num(f, "ratio") > 1.64 && num(f, "ratio") < 1.65);
    assert_non_null(strstr(f->text, "node 0 reads node 1's memory in 140 ns, its own in 85 ns"));
}

static void test_emulated_numa_is_a_note(void **state)
{
    (void)state;
    feed("system", "{\"type\":\"system\",\"manufacturer\":\"QEMU\",\"product\":\"Standard PC (Q35 + ICH9, 2009)\"}");
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":0,\"to_node\":0,\"latency_ns\":85.0}");
    feed("mem_numa", "{\"type\":\"mem_numa\",\"from_node\":0,\"to_node\":1,\"latency_ns\":90.0}");
    findings_evaluate(&fs);
    assert_null(find("numa_remote"));
    assert_true(noted("the nodes are emulated"));
}

static void test_slow_memory_map_regions(void **state)
{
    const struct finding *f;
    (void)state;
    feed("mem_map_summary", "{\"type\":\"mem_map_summary\",\"regions\":6,\"median_latency_ns\":90.0,"
                            "\"slow_regions\":[4,5],\"worst_ratio\":1.8,\"verdict\":\"2 regions slower\"}");
    findings_evaluate(&fs);
    f = find("mem_map_slow");
    assert_non_null(f);
    assert_true(num(f, "slow_regions") == 2);
    assert_true(num(f, "worst_ratio") == 1.8);
}

static void test_no_evidence_no_finding(void **state)
{
    (void)state;
    findings_evaluate(&fs);
    assert_int_equal(fs.count, 0);
    assert_int_equal(fs.nnotes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_sata_aggregate_at_the_c226_dmi_names_the_link, reset),
        cmocka_unit_test_setup(test_aggregate_well_below_the_ceiling_is_no_finding, reset),
        cmocka_unit_test_setup(test_aggregate_above_the_ceiling_is_a_note_not_a_finding, reset),
        cmocka_unit_test_setup(test_gen3_nvme_in_gen2_chipset_slot_is_slot_limited, reset),
        cmocka_unit_test_setup(test_downtrained_link_names_the_disks_behind_it, reset),
        cmocka_unit_test_setup(test_gen4_nvme_behind_dmi_3_would_run_faster_on_cpu_lanes, reset),
        cmocka_unit_test_setup(test_contradictory_link_capability_gives_a_note_and_no_finding, reset),
        cmocka_unit_test_setup(test_emulated_machine_says_links_are_not_enforced_instead, reset),
        cmocka_unit_test_setup(test_emulated_machine_without_links_has_no_finding, reset),
        cmocka_unit_test_setup(test_unknown_chipset_is_a_note, reset),
        cmocka_unit_test_setup(test_sata_link_below_port_and_drive, reset),
        cmocka_unit_test_setup(test_hba_against_chipset_controller, reset),
        cmocka_unit_test_setup(test_single_and_uneven_channels, reset),
        cmocka_unit_test_setup(test_channels_unknown_is_a_note, reset),
        cmocka_unit_test_setup(test_dimms_below_rated_speed_and_half_speed_is_ambiguous, reset),
        cmocka_unit_test_setup(test_fbdimm_population_with_measured_latency, reset),
        cmocka_unit_test_setup(test_remote_numa_latency_ratio, reset),
        cmocka_unit_test_setup(test_emulated_numa_is_a_note, reset),
        cmocka_unit_test_setup(test_slow_memory_map_regions, reset),
        cmocka_unit_test_setup(test_no_evidence_no_finding, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
