/* The HTML report page and its sink (html.h): the head, errors and notes,
 * the machine, burn-in, the footer. Disks and memory are in html_bench.c. */
#include "html.h"
#include "html_memmap.h"
#include "html_bench.h"
#include "html_scan.h"
#include "html_svg.h"
#include "platform.h"

/* One column that fits a 1024-px window and an A4 page; black-and-white
 * safe (warnings are bold and boxed, not only red). */
static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;padding:8px 16px;"
    "max-width:960px}"
    "h1{font-size:22px;margin:8px 0}h2{font-size:18px;border-bottom:2px solid #333;margin:22px 0 8px}"
    "h3{font-size:15px;margin:14px 0 6px}"
    "table{border-collapse:collapse;margin:6px 0;max-width:100%}"
    "td,th{border:1px solid #999;padding:2px 6px;text-align:left;vertical-align:top;overflow-wrap:break-word}"
    "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".msg{border:2px solid #333;border-left:8px solid #333;padding:4px 8px;margin:4px 0}"
    ".msg.error{border-color:#b22222;font-weight:bold}.msg.note{border-style:dashed;border-left-style:solid}"
    ".warn{font-weight:bold;background:#fde8e8;outline:2px solid #b22222}"
    ".banner{border:3px double #b22222;padding:6px 10px;font-weight:bold;margin:8px 0}"
    ".ok{font-weight:bold}.fail{font-weight:bold;background:#fde8e8;outline:2px solid #b22222}"
    "figure{margin:8px 0}svg.chart{max-width:100%;height:auto;display:block}"
    "svg text{font:11px sans-serif}svg text.ct{font-weight:bold;font-size:13px;text-anchor:middle}"
    ".muted{color:#555}details{margin:6px 0}"
    "#dimms{font-size:12px}#dimms td{overflow-wrap:anywhere}td.bar{width:45%}div.bar{height:12px;background:#4a6fa5}tr.slow div.bar{background:#b22222}"
    "@media print{@page{size:A4;margin:12mm}body{max-width:none;padding:0;font-size:11px}"
    "h2{break-after:avoid}figure,table,.msg{break-inside:avoid}details{display:block}"
    "details>*{display:block}}";

static void row2(struct hout *o, const char *key, const char *value)
{
    if (!value || !value[0])
        return;
    ho_fmt(o, "<tr><th>%s</th>", key);
    html_td(o, value);
    ho_raw(o, "</tr>");
}

/* The conclusions first (findings.h), before any table: what a reviewer
 * would say about this machine, each with the numbers behind it. */
static void section_findings(struct hout *o, const struct html_data *d)
{
    if (!d->nfindings && !d->ended)
        return;
    ho_raw(o, "<section id=\"findings\"><h2>Findings</h2>\n");
    if (!d->nfindings)
        ho_raw(o, "<p>None: nothing in the records calls for a conclusion (no shared link near its ceiling, no "
                  "slot or link below the device, no uneven memory population).</p>\n");
    /* Warnings first. */
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < d->nfindings; i++) {
            const struct hd_finding *f = &d->findings[i];
            bool warn = !strcmp(f->severity, "warn");
            if (warn != (pass == 0))
                continue;
            ho_fmt(o, "<div class=\"msg finding %s\" data-finding=\"", warn ? "warn" : "info");
            ho_text(o, f->type);
            ho_fmt(o, "\"><b>%s</b> ", warn ? "WARN" : "info");
            ho_text(o, f->text);
            if (f->numbers[0]) {
                ho_raw(o, "<br><span class=\"muted\">");
                ho_text(o, f->numbers);
                if (f->subjects[0]) {
                    ho_raw(o, "; subjects: ");
                    ho_text(o, f->subjects);
                }
                ho_raw(o, "</span>");
            }
            ho_raw(o, "</div>\n");
        }
    html_unkept(o, "banner cap", d->dropped_findings, "findings", 0);
    ho_raw(o, "</section>\n");
}

