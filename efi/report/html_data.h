/* What the HTML report keeps of a run: bounded aggregates filled record by
 * record (html_data_feed), so a run of any length needs the same memory.
 * Every table and series has a cap; what a cap drops is counted and the
 * page says so. In burn-in a figure measured again in a later pass
 * replaces the earlier value (the page shows the last pass; the end
 * record's statistics cover all passes). */
#ifndef BAREMARK_HTML_DATA_H
#define BAREMARK_HTML_DATA_H

#include "lib/bmlib.h"

#define HD_MAX_MSGS 48
#define HD_MAX_DIMMS 48
#define HD_MAX_WARN 12
#define HD_MAX_PCI 32
#define HD_MAX_DISKS 16
#define HD_MAX_TESTS 64      /* results per disk */
#define HD_MAX_ALL 32        /* all-disks aggregate results */
#define HD_MAX_LAT 64        /* memory latency points per pattern */
#define HD_MAX_BW 12
#define HD_MAX_LOADED 16
#define HD_MAX_NUMA 8        /* nodes */
#define HD_MAX_STATS 64      /* burn-in figures */
#define HD_MAX_VERDICTS 64
#define HD_MAX_REGIONS 64    /* memory map regions */
#define HD_MAX_FINDINGS 24
#define HD_MAX_SCANS 16      /* disks with a surface scan */
#define HD_MAX_SCAN_POINTS 100
#define HD_MAX_SCAN_BAD 16   /* unreadable ranges drawn per disk */

#define HD_STR 96
#define HD_LONG 320

struct hd_msg {
    char type[8];            /* error, note */
    char where[48];
    char message[HD_LONG];
    unsigned pass;
};

struct hd_dimm {
    char locator[40], bank[40], mem_type[16], manufacturer[40], part[40];
    double size_mb;          /* <0: unknown */
    double speed_mts, configured_mts;
    /* From its spd record, when one was read (a row of its own when the
     * SPD matched no SMBIOS slot: no_slot). */
    bool has_spd, no_slot;
    char spd_type[32], spd_part[32], spd_differs[16], amb_vendor[40];
    double spd_mts, cl, trcd, trp, spd_ranks;
};

/* One region of the measured memory map. */
struct hd_region {
    double index, base, bytes, latency_ns, gbps, node;   /* node <0: none */
    bool measured, slow;
    char reason[HD_STR];
};

struct hd_pci {
    char bdf[16], vendor[8], device[8], kind[12], port_type[24], path[HD_STR];
    bool has_link, downtrained;
    double speed_gts, width, max_speed_gts, max_width, mbps, ceiling_mbps;
};

struct hd_result {
    char test[32], rw[12];
    double bs, qd, threads, mbps, iops, mean_us, p50_us, p99_us, p999_us, max_us;
    double concurrent, ceiling_mbps;
    char link[48];           /* all: "x4 Gen2 behind 0000:00:1c.0" */
};

struct hd_disk {
    char id[24], model[48], serial[48], driver[16], pci[16];
    double bytes;
    unsigned ntests, dropped_tests;
    struct hd_result tests[HD_MAX_TESTS];
};

struct hd_point {
    double x, y;
};

struct hd_bw {
    char op[8];
    double threads, gbps;
};

struct hd_stat {
    char subject[48], test[48], unit[8];
    double n, min, median, max, cv;
};

/* A finding record (findings.h): the conclusion and its evidence. */
struct hd_finding {
    char type[24], severity[8];
    char text[HD_LONG];
    char subjects[HD_STR];   /* "a, b, c" */
    char numbers[HD_LONG];   /* "aggregate_mbps 1710, ceiling_mbps 2000" */
};

