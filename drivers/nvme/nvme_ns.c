/* Namespace selection: which namespaces of a controller become disks.
 * Pure: the probe fetches the Identify data, this decides (host unit test
 * tests/unit/test_nvme_ns_select.c). */
#include "nvme.h"
#include "nvme_regs.h"

void nvme_ns_select_begin(struct nvme_ns_select *s, const uint32_t *nslist, uint32_t nn)
{
    memset(s, 0, sizeof(*s));
    s->nslist = nslist;
    if (!nslist) {
        s->ncand = MIN(nn, NVME_SCAN_MAX_NSID);
        return;
    }
    while (s->ncand < NVME_NS_LIST_MAX && nslist[s->ncand])
        s->ncand++;
    s->listed = s->ncand;
}

uint32_t nvme_ns_select_next(struct nvme_ns_select *s)
{
    if (s->next >= s->ncand)
        return 0;
    /* With the list, the ones beyond our limit need not be asked; a scan
     * goes on, to count the namespaces left out. */
    if (s->nslist && s->nused == NVME_MAX_NS_PER_CTRL)
        return 0;
    s->asked = s->nslist ? s->nslist[s->next] : s->next + 1;
    s->next++;
    return s->asked;
}

enum nvme_ns_verdict nvme_ns_select_offer(struct nvme_ns_select *s, const uint8_t *id, uint16_t ctrl_awupf)
{
    return nvme_ns_select_offer_csi(s, id, -1, ctrl_awupf);
}

enum nvme_ns_verdict nvme_ns_select_offer_csi(struct nvme_ns_select *s, const uint8_t *id, int csi,
                                              uint16_t ctrl_awupf)
{
    struct nvme_ns_info info;
    char why[sizeof(s->why)];
    int rc;

    if (!id)
        return NVME_NS_INACTIVE; /* refused: an inactive or unallocated NSID */
    rc = nvme_parse_identify_ns(id, ctrl_awupf, &info, why, sizeof(why));
    if (rc == BM_ENODEV && !s->nslist)
        return NVME_NS_INACTIVE; /* Identify returns zeroes (section 5.15.2) */
    /* A namespace of another command set (ZNS, key value) takes commands
     * our Read/Write/measurement does not fit: sequential writes within
     * zones, or no LBAs at all (Linux nvme_scan_ns() switches on the CSI). */
    if (rc != BM_ENODEV && csi > NVME_CSI_NVM) {
        size_t l;
        nvme_csi_name(csi, why, sizeof(why));
        l = strlen(why);
        snprintf(why + l, sizeof(why) - l, ": not measured");
        rc = BM_ENOTSUP;
    }
    s->looked++;
    if (!s->nslist)
        s->listed++;
    if (rc != BM_OK) {
        s->skipped_id = s->asked;
        bm_strlcpy(s->why, why, sizeof(s->why));
        s->nskipped++;
        return NVME_NS_SKIPPED;
    }
    if (s->nused == NVME_MAX_NS_PER_CTRL)
        return NVME_NS_OVER_LIMIT;
    s->ids[s->nused] = s->asked;
    s->infos[s->nused++] = info;
    return NVME_NS_TAKEN;
}

int nvme_ns_select_fit(struct nvme_ns_select *s, unsigned room, unsigned *dropped, char *err, size_t errlen)
{
    unsigned active = s->looked - s->nskipped;

    *dropped = 0;
    if (s->listed > s->nused + s->nskipped)
        snprintf(s->limit, sizeof(s->limit), "baremark takes at most %u namespaces per controller",
                 NVME_MAX_NS_PER_CTRL);
    if (s->nused > room) {
        *dropped = s->nused - room;
        s->nused = room;
        snprintf(s->limit, sizeof(s->limit), "the disk list is full (%u disks)", (unsigned)BM_MAX_DISKS);
        if (!s->nused) {
            snprintf(err, errlen, "%u namespace%s left out: %s", active, active == 1 ? "" : "s", s->limit);
            return BM_ENOSPC;
        }
    }
    if (s->nused)
        return BM_OK;
    /* The last skip reason says why, e.g. a format with metadata. */
    if (s->skipped_id)
        snprintf(err, errlen, "no usable namespace (%u active; namespace %u: %s)", s->looked, s->skipped_id, s->why);
    else
        snprintf(err, errlen, "no usable namespace (%u active)", s->looked);
    return BM_ENODEV;
}

void nvme_ns_select_granted(struct nvme_ns_select *s, unsigned granted)
{
    if (granted >= s->nused)
        return;
    s->nused = granted;
    snprintf(s->limit, sizeof(s->limit), "the controller granted only %u I/O queue pairs", granted);
}

void nvme_ns_select_note(const struct nvme_ns_select *s, char *note, size_t len)
{
    /* A success that leaves namespaces out says so (blkdev.h: the caller
     * makes it a note), so no active namespace vanishes without a word. */
    note[0] = '\0';
    if (s->limit[0] && s->nskipped)
        snprintf(note, len, "%u of %u namespaces used: %s; namespace %u skipped: %s", s->nused, s->listed, s->limit,
                 s->skipped_id, s->why);
    else if (s->limit[0])
        snprintf(note, len, "%u of %u namespaces used: %s", s->nused, s->listed, s->limit);
    else if (s->nskipped)
        snprintf(note, len, "namespace %u skipped: %s", s->skipped_id, s->why);
}
