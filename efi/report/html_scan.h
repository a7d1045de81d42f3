/* The surface scan's section of the HTML report: per disk the rate, MHDD's
 * access-time buckets, the transfer-rate curve across the surface and the
 * map of its unreadable LBA ranges. */
#ifndef BAREMARK_HTML_SCAN_H
#define BAREMARK_HTML_SCAN_H

#include "html_data.h"
#include "html_out.h"

void html_section_scan(struct hout *o, const struct html_data *d);

#endif
