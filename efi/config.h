/* Run options: from \baremark\baremark.cfg, then the load options (which
 * override the file). One key=value per line in the file, space-separated
 * on the command line. Every key is validated before anything runs. */
#ifndef BAREMARK_CONFIG_H
#define BAREMARK_CONFIG_H

#include "lib/bmlib.h"
#include "limits.h"
#include "platform.h"

#define CONFIG_MAX_LIST 32
#define CONFIG_ID_LEN 48
#define CONFIG_ERR_LEN 256
#define CONFIG_FILE_PATH "\\baremark\\baremark.cfg"
/* The longest command line taken (bytes, without the NUL); a longer one is
 * refused whole, never cut. */
#define CONFIG_ARGS_MAX 4095
/* The longest line of baremark.cfg (bytes, without the line end). */
#define CONFIG_LINE_MAX 511
/* The longest upload_token= (RFC 6750 b64token characters). */
#define CONFIG_TOKEN_MAX 128
/* What a secret option's value is shown as (run record, screen, errors). */
#define CONFIG_HIDDEN "(hidden)"

enum bm_level { LEVEL_OFF = 0, LEVEL_QUICK, LEVEL_FULL };
enum bm_driver_mode { DRIVER_AUTO = 0, DRIVER_NATIVE, DRIVER_FIRMWARE };
/* EXIT_WAIT (the default): the results stay on screen until a key is
 * pressed, then back to the firmware as EXIT_RETURN. */
enum bm_exit { EXIT_RETURN = 0, EXIT_REBOOT, EXIT_SHUTDOWN, EXIT_WAIT };
enum bm_serial_mode { SERIAL_AUTO = 0, SERIAL_OFF, SERIAL_FIXED };

struct id_list {
    unsigned count;        /* 0 with all = true means "all" */
    bool all;
    char items[CONFIG_MAX_LIST][CONFIG_ID_LEN];
};

struct config {
    bool help;
    enum bm_level mem;
    enum bm_level disk;
    struct id_list disks;  /* disks=all|ID[,ID...] */
    struct id_list write;  /* write=SERIAL[,SERIAL...]: the only way to allow writes */
    enum bm_driver_mode driver;
    uint32_t time_s;       /* measured seconds per workload (time=Nms: rounded up) */
    uint32_t time_ms;      /* the same in milliseconds, what the engine measures */
    uint32_t warmup_ms;    /* warmup=: the warm-up before each disk workload, when warmup_given */
    bool warmup_given;
    uint32_t io_timeout_s; /* io_timeout=: seconds an I/O command may take before a driver's recovery (30) */
    enum bm_serial_mode serial; /* serial=: auto (the firmware's console port), off, or a fixed port */
    struct plat_uart serial_uart; /* SERIAL_FIXED: that UART (baud is decided with the others) */
    uint32_t baud;
    bool baud_given;       /* baud= was set: it wins over the rate SPCR or the console path name */
    bool out_off;
    char out[128];         /* results folder on the boot volume */
    enum bm_exit exit;
    bool screen_dump;      /* screen_dump=1: the final screen as a "screen" record (a diagnostic) */
    /* test_fault=ud|gp|pf|de: a CPU exception after the inventory. Only
     * a test-hooks build parses it (config.c); the field is in every build
     * so that build can link the release objects of every other file. */
    char test_fault[4];
    uint64_t mem_max_bytes; /* mem_max=: cap the largest memory working set (0 = default) */
    enum bm_level mem_map;  /* mem_map=: the measured memory map (off, quick = 8 regions, full = 32) */
    bool mem_map_given;     /* mem_map= was set; else it follows mem= (full: full, quick: off) */
    uint32_t mem_map_ms;    /* mem_map_ms=: measuring time per region (0 = default) */
    uint64_t verify_bytes; /* verify=: bytes to write, read back and compare per writable disk (0 = off) */
    bool scan;             /* scan=on: the surface scan, a read of every selected disk front to back */
    bool scan_range_set;   /* scan_range= given: scan only [scan_first_lba, scan_last_lba] */
    uint64_t scan_first_lba, scan_last_lba; /* inclusive; scan_last_lba UINT64_MAX: to the disk's end */
    uint32_t passes;       /* burn-in: repeat the benchmarks this many times */
    uint32_t duration_s;   /* burn-in: repeat until this many seconds passed (0 = off) */
    uint8_t spd;           /* spd=on|force|off: 0, 1, 2 (enum spd_mode) */
    struct limit_set limits; /* min_mbps=, min_iops=, max_lat_us= (plus limits.cfg) */
    char upload[192];      /* upload=: http:// URL the results file is PUT under ("" = off) */
    uint32_t upload_timeout_s; /* upload_timeout=: seconds per upload, retries included */
    char upload_token[CONFIG_TOKEN_MAX + 1]; /* upload_token=: sent as "Authorization: Bearer"; never shown */
    bool cfg_required;     /* cfg_required=1: a missing baremark.cfg stops the run (netboot) */
    char args[CONFIG_ARGS_MAX + 1];      /* the command line, as given, for the run record */
    char file_args[CONFIG_ARGS_MAX + 1]; /* the key=value lines of the configuration file, joined */
};

/* Defaults: mem=quick disk=quick disks=all write=(none) driver=auto time=5
 * io_timeout=30 serial=auto baud=115200 out=\baremark\results exit=wait. */
void config_defaults(struct config *c);

/* Apply one key=value. On error returns BM_EINVAL and writes a message
 * naming the key, the value and what is accepted. */
int config_set(struct config *c, const char *key, const char *value, char *err, size_t errlen);

/* Parse a configuration file's text (key=value lines, '#' comments).
 * Errors name the file line. */
int config_parse_file(struct config *c, const char *text, char *err, size_t errlen);
/* The same for a file of another name (a per-machine file): errors name it. */
int config_parse_named(struct config *c, const char *name, const char *text, char *err, size_t errlen);

/* The 1-based line of the first NUL byte in text[0..len), 0 when there is
 * none: a NUL would hide the rest of a file from the parser. */
unsigned config_nul_line(const char *text, size_t len);

/* Parse the load options: space-separated key=value words; a first word
 * without '=' that is not a key is the program's own name and skipped.
 * A line longer than CONFIG_ARGS_MAX is refused whole (nothing applied). */
int config_parse_args(struct config *c, const char *args, char *err, size_t errlen);

/* Options whose value is a secret (upload_token=): their values never
 * reach a record, the screen or an error message. */
bool config_key_secret(const char *key);

/* In place: the value of every secret key=value word of a command line
 * becomes CONFIG_HIDDEN. */
void config_redact_args(char *args, size_t cap);

/* Is this id or serial selected by disks=? */
bool config_disk_selected(const struct config *c, const char *id, const char *serial);
/* Is this serial listed in write=? (empty serials never match) */
bool config_write_allowed(const struct config *c, const char *serial);

/* The help text: every key with its accepted values. */
const char *config_help_text(void);

#endif
