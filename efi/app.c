/* The run: options -> inventory -> drivers -> engines -> records -> sinks. */
#include "app.h"
#include "burnin.h"
#include "cfg_files.h"
#include "config.h"
#include "findings.h"
#include "test_fault.h"
#include "disk/disk.h"
#include "inventory/inventory.h"
#include "inventory/spd_inventory.h"
#include "mem/mem.h"
#include "platform.h"
#include "record.h"
#include "run_ident.h"
#include "report/html.h"
#include "screen/screen.h"
#include "serial_port.h"
#include "sinks.h"
#include "upload.h"

static struct config cfg;
static struct sysinfo sys;
static struct serial_plan serial_plan;
static struct cfg_load_log cfg_log;
static struct run_ident run_id;
static bool serial_on;

/* What tells this machine apart, for its per-machine files: the values
 * the system record shows, and the boot NIC's MAC. */
static void machine_ident_of(const struct sysinfo *si, struct machine_ident *id)
{
    memset(id, 0, sizeof(*id));
    bm_strlcpy(id->product, si->product, sizeof(id->product));
    bm_strlcpy(id->board, si->baseboard, sizeof(id->board));
    bm_strlcpy(id->serial, si->serial, sizeof(id->serial));
    bm_strlcpy(id->uuid, si->uuid, sizeof(id->uuid));
    id->has_mac = plat_boot_nic_mac(id->mac);
}

/* This run's identity (run_ident.h): a fresh run id, the SMBIOS UUID and
 * serial, the boot NIC's MAC and address. */
static void run_ident_of(const struct machine_ident *mid, struct run_ident *rid)
{
    uint64_t entropy[2];
    const char *source = run_ident_entropy(entropy, false);
    uint8_t ip[4];
    bool has_ip = plat_boot_nic_ip(ip);

    run_ident_make(rid, entropy, source, mid->uuid, mid->serial, mid->has_mac ? mid->mac : NULL, has_ip ? ip : NULL);
}

/* A note for each shared file that is not there and one for the
 * per-machine files looked for, saying where they were looked for. */
static void emit_config_notes(void)
{
    char places[256], names[1024];
    size_t n = 0;

    plat_boot_file_places(places, sizeof(places));
    names[0] = '\0';
    for (unsigned i = 0; i < cfg_log.missing; i++) {
        const char *name = cfg_log.missing_names[i];
        if (!strcmp(name, "baremark.cfg") || !strcmp(name, "limits.cfg"))
            record_note("config", "%s: not found in %s", name, places);
        else if (n < sizeof(names))
            n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? " " : "", name);
    }
    if (names[0])
        record_note("config", "per-machine files not found in %s: %s", places, names);
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
    serial_on = serial_plan_open(&serial_plan) == BM_OK;
    if (serial_on)
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
    json_arr_begin(&r.j, "config_files");
    for (unsigned i = 0; i < cfg_log.applied; i++)
        json_str(&r.j, NULL, cfg_log.applied_names[i]);
    json_arr_end(&r.j);
    json_str(&r.j, "time", iso_time);
    run_ident_json(&run_id, &r.j);
    serial_plan_json(&serial_plan, &r.j);
    screen_json(&r.j);
    snprintf(human, sizeof(human), "baremark %s  %s  run %s  options: %s%s%s", BAREMARK_VERSION, iso_time,
             run_id.run_id, cfg.file_args, cfg.file_args[0] && cfg.args[0] ? " " : "", cfg.args);
    serial_plan_human(&serial_plan, human + strlen(human), sizeof(human) - strlen(human));
    record_emit(&r, human);
}

/* The last line on screen: where the results went and what happens next
 * (exit=wait: a key returns to the firmware, or restarts a BIOS PC). */
