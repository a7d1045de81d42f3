/* The configuration files of a run, in the order they apply: the shared
 * baremark.cfg, then optional per-machine files from the same place, most
 * specific last, then the command line; limits.cfg the same way.
 *
 *   baremark.cfg
 *   baremark-product-<system product>.cfg     SMBIOS type 1 (system record "product")
 *   baremark-board-<baseboard>.cfg            SMBIOS type 2 (system record "baseboard")
 *   baremark-serial-<system serial>.cfg       SMBIOS type 1 (system record "serial")
 *   baremark-uuid-<system uuid>.cfg           SMBIOS type 1, lower case (system record "uuid")
 *   baremark-52-54-00-12-34-56.cfg            the boot NIC's MAC, PXELINUX spelling
 *
 * (limits-product-....cfg and so on for limits.cfg.) Each file overrides
 * the ones before it key by key. A missing file is not an error; a bad one
 * stops the run like a bad option. */
#ifndef BAREMARK_CFG_FILES_H
#define BAREMARK_CFG_FILES_H

#include "config.h"

#define CFG_NAME_MAX 96
#define CFG_PART_MAX 48            /* bytes of one identity value in a name */
#define CFG_LAYERS 6               /* shared + product, board, serial, uuid, MAC */

/* What tells this machine apart ("" / has_mac false: not known). */
struct machine_ident {
    char product[64];
    char board[96];
    char serial[64];
    char uuid[40];
    bool has_mac;
    uint8_t mac[6];
};

/* One identity value as part of a file name: ASCII letters, digits, '.',
 * '-' and '_' are kept; every other byte (space, '/', '\', ':', control
 * characters, non-ASCII) becomes '_', a run of them one '_'; '_' and '.'
 * at either end are dropped; at most CFG_PART_MAX bytes. Returns the
 * length; 0 means the value gives no file. */
size_t cfg_name_part(char *dst, size_t cap, const char *src);

/* The file names for base ("baremark" or "limits") in the order they
 * apply, the shared one first. Returns how many. */
unsigned cfg_file_names(const struct machine_ident *id, const char *base, char names[CFG_LAYERS][CFG_NAME_MAX]);

/* Reads a whole file (plat_boot_file_read): bytes, or a negative BM_E*;
 * BM_ENODEV when it is not there. */
typedef long (*cfg_read_fn)(const char *path, char *buf, size_t cap);

/* Which files were looked for: applied (in order) and not found. */
struct cfg_load_log {
    unsigned applied, missing;
    char applied_names[2 * CFG_LAYERS][CFG_NAME_MAX];
    char missing_names[2 * CFG_LAYERS][CFG_NAME_MAX];
};

/* Options: defaults, baremark.cfg and its per-machine files, the command
 * line args, then limits.cfg and its per-machine files. Files are read
 * as "\baremark\NAME". BM_OK, or BM_EINVAL with err naming the file and
 * line, or BM_ENODEV when every option is good but cfg_required=1 and
 * baremark.cfg is not there (c then holds the options that were given). */
int cfg_load_options(struct config *c, const struct machine_ident *id, const char *args, cfg_read_fn read,
                     struct cfg_load_log *log, char *err, size_t errlen);

#endif
