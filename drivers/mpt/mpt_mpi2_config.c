/* MPI 2 discovery: configuration pages, RAID volumes and their members,
 * the end devices of SAS Device Page 0, PORT ENABLE (see mpt_mpi2_types.h). */
#include "mpt_mpi2_types.h"

/* ---- Discovery ------------------------------------------------------------------------------------------------- */

/* A configuration page: its type (extended pages name an ext type), number
 * and the version we read it as. */
struct mpt2_page_id {
    uint8_t type, ext_type, number, version;
    const char *what;
};

static const struct mpt2_page_id mpt2_sas_device0 = {
    MPI2_CONFIG_PAGETYPE_EXTENDED, MPI2_CONFIG_EXTPAGETYPE_SAS_DEVICE, 0, MPI2_SASDEVICE0_PAGEVERSION,
    "SAS Device Page 0"
};
static const struct mpt2_page_id mpt2_volume0 = {
    MPI2_CONFIG_PAGETYPE_RAID_VOLUME, 0, 0, MPI2_RAIDVOLPAGE0_PAGEVERSION, "RAID Volume Page 0"
};
static const struct mpt2_page_id mpt2_physdisk0 = {
    MPI2_CONFIG_PAGETYPE_RAID_PHYSDISK, 0, 0, MPI2_RAIDPHYSDISKPAGE0_PAGEVERSION, "RAID Physical Disk Page 0"
};

/* A config request: the page's header (action PAGE_HEADER, hdr NULL) or
 * the page itself into s->page (READ_CURRENT with the header hdr got). */
static void mpt2_config_fill(struct mpt_ctrl *c, const struct mpt2_page_id *id, uint8_t action,
                             const struct mpi2_config_reply *hdr, uint32_t page_address,
                             struct mpi2_config_request *req)
{
    struct mpt2_state *s = st(c);
    uint32_t flags = MPI_SGE_FLAGS_SIMPLE_ELEMENT | MPI_SGE_FLAGS_LAST_ELEMENT | MPI_SGE_FLAGS_END_OF_BUFFER |
                     MPI_SGE_FLAGS_END_OF_LIST | MPI_SGE_FLAGS_64_BIT_ADDRESSING;

    memset(req, 0, sizeof(*req));
    req->action = action;
    req->function = MPI2_FUNCTION_CONFIG;
    req->header_page_type = id->type;
    req->ext_page_type = id->ext_type;
    req->header_page_number = id->number;
    req->header_page_version = id->version;
    req->page_address = page_address;
    if (hdr) {
        uint32_t bytes = id->type == MPI2_CONFIG_PAGETYPE_EXTENDED ? (uint32_t)hdr->ext_page_length * 4
                                                                   : (uint32_t)hdr->header_page_length * 4;

        bytes = MIN(bytes, (uint32_t)MPT2_CONFIG_PAGE_BYTES);
        req->ext_page_length = hdr->ext_page_length;
        req->header_page_version = hdr->header_page_version;
        req->header_page_number = hdr->header_page_number;
        req->header_page_length = hdr->header_page_length;
        /* Linux mpt3sas _config_request: one simple SGE, IOC to host. */
        req->page_buffer_sge.flags_length = flags | bytes;
        req->page_buffer_sge.address = plat_virt_to_phys(s->page);
        memset(s->page, 0, bytes);
    } else {
        req->page_buffer_sge.flags_length = flags;
        req->page_buffer_sge.address = ~0ull;
    }
}

/* A config request (mpt2_config_fill), waited for. Returns the reply's
 * IOC status (>= 0) or a negative error. */
static int mpt2_config(struct mpt_ctrl *c, const struct mpt2_page_id *id, uint8_t action,
                       const struct mpi2_config_reply *hdr, uint32_t page_address, struct mpi2_config_reply *rep,
                       char *err, size_t errlen)
{
    struct mpi2_config_request req;
    int rc;

    mpt2_config_fill(c, id, action, hdr, page_address, &req);
    memset(rep, 0, sizeof(*rep));
    rc = mpt2_message(c, &req, sizeof(req), rep, sizeof(*rep), MPT2_CONFIG_TIMEOUT_NS, id->what, err, errlen);
    if (rc != BM_OK)
        return rc;
    return rep->ioc_status & MPI_IOCSTATUS_MASK;
}

