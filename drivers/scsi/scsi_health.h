/* Drive health over SCSI: LOG SENSE pages for SAS/SCSI disks and ATA
 * SMART through the SCSI/ATA translation layer (SAT ATA PASS-THROUGH(16))
 * for SATA disks behind a SAS HBA. The same struct bm_health the NVMe and
 * AHCI drivers fill; builders and parsers are pure (unit tested and
 * fuzzed), scsi_read_health runs them over a transport. */
#ifndef BAREMARK_SCSI_HEALTH_H
#define BAREMARK_SCSI_HEALTH_H

#include "scsi.h"

/* LOG SENSE (SPC-4 6.6): cumulative values (PC 01b) of one page, no
 * subpage, alloc_len bytes. Returns the CDB length (10). */
int scsi_build_log_sense(uint8_t *cdb, uint8_t page, uint16_t alloc_len);
/* ATA PASS-THROUGH(16) (SAT-3 12.2.2) carrying SMART READ DATA or READ
 * THRESHOLDS (feature): PIO data-in of one 512-byte block, as smartctl
 * and Linux ata_scsi_pass_thru build it. Returns the CDB length (16). */
int scsi_build_sat_smart(uint8_t *cdb, uint8_t feature);

/* Does a supported log pages page (00h) list this page? */
bool scsi_log_lists_page(const uint8_t *data, size_t len, uint8_t page);
/* The value of parameter code in a log page: BM_OK with *val / *vlen
 * inside data, BM_ENODEV when the page has no such parameter, BM_EINVAL
 * for a malformed header. */
int scsi_log_param(const uint8_t *data, size_t len, uint16_t code, const uint8_t **val, size_t *vlen);
/* Fold one log page into h (which bm_health_init made): 0Dh temperature,
 * 2Fh informational exceptions (smart_passed; its temperature when 0Dh
 * gave none), 15h background scan results (power-on hours; medium errors
 * it found), 18h SAS phy error counters (link_errors). Returns BM_OK when
 * the page gave something, BM_ENODEV when it gave nothing, BM_EINVAL for
 * a malformed page. */
int scsi_parse_log_page(const uint8_t *data, size_t len, struct bm_health *h);

/* Read a LUN's health: a SAT disk (info.sat) through SMART READ DATA and
 * THRESHOLDS, falling back to LOG SENSE; others through LOG SENSE 00h
 * then the pages it lists. BM_ENOTSUP when the LUN has neither (err
 * says why); other errors as the transport reports them. */
int scsi_read_health(const struct scsi_transport *t, bool sat, struct bm_health *h, char *err, size_t errlen);

#endif
