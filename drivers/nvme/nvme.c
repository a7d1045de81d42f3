/* Native NVMe driver (NVM Express Base Specification 1.4): probe and
 * release.
 *
 * One setup path: take the controller from the firmware, reset it, admin
 * queue, Identify (controller start); choose the namespaces (nvme_ns.c);
 * one set of I/O queue pairs per namespace (queue creation). The I/O path
 * is nvme_io.c; nvme_types.h says which file does what.
 */
#include "nvme_types.h"

/* Name a quirk applied to this controller (each disk's record lists it). */
static void nvme_apply_quirk(struct nvme_ctrl *c, const char *name)
{
    for (unsigned i = 0; i < c->napplied; i++)
        if (c->applied[i] == name)
            return;
    if (c->napplied < ARRAY_SIZE(c->applied))
        c->applied[c->napplied++] = name;
}

/* ---- Teardown ---------------------------------------------------------------------- */

/* Before the controller is handed back: take the host memory buffer back
 * (EHM = 0), delete the I/O queues, and tell it to shut down (CC.SHN =
 * 01b, wait for CSTS.SHST = 10b), so it has written out what it caches
 * before the firmware resets it (section 7.6.2; Linux nvme_dev_disable()
 * and nvme_disable_ctrl(shutdown = true)). Only a controller that still
 * works gets this; the reset follows in any case. */
static void nvme_shutdown(struct nvme_ctrl *c)
{
    struct nvme_sqe cmd;
    char err[160];
    uint32_t cc;

    if (c->hmb_enabled) {
        if (nvme_hmb_set(c, false, false, err, sizeof(err)) == BM_OK)
            c->hmb_enabled = false;
        else
            plat_diag(c->bdf, "host memory buffer not released (%s)", err);
    }
    for (unsigned i = 0; i < c->nns; i++) {
        struct nvme_ns *ns = c->ns[i];
        for (unsigned k = 0; k < ns->nq; k++) {
            if (ns->q[k].dead || ns->q[k].broken)
                continue;
            memset(&cmd, 0, sizeof(cmd));
            cmd.opcode = NVME_ADMIN_DELETE_SQ;
            cmd.cdw10 = ns->q[k].qid;
            if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
                return;
            memset(&cmd, 0, sizeof(cmd));
            cmd.opcode = NVME_ADMIN_DELETE_CQ;
            cmd.cdw10 = ns->q[k].qid;
            if (nvme_admin(c, &cmd, NULL, err, sizeof(err)) != BM_OK)
                return;
        }
    }
    cc = rd32(c, NVME_REG_CC);
    wr32(c, NVME_REG_CC, (cc & ~NVME_CC_SHN_MASK) | NVME_CC_SHN_NORMAL);
    if (nvme_wait_csts(c, NVME_CSTS_SHST_MASK, NVME_CSTS_SHST_CMPLT, c->shutdown_timeout_ms,
                       "CSTS.SHST did not report shutdown complete", err, sizeof(err)) != BM_OK)
        plat_diag(c->bdf, "%s", err);
}

/* Stop the controller, free everything, hand the function back to the
 * firmware. Memory the controller may still write to is kept if it would
 * not stop. */
static void nvme_teardown(struct nvme_ctrl *c)
{
    char err[160];
    bool stopped = true;

    if (c->bar) {
        if (c->admin_live && c->state == NVME_LIVE)
            nvme_shutdown(c);
        /* Reset deletes every I/O queue and aborts what is in flight
         * (section 7.3.2); the firmware's driver sets the controller up
         * again from scratch when it reconnects. */
        if (nvme_disable(c, err, sizeof(err)) != BM_OK) {
            plat_diag(c->bdf, "%s", err);
            if (rd32(c, NVME_REG_CSTS) != 0xffffffffu) {
                plat_diag(c->bdf, "the controller did not stop; its queue memory is left allocated");
                stopped = false;
            }
        }
    }
    for (unsigned i = 0; i < c->nns; i++) {
        struct nvme_ns *ns = c->ns[i];
        if (stopped)
            for (unsigned k = 0; k < NVME_MAX_QUEUES_PER_NS; k++)
                nvme_queue_free(ns, &ns->q[k]);
        plat_free(ns);
    }
    c->nns = 0;
    if (stopped) {
        plat_free_pages(c->asq, NVME_PAGE_BYTES);
        plat_free_pages((void *)c->acq, NVME_PAGE_BYTES);
        plat_free_pages(c->idbuf, NVME_IDENTIFY_BYTES);
        plat_free_pages(c->nslist, NVME_IDENTIFY_BYTES);
        if (c->descbuf)
            plat_free_pages(c->descbuf, NVME_IDENTIFY_BYTES);
        if (c->hmb)
            plat_free_pages(c->hmb, (size_t)c->hmb_bytes);
        if (c->hmb_descs)
            plat_free_pages(c->hmb_descs, NVME_PAGE_BYTES);
    }
    plat_pci_release(c->addr);
    plat_free(c);
}