static void page_head(struct hout *o, const struct html_data *d)
{
    ho_raw(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
              "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
              "<meta name=\"generator\" content=\"baremark\"><title>baremark ");
    ho_text(o, d->product[0] ? d->product : "report");
    ho_raw(o, " ");
    ho_text(o, d->serial);
    ho_raw(o, " ");
    ho_text(o, d->time);
    ho_raw(o, "</title><style>");
    ho_raw(o, css);
    ho_raw(o, "</style></head>\n<body>\n<h1>baremark report: ");
    ho_text(o, d->manufacturer[0] || d->product[0] ? d->product : "machine");
    if (d->serial[0]) {
        ho_raw(o, " <span class=\"muted\">serial ");
        ho_text(o, d->serial);
        ho_raw(o, "</span>");
    }
    ho_raw(o, "</h1>\n");
    section_findings(o, d);
    ho_raw(o, "<table id=\"run\">");
    row2(o, "started", d->time);
    row2(o, "version", d->version);
    row2(o, "options", d->args);
    if (d->ended) {
        ho_fmt(o, "<tr><th>result</th><td class=\"%s\" id=\"status\">", strcmp(d->status, "ok") ? "fail" : "ok");
        ho_text(o, d->status);
        ho_fmt(o, ", %.0f error%s, %.1f s", d->errors, d->errors == 1 ? "" : "s", d->seconds);
        if (d->verdict[0]) {
            ho_raw(o, ", limits: ");
            ho_text(o, d->verdict);
        }
        if (d->passes > 0)
            ho_fmt(o, ", %.0f burn-in passes", d->passes);
        ho_raw(o, "</td></tr>");
        row2(o, "ended early", d->end_note);
    }
    ho_raw(o, "</table>\n");
    if (!d->ended) {
        ho_raw(o, "<p class=\"banner\" id=\"unfinished\">");
        if (d->after_pass)
            ho_fmt(o, "The run is still going: this page was written after burn-in pass %u. The page of the "
                      "finished run replaces it.", d->after_pass);
        else
            ho_raw(o, "The run did not finish (no end record): this page shows what was recorded before it stopped.");
        if (!d->after_pass && d->last_pass)
            ho_fmt(o, " Burn-in pass %u was under way.", d->last_pass);
        ho_raw(o, "</p>\n");
    }
}

static void section_messages(struct hout *o, const struct html_data *d)
{
    if (!d->nmsgs)
        return;
    ho_fmt(o, "<section id=\"messages\"><h2>Errors and notes (%u error%s)</h2>\n", d->nerror_records,
           d->nerror_records == 1 ? "" : "s");
    /* Errors first: nobody may miss them. */
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < d->nmsgs; i++) {
            const struct hd_msg *m = &d->msgs[i];
            bool err = m->type[0] == 'e';
            if (err != (pass == 0))
                continue;
            ho_fmt(o, "<div class=\"msg %s\"><b>%s</b> ", err ? "error" : "note", err ? "ERROR" : "note");
            ho_text(o, m->where);
            ho_raw(o, ": ");
            ho_text(o, m->message);
            if (m->pass)
                ho_fmt(o, " <span class=\"muted\">(pass %u)</span>", m->pass);
            ho_raw(o, "</div>\n");
        }
    }
    html_unkept(o, "banner cap", d->dropped_msgs, "errors and notes", HD_MAX_MSGS);
    ho_raw(o, "</section>\n");
}

