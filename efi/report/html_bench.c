/* The report's benchmark sections: per disk a CrystalDiskMark-style table
 * and charts, the all-disks scaling curve, memory charts (html.h). */
#include "html_bench.h"
#include "html_memmap.h"
#include "html_svg.h"

/* CrystalDiskMark's window, rows in its order (T16 when disk=full ran it). */
static const char *const cdm_tests[] = { "SEQ1M-Q8T1", "SEQ1M-Q1T1", "RND4K-Q32T1", "RND4K-Q1T1", "RND4K-Q32T16" };
#define CDM_ROWS 5

static bool is_write(const struct hd_result *r)
{
    return strcmp(r->rw, "write") == 0 || strcmp(r->rw, "randwrite") == 0;
}

static const struct hd_result *find_result(const struct hd_disk *k, const char *test, bool write)
{
    for (unsigned i = 0; i < k->ntests; i++)
        if (strcmp(k->tests[i].test, test) == 0 && is_write(&k->tests[i]) == write)
            return &k->tests[i];
    return NULL;
}

static void cdm_cells(struct hout *o, const struct hd_result *r)
{
    if (!r) {
        ho_raw(o, "<td class=\"muted\">-</td><td></td><td></td>");
        return;
    }
    html_td_num(o, r->mbps);
    html_td_num(o, r->iops);
    html_td_num(o, r->p99_us);
}

static void cdm_table(struct hout *o, const struct hd_disk *k)
{
    ho_raw(o, "<table class=\"cdm\"><tr><th rowspan=\"2\">test</th><th colspan=\"3\">read</th>"
              "<th colspan=\"3\">write</th></tr><tr><th>MB/s</th><th>IOPS</th><th>p99 &micro;s</th>"
              "<th>MB/s</th><th>IOPS</th><th>p99 &micro;s</th></tr>");
    for (unsigned t = 0; t < CDM_ROWS; t++) {
        const struct hd_result *r = find_result(k, cdm_tests[t], false), *w = find_result(k, cdm_tests[t], true);
        if (!r && !w && t == CDM_ROWS - 1)
            continue;
        ho_fmt(o, "<tr><th>%s</th>", cdm_tests[t]);
        cdm_cells(o, r);
        cdm_cells(o, w);
        ho_raw(o, "</tr>");
    }
    ho_raw(o, "</table>\n");
}

static void all_results_table(struct hout *o, const struct hd_result *tab, unsigned n, bool all)
{
    char b[24];

    ho_raw(o, "<table class=\"results\"><tr><th>test</th><th>rw</th><th>block</th><th>QD&times;queues</th>");
    if (all)
        ho_raw(o, "<th>disks</th>");
    ho_raw(o, "<th>MB/s</th><th>IOPS</th><th>mean &micro;s</th><th>p50</th><th>p99</th><th>p99.9</th>"
              "<th>max</th></tr>");
    for (unsigned i = 0; i < n; i++) {
        const struct hd_result *r = &tab[i];
        ho_raw(o, "<tr>");
        html_td(o, r->test);
        html_td(o, r->rw);
        fmt_bytes(b, sizeof(b), r->bs);
        html_td(o, b);
        ho_fmt(o, "<td class=\"n\">%.0f&times;%.0f</td>", r->qd, r->threads);
        if (all)
            html_td_num(o, r->concurrent);
        html_td_num(o, r->mbps);
        html_td_num(o, r->iops);
        html_td_num(o, r->mean_us);
        html_td_num(o, r->p50_us);
        html_td_num(o, r->p99_us);
        html_td_num(o, r->p999_us);
        html_td_num(o, r->max_us);
        ho_raw(o, "</tr>");
    }
    ho_raw(o, "</table>\n");
}

static void add_point(struct chart_series *s, struct hd_point *store, unsigned cap, double x, double y)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->pts[i].x == x)
            return; /* a depth the disk cut to one already drawn */
    if (s->n < cap) {
        if (!s->pts)
            s->pts = store;
        s->pts[s->n].x = x;
        s->pts[s->n].y = y;
        s->n++;
    }
}

