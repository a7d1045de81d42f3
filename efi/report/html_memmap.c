/* SPD cells of the DIMM table and the memory map chart (html_memmap.h). */
#include "html_memmap.h"

void html_spd_cells(struct hout *o, const struct hd_dimm *m)
{
    char b[48];

    if (!m->has_spd) {
        for (int i = 0; i < 6; i++)
            ho_raw(o, "<td class=\"muted\">-</td>");
        return;
    }
    ho_raw(o, "<td>");
    ho_text(o, m->spd_type);
    if (m->amb_vendor[0]) {
        ho_raw(o, " <span class=\"muted\">(AMB ");
        ho_text(o, m->amb_vendor);
        ho_raw(o, ")</span>");
    }
    ho_raw(o, "</td>");
    html_td_num(o, m->spd_mts);
    snprintf(b, sizeof(b), "%.0f-%.0f-%.0f", m->cl, m->trcd, m->trp);
    html_td(o, b);
    html_td_num(o, m->spd_ranks);
    html_td(o, m->spd_part);
    if (m->spd_differs[0]) {
        ho_raw(o, "<td class=\"warn spd-differs\">differs: ");
        ho_text(o, m->spd_differs);
        ho_raw(o, "</td>");
    } else {
        ho_raw(o, m->no_slot ? "<td class=\"muted\">no slot</td>" : "<td>agrees</td>");
    }
}

static void region_row(struct hout *o, const struct hd_region *r, double max_gbps)
{
    char b[24];

    ho_raw(o, r->slow ? "<tr class=\"slow\">" : "<tr>");
    html_td_num(o, r->index);
    ho_fmt(o, "<td class=\"n\">0x%llx</td>", (unsigned long long)bm_double_to_u64(r->base));
    fmt_bytes(b, sizeof(b), r->bytes);
    html_td(o, b);
    if (r->node >= 0)
        html_td_num(o, r->node);
    else
        ho_raw(o, "<td class=\"muted\">-</td>");
    if (!r->measured) {
        ho_raw(o, "<td colspan=\"3\" class=\"muted\">not measured: ");
        ho_text(o, r->reason);
        ho_raw(o, "</td></tr>");
        return;
    }
    ho_fmt(o, "<td class=\"n\">%.1f</td><td class=\"n\">%.2f</td>", r->latency_ns, r->gbps);
    ho_fmt(o, "<td class=\"bar\"><div class=\"bar\" style=\"width:%.1f%%\"></div></td>",
           max_gbps > 0 ? r->gbps / max_gbps * 100 : 0);
    ho_raw(o, r->slow ? "<td class=\"warn\">SLOW</td></tr>" : "<td></td></tr>");
}

void html_memory_map(struct hout *o, const struct html_data *d)
{
    double max_gbps = 0;

    if (!d->nregions)
        return;
    for (unsigned i = 0; i < d->nregions; i++)
        if (d->regions[i].measured && d->regions[i].gbps > max_gbps)
            max_gbps = d->regions[i].gbps;
    ho_raw(o, "<h3>Memory map</h3>");
    if (d->has_map_summary) {
        bool slow = false;
        for (unsigned i = 0; i < d->nregions; i++)
            slow |= d->regions[i].slow;
        ho_raw(o, slow ? "<p class=\"warn map-verdict\">" : "<p class=\"map-verdict\">");
        ho_text(o, d->map_verdict);
        ho_fmt(o, " (%.1f s, %.3f s per GiB)</p>", d->map_seconds, d->map_seconds_per_gib);
    }
    ho_raw(o, "<p>full_random latency on a CPU of the region's node and read bandwidth with all CPUs, in a buffer "
              "placed inside each region; the bar is the region's bandwidth against the fastest region.</p>");
    ho_raw(o, "<table id=\"mem-map\"><tr><th>region</th><th>base</th><th>size</th><th>node</th>"
              "<th>latency ns</th><th>read GB/s</th><th>read bandwidth</th><th></th></tr>");
    for (unsigned i = 0; i < d->nregions; i++)
        region_row(o, &d->regions[i], max_gbps);
    ho_raw(o, "</table>\n");
    html_unkept(o, "cap", d->dropped_regions, "regions", 0);
}