/* Does a header reply (IOC status ios) describe a page that exists? */
static int mpt2_header_check(const struct mpt2_page_id *id, int ios, const struct mpi2_config_reply *hdr, char *err,
                             size_t errlen)
{
    uint32_t len = id->type == MPI2_CONFIG_PAGETYPE_EXTENDED ? hdr->ext_page_length : hdr->header_page_length;

    if (ios != MPI_IOCSTATUS_SUCCESS || !len) {
        snprintf(err, errlen, "%s header: IOC status 0x%04x %s, %u dwords", id->what, ios,
                 mpt_ioc_status_name((uint16_t)ios), len);
        return BM_EIO;
    }
    return BM_OK;
}

/* The header of a page that must exist (BM_EIO naming it otherwise). */
static int mpt2_page_header(struct mpt_ctrl *c, const struct mpt2_page_id *id, struct mpi2_config_reply *hdr,
                            char *err, size_t errlen)
{
    int ios = mpt2_config(c, id, MPI2_CONFIG_ACTION_PAGE_HEADER, NULL, 0, hdr, err, errlen);

    if (ios < 0)
        return ios;
    return mpt2_header_check(id, ios, hdr, err, errlen);
}

/* IR firmware's volumes (RAID Volume Page 0 by GET_NEXT_HANDLE, as
 * mpt3sas _scsih_search_responding_raid_devices walks them): each named in
 * a diagnostic and in note (they are not benchmarked natively). Returns
 * how many, or a negative error. */
static int mpt2_raid_volumes(struct mpt_ctrl *c, char *note, size_t note_len, char *err, size_t errlen)
{
    static const char *const types[] = { "RAID0", "RAID1E", "RAID1", "?", "?", "RAID10" };
    struct mpt2_state *s = st(c);
    struct mpi2_config_reply hdr, rep;
    uint32_t handle = 0xffff;
    int n = 0, rc;

    rc = mpt2_page_header(c, &mpt2_volume0, &hdr, err, errlen);
    if (rc != BM_OK)
        return rc;
    for (unsigned guard = 0; guard < 256; guard++) {
        const struct mpi2_raid_volume_page0 *v = (const struct mpi2_raid_volume_page0 *)s->page;
        int ios = mpt2_config(c, &mpt2_volume0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                              MPI2_RAID_VOLUME_PGAD_FORM_GET_NEXT_HANDLE | handle, &rep, err, errlen);
        size_t used = strlen(note);

        if (ios < 0)
            return ios;
        if (ios != MPI_IOCSTATUS_SUCCESS)
            break; /* CONFIG_INVALID_PAGE: past the last volume */
        plat_rmb();
        if (v->dev_handle == 0 || (handle != 0xffff && v->dev_handle <= handle))
            break;
        handle = v->dev_handle;
        plat_diag(c->bdf, "IR RAID volume handle 0x%04x: %s of %u disks, %llu x %u-byte blocks, state %u: not "
                  "benchmarked natively", v->dev_handle, v->volume_type < ARRAY_SIZE(types) ? types[v->volume_type]
                  : "RAID", v->num_phys_disks, (unsigned long long)v->max_lba + 1, v->block_size,
                  v->volume_state);
        snprintf(note + used, note_len - used, "%s%s volume 0x%04x (%u disks)", used ? ", " : "IR RAID volumes "
                 "not benchmarked natively: ", v->volume_type < ARRAY_SIZE(types) ? types[v->volume_type] : "RAID",
                 v->dev_handle, v->num_phys_disks);
        n++;
    }
    return n;
}

/* The device handles IR firmware has made RAID volume members (or hot
 * spares), from RAID Physical Disk Page 0 walked by GET_NEXT_PHYSDISKNUM,
 * as Linux mpt3sas _scsih_search_responding_raid_devices fills pd_handles.
 * members[h] gets the PhysDiskNum + 1 of handle h. Returns how many. */