/* ATTO: MB/s against the block size, read and write. */
static void chart_atto(struct hout *o, const struct hd_disk *k)
{
    static struct hd_point pts[2][HD_MAX_TESTS];
    struct chart c = { "atto", "Block-size sweep (ATTO style, QD4)", "block size (bytes)", "MB/s",
                       AXIS_LOG2, AXIS_LINEAR, XFMT_BYTES };

    c.series[0].name = "read";
    c.series[1].name = "write";
    c.nseries = 2;
    for (unsigned i = 0; i < k->ntests; i++) {
        const struct hd_result *r = &k->tests[i];
        size_t n = strlen(r->test);
        if (strncmp(r->test, "BS", 2) == 0 && n > 3 && strcmp(r->test + n - 3, "-Q4") == 0)
            add_point(&c.series[is_write(r)], pts[is_write(r)], HD_MAX_TESTS, r->bs, r->mbps);
    }
    if (!c.series[1].n)
        c.nseries = 1;
    if (chart_points(&c) >= 2)
        svg_line_chart(o, &c);
}

/* IOPS and p99 against the queue depth of the 4 KiB random reads. */
static void chart_qd(struct hout *o, const struct hd_disk *k)
{
    static struct hd_point iops[HD_MAX_TESTS], p99[HD_MAX_TESTS];
    struct chart ci = { "qd-iops", "4 KiB random read: IOPS vs queue depth", "queue depth", "IOPS",
                        AXIS_LOG2, AXIS_LINEAR, XFMT_NUM };
    struct chart cl = { "qd-p99", "4 KiB random read: p99 latency vs queue depth", "queue depth", "p99 latency (\xc2\xb5s)",
                        AXIS_LOG2, AXIS_LOG10, XFMT_NUM };

    ci.series[0].name = "IOPS";
    cl.series[0].name = "p99";
    ci.nseries = cl.nseries = 1;
    for (unsigned i = 0; i < k->ntests; i++) {
        const struct hd_result *r = &k->tests[i];
        size_t n = strlen(r->test);
        if (strncmp(r->test, "RND4K-Q", 7) == 0 && n > 2 && strcmp(r->test + n - 2, "T1") == 0 &&
            strcmp(r->rw, "randread") == 0) {
            add_point(&ci.series[0], iops, HD_MAX_TESTS, r->qd, r->iops);
            add_point(&cl.series[0], p99, HD_MAX_TESTS, r->qd, r->p99_us);
        }
    }
    if (chart_points(&ci) >= 3) {
        svg_line_chart(o, &ci);
        svg_line_chart(o, &cl);
    }
}

/* Latency percentiles of CrystalDiskMark's tests, one line per test. */
static void chart_percentiles(struct hout *o, const struct hd_disk *k)
{
    static const char *const cats[] = { "mean", "p50", "p99", "p99.9", "max" };
    static struct hd_point pts[CHART_MAX_SERIES][5];
    static char names[CHART_MAX_SERIES][40];
    struct chart c = { "latency-percentiles", "Latency percentiles per test", "", "latency (\xc2\xb5s)",
                       AXIS_LINEAR, AXIS_LOG10, XFMT_NUM, false, cats, 5 };

    for (unsigned w = 0; w < 2; w++) {
        for (unsigned t = 0; t < 4 && c.nseries < CHART_MAX_SERIES; t++) {
            const struct hd_result *r = find_result(k, cdm_tests[t], w);
            struct chart_series *s = &c.series[c.nseries];
            double v[5];
            if (!r)
                continue;
            v[0] = r->mean_us, v[1] = r->p50_us, v[2] = r->p99_us, v[3] = r->p999_us, v[4] = r->max_us;
            snprintf(names[c.nseries], sizeof(names[0]), "%s %s", cdm_tests[t], w ? "write" : "read");
            s->name = names[c.nseries];
            s->pts = pts[c.nseries];
            for (unsigned i = 0; i < 5; i++)
                if (v[i] > 0)
                    s->pts[s->n].x = i, s->pts[s->n++].y = v[i];
            c.nseries++;
        }
    }
    if (chart_points(&c))
        svg_line_chart(o, &c);
}

