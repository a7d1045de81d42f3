/* The report's memory-population parts that come from SPD and the memory
 * map: the SPD cells of the DIMM table and the map as one bar per region. */
#ifndef BAREMARK_HTML_MEMMAP_H
#define BAREMARK_HTML_MEMMAP_H

#include "html_data.h"
#include "html_out.h"

/* The six SPD cells of a DIMM row (module, MT/s, CL-tRCD-tRP, ranks, part,
 * vs SMBIOS), "-" where no SPD was read. */
void html_spd_cells(struct hout *o, const struct hd_dimm *m);
/* The memory map (table id "mem-map"): base, size, node, latency, read
 * GB/s and a bar against the fastest region; slow rows marked. Nothing
 * without mem_region records. */
void html_memory_map(struct hout *o, const struct html_data *d);

#endif