static void nvme_release(void *ctrl)
{
    if (ctrl)
        nvme_teardown(ctrl);
}


/* ---- Controller start ------------------------------------------------------------- */

static bool nvme_match(uint16_t vendor, uint16_t device, uint32_t class_code)
{
    (void)vendor;
    (void)device;
    return class_code == NVME_PCI_CLASS;
}

/* Take the function from the firmware and check its capabilities: the
 * NVM command set, 4 KiB memory pages. */
static int nvme_ctrl_map(struct nvme_ctrl *c, char *err, size_t errlen)
{
    int rc = plat_pci_claim(c->addr);

    if (rc != BM_OK) {
        snprintf(err, errlen, "could not take the controller from the firmware: %s", bm_strerror(rc));
        return rc;
    }
    c->bar = plat_pci_map_bar(c->addr, 0, &c->bar_size);
    if (!c->bar || c->bar_size < 2 * NVME_REG_DBS) {
        snprintf(err, errlen, "BAR0 is not a usable register window");
        return BM_ENODEV;
    }
    pci_enable_device(c->addr);
    c->quirks = nvme_pci_quirks(plat_pci_read16(c->addr, 0x00), plat_pci_read16(c->addr, 0x02));
    if (c->quirks & NVME_QUIRK_DELAY_BEFORE_CHK_RDY)
        nvme_apply_quirk(c, "delay_before_chk_rdy");
    c->dma_bits = 64;
    if (c->quirks & NVME_QUIRK_DMA_ADDRESS_BITS_48) {
        c->dma_bits = NVME_DMA_BITS_48;
        nvme_apply_quirk(c, "dma_address_bits_48");
    }
    if (c->quirks & NVME_QUIRK_128_BYTES_SQES)
        nvme_apply_quirk(c, "128_bytes_sqes");
    if (c->quirks & NVME_QUIRK_SHARED_TAGS)
        nvme_apply_quirk(c, "shared_tags");

    c->cap = mmio_read64(c->bar, NVME_REG_CAP);
    c->vs = rd32(c, NVME_REG_VS);
    if (c->cap == ~0ull) {
        snprintf(err, errlen, "CAP reads all ones: the controller is not answering");
        return BM_ENODEV;
    }
    c->dstrd = NVME_CAP_DSTRD(c->cap);
    c->ready_timeout_ms = MAX(NVME_CAP_TO(c->cap), 1u) * 500u;
    if (!(NVME_CAP_CSS(c->cap) & NVME_CAP_CSS_NVM)) {
        snprintf(err, errlen, "CAP.CSS lacks the NVM command set");
        return BM_ENOTSUP;
    }
    /* CC.MPS = 0 (4 KiB, the x86 page) must be within CAP.MPSMIN..MPSMAX. */
    if (NVME_CAP_MPSMIN(c->cap) != 0) {
        snprintf(err, errlen, "CAP.MPSMIN is %u KiB; only 4 KiB memory pages are supported",
                 4u << NVME_CAP_MPSMIN(c->cap));
        return BM_ENOTSUP;
    }
    return BM_OK;
}

/* Controller start: map, reset, admin queue, enable, Identify Controller,
 * advanced command retry. */
