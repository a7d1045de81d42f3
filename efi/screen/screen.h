/* The results screen: a fixed layout on consoles that can place the
 * cursor, fed by the record stream like the other sinks.
 *
 * Header (system, CPU, memory and the DIMM summary's warnings), a status
 * line (phase, test under way, progress, time left), per disk a table like
 * CrystalDiskMark's window, the memory summary (latency at L1/L2/L3/DRAM
 * sizes, bandwidth on one and all CPUs), errors and notes in a colour that
 * stands out, and at the end a line saying where the results were written.
 * The module keeps its own grid of what should be on screen and pushes
 * only what changed; serial records are untouched. */
#ifndef BAREMARK_SCREEN_H
#define BAREMARK_SCREEN_H

#include "../config.h"
#include "../record.h"

/* The screen sink, or NULL when the console cannot place the cursor
 * (then the plain console sink stays). c gives the disk plan for the
 * time-left estimate; it must outlive the sink. */
struct sink *sink_screen(const struct config *c);

/* The console's text mode as the run record's "screen" object:
 * {"layout":"fixed"|"text","mode":N,"cols":C,"rows":R,"modes":M}. */
void screen_json(struct json *j);

/* The last lines (one, or two split by '\n'): where the results were
 * written and, waiting, that a key returns to the firmware. Shown on the
 * screen (fixed layout only). */
void screen_final_line(const char *text);
bool screen_active(void);

/* screen_dump=1 (a diagnostic): the grid as it stands, as a "screen"
 * record: {"cols":C,"rows":R,"lines":["...", ...]} (trailing blanks cut). */
void screen_emit_dump(void);

#endif
