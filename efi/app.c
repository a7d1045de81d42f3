/* The run: options -> inventory -> drivers -> engines -> records -> sinks. */
#include "app.h"
#include "burnin.h"
#include "config.h"
#include "disk/disk.h"
#include "inventory/inventory.h"
#include "mem/mem.h"
#include "platform.h"
#include "record.h"
#include "report/html.h"
#include "serial_port.h"
#include "sinks.h"

static struct config cfg;
static struct sysinfo sys;
static struct serial_plan serial_plan;

/* A text file from the boot volume into text (NUL-terminated): 0 when it
 * is there, 1 when there is none, BM_EINVAL with err filled when it cannot
 * be read whole, is too large, or holds a NUL byte (which would hide the
 * rest of it from the parser). */
static int read_text_file(const char *path, const char *name, char *text, size_t cap, char *err, size_t errlen)
{
    long n = plat_boot_file_read(path, text, cap - 1);
    unsigned nul;

    if (n == BM_ENODEV)
        return 1;
    if (n == BM_ENOSPC || n >= (long)cap - 1) {
        snprintf(err, errlen, "%s: file too large (at most %lu bytes)", name, (unsigned long)cap - 2);
        return BM_EINVAL;
    }
    if (n < 0) {
        snprintf(err, errlen, "%s: cannot read it: %s", name, bm_strerror((int)n));
        return BM_EINVAL;
    }
    nul = config_nul_line(text, (size_t)n);
    if (nul) {
        snprintf(err, errlen, "%s line %u: a NUL byte (the file must be text)", name, nul);
        return BM_EINVAL;
    }
    text[n] = '\0';
    return 0;
}

/* Options: defaults, then the file on the boot volume, then the command
 * line. Returns BM_OK or BM_EINVAL with err naming the problem. */
static int load_options(struct config *c, char *err, size_t errlen)
{
    static char text[65536];
    const char *args = plat_load_options();
    int rc;

    config_defaults(c);
    rc = read_text_file(CONFIG_FILE_PATH, "baremark.cfg", text, sizeof(text), err, errlen);
    if (rc < 0)
        return BM_EINVAL;
    if (rc == 0 && config_parse_file(c, text, err, errlen) != BM_OK)
        return BM_EINVAL;
    bm_strlcpy(c->args, args, sizeof(c->args));
    if (config_parse_args(c, args, err, errlen) != BM_OK)
        return BM_EINVAL;
    /* Limits are options too: a bad file stops the run before it starts. */
    rc = read_text_file(LIMITS_FILE_PATH, "limits.cfg", text, sizeof(text), err, errlen);
    if (rc < 0)
        return BM_EINVAL;
    if (rc == 0 && limits_parse_file(&c->limits, text, err, errlen) != BM_OK)
        return BM_EINVAL;
    return BM_OK;
}

/* Only the characters a FAT file name takes safely. */
static void file_safe(char *dst, size_t cap, const char *src)
{
    size_t n = 0;

    for (; *src && n + 1 < cap; src++) {
        char ch = *src;
        bool ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-' ||
                  ch == '_' || ch == '.';
        dst[n++] = ok ? ch : '_';
    }
    dst[n] = '\0';
    if (n == 0)
        bm_strlcpy(dst, "unknown", cap);
}

/* The record channel: the port serial= names, or (auto) the one the
 * firmware's console redirection uses (serial_port.h). */
static void open_serial(const struct config *c)
{
    static uint8_t conout[4096];
    long conout_len = plat_console_device_path(conout, sizeof(conout));

    serial_plan_build(&serial_plan, c, plat_acpi_table("SPCR", 0), conout, conout_len);
    if (serial_plan_open(&serial_plan) == BM_OK)
        sinks_add(sink_serial());
}

static void emit_run_record(const char *iso_time)
{
    static struct record r;
    static char human[2 * CONFIG_ARGS_MAX + 160];

    record_begin(&r, "run");
    json_str(&r.j, "version", BAREMARK_VERSION);
    json_u64(&r.j, "schema", RECORD_SCHEMA);
    json_str(&r.j, "args", cfg.args);
    json_str(&r.j, "config_file", cfg.file_args);
    json_str(&r.j, "time", iso_time);
    serial_plan_json(&serial_plan, &r.j);
    snprintf(human, sizeof(human), "baremark %s  %s  options: %s%s%s", BAREMARK_VERSION, iso_time,
             cfg.file_args, cfg.file_args[0] && cfg.args[0] ? " " : "", cfg.args);
    serial_plan_human(&serial_plan, human + strlen(human), sizeof(human) - strlen(human));
    record_emit(&r, human);
}

/* How the run went, for the end record. */
struct run_outcome {
    const char *note;      /* why it ended early, or NULL */
    unsigned passes;       /* burn-in passes completed (0: not a burn-in) */
    bool has_limits;
    unsigned failed_limits;
};

static void emit_end_record(const struct run_outcome *o, double seconds)
{
    static struct record r;
    char human[256];
    unsigned errors = record_error_count();
    const char *status = (errors || o->note || o->failed_limits) ? "error" : "ok";

    record_begin(&r, "end");
    json_str(&r.j, "status", status);
    json_u64(&r.j, "errors", errors);
    json_num(&r.j, "seconds", seconds, 3);
    if (o->note)
        json_str(&r.j, "note", o->note);
    if (o->has_limits) {
        json_str(&r.j, "verdict", o->failed_limits ? "fail" : "pass");
        json_u64(&r.j, "failed_limits", o->failed_limits);
    }
    if (o->passes) {
        json_u64(&r.j, "passes", o->passes);
        burnin_add_summary(&r.j);
    }
    snprintf(human, sizeof(human), "baremark finished: %s, %u error%s, %.1f s%s%s%s", status, errors,
             errors == 1 ? "" : "s", seconds, o->has_limits ? (o->failed_limits ? ", limits FAILED" : ", limits passed") : "",
             o->note ? " - " : "", o->note ? o->note : "");
    record_emit(&r, human);
}