static int nvme_ctrl_start(struct nvme_ctrl *c, char *err, size_t errlen)
{
    int rc = nvme_ctrl_map(c, err, errlen);

    if (rc != BM_OK)
        return rc;
    c->asq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->acq = plat_alloc_pages(NVME_PAGE_BYTES, false);
    c->idbuf = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    c->nslist = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    c->descbuf = plat_alloc_pages(NVME_IDENTIFY_BYTES, false);
    if (!c->asq || !c->acq || !c->idbuf || !c->nslist || !c->descbuf) {
        snprintf(err, errlen, "out of memory for the admin queue");
        return BM_ENOMEM;
    }

    rc = nvme_enable(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    rc = nvme_identify(c, NVME_CNS_CONTROLLER, 0, c->idbuf, err, errlen);
    if (rc != BM_OK)
        return rc;
    nvme_parse_identify_ctrl(c->idbuf, &c->info);
    c->shutdown_timeout_ms = nvme_shutdown_timeout_ms(c->info.rtd3e_us, NVME_SHUTDOWN_MIN_MS, NVME_SHUTDOWN_MAX_MS);
    /* Section 5.15.2: SQES/CQES give the required (3:0) and largest (7:4)
     * entry sizes; ours are 64 and 16 bytes. Zero means not reported. The
     * Apple T2 takes 128-byte SQ entries whatever it reports (quirk). */
    if ((c->info.sqes && !(c->quirks & NVME_QUIRK_128_BYTES_SQES) &&
         ((c->info.sqes & 0xf) > NVME_SQE_LOG2 || (c->info.sqes >> 4) < NVME_SQE_LOG2)) ||
        (c->info.cqes && ((c->info.cqes & 0xf) > NVME_CQE_LOG2 || (c->info.cqes >> 4) < NVME_CQE_LOG2))) {
        snprintf(err, errlen, "queue entry sizes SQES %02xh CQES %02xh exclude 64/16 bytes", c->info.sqes,
                 c->info.cqes);
        return BM_ENOTSUP;
    }
    nvme_enable_acre(c);
    /* NVMe 1.2+: a controller memory buffer (section 3.1.11, 3.1.12). */
    if (c->vs >= NVME_VS(1, 2))
        nvme_cmb_note(rd32(c, NVME_REG_CMBLOC), rd32(c, NVME_REG_CMBSZ), c->cmb_note, sizeof(c->cmb_note));
    if (c->cmb_note[0])
        plat_diag(c->bdf, "%s", c->cmb_note);
    return BM_OK;
}

/* ---- Namespaces --------------------------------------------------------------------- */

/* Whether any of n bytes is set (NSZE != 0: the namespace is there). */
static bool any_byte_set(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return true;
    return false;
}

/* The command set of a namespace (NVME_CSI_*, -1: not named): only with
 * CC.CSS = 110b may a namespace be of another set than NVM, and then its
 * identification descriptors (CNS 03h) carry the CSI, as Linux
 * nvme_identify_ns_descs() reads it. A controller that refuses the list is
 * taken at its word that the namespace is NVM (the Identify that follows
 * still decides its format). */
static int nvme_ns_command_set(struct nvme_ctrl *c, uint32_t nsid)
{
    char why[96];

    if (!c->multi_css)
        return -1;
    if (nvme_identify(c, NVME_CNS_NS_DESC_LIST, nsid, c->descbuf, why, sizeof(why)) != BM_OK) {
        plat_diag(c->bdf, "namespace %u: identification descriptors (CNS 03h): %s; taken as NVM", nsid, why);
        return -1;
    }
    return nvme_parse_ns_csi(c->descbuf);
}

/* Identify the candidate namespaces and let nvme_ns.c choose; what it
 * skips or leaves out is said in a diagnostic here. */
static int nvme_choose_namespaces(struct nvme_ctrl *c, struct nvme_ns_select *sel, struct bm_disk_list *disks,
                                  char *err, size_t errlen)
{
    bool sequential = c->vs < NVME_VS(1, 1);
    unsigned room, dropped;
    uint32_t nsid;
    char why[96];
    int rc;

    /* Candidate NSIDs: the active namespace list (CNS 02h, NVMe 1.1+), or
     * 1..NN on 1.0 controllers and on those that refuse the list although
     * their version promises it (Linux nvme_scan_work() falls back to
     * nvme_scan_ns_sequential() when the list fails with a status). */
    if (!sequential) {
        rc = nvme_identify(c, NVME_CNS_ACTIVE_NS_LIST, 0, c->nslist, why, sizeof(why));
        if (rc == BM_EIO && c->last_admin_status) {
            plat_diag(c->bdf, "active namespace list (CNS 02h): %s; scanning namespaces 1..%u one by one", why,
                      c->info.nn);
            nvme_apply_quirk(c, "ns_list_refused");
            sequential = true;
        } else if (rc != BM_OK) {
            snprintf(err, errlen, "%s", why);
            return rc;
        }
    }
    nvme_ns_select_begin(sel, sequential ? NULL : c->nslist, c->info.nn);
    if (sequential && c->info.nn > sel->ncand)
        plat_diag(c->bdf, "NN is %u; only namespaces 1..%u are looked at", c->info.nn, sel->ncand);
    while ((nsid = nvme_ns_select_next(sel)) != 0) {
        const uint8_t *id = c->idbuf;
        int csi = -1;

        rc = nvme_identify(c, NVME_CNS_NAMESPACE, nsid, c->idbuf, err, errlen);
        if (rc == BM_EIO && c->last_admin_status && sequential)
            id = NULL; /* an inactive or unallocated NSID may be refused */
        else if (rc != BM_OK)
            return rc;
        /* Only a namespace that is there has a command set to ask about
         * (a scan meets many that are not). */
        if (id && any_byte_set(id + NVME_IDNS_NSZE, 8))
            csi = nvme_ns_command_set(c, nsid);
        if (nvme_ns_select_offer_csi(sel, id, csi, c->info.awupf) == NVME_NS_SKIPPED)
            plat_diag(c->bdf, "namespace %u skipped: %s", nsid, sel->why);
    }
    room = BM_MAX_DISKS - MIN(disks->count, (unsigned)BM_MAX_DISKS);
    rc = nvme_ns_select_fit(sel, room, &dropped, err, errlen);
    if (dropped) {
        plat_diag(c->bdf, "only %u of %u namespaces fit the disk list", room, room + dropped);
        disks->dropped += dropped;
    }
    return rc;
}

/* ---- Queue creation ----------------------------------------------------------------- */

/* Queue pairs per namespace, their depth, and the largest command. */
struct nvme_queue_plan {
    unsigned qpn;
    uint32_t entries, max_qd;
    struct nvme_io_limits lim;
};

/* Ask for the queue pairs (up to 16 per namespace, each namespace its own,
 * so disks never share a CID space or a completion queue) and size them. */
static int nvme_plan_queues(struct nvme_ctrl *c, struct nvme_ns_select *sel, struct nvme_queue_plan *p, char *err,
                            size_t errlen)
{
    unsigned granted = 0;
    int rc;

    c->queue_want = MIN(NVME_MAX_QUEUES_PER_NS * sel->nused, 0xfffeu);
    /* Apple T2: one tag space for every queue of the controller, so a
     * second I/O queue's CIDs would collide with the first's (the
     * firmware fails on a duplicate tag). Linux nvme_max_io_queues()
     * returns 1 for NVME_QUIRK_SHARED_TAGS; so one I/O queue, and with our
     * queue pairs per namespace, one namespace. */
    if (c->quirks & NVME_QUIRK_SHARED_TAGS)
        c->queue_want = 1;
    rc = nvme_set_queue_count(c, c->queue_want, &granted, err, errlen);
    if (rc != BM_OK)
        return rc;
    if ((c->quirks & NVME_QUIRK_SHARED_TAGS) && granted > 1)
        granted = 1;
    if ((c->quirks & NVME_QUIRK_SHARED_TAGS) && sel->nused > 1) {
        plat_diag(c->bdf, "Apple 2005: one tag space for all queues, so one I/O queue; only namespace %u is used",
                  sel->ids[0]);
        nvme_ns_select_granted(sel, 1);
        snprintf(sel->limit, sizeof(sel->limit), "one I/O queue on a controller whose queues share one tag space");
    } else if (granted < sel->nused) {
        plat_diag(c->bdf, "%u I/O queue pairs granted; only the first %u namespaces are used", granted, granted);
        nvme_ns_select_granted(sel, granted);
    }
    p->qpn = MIN(granted / sel->nused, (unsigned)NVME_MAX_QUEUES_PER_NS);
    /* Depth: CAP.MQES is the largest queue size, 0-based (section 3.1.1).
     * The PM1725/PM1725a report 0, which is not a queue; Linux
     * nvme_pci_enable() gives them 64 entries. */
    p->entries = MIN(NVME_CAP_MQES(c->cap) + 1u, (uint32_t)NVME_MAX_QD + 1u);
    if (NVME_CAP_MQES(c->cap) == 0 && (c->quirks & NVME_QUIRK_MQES0_DEPTH_64)) {
        p->entries = NVME_QUIRK_MQES0_DEPTH;
        plat_diag(c->bdf, "CAP.MQES is 0 (PM1725): queues of %u entries, as Linux uses", p->entries);
        nvme_apply_quirk(c, "mqes0_depth_64");
    }
    if (c->quirks & NVME_QUIRK_QDEPTH_ONE) {
        p->entries = NVME_QUIRK_QDEPTH_ONE_ENTRIES;
        plat_diag(c->bdf, "Apple 2001: queues of %u entries (one command in flight), as Linux uses", p->entries);
        nvme_apply_quirk(c, "qdepth_one");
    }
    if (p->entries < 2) {
        snprintf(err, errlen, "CAP.MQES %u is too small", NVME_CAP_MQES(c->cap));
        return BM_ENOTSUP;
    }
    p->max_qd = p->entries - 1;
    nvme_io_limits(c->info.mdts, NVME_CAP_MPSMIN(c->cap), p->qpn, p->max_qd, &p->lim);
    /* Intel 0953 family: no command larger than the stripe, nor across
     * one: Linux nvme_init_identify() caps max_hw_sectors at it and
     * nvme_update_disk_info() makes it the queue's chunk_sectors, so the
     * block layer splits a request at every stripe boundary. Here the
     * disk's chunk_bytes has the engine do the same. */
    if (c->quirks & NVME_QUIRK_STRIPE_SIZE) {
        c->stripe_bytes = nvme_stripe_bytes(c->info.vs3, NVME_CAP_MPSMIN(c->cap));
        if (c->stripe_bytes && c->stripe_bytes < p->lim.max_transfer_bytes) {
            p->lim.max_transfer_bytes = c->stripe_bytes;
            plat_diag(c->bdf, "Intel stripe of %u KiB: commands of at most that, split at each stripe",
                      c->stripe_bytes / 1024);
        }
        if (c->stripe_bytes)
            nvme_apply_quirk(c, "stripe_size");
    }
    if (NVME_CQ_HEAD_DB(sel->nused * p->qpn, c->dstrd) + 4 > c->bar_size) {
        snprintf(err, errlen, "BAR0 (%llu bytes) has no doorbell for queue %u", (unsigned long long)c->bar_size,
                 sel->nused * p->qpn);
        return BM_ENODEV;
    }
    return BM_OK;
}

/* The struct bm_disk of one namespace. */
static void nvme_fill_disk(struct nvme_ctrl *c, struct nvme_ns *ns, const struct nvme_ns_info *info,
                           const struct nvme_queue_plan *p)
{
    struct bm_disk *d = &ns->disk;

    snprintf(d->id, sizeof(d->id), "nvme%un%u", c->index, ns->nsid);
    bm_strlcpy(d->driver, "nvme", sizeof(d->driver));
    d->path = BM_PATH_NATIVE;
    bm_strlcpy(d->model, c->info.model, sizeof(d->model));
    bm_strlcpy(d->serial, c->info.serial, sizeof(d->serial));
    bm_strlcpy(d->firmware, c->info.firmware, sizeof(d->firmware));
    d->lba_bytes = info->lba_bytes;
    d->phys_bytes = info->phys_bytes;
    d->pi_type = info->pi_type;
    ns->pi_type = info->pi_type;
    d->blocks = info->blocks;
    bm_strlcpy(d->pci, c->bdf, sizeof(d->pci));
    d->pci_addr = c->addr;
    d->has_pci = true;
    d->port = ns->nsid;
    d->controller_serial = true;
    d->lun = 0;
    d->link_gbps = 0;
    d->nqueues = p->qpn;
    d->mp_queues = true; /* a queue is driven by one CPU at a time, recovery by whichever sees it (nvme_io.c) */
    d->max_qd = p->max_qd;
    d->max_transfer_bytes = p->lim.max_transfer_bytes;
    d->chunk_bytes = c->stripe_bytes; /* the engine splits I/O at each stripe (0: none) */
    d->failed = false;
    d->ops = &nvme_disk_ops;
    d->priv = ns;
}

/* Queue creation: a disk per chosen namespace, with its queue pairs
 * created on the controller. */
static int nvme_create_namespaces(struct nvme_ctrl *c, const struct nvme_ns_select *sel,
                                  const struct nvme_queue_plan *p, char *err, size_t errlen)
{
    for (unsigned i = 0; i < sel->nused; i++) {
        struct nvme_ns *ns = plat_alloc(sizeof(*ns));
        if (!ns) {
            snprintf(err, errlen, "out of memory");
            return BM_ENOMEM;
        }
        c->ns[c->nns++] = ns;
        ns->ctrl = c;
        ns->nsid = sel->ids[i];
        ns->list_bytes = p->lim.list_bytes;
        nvme_fill_disk(c, ns, &sel->infos[i], p);
        for (unsigned k = 0; k < p->qpn; k++) {
            int rc = nvme_queue_create(c, ns, &ns->q[k], (uint16_t)(1 + i * p->qpn + k), p->entries, err, errlen);
            if (rc != BM_OK)
                return rc;
            ns->nq = k + 1;
        }
    }
    return BM_OK;
}

/* ---- Probe --------------------------------------------------------------------------- */

static int nvme_probe(struct pci_addr a, unsigned index, struct bm_disk_list *disks, void **ctrl_out, char *err,
                      size_t errlen)
{
    struct nvme_ns_select sel;
    struct nvme_queue_plan plan;
    struct nvme_ctrl *c;
    int rc;

    *ctrl_out = NULL;
    c = plat_alloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    c->addr = a;
    c->shutdown_timeout_ms = NVME_SHUTDOWN_MIN_MS;
    c->index = index;   /* nvme<index>n<nsid>: discovery numbers controllers */
    pci_addr_str(a, c->bdf, sizeof(c->bdf));

    rc = nvme_ctrl_start(c, err, errlen);
    if (rc == BM_OK)
        rc = nvme_choose_namespaces(c, &sel, disks, err, errlen);
    if (rc == BM_OK) {
        nvme_hmb_setup(c);
        rc = nvme_plan_queues(c, &sel, &plan, err, errlen);
    }
    if (rc == BM_OK)
        rc = nvme_create_namespaces(c, &sel, &plan, err, errlen);
    if (rc != BM_OK) {
        nvme_teardown(c);
        return rc;
    }

    /* Nothing can fail from here: the disks go on the list. */
    for (unsigned i = 0; i < c->nns; i++) {
        for (unsigned k = 0; k < c->napplied; k++)
            bm_disk_add_quirk(&c->ns[i]->disk, c->applied[k]);
        (void)disk_list_add(disks, &c->ns[i]->disk);
    }
    nvme_ns_select_note(&sel, err, errlen);
    if (c->cmb_note[0]) {
        size_t l = strlen(err);
        snprintf(err + l, errlen - l, "%s%s", l ? "; " : "", c->cmb_note);
    }
    plat_diag(c->bdf, "%s, serial %s, firmware %s: %u namespace%s, %u queue%s of %u, up to %u KiB per command",
              c->info.model, c->info.serial, c->info.firmware, c->nns, c->nns == 1 ? "" : "s", plan.qpn,
              plan.qpn == 1 ? "" : "s", plan.max_qd, plan.lim.max_transfer_bytes / 1024);
    *ctrl_out = c;
    return BM_OK;
}

const struct bm_driver nvme_driver = {
    .name = "nvme",
    .match = nvme_match,
    .probe = nvme_probe,
    .release = nvme_release,
};