static void section_dimms(struct hout *o, const struct html_data *d)
{
    char b[32];

    if (!d->has_dimm_summary && !d->ndimms)
        return;
    ho_raw(o, "<h3>Memory modules</h3>");
    if (d->has_dimm_summary)
        ho_fmt(o, "<p>%.0f of %.0f slots populated, %.0f MB in total.</p>", d->populated, d->slots, d->total_mb);
    for (unsigned i = 0; i < d->nwarn; i++) {
        ho_raw(o, "<p class=\"warn dimm-warning\">DIMM population: ");
        ho_text(o, d->warnings[i]);
        ho_raw(o, "</p>");
    }
    if (!d->ndimms)
        return;
    ho_raw(o, "<table id=\"dimms\"><tr><th rowspan=\"2\">slot</th><th rowspan=\"2\">bank</th>"
              "<th colspan=\"4\">SMBIOS</th><th colspan=\"6\">SPD</th>"
              "<th rowspan=\"2\">manufacturer, part (SMBIOS)</th></tr>"
              "<tr><th>size</th><th>type</th><th>MT/s rated</th><th>MT/s config.</th>"
              "<th>module</th><th>MT/s</th><th>CL-tRCD-tRP</th><th>ranks</th><th>part</th>"
              "<th>vs SMBIOS</th></tr>");
    for (unsigned i = 0; i < d->ndimms; i++) {
        const struct hd_dimm *m = &d->dimms[i];
        bool slow = m->configured_mts > 0 && m->speed_mts > m->configured_mts;
        ho_raw(o, m->size_mb == 0 ? "<tr class=\"muted\">" : "<tr>");
        html_td(o, m->locator);
        html_td(o, m->no_slot ? "(no SMBIOS slot)" : m->bank);
        if (m->no_slot)
            ho_raw(o, "<td class=\"muted\">-</td><td class=\"muted\">-</td><td class=\"muted\">-</td>"
                      "<td class=\"muted\">-</td>");
        else {
            if (m->size_mb < 0)
                ho_raw(o, "<td class=\"warn\">unknown</td>");
            else {
                snprintf(b, sizeof(b), m->size_mb ? "%.0f MB" : "empty", m->size_mb);
                html_td(o, b);
            }
            html_td(o, m->mem_type);
            html_td_num(o, m->speed_mts);
            ho_raw(o, slow ? "<td class=\"n warn\">" : "<td class=\"n\">");
            ho_num(o, m->configured_mts);
            ho_raw(o, "</td>");
        }
        html_spd_cells(o, m);
        ho_raw(o, "<td>");
        if (!m->no_slot) {
            ho_text(o, m->manufacturer);
            ho_raw(o, m->manufacturer[0] && m->part[0] ? ", " : "");
            ho_text(o, m->part);
        }
        ho_raw(o, "</td></tr>");
    }
    ho_raw(o, "</table>\n");
    html_unkept(o, "cap", d->dropped_dimms, "modules", 0);
}

static int pcie_gen(double gts)
{
    static const double speeds[] = { 2.5, 5, 8, 16, 32, 64 };
    for (int i = 0; i < 6; i++)
        if (gts > speeds[i] - 0.1 && gts < speeds[i] + 0.1)
            return i + 1;
    return 0;
}

static void section_pci(struct hout *o, const struct html_data *d)
{
    if (!d->npci)
        return;
    ho_raw(o, "<h3>Storage controllers and their PCI Express path</h3><table id=\"pci\"><tr><th>function</th>"
              "<th>kind</th><th>port</th><th>link (negotiated)</th><th>link (maximum)</th>"
              "<th>path ceiling</th><th>path to the root</th></tr>");
    for (unsigned i = 0; i < d->npci; i++) {
        const struct hd_pci *p = &d->pci[i];
        ho_raw(o, p->downtrained ? "<tr class=\"downtrained\">" : "<tr>");
        ho_raw(o, "<td>");
        ho_text(o, p->bdf);
        ho_raw(o, " <span class=\"muted\">");
        ho_text(o, p->vendor);
        ho_raw(o, ":");
        ho_text(o, p->device);
        ho_raw(o, "</span></td>");
        html_td(o, p->kind);
        html_td(o, p->port_type);
        if (p->has_link) {
            ho_fmt(o, "<td class=\"%s\">x%.0f Gen%d", p->downtrained ? "warn" : "", p->width, pcie_gen(p->speed_gts));
            if (p->mbps > 0)
                ho_fmt(o, " (%.0f MB/s)", p->mbps);
            ho_fmt(o, "%s</td>", p->downtrained ? " DOWNTRAINED" : "");
            if (p->max_width > 0 && pcie_gen(p->max_speed_gts))
                ho_fmt(o, "<td>x%.0f Gen%d</td>", p->max_width, pcie_gen(p->max_speed_gts));
            else
                ho_raw(o, "<td class=\"muted\">not reported</td>");
        } else {
            ho_raw(o, "<td class=\"muted\">no link</td><td></td>");
        }
        if (p->ceiling_mbps > 0)
            ho_fmt(o, "<td class=\"n\">%.0f MB/s</td>", p->ceiling_mbps);
        else
            ho_raw(o, "<td></td>");
        html_td(o, p->path[0] ? p->path : "root bus");
        ho_raw(o, "</tr>");
    }
    ho_raw(o, "</table>\n");
    html_unkept(o, "cap", d->dropped_pci, "PCI functions", 0);
}