static void disk_section(struct hout *o, const struct hd_disk *k)
{
    char b[24];

    ho_raw(o, "<section class=\"disk\" id=\"disk-");
    ho_text(o, k->id);
    ho_raw(o, "\"><h3>");
    ho_text(o, k->id);
    ho_raw(o, ": ");
    ho_text(o, k->model);
    ho_raw(o, " <span class=\"muted\">(");
    if (k->bytes > 0) {
        fmt_bytes(b, sizeof(b), k->bytes);
        ho_fmt(o, "%sB, ", b);
    }
    ho_text(o, k->driver);
    if (k->serial[0]) {
        ho_raw(o, ", serial ");
        ho_text(o, k->serial);
    }
    if (k->pci[0]) {
        ho_raw(o, ", at ");
        ho_text(o, k->pci);
    }
    ho_raw(o, ")</span></h3>\n");
    if (!k->ntests) {
        ho_raw(o, "<p class=\"muted\">No results for this disk.</p></section>\n");
        return;
    }
    cdm_table(o, k);
    chart_atto(o, k);
    chart_qd(o, k);
    chart_percentiles(o, k);
    ho_fmt(o, "<details><summary>All %u results</summary>", k->ntests);
    all_results_table(o, k->tests, k->ntests, false);
    ho_raw(o, "</details>");
    html_unkept(o, "cap", k->dropped_tests, "results of this disk", HD_MAX_TESTS);
    ho_raw(o, "</section>\n");
}

/* All disks at once: aggregate MB/s against the number of disks, with the
 * shared link's ceiling as a line. */
static void section_all(struct hout *o, const struct html_data *d)
{
    static struct hd_point pts[2][HD_MAX_ALL];
    static const char *const families[2] = { "SEQ1M-Q8T1", "RND4K-Q32T1" };
    static char label[96];
    struct chart c = { "scaling", "All disks at once: aggregate read MB/s", "disks at once", "MB/s",
                       AXIS_LINEAR, AXIS_LINEAR, XFMT_NUM, true };
    double ceiling = 0;
    const char *link = "";

    if (!d->nall)
        return;
    for (unsigned f = 0; f < 2; f++) {
        c.series[f].name = families[f];
        for (unsigned i = 0; i < d->nall; i++) {
            const char *dash = strchr(d->all[i].test, '-');
            if (dash && strcmp(dash + 1, families[f]) == 0)
                add_point(&c.series[f], pts[f], HD_MAX_ALL, d->all[i].concurrent, d->all[i].mbps);
        }
    }
    c.nseries = 2;
    for (unsigned i = 0; i < d->nall; i++) {
        if (d->all[i].ceiling_mbps > ceiling) {
            ceiling = d->all[i].ceiling_mbps;
            link = d->all[i].link;
        }
    }
    if (ceiling > 0) {
        snprintf(label, sizeof(label), "shared %s ceiling: %.0f MB/s", link, ceiling);
        c.hmarks[0].at = ceiling;
        c.hmarks[0].label = label;
        c.nhmarks = 1;
    }
    ho_raw(o, "<section id=\"all-disks\"><h2>All disks at once</h2>\n");
    svg_line_chart(o, &c);
    all_results_table(o, d->all, d->nall, true);
    html_unkept(o, "cap", d->dropped_all, "all-disks results", 0);
    ho_raw(o, "</section>\n");
}

void html_section_disks(struct hout *o, const struct html_data *d)
{
    if (!d->ndisks && !d->nall)
        return;
    ho_fmt(o, "<section id=\"disks\"><h2>Disks (%u)</h2>\n", d->ndisks);
    for (unsigned i = 0; i < d->ndisks; i++)
        disk_section(o, &d->disks[i]);
    if (d->dropped_disks)
        ho_fmt(o, "<p class=\"cap banner\">More disks than the page keeps (%d): the others are in the .jsonl only.</p>",
               HD_MAX_DISKS);
    ho_raw(o, "</section>\n");
    section_all(o, d);
}