/* One disk's surface scan (scan, scan_bad_range). */
struct hd_scan {
    char disk[24], result[12], error[HD_STR];
    double first_lba, blocks, lba_bytes, scanned_blocks, point_blocks;
    double mbps, min_mbps, max_mbps, seq1m_mbps, seconds, bytes;
    double buckets[7];       /* < 5, 20, 50, 150, 500 ms, slower, error */
    double rereads, bad_blocks, bad_ranges;
    unsigned npoints;
    double curve_mbps[HD_MAX_SCAN_POINTS];
    unsigned nworst;         /* MHDD's map: per part its slowest read, bucket 0..5, 6 error, -1 none */
    int worst[HD_MAX_SCAN_POINTS];
    unsigned nbad, dropped_bad;
    struct { double first_lba, count; char error[64]; } bad[HD_MAX_SCAN_BAD];
};

struct hd_verdict {
    char disk[24], test[40], result[8];
    double passes, failures;
};

struct html_data {
    /* run and end */
    char version[24], time[40], args[HD_LONG];
    bool ended;
    char status[12], end_note[HD_LONG], verdict[8];
    double seconds, errors, passes, failed_limits;
    unsigned last_pass;      /* highest "pass" seen */
    unsigned after_pass;     /* set while the sink writes the page of a finished pass */
    unsigned records, bad_records;
    /* machine */
    bool has_system;
    char manufacturer[48], product[48], serial[48], cpu[HD_STR], firmware[HD_STR], bios[HD_STR];
    double cpus, sockets, cores, l1d, l2, l3;
    /* memory population */
    unsigned ndimms, dropped_dimms;
    struct hd_dimm dimms[HD_MAX_DIMMS];
    bool has_dimm_summary;
    double populated, slots, total_mb;
    unsigned nwarn;
    char warnings[HD_MAX_WARN][HD_STR];
    /* the measured memory map */
    unsigned nregions, dropped_regions;
    struct hd_region regions[HD_MAX_REGIONS];
    bool has_map_summary;
    char map_verdict[HD_LONG];
    double map_seconds, map_seconds_per_gib;
    unsigned npci, dropped_pci;
    struct hd_pci pci[HD_MAX_PCI];
    /* findings, shown first */
    unsigned nfindings, dropped_findings;
    struct hd_finding findings[HD_MAX_FINDINGS];
    /* messages (errors and notes) */
    unsigned nmsgs, dropped_msgs, nerror_records;
    struct hd_msg msgs[HD_MAX_MSGS];
    /* disks */
    unsigned ndisks, dropped_disks;
    struct hd_disk disks[HD_MAX_DISKS];
    unsigned nall, dropped_all;
    struct hd_result all[HD_MAX_ALL];
    /* memory */
    char mem_isa[12];
    unsigned nlat[3], dropped_lat;
    struct hd_point lat[3][HD_MAX_LAT];        /* stride, page_random, full_random */
    unsigned nbw, dropped_bw;
    struct hd_bw bw[HD_MAX_BW];
    unsigned nloaded, dropped_loaded;
    struct hd_point loaded[HD_MAX_LOADED];     /* x: load GB/s, y: ns */
    unsigned numa_nodes, dropped_numa;
    double numa_lat[HD_MAX_NUMA][HD_MAX_NUMA]; /* <0: not measured */
    double numa_bw[HD_MAX_NUMA][HD_MAX_NUMA];
    /* the surface scan */
    unsigned nscans, dropped_scans;
    struct hd_scan scans[HD_MAX_SCANS];
    /* burn-in */
    unsigned nstats, dropped_stats;
    struct hd_stat stats[HD_MAX_STATS];
    unsigned nverdicts, dropped_verdicts;
    struct hd_verdict verdicts[HD_MAX_VERDICTS];
};

extern const char *const hd_patterns[3];

void html_data_init(struct html_data *d);
/* One record: its type and JSON text (a line of the .jsonl). */
void html_data_feed(struct html_data *d, const char *type, const char *json);
/* The pass a record carries (0: none). */
unsigned html_data_pass_of(const char *json);

#endif
