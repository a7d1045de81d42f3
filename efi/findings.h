/* Findings: the conclusions a reviewer would draw from a run, each with its
 * evidence - a shared link at its ceiling, a disk held back by its slot or
 * a downtrained link, disks behind the chipset's uplink, memory channels
 * populated unevenly, a remote NUMA node's latency.
 *
 * Fed by the records themselves (record_set_json_observer), like burn-in:
 * the inventory, disk and memory modules know nothing of it, and a finding
 * can only rest on what the records say. findings_emit() runs once before
 * the sinks close and turns the evidence into `finding` records (and a
 * `note` for each conclusion it refused to draw, saying why). */
#ifndef BAREMARK_FINDINGS_H
#define BAREMARK_FINDINGS_H

#include "lib/bmlib.h"

#define FINDINGS_MAX 24
#define FINDING_MAX_SUBJECTS 16
#define FINDING_MAX_NUMBERS 8
#define FINDINGS_MAX_NOTES 16

struct finding_number {
    char name[24];
    double value;
};

struct finding {
    char type[24];           /* shared_ceiling, slot_limit, downtrained_link, sata_link, chipset_attached,
                              * hba_vs_chipset, mem_channels, dimm_speed, fbdimm_channels, numa_remote,
                              * mem_map_slow, links_not_enforced */
    bool warn;               /* severity: warn, else info */
    unsigned nsubjects;
    char subjects[FINDING_MAX_SUBJECTS][24];
    char text[320];          /* one plain sentence */
    unsigned nnumbers;
    struct finding_number numbers[FINDING_MAX_NUMBERS];
};

struct findings {
    unsigned count;
    struct finding f[FINDINGS_MAX];
    unsigned nnotes;
    char notes[FINDINGS_MAX_NOTES][240]; /* a conclusion not drawn, and why */
};

/* Forget all evidence (the start of a run). */
void findings_reset(void);
/* One emitted record (type and its JSON text): the observer. */
void findings_observe(const char *type, const char *json);
/* The findings the evidence so far supports (pure: tests call it). */
void findings_evaluate(struct findings *out);
/* Emit them as `finding` records and the notes as `note` records. */
void findings_emit(void);

#endif
