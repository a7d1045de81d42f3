/* The EDD drive parameter block (edd.h). */
#include "edd.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* The EDD 3.0 part: host bus "PCI" + interface. */
static void edd30_path(struct edd_params *d, const uint8_t *p)
{
    uint8_t sum = 0;

    if (rd16(p) < EDD_PARAMS_BYTES - 8 || rd16(p + 30) != EDD_KEY)
        return;
    for (unsigned i = 30; i < EDD_PARAMS_BYTES; i++)
        sum = (uint8_t)(sum + p[i]);
    if (sum)
        return;     /* drivers/firmware/edd.c: a bad checksum means no device path */
    memcpy(d->host_bus, p + 36, 4);
    d->host_bus[4] = '\0';
    memcpy(d->interface, p + 40, 8);
    d->interface[8] = '\0';
    for (int i = 7; i >= 0 && d->interface[i] == ' '; i--)
        d->interface[i] = '\0';
    for (int i = 3; i >= 0 && d->host_bus[i] == ' '; i--)
        d->host_bus[i] = '\0';
    if (!strncmp(d->host_bus, "PCI", 3)) {
        d->has_pci = true;
        d->pci.seg = 0;
        d->pci.bus = p[48];
        d->pci.dev = p[49];
        d->pci.fn = p[50];
    }
    d->device = p[56];      /* ATA/SATA: device (port), SCSI: id */
    d->edd30 = true;
}

bool edd_params_parse(const uint8_t p[EDD_PARAMS_BYTES], struct edd_params *d)
{
    memset(d, 0, sizeof(*d));
    d->flags = rd16(p + 2);
    memcpy(&d->sectors, p + 16, 8);
    d->bytes_per_sector = rd16(p + 24);
    if (!d->bytes_per_sector)
        d->bytes_per_sector = 512;      /* some EDD 1.x BIOSes leave it 0 */
    if (!d->sectors || d->bytes_per_sector < 512 || d->bytes_per_sector > 4096 ||
        (d->bytes_per_sector & (d->bytes_per_sector - 1)))
        return false;
    d->removable = (d->flags & EDD_FLAG_REMOVABLE) != 0;
    edd30_path(d, p);
    return true;
}
