/* What the screen files share: the picture of the run built from the
 * records (screen_model.c), drawn into a grid (screen_layout.c) that
 * screen.c pushes to the console. */
#ifndef BAREMARK_SCREEN_PRIVATE_H
#define BAREMARK_SCREEN_PRIVATE_H

#include "../platform.h"
#include "../sinks.h"
#include "screen.h"

#define SCREEN_MAX_COLS 256
#define SCREEN_MAX_ROWS 96
#define SCREEN_DISKS 64
#define SCREEN_TESTS 32
#define SCREEN_MESSAGES 24
#define SCREEN_FINDINGS 8
#define SCREEN_TEXT_LINES 16
#define SCREEN_WARNINGS 4
#define SCREEN_DIMMS 48
#define SCREEN_REGIONS 64
#define SCREEN_SCANS 8
#define SCREEN_SCAN_POINTS 100
#define SCREEN_SCAN_BAD 4

/* One test's row of a disk table: read and write halves. */
struct screen_test {
    char name[28];
    bool has[2];           /* [0] read, [1] write */
    double mbps[2], iops[2], p99_us[2];
};

struct screen_disk {
    char id[24];
    char label[128];       /* model, serial, path */
    unsigned ntests;
    struct screen_test tests[SCREEN_TESTS];
};

/* One latency point picked for a cache level: the largest size tested
 * that fits in it (half its size, to leave room for the rest). */
struct screen_lat {
    uint64_t bytes;
    double ns;
};

/* A populated DIMM: what SMBIOS says, and its SPD when one was read. */
struct screen_dimm {
    char locator[24];
    uint32_t size_mb;          /* 0 with size_unknown: SMBIOS gave no size */
    bool size_unknown;
    uint32_t smbios_mts;
    bool has_spd;
    char spd_type[24];         /* "DDR4 RDIMM", "FB-DIMM" */
    uint32_t spd_mts;
    unsigned cl, trcd, trp, ranks;
    char part[24];
    char differs[16];          /* "size", "speed", "size, speed", "" */
};

/* One region of the memory map (mem_region). */
struct screen_region {
    unsigned index;
    uint64_t base, bytes;
    bool measured, slow;
    double latency_ns, gbps;
};

/* One disk's surface scan (scan, scan_bad_range): rate, curve, MHDD's
 * buckets (< 5, 20, 50, 150, 500 ms, slower, error) and the first
 * unreadable ranges. */
struct screen_scan {
    char id[24], result[16];
    double mbps, min_mbps, max_mbps;
    unsigned npoints;
    float curve_mbps[SCREEN_SCAN_POINTS];
    int8_t worst[SCREEN_SCAN_POINTS];  /* per part its slowest read: bucket 0..5, 6 error, -1 none */
    unsigned nworst;
    uint64_t buckets[7];
    uint64_t bad_blocks, bad_ranges;
    unsigned nbad;                 /* ranges kept below */
    struct { uint64_t first, count; } bad[SCREEN_SCAN_BAD];
};

struct screen_message {
    enum plat_colour colour;
    char text[200];
};

struct screen_model {
    /* Header. */
    char version_time[80];
    char system[240], cpu[200], memory[120];
    char warnings[SCREEN_WARNINGS][120];
    unsigned nwarnings;
    uint64_t cache_bytes[3];   /* L1d, L2, L3 from the system record */
    /* Status. */
    char phase[16], progress[120];
    uint64_t t0_ns, phase_t0_ns;
    /* Disks. */
    unsigned ndisks, disks_writable;
    unsigned disks_unkept;     /* disks beyond SCREEN_DISKS: counted, not shown */
    struct screen_disk disks[SCREEN_DISKS];
    unsigned disk_results, all_results;  /* in the pass under way */
    unsigned pass;                       /* burn-in: the pass under way (0: none) */
    uint64_t pass_t0_ns, pass1_ns;       /* when it started; how long pass 1 took */
    /* Memory. */
    struct screen_lat lat[4];  /* L1, L2, L3, DRAM */
    double bw[3][2];           /* read/write/copy x 1 CPU / all CPUs, GB/s */
    unsigned bw_threads;
    /* DIMMs (populated only) and the measured memory map. */
    unsigned ndimms, dimms_unkept, dimm_slots;
    struct screen_dimm dimms[SCREEN_DIMMS];
    unsigned nregions, regions_unkept;
    struct screen_region regions[SCREEN_REGIONS];
    char map_verdict[160];
    bool map_slow;             /* the summary names slow regions */
    /* The surface scan (scan=on). */
    unsigned nscans, scans_unkept;
    struct screen_scan scans[SCREEN_SCANS];
    /* Findings (findings.h), shown first once they come. */
    struct screen_message findings[SCREEN_FINDINGS];
    unsigned nfindings, findings_unkept;
    /* Errors, notes, other text. */
    struct screen_message messages[SCREEN_MESSAGES];
    unsigned nmessages, errors, notes;
    char text[SCREEN_TEXT_LINES][160];
    unsigned ntext;
    /* The end. */
    bool ended;
    char end_line[256];
    char final_line[240];
};

/* The grid a layout draws into. */
struct screen_grid {
    unsigned cols, rows;
    uint32_t ch[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
    uint8_t colour[SCREEN_MAX_ROWS][SCREEN_MAX_COLS];
};

/* screen_model.c: a record (type and JSON text) into the model. */
void screen_model_reset(struct screen_model *m, uint64_t now_ns);
void screen_model_record(struct screen_model *m, const char *type, const char *json, uint64_t now_ns);
void screen_model_progress(struct screen_model *m, const char *text, uint64_t now_ns);
void screen_model_text(struct screen_model *m, const char *text);
/* Seconds left, or a negative number when there is nothing to go on. */
double screen_model_seconds_left(const struct screen_model *m, const struct config *c, uint64_t now_ns);

/* screen_json.c: top-level fields of one of our own JSON records (the first match). */
bool screen_json_str(const char *json, const char *key, char *out, size_t cap);
bool screen_json_num(const char *json, const char *key, double *out);
/* Where the value of "key" starts, or NULL. */
const char *screen_json_value(const char *json, const char *key);
/* The JSON string at p (at its opening quote) into out, cut to cap; returns where it ends. */
const char *screen_json_read_string(const char *p, char *out, size_t cap);

/* screen_model_memory.c: dimm, spd, mem_region and mem_map_summary records into
 * the model (false for other types). */
bool screen_model_memory_record(struct screen_model *m, const char *type, const char *json);
/* screen_map.c: the DIMM table and the memory map chart at row, in at
 * most max_rows rows; they return the rows used. */
struct screen_grid;
unsigned screen_draw_dimms(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m);
unsigned screen_draw_map(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m);
/* screen_scan.c: scan and scan_bad_range records into the model (false
 * for other types), and the scan's part of the screen at row in at most
 * max_rows rows (the rows used; screen_scan_rows: how many it would like). */
bool screen_model_scan_record(struct screen_model *m, const char *type, const char *json);
unsigned screen_scan_rows(const struct screen_model *m);
unsigned screen_draw_scan(struct screen_grid *g, unsigned row, unsigned max_rows, const struct screen_model *m);
/* screen_grid.c: text into the grid at (col, row), at most width cells; returns cells written. */
unsigned screen_put(struct screen_grid *g, unsigned col, unsigned row, enum plat_colour colour, const char *s,
                    unsigned width);

/* screen_layout.c: the whole picture for a grid of this size. */
void screen_layout(struct screen_grid *g, const struct screen_model *m, const struct config *c, uint64_t now_ns);

#endif
