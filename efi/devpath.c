/* Device path nodes (efi/devpath.h). Node layouts: UEFI 2.10 section
 * 10.3.4 (messaging device paths). */
#include "devpath.h"
#include "platform.h"

#define DP_TYPE_MESSAGING 0x03
#define DP_TYPE_END 0x7f
#define DP_END_ENTIRE 0xff
#define DP_MSG_SCSI 0x02          /* Pun u16 at 4, Lun u16 at 6: 8 bytes */
#define DP_MSG_MAC 0x0b           /* MAC (32 bytes) at 4, IfType u8 at 36: 37 bytes */
#define DP_MSG_SATA 0x12          /* HBA port u16 at 4, PM port u16, LUN u16: 10 bytes */
#define DP_MSG_NVME 0x17          /* NSID u32 at 4, EUI-64 at 8: 16 bytes */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The next node of the walk at *off: its bytes and length, or NULL at the
 * end node, past avail, or at a malformed node (length below 4, as EDK2
 * IsDevicePathValid() refuses it, or past the bytes readable). */
static const uint8_t *next_node(const uint8_t *p, size_t avail, size_t *off, uint16_t *len)
{
    const uint8_t *n;

    if (avail > DEVPATH_MAX_BYTES)
        avail = DEVPATH_MAX_BYTES;
    if (*off > avail || avail - *off < 4)
        return NULL;
    n = p + *off;
    *len = le16(n + 2);
    if (*len < 4 || *len > avail - *off || (n[0] == DP_TYPE_END && n[1] == DP_END_ENTIRE))
        return NULL;
    *off += *len;
    return n;
}

bool devpath_disk_node(const void *path, size_t avail, struct devpath_disk *d)
{
    const uint8_t *n;
    size_t off = 0;
    uint16_t len;

    memset(d, 0, sizeof(*d));
    if (!path)
        return false;
    while ((n = next_node(path, avail, &off, &len))) {
        if (n[0] != DP_TYPE_MESSAGING)
            continue;
        if (n[1] == DP_MSG_SCSI && len >= 8) {
            *d = (struct devpath_disk){ DP_MSG_SCSI, le16(n + 4), le16(n + 6) };
            return true;
        }
        if (n[1] == DP_MSG_SATA && len >= 10) {
            *d = (struct devpath_disk){ DP_MSG_SATA, le16(n + 4), 0 };
            return true;
        }
        if (n[1] == DP_MSG_NVME && len >= 8) {
            *d = (struct devpath_disk){ DP_MSG_NVME, le32(n + 4), 0 };
            return true;
        }
    }
    return false;
}

bool devpath_mac_node(const void *path, size_t avail, uint8_t mac[6])
{
    const uint8_t *n;
    size_t off = 0;
    uint16_t len;

    if (!path)
        return false;
    while ((n = next_node(path, avail, &off, &len)))
        if (n[0] == DP_TYPE_MESSAGING && n[1] == DP_MSG_MAC && len >= 37) {
            memcpy(mac, n + 4, 6);
            return true;
        }
    return false;
}