static int mpt2_raid_members(struct mpt_ctrl *c, uint16_t *members, unsigned cap, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    struct mpi2_config_reply hdr, rep;
    uint32_t num = 0xff;
    int n = 0, rc;

    rc = mpt2_page_header(c, &mpt2_physdisk0, &hdr, err, errlen);
    if (rc != BM_OK)
        return rc;
    for (unsigned guard = 0; guard < 256; guard++) {
        const struct mpi2_raid_physdisk_page0 *p = (const struct mpi2_raid_physdisk_page0 *)s->page;
        int ios = mpt2_config(c, &mpt2_physdisk0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                              MPI2_PHYSDISK_PGAD_FORM_GET_NEXT_PHYSDISKNUM | num, &rep, err, errlen);

        if (ios < 0)
            return ios;
        if (ios == MPI2_IOCSTATUS_CONFIG_INVALID_PAGE)
            return n; /* past the last member */
        if (ios != MPI_IOCSTATUS_SUCCESS) {
            snprintf(err, errlen, "RAID Physical Disk Page 0 after %u: IOC status 0x%04x %s", num, ios,
                     mpt_ioc_status_name((uint16_t)ios));
            return BM_EIO;
        }
        plat_rmb();
        if (num != 0xff && p->phys_disk_num <= num) {
            snprintf(err, errlen, "RAID Physical Disk Page 0: disk %u after %u", p->phys_disk_num, num);
            return BM_EIO;
        }
        num = p->phys_disk_num;
        if (p->dev_handle < cap) {
            if (!members[p->dev_handle])
                n++;
            members[p->dev_handle] = (uint16_t)(num + 1);
        }
    }
    return n;
}

/* Is a SAS Device Page 0 entry a target we drive: an end device that
 * speaks SSP or is a SATA drive (Linux mpt3sas _scsih_is_end_device),
 * present and accessible? */
static bool mpt2_is_target(const struct mpi2_sas_device_page0 *p)
{
    uint32_t info = p->device_info;

    if ((info & MPI2_SAS_DEVICE_INFO_DEVICE_TYPE_MASK) != MPI2_SAS_DEVICE_INFO_END_DEVICE)
        return false;
    if (!(info & (MPI2_SAS_DEVICE_INFO_SSP_TARGET | MPI2_SAS_DEVICE_INFO_STP_TARGET |
                  MPI2_SAS_DEVICE_INFO_SATA_DEVICE)))
        return false;
    /* A SATA drive the IOC still has to initialise is accessible, as
     * Linux mpt3sas _scsih_check_access_status treats it. */
    return (p->flags & MPI2_SAS_DEVICE0_FLAGS_DEVICE_PRESENT) &&
           (p->access_status == MPI2_SAS_DEVICE0_ASTATUS_NO_ERRORS ||
            p->access_status == MPI2_SAS_DEVICE0_ASTATUS_SATA_NEEDS_INITIALIZATION);
}

/* One answer of the SAS Device Page 0 walk (IOC status ios, the page in
 * s->page): a target goes to out[*n]; true to read the page after
 * *handle, false when the walk ends. */
static bool mpt2_walk_one(struct mpt_ctrl *c, int ios, uint32_t *handle, struct mpt2_device *out, unsigned cap,
                          unsigned *n)
{
    struct mpt2_state *s = st(c);
    const struct mpi2_sas_device_page0 *p = (const struct mpi2_sas_device_page0 *)s->page;

    if (ios == MPI2_IOCSTATUS_CONFIG_INVALID_PAGE)
        return false; /* past the last handle */
    if (ios != MPI_IOCSTATUS_SUCCESS) {
        plat_diag(c->bdf, "SAS Device Page 0 after handle 0x%04x: IOC status 0x%04x %s", *handle, ios,
                  mpt_ioc_status_name((uint16_t)ios));
        return false;
    }
    plat_rmb();
    if (p->dev_handle == 0 || (*handle != 0xffff && p->dev_handle <= *handle)) {
        plat_diag(c->bdf, "SAS Device Page 0: handle 0x%04x after 0x%04x, walk stopped", p->dev_handle, *handle);
        return false;
    }
    *handle = p->dev_handle;
    if (!mpt2_is_target(p)) {
        plat_diag(c->bdf, "handle 0x%04x SAS address %016llx: not a target (info 0x%08x, flags 0x%04x, access "
                  "0x%02x)", p->dev_handle, (unsigned long long)p->sas_address, p->device_info, p->flags,
                  p->access_status);
        return true;
    }
    if (*n == cap) {
        plat_diag(c->bdf, "more than %u devices: handle 0x%04x and later skipped", cap, *handle);
        return false;
    }
    out[*n].handle = p->dev_handle;
    out[*n].slot = p->slot;
    out[*n].enclosure = p->enclosure_handle;
    out[*n].sas_address = p->sas_address;
    out[*n].device_info = p->device_info;
    out[*n].access_status = p->access_status;
    (*n)++;
    return true;
}

