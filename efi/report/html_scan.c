/* The surface scan section (html_scan.h). */
#include "html_scan.h"
#include "html_svg.h"

#define MAP_W 640
#define MAP_H 28

static const char *const bucket_heads[7] = { "&lt;5", "&lt;20", "&lt;50", "&lt;150", "&lt;500", "slower", "error" };
/* MHDD's map colours by the slowest read of a part: greys while fast,
 * then green, orange, crimson; a failed read in the unreadable red. */
static const char *const bucket_fill[7] = { "#d4d4d4", "#bababa", "#999", "#3cb371", "#ff8c00", "#dc143c",
                                            "#b22222" };
static const char *const bucket_words[7] = { "under 5 ms", "under 20 ms", "under 50 ms", "under 150 ms",
                                             "under 500 ms", "500 ms or more", "a read failed" };

static void scan_row(struct hout *o, const struct hd_scan *s)
{
    char b[48];

    ho_raw(o, s->bad_blocks > 0 || !strcmp(s->result, "stopped") ? "<tr class=\"slow\">" : "<tr>");
    html_td(o, s->disk);
    html_td(o, s->result);
    snprintf(b, sizeof(b), "%.0f-%.0f", s->first_lba, s->first_lba + (s->blocks > 0 ? s->blocks - 1 : 0));
    html_td(o, b);
    fmt_bytes(b, sizeof(b), s->bytes);
    html_td(o, b);
    ho_fmt(o, "<td class=\"n\">%.1f</td><td class=\"n\">%.1f-%.1f</td>", s->mbps, s->min_mbps, s->max_mbps);
    if (s->seq1m_mbps > 0)
        ho_fmt(o, "<td class=\"n\">%.1f (%.0f%%)</td>", s->seq1m_mbps, 100.0 * s->mbps / s->seq1m_mbps);
    else
        ho_raw(o, "<td class=\"muted\">-</td>");
    for (unsigned k = 0; k < 7; k++)
        ho_fmt(o, k == 6 && s->buckets[k] > 0 ? "<td class=\"n warn\">%.0f</td>" : "<td class=\"n\">%.0f</td>",
               s->buckets[k]);
    ho_fmt(o, s->bad_blocks > 0 ? "<td class=\"n warn\">%.0f</td>" : "<td class=\"n\">%.0f</td>", s->bad_blocks);
    ho_raw(o, "</tr>\n");
}

/* MB/s against the position on the disk (GB from the range's start). */
static void scan_curve(struct hout *o, const struct hd_scan *s)
{
    static struct hd_point pts[HD_MAX_SCAN_POINTS];
    char title[96];
    /* GB along the range, MB for a range under 10 GB (whole-number ticks). */
    bool mb = s->blocks * s->lba_bytes < 10e9;
    struct chart c = { "scan-curve", title, mb ? "position (MB from the range's first LBA)"
                                               : "position (GB from the range's first LBA)",
                       "read MB/s", AXIS_LINEAR, AXIS_LINEAR, XFMT_NUM, true };

    snprintf(title, sizeof(title), "%s: transfer rate across the surface", s->disk);
    for (unsigned i = 0; i < s->npoints; i++) {
        pts[i].x = (double)i * s->point_blocks * s->lba_bytes / (mb ? 1e6 : 1e9);
        pts[i].y = s->curve_mbps[i];
    }
    c.series[0].name = "MB/s";
    c.series[0].pts = pts;
    c.series[0].n = s->npoints;
    c.nseries = 1;
    if (!chart_points(&c))
        return;
    ho_raw(o, "<div class=\"scan-curve\">");
    svg_line_chart(o, &c);
    ho_raw(o, "</div>\n");
}

/* MHDD's map over the strip: each part in the colour of its slowest read. */
static void scan_map_parts(struct hout *o, const struct hd_scan *s, double w)
{
    for (unsigned i = 0; i < s->nworst; i++) {
        double first = i * s->point_blocks, n = s->point_blocks;
        if (s->worst[i] < 0 || first >= s->blocks)
            continue;
        if (first + n > s->blocks)
            n = s->blocks - first;
        ho_fmt(o, "<rect x=\"%.1f\" y=\"1\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>",
               1 + first / s->blocks * w, n / s->blocks * w, MAP_H - 2, bucket_fill[s->worst[i]]);
        ho_fmt(o, "LBA %.0f-%.0f: slowest read %s</title></rect>", s->first_lba + first, s->first_lba + first + n - 1,
               bucket_words[s->worst[i]]);
    }
}

/* The range as a strip: read (grey, or MHDD's colours by part), not
 * reached (hatched), unreadable (red, at least a pixel wide). */