static void section_machine(struct hout *o, const struct html_data *d)
{
    char b[160];

    ho_raw(o, "<section id=\"machine\"><h2>Machine</h2>\n");
    if (d->has_system) {
        ho_raw(o, "<table id=\"system\">");
        snprintf(b, sizeof(b), "%s %s", d->manufacturer, d->product);
        row2(o, "system", b[1] ? b : "");
        row2(o, "serial", d->serial);
        row2(o, "CPU", d->cpu);
        snprintf(b, sizeof(b), "%.0f logical%s", d->cpus, "");
        if (d->sockets > 0)
            snprintf(b + strlen(b), sizeof(b) - strlen(b), ", %.0f socket(s), %.0f cores", d->sockets, d->cores);
        row2(o, "CPUs", b);
        if (d->l1d > 0 || d->l2 > 0 || d->l3 > 0) {
            char l1[16], l2[16], l3[16];
            fmt_bytes(l1, sizeof(l1), d->l1d);
            fmt_bytes(l2, sizeof(l2), d->l2);
            fmt_bytes(l3, sizeof(l3), d->l3);
            snprintf(b, sizeof(b), "L1d %s, L2 %s, L3 %s (per core's view)", l1, l2, l3);
            row2(o, "caches", b);
        }
        row2(o, "firmware", d->firmware);
        row2(o, "BIOS", d->bios[0] != ' ' ? d->bios : "");
        ho_raw(o, "</table>\n");
    }
    section_dimms(o, d);
    section_pci(o, d);
    ho_raw(o, "</section>\n");
}

static void section_burnin(struct hout *o, const struct html_data *d)
{
    if (!d->nstats && !d->nverdicts)
        return;
    ho_raw(o, "<section id=\"burnin\"><h2>Burn-in</h2>\n");
    if (d->nverdicts) {
        ho_raw(o, "<h3>Verdicts</h3><table id=\"verdicts\"><tr><th>disk</th><th>test</th><th>result</th>"
                  "<th>passes</th><th>failed passes</th></tr>");
        for (unsigned i = 0; i < d->nverdicts; i++) {
            const struct hd_verdict *v = &d->verdicts[i];
            bool fail = strcmp(v->result, "pass") != 0;
            ho_fmt(o, "<tr class=\"verdict %s\">", fail ? "fail" : "pass");
            html_td(o, v->disk);
            html_td(o, v->test);
            ho_fmt(o, "<td class=\"%s\">%s</td>", fail ? "fail" : "ok", fail ? "FAIL" : "pass");
            html_td_num(o, v->passes);
            html_td_num(o, v->failures);
            ho_raw(o, "</tr>");
        }
        ho_raw(o, "</table>\n");
    }
    if (d->nstats) {
        ho_raw(o, "<h3>Each figure across the passes</h3><table id=\"burnin-stats\"><tr><th>subject</th>"
                  "<th>test</th><th>unit</th><th>passes</th><th>min</th><th>median</th><th>max</th><th>CV</th>"
                  "<th>min / median / max</th></tr>");
        for (unsigned i = 0; i < d->nstats; i++) {
            const struct hd_stat *s = &d->stats[i];
            ho_fmt(o, "<tr%s>", s->cv > 0.05 ? " class=\"warn\"" : "");
            html_td(o, s->subject);
            html_td(o, s->test);
            html_td(o, s->unit);
            html_td_num(o, s->n);
            html_td_num(o, s->min);
            html_td_num(o, s->median);
            html_td_num(o, s->max);
            ho_fmt(o, "<td class=\"n\">%.1f %%</td><td>", s->cv * 100);
            svg_range(o, s->min, s->median, s->max);
            ho_raw(o, "</td></tr>");
        }
        ho_raw(o, "</table><p class=\"muted\">CV: standard deviation over the mean; rows above 5 % are marked.</p>\n");
        if (d->dropped_stats)
            ho_fmt(o, "<p class=\"cap\">%u more figures are in the end record only.</p>", d->dropped_stats);
    }
    ho_raw(o, "</section>\n");
}

