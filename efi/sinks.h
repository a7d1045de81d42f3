/* The three record sinks: screen, serial line, results file. */
#ifndef BAREMARK_SINKS_H
#define BAREMARK_SINKS_H

#include "record.h"

/* Text for the screen from text that may hold device strings: valid UTF-8
 * is kept, invalid sequences and control characters other than newline
 * and tab (C0, DEL, C1 U+0080..U+009F, so no ESC or CSI) become '?'.
 * Never cuts a sequence; returns the bytes written (dst always ends). */
size_t sink_screen_text(char *dst, size_t cap, const char *src);

/* The screen: human text only. */
struct sink *sink_console(void);
/* Serial: "BAREMARK {json}" lines, on the port plat_serial_open() opened
 * (serial_plan_open, serial_port.h). */
struct sink *sink_serial(void);
/* Results file: one JSON object per line, flushed per record. Returns NULL
 * and fills why when the file cannot be created. */
struct sink *sink_file(const char *path, char *why, size_t whylen);

#endif