static void scan_map(struct hout *o, const struct hd_scan *s)
{
    double w = MAP_W - 2, reached;

    if (s->blocks <= 0)
        return;
    reached = s->scanned_blocks / s->blocks * w;
    ho_fmt(o, "<div class=\"scan-map\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
              "viewBox=\"0 0 %d %d\" data-chart=\"scan-map\" data-points=\"%u\" role=\"img\">",
           MAP_W, MAP_H, MAP_W, MAP_H, s->nbad);
    ho_fmt(o, "<defs><pattern id=\"scan-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
              "<path d=\"M0,6 L6,0\" stroke=\"#999\"/></pattern></defs>"
              "<rect x=\"1\" y=\"1\" width=\"%.1f\" height=\"%d\" fill=\"url(#scan-hatch)\" stroke=\"#666\"/>",
           w, MAP_H - 2);
    if (s->nworst && s->point_blocks > 0)
        scan_map_parts(o, s, w);
    else
        ho_fmt(o, "<rect x=\"1\" y=\"1\" width=\"%.1f\" height=\"%d\" fill=\"#ccc\"/>", reached, MAP_H - 2);
    for (unsigned i = 0; i < s->nbad; i++) {
        double x = (s->bad[i].first_lba - s->first_lba) / s->blocks * w, bw = s->bad[i].count / s->blocks * w;
        if (x < 0 || x > w)
            continue;
        ho_fmt(o, "<rect class=\"pt\" x=\"%.1f\" y=\"1\" width=\"%.1f\" height=\"%d\" fill=\"#b22222\"><title>",
               1 + x, bw < 1 ? 1 : bw, MAP_H - 2);
        ho_fmt(o, "LBA %.0f-%.0f unreadable</title></rect>", s->bad[i].first_lba,
               s->bad[i].first_lba + s->bad[i].count - 1);
    }
    ho_raw(o, "</svg></div>\n");
}

static void scan_bad_list(struct hout *o, const struct hd_scan *s)
{
    char b[32];

    if (!s->nbad)
        return;
    ho_raw(o, "<table class=\"scan-bad\"><tr><th>first LBA</th><th>last LBA</th><th>blocks</th><th>error</th></tr>");
    for (unsigned i = 0; i < s->nbad; i++) {
        ho_raw(o, "<tr class=\"slow\">");
        snprintf(b, sizeof(b), "%.0f", s->bad[i].first_lba);
        html_td(o, b);
        snprintf(b, sizeof(b), "%.0f", s->bad[i].first_lba + s->bad[i].count - 1);
        html_td(o, b);
        html_td_num(o, s->bad[i].count);
        html_td(o, s->bad[i].error);
        ho_raw(o, "</tr>");
    }
    ho_raw(o, "</table>\n");
    if (s->dropped_bad || s->bad_ranges > s->nbad)
        ho_fmt(o, "<p class=\"cap\">%.0f more unreadable ranges are in the .jsonl or counted only.</p>",
               s->bad_ranges - s->nbad > 0 ? s->bad_ranges - s->nbad : (double)s->dropped_bad);
}

void html_section_scan(struct hout *o, const struct html_data *d)
{
    if (!d->nscans)
        return;
    ho_raw(o, "<section id=\"scan\"><h2>Surface scan</h2>\n<p>Every block of the range read front to back in "
              "large transfers, all disks at once. The curve is the transfer rate across the surface (a hard "
              "disk's zones, an SSD's cache); the buckets count the reads by access time in ms as MHDD does "
              "(SEQ1M: the disk's SEQ1M-Q8T1 read in the same pass); the map "
              "shows the range as MHDD's map, each part in the colour of its slowest read (greys under 5, 20 "
              "and 50 ms, green under 150, orange under 500, crimson slower; hatched: not reached), and each "
              "unreadable range in red.</p>\n");
    ho_raw(o, "<table id=\"scan-table\"><tr><th>disk</th><th>result</th><th>LBA range</th><th>read</th>"
              "<th>MB/s</th><th>min-max</th><th>SEQ1M (scan %)</th>");
    for (unsigned k = 0; k < 7; k++)
        ho_fmt(o, "<th>%s</th>", bucket_heads[k]);
    ho_raw(o, "<th>bad blocks</th></tr>\n");
    for (unsigned i = 0; i < d->nscans; i++)
        scan_row(o, &d->scans[i]);
    ho_raw(o, "</table>\n");
    html_unkept(o, "cap", d->dropped_scans, "scans", 0);
    for (unsigned i = 0; i < d->nscans; i++) {
        const struct hd_scan *s = &d->scans[i];
        ho_raw(o, "<h3>");
        ho_text(o, s->disk);
        ho_raw(o, "</h3>\n");
        if (s->error[0]) {
            ho_raw(o, "<p class=\"warn\">Stopped: ");
            ho_text(o, s->error);
            ho_raw(o, "</p>\n");
        }
        scan_curve(o, s);
        scan_map(o, s);
        scan_bad_list(o, s);
    }
    ho_raw(o, "</section>\n");
}
