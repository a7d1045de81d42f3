/* PRP entries for a command's data (NVMe 1.4 section 4.3). Pure: no
 * hardware, so the host unit tests check it at every alignment. */
#include "nvme.h"

int nvme_prp_build(uint64_t buf_phys, uint32_t len, uint32_t page_bytes, uint64_t *list, uint64_t list_phys,
                   uint32_t list_cap, struct nvme_prp *out)
{
    uint64_t page_mask, first_len, rest, next_page, needed;

    if (!out || len == 0 || page_bytes < 4096 || (page_bytes & (page_bytes - 1)))
        return BM_EINVAL;
    /* Section 4.3: the offset of PRP1 (and of any PRP) is dword aligned. */
    if (buf_phys & 3)
        return BM_EINVAL;
    page_mask = page_bytes - 1;
    out->prp1 = buf_phys;
    out->prp2 = 0;
    out->list_entries = 0;

    /* PRP1 covers from its offset to the end of its memory page. */
    first_len = page_bytes - (buf_phys & page_mask);
    if (len <= first_len)
        return BM_OK;
    rest = len - first_len;
    next_page = (buf_phys & ~page_mask) + page_bytes;

    /* Exactly one more page: PRP2 is that page's address, offset 0. */
    if (rest <= page_bytes) {
        out->prp2 = next_page;
        return BM_OK;
    }

    /* More: PRP2 points to a PRP list of page-aligned entries. A list that
     * fits in one page needs no chaining (the last entry of a full page is a
     * data page when no more entries follow). */
    needed = (rest + page_mask) / page_bytes;
    if (!list || (list_phys & 7))
        return BM_EINVAL;
    if (needed > list_cap || (list_phys & page_mask) + needed * 8 > page_bytes)
        return BM_ENOSPC;
    for (uint64_t i = 0; i < needed; i++)
        list[i] = next_page + i * page_bytes;
    out->prp2 = list_phys;
    out->list_entries = (uint32_t)needed;
    return BM_OK;
}
