/* A preallocated JSON-lines results file (the legacy BIOS build's
 * \baremark\results\bios.jsonl: records, then spaces, then one '\n'), as
 * earlier runs left it: where the next run's records go, and how many runs
 * it holds. A pure function over the file's bytes (efi/bios/stick_bios.c
 * reads them from the stick; tests/unit/test_jsonl_tail.c). */
#ifndef BAREMARK_JSONL_TAIL_H
#define BAREMARK_JSONL_TAIL_H

#include "platform.h"

struct jsonl_tail {
    uint32_t end;           /* the next record starts here (after the last whole line) */
    uint32_t cut_bytes;     /* a last line with no '\n' (a run stopped mid-write) is blanked: its length */
    unsigned runs;          /* lines before end that are "run" records: one per earlier run */
};

/* img is the whole file, size bytes (size >= 1; its last byte is the
 * file's final '\n' and is never counted as a record's). */
void jsonl_tail_scan(const char *img, uint32_t size, struct jsonl_tail *t);

#endif