/* Walk SAS Device Page 0 by GET_NEXT_HANDLE and list the end devices. */
int mpt2_list_devices(struct mpt_ctrl *c, struct mpt2_device *out, unsigned cap, char *err, size_t errlen)
{
    struct mpi2_config_reply hdr, rep;
    uint32_t handle = 0xffff;
    unsigned n = 0;
    int ios;

    ios = mpt2_page_header(c, &mpt2_sas_device0, &hdr, err, errlen);
    if (ios != BM_OK)
        return ios;
    for (unsigned guard = 0; guard < 0x10000; guard++) {
        ios = mpt2_config(c, &mpt2_sas_device0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &hdr,
                          MPI2_SAS_DEVICE_PGAD_FORM_GET_NEXT_HANDLE | handle, &rep, err, errlen);
        if (ios < 0)
            return ios;
        if (!mpt2_walk_one(c, ios, &handle, out, cap, &n))
            break;
    }
    return (int)n;
}

/* Post the walk's next request: the header first, then the page after
 * s->walk.handle. */
static void mpt2_walk_post(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);
    struct mpi2_config_request req;

    if (!s->walk.have_hdr)
        mpt2_config_fill(c, &mpt2_sas_device0, MPI2_CONFIG_ACTION_PAGE_HEADER, NULL, 0, &req);
    else
        mpt2_config_fill(c, &mpt2_sas_device0, MPI2_CONFIG_ACTION_PAGE_READ_CURRENT, &s->walk.hdr,
                         MPI2_SAS_DEVICE_PGAD_FORM_GET_NEXT_HANDLE | s->walk.handle, &req);
    mpt2_reset_request(c, &req, sizeof(req));
}

bool mpt2_walk_begin(struct mpt_ctrl *c)
{
    struct mpt2_state *s = st(c);

    memset(&s->walk, 0, sizeof(s->walk));
    s->walk.handle = 0xffff;
    s->walk.dev = plat_alloc(sizeof(*s->walk.dev) * MPT2_MAX_DEVICES);
    if (!s->walk.dev)
        return false;
    mpt2_walk_post(c);
    return true;
}

int mpt2_walk_next(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpt2_state *s = st(c);
    int ios = s->tm_reply.ioc_status & MPI_IOCSTATUS_MASK;

    if (!s->walk.have_hdr) {
        int rc = mpt2_header_check(&mpt2_sas_device0, ios, &s->tm_reply, err, errlen);

        if (rc != BM_OK)
            return rc;
        s->walk.hdr = s->tm_reply;
        s->walk.have_hdr = true;
        mpt2_walk_post(c);
        return HBA_PENDING;
    }
    if (s->walk.pages++ < 0x10000 && mpt2_walk_one(c, ios, &s->walk.handle, s->walk.dev, MPT2_MAX_DEVICES,
                                                   &s->walk.n)) {
        mpt2_walk_post(c);
        return HBA_PENDING;
    }
    return (int)s->walk.n;
}

/* Mask every event, then enable the ports: the IOC discovers the SAS
 * domain before it answers (mpt3sas _base_make_ioc_operational:
 * _base_event_notification, then mpt3sas_port_enable). */
void mpt2_event_mask_request(struct mpi2_event_notification_request *ev)
{
    memset(ev, 0, sizeof(*ev));
    ev->function = MPI2_FUNCTION_EVENT_NOTIFICATION;
    for (unsigned i = 0; i < ARRAY_SIZE(ev->event_masks); i++)
        ev->event_masks[i] = ~0u;
    ev->sas_broadcast_primitive_masks = 0xffff;
    ev->sas_notify_primitive_masks = 0xffff;
}

int mpt2_enable_ports(struct mpt_ctrl *c, char *err, size_t errlen)
{
    struct mpi2_event_notification_request ev;
    struct mpi2_port_enable_request pe;
    int rc;

    mpt2_event_mask_request(&ev);
    rc = mpt2_message_ok(c, &ev, sizeof(ev), MPT2_EVENT_TIMEOUT_NS, "EVENT NOTIFICATION", err, errlen);
    if (rc != BM_OK)
        return rc;
    memset(&pe, 0, sizeof(pe));
    pe.function = MPI2_FUNCTION_PORT_ENABLE;
    return mpt2_message_ok(c, &pe, sizeof(pe), MPT2_PORT_ENABLE_TIMEOUT_NS, "PORT ENABLE", err, errlen);
}