static void show_results_line(const char *path, bool written)
{
    char line[400];
    bool back = plat_exit_returns();
    const char *next = cfg.exit == EXIT_REBOOT     ? "Rebooting."
                       : cfg.exit == EXIT_SHUTDOWN ? "Shutting down."
                       : cfg.exit == EXIT_WAIT     ? (back ? "Press any key to return to the firmware."
                                                           : "Press any key to restart the machine.")
                       : back                      ? "Returning to the firmware."
                                                   : "Finished: switch the machine off or reset it.";

    char stored[256];

    /* The HTML report is written next to the .jsonl, under the same name. */
    plat_file_stored_as(path, stored, sizeof(stored));
    if (written)
        snprintf(line, sizeof(line), "Results: %s (+ .html report)\n%s", stored, next);
    else
        snprintf(line, sizeof(line), "No results file (serial and this screen only)\n%s", next);
    if (screen_active())
        screen_final_line(line);
    else
        ui_text("%s", line); /* two lines of plain text */
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
    json_str(&r.j, "run_id", run_id.run_id);
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

/* upload= at the end: the results file is complete and closed (the HTML
 * report too), so the upload record goes to the screen and serial only;
 * the uploaded bytes stay those of the file. */
static void upload_final(void)
{
    if (!cfg.upload[0])
        return;
    sinks_add(sink_console());
    if (serial_on)
        sinks_add(sink_serial());
    upload_now(UPLOAD_FINAL, 0);
    sinks_close();
}

/* The benchmarks, once or as burn-in passes (passes=, duration=). Returns
 * BM_OK or BM_EABORT; *passes_done counts completed passes. */
static int run_passes(const struct plat_boot_location *boot, uint64_t t0, unsigned *passes_done)
{
    bool burn_in = cfg.passes > 1 || cfg.duration_s > 0;
    uint64_t deadline = t0 + (uint64_t)cfg.duration_s * 1000000000ull;
    int rc = BM_OK;

    *passes_done = 0;
    /* Disks are found once; passes reuse them, and the health logs bracket
     * the whole run. */
    if (cfg.disk != LEVEL_OFF)
        disk_open(&cfg, boot);
    for (unsigned pass = 1;; pass++) {
        if (burn_in) {
            record_set_pass(pass);
            ui_text("--- pass %u%s ---", pass, cfg.duration_s ? " (burn-in until the time is up)" : "");
        }
        if (cfg.mem != LEVEL_OFF)
            rc = mem_run(&cfg, &sys);
        if (rc != BM_EABORT && cfg.disk != LEVEL_OFF)
            rc = disk_pass(&cfg);
        if (rc == BM_EABORT)
            break;
        *passes_done = pass;
        /* A machine that dies later has still delivered this pass. */
        if (burn_in)
            upload_now(UPLOAD_PASS, pass);
        /* duration= runs until the time is up (a started pass finishes);
         * passes= caps the count; with both, whichever comes first. */
        if (cfg.duration_s) {
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
    char iso[40], compact[24], path[256], serial[64], name[96];
    struct plat_boot_location boot;
    struct machine_ident ident;
    struct run_outcome outcome = { 0 };
    uint64_t t0;
    int status = APP_OK, rc, opt_rc;
    bool file_written = false, opts_good;
    struct sink *console;

    *exit_mode = EXIT_RETURN;
    path[0] = '\0';
    rc = plat_init();
    t0 = plat_now_ns();
    sinks_reset();
    console = sink_console();
    sinks_add(console);

    /* Options first: a bad one stops the run before anything is touched.
     * The serial sink still opens (serial=auto) to report it. */
    inventory_collect(&sys);
    machine_ident_of(&sys, &ident);
    run_ident_of(&ident, &run_id);
    opt_rc = cfg_load_options(&cfg, &ident, plat_load_options(), plat_boot_file_read, &cfg_log, err, sizeof(err));
    /* BM_ENODEV: every option is good, only the required baremark.cfg is missing. */
    opts_good = opt_rc == BM_OK || opt_rc == BM_ENODEV;
    if (opts_good)
        *exit_mode = cfg.exit;
    open_serial(opts_good ? &cfg : NULL);
    /* Driver diagnostics become log records from here on (platform.h). */
    plat_set_diag_sink(record_diag_sink);
    /* The fixed results screen replaces the scrolling text where the
     * console can place the cursor (help and option errors stay text). */
    if (opt_rc == BM_OK && !cfg.help) {
        struct sink *screen = sink_screen(&cfg);
        if (screen)
            sinks_replace(console, screen);
    }
    plat_time_iso(iso, sizeof(iso), compact, sizeof(compact));
    plat_boot_location(&boot);

    why[0] = '\0';
    file_safe(serial, sizeof(serial), sys.serial);
    snprintf(name, sizeof(name), "%s-%s.jsonl", compact, serial);
    if (opt_rc == BM_OK && !cfg.out_off && !cfg.help) {
        struct sink *fs;
        snprintf(path, sizeof(path), "%s\\%s", cfg.out, name);
        fs = sink_file(path, why, sizeof(why));
        if (fs) {
            sinks_add(fs);
            /* The HTML report beside it, written at sinks_close (report/html.h). */
            sinks_add(sink_html(path));
            why[0] = '\0';
            file_written = true;
        }
    }
    /* upload=: a copy of exactly what the results file gets, from here on.
     * Options that stopped the run are uploaded too when the target is
     * known (upload= came before the bad line): a machine is never silent. */
    if (!cfg.help && cfg.upload[0]) {
        struct sink *us = upload_begin(&cfg, opt_rc != BM_OK || cfg.out_off ? NULL : cfg.out, name, &run_id,
                                       compact);
        if (us)
            sinks_add(us);
    }

    emit_run_record(iso);
    emit_config_notes();
    if (rc != BM_OK)
        record_error("platform", "initialisation: %s", bm_strerror(rc));
    if (opt_rc == BM_ENODEV) {
        char places[256];
        plat_boot_file_places(places, sizeof(places));
        record_error("config", "%s (looked in %s)", err, places);
        outcome.note = "cfg_required=1: baremark.cfg was not found, nothing was run";
    } else if (opt_rc != BM_OK) {
        record_error("options", "%s", err);
        ui_text("%s", config_help_text());
        outcome.note = "bad options: nothing was run";
    }
    if (opt_rc != BM_OK) {
        emit_end_record(&outcome, (double)(plat_now_ns() - t0) / 1e9);
        sinks_close();
        upload_final();
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

    spd_inventory_mode((enum spd_mode)cfg.spd);
    /* The findings read the records from the inventory on (findings.h). */
    findings_reset();
    record_set_json_observer(findings_observe);
    inventory_emit(&sys);
    /* Visible from the first second: the options and the inventory. */
    upload_now(UPLOAD_STARTED, 0);
#ifdef BAREMARK_TEST_HOOKS
    if (cfg.test_fault[0])
        test_fault_raise(cfg.test_fault);
#endif

    burnin_start(&cfg.limits);
    record_set_observer(burnin_observe);
    rc = run_passes(&boot, t0, &outcome.passes);
    if (rc == BM_EABORT) {
        outcome.note = "aborted by Esc: the run was stopped before it finished";
        status = APP_ABORTED;
    }
    outcome.has_limits = cfg.limits.count > 0;
    outcome.failed_limits = burnin_emit_verdicts();
    findings_emit();

    show_results_line(path, file_written);
    emit_end_record(&outcome, (double)(plat_now_ns() - t0) / 1e9);
    if (cfg.screen_dump)
        screen_emit_dump();
    sinks_close();
    upload_final();
    if (status == APP_OK && (record_error_count() || outcome.failed_limits))
        status = APP_ERRORS;
    return status;
}