struct html_write_info html_report_write(const struct html_data *d, const char *source, html_write_fn write,
                                         void *ctx)
{
    static struct hout o; /* the chunk buffer: keep it off the stack */
    struct html_write_info info = { 0 };
    uint64_t t0 = plat_now_ns();

    ho_init(&o, write, ctx);
    page_head(&o, d);
    section_messages(&o, d);
    section_machine(&o, d);
    html_section_disks(&o, d);
    html_section_scan(&o, d);
    html_section_memory(&o, d);
    section_burnin(&o, d);
    info.ms = (double)(plat_now_ns() - t0) / 1e6;
    ho_raw(&o, "<footer><p class=\"muted\">Written by baremark ");
    ho_text(&o, d->version);
    ho_fmt(&o, " from %u records", d->records);
    if (source && source[0]) {
        ho_raw(&o, " of ");
        ho_text(&o, source);
    }
    if (d->bad_records)
        ho_fmt(&o, " (%u unreadable lines skipped)", d->bad_records);
    ho_fmt(&o, ", the source of truth for every figure here. <span id=\"written\" data-write-ms=\"%.1f\" "
               "data-bytes=\"%llu\">Page rendered in %.1f ms.</span></p></footer>\n</body></html>\n",
           info.ms, (unsigned long long)(o.bytes + o.len), info.ms);
    info.ok = ho_flush(&o) == BM_OK;
    info.bytes = o.bytes;
    return info;
}

/* ---- The sink ------------------------------------------------------------------ */

static struct html_data sink_data;
static char sink_path[256], sink_source[96];

void html_path_for(char *dst, size_t cap, const char *jsonl_path)
{
    size_t n = strlen(jsonl_path);

    if (n > 6 && strcmp(jsonl_path + n - 6, ".jsonl") == 0)
        n -= 6;
    snprintf(dst, cap, "%.*s.html", (int)n, jsonl_path);
}

static int file_write(void *ctx, const void *data, size_t len)
{
    return plat_file_write(ctx, data, len);
}

/* The page, written whole again (plat_file_create replaces the file). */
static void sink_write_page(const char *why)
{
    void *f = plat_file_create(sink_path);
    struct html_write_info info;
    char stored[256];

    plat_file_stored_as(sink_path, stored, sizeof(stored));
    if (!f) {
        plat_log("report: cannot create %s", stored);
        return;
    }
    info = html_report_write(&sink_data, sink_source, file_write, f);
    if (plat_file_flush(f) != BM_OK)
        info.ok = false;
    plat_file_close(f);
    /* The time it takes (the page's footer holds it too): a plain line on
     * serial for the logs and the tests. Not on the console: the results
     * screen owns it, and a line written there would scroll it. A failure
     * is for people, on the console too. */
    if (info.ok) {
        char line[320];
        int n = snprintf(line, sizeof(line), "report %s (%s): %llu bytes in %.1f ms\r\n", stored, why,
                         (unsigned long long)info.bytes, info.ms);
        if (n > 0)
            plat_serial_write(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    } else {
        plat_log("report %s (%s): WRITE FAILED after %llu bytes", stored, why, (unsigned long long)info.bytes);
    }
}

static void html_record(struct sink *s, const char *type, const char *json, const char *human)
{
    unsigned pass = html_data_pass_of(json);

    (void)s;
    (void)human;
    /* The first record of a new burn-in pass: the previous one is complete. */
    if (pass > sink_data.last_pass && sink_data.last_pass > 0) {
        sink_data.after_pass = sink_data.last_pass;
        sink_write_page("after a pass");
        sink_data.after_pass = 0;
    }
    html_data_feed(&sink_data, type, json);
}

static void html_close(struct sink *s)
{
    (void)s;
    if (sink_path[0])
        sink_write_page("end of run");
    sink_path[0] = '\0';
}

struct sink *sink_html(const char *jsonl_path)
{
    static struct sink s = { "html", html_record, NULL, NULL, html_close, NULL };
    char stored[256];
    const char *base;

    html_data_init(&sink_data);
    html_path_for(sink_path, sizeof(sink_path), jsonl_path);
    /* The footer names the records file as it is on the volume. */
    plat_file_stored_as(jsonl_path, stored, sizeof(stored));
    base = strrchr(stored, '\\');
    bm_strlcpy(sink_source, base ? base + 1 : stored, sizeof(sink_source));
    return &s;
}
