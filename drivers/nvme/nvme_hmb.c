/* Host Memory Buffer (NVMe 1.4 section 8.9): memory lent to DRAM-less
 * controllers for their mapping tables. */
#include "nvme_types.h"

/* Linux max_host_mem_size_mb: the most we lend a controller. */
#define NVME_HMB_MAX_BYTES (128ull << 20)

/* Set Features Host Memory Buffer (section 5.21.1.13): enable with the
 * buffer described by the one-entry descriptor list, or disable (EHM = 0). */
void nvme_hmb_command(struct nvme_ctrl *c, struct nvme_sqe *cmd, bool enable, bool returned)
{
    uint64_t list = plat_virt_to_phys(c->hmb_descs);

    memset(cmd, 0, sizeof(*cmd));
    cmd->opcode = NVME_ADMIN_SET_FEATURES;
    cmd->cdw10 = NVME_FEAT_HOST_MEM_BUF;
    if (enable) {
        /* MR: the buffer handed back is the one it had (Linux
         * NVME_HOST_MEM_RETURN), its contents as the controller left them. */
        cmd->cdw11 = NVME_HMB_EHM | (returned ? NVME_HMB_MR : 0);
        cmd->cdw12 = (uint32_t)(c->hmb_bytes / NVME_PAGE_BYTES);
        cmd->cdw13 = (uint32_t)list;
        cmd->cdw14 = (uint32_t)(list >> 32);
        cmd->cdw15 = 1;
    }
}

/* The same, waiting for the answer (probe and release). */
int nvme_hmb_set(struct nvme_ctrl *c, bool enable, bool returned, char *err, size_t errlen)
{
    struct nvme_sqe cmd;

    nvme_hmb_command(c, &cmd, enable, returned);
    return nvme_admin(c, &cmd, NULL, err, errlen);
}

/* Lend the controller the memory it asks for (HMPRE, at least HMMIN), as
 * Linux nvme_setup_host_mem() does: DRAM-less drives keep their mapping
 * tables there and run far below their speed without it. The buffer is
 * one contiguous run of pages, so one descriptor; smaller runs are tried
 * down to HMMIN. A controller that must do without is told nothing. */
void nvme_hmb_setup(struct nvme_ctrl *c)
{
    uint64_t pref = (uint64_t)c->info.hmpre * NVME_PAGE_BYTES, min = (uint64_t)c->info.hmmin * NVME_PAGE_BYTES;
    uint64_t minds = (uint64_t)c->info.hmminds * NVME_PAGE_BYTES, size;
    uint8_t *desc;
    char err[160];

    if (!pref)
        return;
    pref = MIN(pref, NVME_HMB_MAX_BYTES);
    if (min > pref) {
        plat_diag(c->bdf, "host memory buffer: minimum %llu MiB is above the %llu MiB we lend; none given",
                  (unsigned long long)(min >> 20), (unsigned long long)(pref >> 20));
        return;
    }
    c->hmb_descs = plat_alloc_pages(NVME_PAGE_BYTES, false);
    if (!c->hmb_descs)
        return;
    for (size = ALIGN_UP(pref, (uint64_t)NVME_PAGE_BYTES); size >= MAX(min, minds) && size >= NVME_PAGE_BYTES;
         size = ALIGN_UP(size / 2, (uint64_t)NVME_PAGE_BYTES)) {
        c->hmb = plat_alloc_pages((size_t)size, false);
        if (c->hmb || size == NVME_PAGE_BYTES)
            break;
    }
    if (!c->hmb) {
        plat_diag(c->bdf, "host memory buffer: no %llu KiB of memory to lend", (unsigned long long)(min >> 10));
        plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
        c->hmb_descs = NULL;
        return;
    }
    c->hmb_bytes = size;
    desc = c->hmb_descs;
    memset(desc, 0, NVME_PAGE_BYTES);
    for (unsigned i = 0; i < 8; i++)
        desc[i] = (uint8_t)(plat_virt_to_phys(c->hmb) >> (8 * i));
    for (unsigned i = 0; i < 4; i++)
        desc[8 + i] = (uint8_t)((size / NVME_PAGE_BYTES) >> (8 * i));
    if (nvme_hmb_set(c, true, false, err, sizeof(err)) != BM_OK) {
        plat_diag(c->bdf, "host memory buffer refused (%s)", err);
        plat_free_pages(c->hmb, (size_t)c->hmb_bytes);
        plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
        c->hmb = c->hmb_descs = NULL;
        return;
    }
    c->hmb_enabled = true;
    plat_diag(c->bdf, "host memory buffer: %llu KiB lent (preferred %llu KiB)",
              (unsigned long long)(size >> 10), (unsigned long long)((uint64_t)c->info.hmpre * 4));
}