/* The benchmarks, once or as burn-in passes (passes=, duration=). Returns
 * BM_OK or BM_EABORT; *passes_done counts completed passes. */
static int run_passes(const struct plat_boot_location *boot, uint64_t t0, unsigned *passes_done)
{
    bool burn_in = cfg.passes > 1 || cfg.duration_min > 0;
    uint64_t deadline = t0 + (uint64_t)cfg.duration_min * 60ull * 1000000000ull;
    int rc = BM_OK;

    *passes_done = 0;
    /* Disks are found once; passes reuse them, and the health logs bracket
     * the whole run. */
    if (cfg.disk != LEVEL_OFF)
        disk_open(&cfg, boot);
    for (unsigned pass = 1;; pass++) {
        if (burn_in) {
            record_set_pass(pass);
            ui_text("--- pass %u%s ---", pass, cfg.duration_min ? " (burn-in until the time is up)" : "");
        }
        if (cfg.mem != LEVEL_OFF)
            rc = mem_run(&cfg, &sys);
        if (rc != BM_EABORT && cfg.disk != LEVEL_OFF)
            rc = disk_pass(&cfg);
        if (rc == BM_EABORT)
            break;
        *passes_done = pass;
        /* duration= runs until the time is up (a started pass finishes);
         * passes= caps the count; with both, whichever comes first. */
        if (cfg.duration_min) {
            if (plat_now_ns() >= deadline || (cfg.passes > 1 && pass >= cfg.passes))
                break;
        } else if (pass >= cfg.passes) {
            break;
        }
    }
    record_set_pass(0);
    if (cfg.disk != LEVEL_OFF)
        disk_close();
    if (!burn_in)
        *passes_done = 0;
    return rc;
}

int baremark_main(int *exit_mode)
{
    char err[CONFIG_ERR_LEN], why[200];
    char iso[40], compact[24], path[256], serial[64];
    struct plat_boot_location boot;
    struct run_outcome outcome = { 0 };
    uint64_t t0;
    int status = APP_OK, rc, opt_rc;

    *exit_mode = EXIT_RETURN;
    rc = plat_init();
    t0 = plat_now_ns();
    sinks_reset();
    sinks_add(sink_console());

    /* Options first: a bad one stops the run before anything is touched.
     * The serial sink still opens (serial=auto) to report it. */
    opt_rc = load_options(&cfg, err, sizeof(err));
    if (opt_rc == BM_OK)
        *exit_mode = cfg.exit;
    open_serial(opt_rc == BM_OK ? &cfg : NULL);
    /* Driver diagnostics become log records from here on (platform.h). */
    plat_set_diag_sink(record_diag_sink);
    plat_time_iso(iso, sizeof(iso), compact, sizeof(compact));
    inventory_collect(&sys);
    plat_boot_location(&boot);

    why[0] = '\0';
    if (opt_rc == BM_OK && !cfg.out_off && !cfg.help) {
        struct sink *fs;
        file_safe(serial, sizeof(serial), sys.serial);
        snprintf(path, sizeof(path), "%s\\%s-%s.jsonl", cfg.out, compact, serial);
        fs = sink_file(path, why, sizeof(why));
        if (fs) {
            sinks_add(fs);
            /* The HTML report beside it, written at sinks_close (report/html.h). */
            sinks_add(sink_html(path));
            why[0] = '\0';
        }
    }

    emit_run_record(iso);
    if (rc != BM_OK)
        record_error("platform", "initialisation: %s", bm_strerror(rc));
    if (opt_rc != BM_OK) {
        record_error("options", "%s", err);
        ui_text("%s", config_help_text());
        outcome.note = "bad options: nothing was run";
        emit_end_record(&outcome, (double)(plat_now_ns() - t0) / 1e9);
        sinks_close();
        return APP_BAD_OPTIONS;
    }
    if (cfg.help) {
        ui_text("%s", config_help_text());
        emit_end_record(&outcome, (double)(plat_now_ns() - t0) / 1e9);
        sinks_close();
        return APP_OK;
    }
    /* Without a writable boot volume (netboot) and no other volume asked
     * for, serial and screen are the intended outputs: a note, not an error. */
    if (why[0]) {
        if (plat_boot_volume_writable() || strchr(cfg.out, ':'))
            record_error("results_file", "%s", why);
        else
            record_note("results_file", "%s", why);
    }

    inventory_emit(&sys);

    burnin_start(&cfg.limits);
    record_set_observer(burnin_observe);
    rc = run_passes(&boot, t0, &outcome.passes);
    if (rc == BM_EABORT) {
        outcome.note = "aborted by Esc: the run was stopped before it finished";
        status = APP_ABORTED;
    }
    outcome.has_limits = cfg.limits.count > 0;
    outcome.failed_limits = burnin_emit_verdicts();

    emit_end_record(&outcome, (double)(plat_now_ns() - t0) / 1e9);
    sinks_close();
    if (status == APP_OK && (record_error_count() || outcome.failed_limits))
        status = APP_ERRORS;
    return status;
}