static void chart_mem_latency(struct hout *o, const struct html_data *d)
{
    static struct hd_point pts[3][HD_MAX_LAT];
    struct chart c = { "mem-latency", "Memory latency vs working set", "working set (bytes)", "latency per load (ns)",
                       AXIS_LOG2, AXIS_LOG10, XFMT_BYTES };
    const double sizes[3] = { d->l1d, d->l2, d->l3 };
    static const char *const names[3] = { "L1d", "L2", "L3" };

    for (unsigned p = 0; p < 3; p++) {
        if (!d->nlat[p])
            continue;
        memcpy(pts[c.nseries], d->lat[p], d->nlat[p] * sizeof(struct hd_point));
        c.series[c.nseries].name = hd_patterns[p];
        c.series[c.nseries].pts = pts[c.nseries];
        c.series[c.nseries].n = d->nlat[p];
        c.nseries++;
    }
    for (unsigned i = 0; i < 3; i++) {
        if (sizes[i] > 0) {
            c.vmarks[c.nvmarks].at = sizes[i];
            c.vmarks[c.nvmarks++].label = names[i];
        }
    }
    if (chart_points(&c))
        svg_line_chart(o, &c);
}

static void chart_mem_bandwidth(struct hout *o, const struct html_data *d)
{
    static const char *const ops[3] = { "read", "write", "copy" };
    struct bar_group g[3];
    double all_threads = 0;
    char all_name[32];
    const char *names[2] = { "1 CPU", all_name };
    unsigned ng = 0;

    for (unsigned i = 0; i < d->nbw; i++)
        all_threads = d->bw[i].threads > all_threads ? d->bw[i].threads : all_threads;
    snprintf(all_name, sizeof(all_name), "all %.0f CPUs", all_threads);
    for (unsigned op = 0; op < 3; op++) {
        g[ng].label = ops[op];
        g[ng].v[0] = g[ng].v[1] = -1;
        for (unsigned i = 0; i < d->nbw; i++) {
            if (strcmp(d->bw[i].op, ops[op]) != 0)
                continue;
            if (d->bw[i].threads == 1)
                g[ng].v[0] = d->bw[i].gbps;
            else if (d->bw[i].threads == all_threads)
                g[ng].v[1] = d->bw[i].gbps;
        }
        ng += g[ng].v[0] >= 0 || g[ng].v[1] >= 0;
    }
    if (ng)
        svg_bar_chart(o, "mem-bandwidth", "Memory bandwidth (copy counts read + written bytes)", "GB/s", names, g, ng);
}

void html_section_memory(struct hout *o, const struct html_data *d)
{
    static struct hd_point loaded[HD_MAX_LOADED];
    struct chart c = { "loaded-latency", "Loaded latency vs bandwidth the other CPUs read", "load (GB/s)",
                       "latency per load (ns)", AXIS_LINEAR, AXIS_LINEAR, XFMT_NUM };

    if (!d->nlat[0] && !d->nlat[1] && !d->nlat[2] && !d->nbw && !d->nloaded && !d->numa_nodes && !d->nregions)
        return;
    ho_raw(o, "<section id=\"memory\"><h2>Memory</h2>\n");
    if (d->mem_isa[0]) {
        ho_raw(o, "<p>Kernels: ");
        ho_text(o, d->mem_isa);
        ho_raw(o, ". Latency is the best of the passes of a dependent pointer chase; cache sizes from CPUID.</p>");
    }
    chart_mem_latency(o, d);
    chart_mem_bandwidth(o, d);
    if (d->nloaded >= 2) {
        memcpy(loaded, d->loaded, d->nloaded * sizeof(loaded[0]));
        c.series[0].name = "full_random latency";
        c.series[0].pts = loaded;
        c.series[0].n = d->nloaded;
        c.nseries = 1;
        svg_line_chart(o, &c);
    }
    if (d->numa_nodes) {
        svg_heat_map(o, "numa-latency", "NUMA latency (ns), CPU node to memory node", "ns", d->numa_lat, d->numa_nodes);
        svg_heat_map(o, "numa-bandwidth", "NUMA read bandwidth (GB/s)", "GB/s", d->numa_bw, d->numa_nodes);
    }
    html_memory_map(o, d);
    if (d->dropped_lat || d->dropped_bw || d->dropped_loaded || d->dropped_numa)
        ho_fmt(o, "<p class=\"cap\">Some memory points exceeded the page's caps (%u latency, %u bandwidth, %u "
                  "loaded, %u NUMA): they are in the .jsonl only.</p>",
               d->dropped_lat, d->dropped_bw, d->dropped_loaded, d->dropped_numa);
    ho_raw(o, "</section>\n");
}