/* Enable the ports, then add a disk for each end device, named by its
 * enclosure slot (or by handle when two enclosures share slot numbers). */
int mpt2_discover(struct mpt_ctrl *c, struct bm_disk_list *disks, char *err, size_t errlen)
{
    struct mpt2_device *dev;
    uint16_t *members;
    bool members_noted = false;
    int n, rc;

    rc = mpt2_enable_ports(c, err, errlen);
    if (rc != BM_OK)
        return rc;
    dev = plat_alloc(sizeof(*dev) * MPT2_MAX_DEVICES);
    members = plat_alloc(sizeof(*members) * MPT2_HANDLES);
    if (!dev || !members) {
        plat_free(dev);
        plat_free(members);
        snprintf(err, errlen, "out of memory");
        return BM_ENOMEM;
    }
    n = mpt2_list_devices(c, dev, MPT2_MAX_DEVICES, err, errlen);
    /* IR firmware: its volume members must never be driven (a write would
     * corrupt the volume; Linux mpt3sas keeps them from the disk driver,
     * no_uld_attach). Unknown membership is no reason to guess: the probe
     * fails and the firmware keeps the controller. */
    if (n >= 0 && (st(c)->facts.ioc_capabilities & MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID)) {
        rc = mpt2_raid_members(c, members, MPT2_HANDLES, err, errlen);
        if (rc < 0)
            n = rc;
    }
    if (n < 0) {
        plat_free(dev);
        plat_free(members);
        return n;
    }
    err[0] = '\0';
    if (st(c)->facts.ioc_capabilities & MPI2_IOCFACTS_CAPABILITY_INTEGRATED_RAID) {
        char why[128];
        if (mpt2_raid_volumes(c, err, errlen, why, sizeof(why)) < 0)
            plat_diag(c->bdf, "IR RAID volumes not listed: %s", why);
        if (err[0])
            snprintf(err + strlen(err), errlen - strlen(err), "; ");
    }
    for (int i = 0; i < n; i++) {
        struct mpt_addr a;
        bool slot_shared = false, sata = (dev[i].device_info & MPI2_SAS_DEVICE_INFO_SATA_DEVICE) != 0;

        for (int j = 0; j < n; j++)
            if (j != i && dev[j].slot == dev[i].slot)
                slot_shared = true;
        memset(&a, 0, sizeof(a));
        a.dev_handle = dev[i].handle;
        a.sas_address = dev[i].sas_address;
        a.port = slot_shared ? dev[i].handle : dev[i].slot;
        a.max_qd = sata ? MPT_SATA_QUEUE_DEPTH : MPT_SAS_QUEUE_DEPTH;
        snprintf(a.label, sizeof(a.label), slot_shared ? "h%u" : "s%u", a.port);
        if (members[dev[i].handle]) {
            size_t used = strlen(err);
            plat_diag(c->bdf, "%s (handle 0x%04x, SAS address %016llx, enclosure 0x%04x slot %u, %s) is IR RAID "
                      "physical disk %u: hidden, never read or written natively", a.label, dev[i].handle,
                      (unsigned long long)dev[i].sas_address, dev[i].enclosure, dev[i].slot, sata ? "SATA" : "SAS",
                      members[dev[i].handle] - 1u);
            snprintf(err + used, errlen - used, "%s%s", members_noted ? ", " : "RAID volume members not listed: ",
                     a.label);
            members_noted = true;
            continue;
        }
        plat_diag(c->bdf, "%s: handle 0x%04x, SAS address %016llx, enclosure 0x%04x slot %u, %s", a.label,
                  dev[i].handle, (unsigned long long)dev[i].sas_address, dev[i].enclosure, dev[i].slot,
                  sata ? "SATA" : "SAS");
        if (dev[i].access_status == MPI2_SAS_DEVICE0_ASTATUS_SATA_NEEDS_INITIALIZATION)
            plat_diag(c->bdf, "%s: SATA drive the IOC still initialises (AccessStatus 0x02): used, as mpt3sas does",
                      a.label);
        mpt_add_disks(c, disks, &a);
    }
    if (!members_noted && strlen(err) >= 2 && !strcmp(err + strlen(err) - 2, "; "))
        err[strlen(err) - 2] = '\0';
    if (!n)
        plat_diag(c->bdf, "no end devices in SAS Device Page 0");
    plat_free(dev);
    plat_free(members);
    return BM_OK;
}
