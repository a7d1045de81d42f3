/* The benchmark sections of the HTML report page: disks, all disks, memory. */
#ifndef BAREMARK_HTML_BENCH_H
#define BAREMARK_HTML_BENCH_H

#include "html_data.h"
#include "html_out.h"

void html_section_disks(struct hout *o, const struct html_data *d);
void html_section_memory(struct hout *o, const struct html_data *d);

#endif
