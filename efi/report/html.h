/* The HTML report: one self-contained page (inline CSS and SVG, no script,
 * nothing fetched) drawn from a run's records.
 *
 * Design: the .jsonl results file stays the source of truth; the page is a
 * view of it, written whole at the end of the run (sinks_close: after a
 * normal end, errors, Esc or bad options alike) and, in burn-in, rewritten
 * when a new pass starts, so a reset mid-run leaves the page of the last
 * finished pass. The sink keeps only bounded aggregates (html_data.h) and
 * streams the page through plat_file_write in HOUT_CHUNK pieces. */
#ifndef BAREMARK_HTML_H
#define BAREMARK_HTML_H

#include "html_data.h"
#include "html_out.h"
#include "record.h"

/* How the page was written, for its footer and the log line. */
struct html_write_info {
    uint64_t bytes;
    double ms;
    bool ok;
};

/* The whole page for d through write(ctx, ...). source names the records
 * (the .jsonl's name) for the footer; may be "". */
struct html_write_info html_report_write(const struct html_data *d, const char *source, html_write_fn write,
                                         void *ctx);

/* The sink writing the page next to the results file (jsonl_path with
 * .html for .jsonl) at the end of the run and after each burn-in pass. */
struct sink *sink_html(const char *jsonl_path);
/* The report path for a results file: "x.jsonl" -> "x.html". */
void html_path_for(char *dst, size_t cap, const char *jsonl_path);

#endif
