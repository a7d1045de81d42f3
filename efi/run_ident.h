/* Who is running, in a way two machines never share: a run id made at
 * boot (128 bits from RDSEED/RDRAND, else TSC jitter, mixed with the SMBIOS
 * UUID, serial and boot NIC MAC), the SMBIOS UUID and serial, the boot NIC's
 * MAC and IPv4 address. The run record carries it (docs/netboot.md: the
 * upload contract) and the upload names key on it, never on the serial
 * alone: vendors ship thousands of boards whose serial is a placeholder. */
#ifndef BAREMARK_RUN_IDENT_H
#define BAREMARK_RUN_IDENT_H

#include "json.h"
#include "lib/bmlib.h"

#define RUN_ID_HEX 32              /* characters of a run id (128 bits) */
#define RUN_NAME_SERIAL_MAX 32     /* bytes of the serial in an upload name */
#define RUN_UPLOAD_NAME_MAX 160    /* an upload name with its NUL */

struct run_ident {
    char run_id[RUN_ID_HEX + 1];   /* lower-case hex */
    const char *run_id_source;     /* "rdseed", "rdrand" or "tsc_jitter" */
    char uuid[40];                 /* SMBIOS type 1 UUID, "" when not set */
    char serial[64];               /* SMBIOS type 1 serial, as the system record has it */
    bool has_mac, has_ip;
    uint8_t mac[6], ip[4];         /* the boot NIC (netboot), when known */
};

/* Entropy from the CPU: RDSEED when CPUID says it is there (leaf 7 EBX bit
 * 18), else RDRAND (leaf 1 ECX bit 30), each retried as Intel's DRNG guide
 * says; else (or when they keep failing) TSC jitter. Returns the source's
 * name. force_jitter: the jitter path only (tests). */
const char *run_ident_entropy(uint64_t out[2], bool force_jitter);

/* The identity from its parts: the run id mixes the entropy with the uuid,
 * serial and MAC, so two machines differ even where the entropy were equal.
 * mac / ip may be NULL (not known). Deterministic in its inputs. */
void run_ident_make(struct run_ident *id, const uint64_t entropy[2], const char *source, const char *uuid,
                    const char *serial, const uint8_t *mac, const uint8_t *ip);

/* "52:54:00:12:34:56" / "10.0.0.7", "" when not known. */
void run_ident_mac_text(const struct run_ident *id, char *buf, size_t cap);
void run_ident_ip_text(const struct run_ident *id, char *buf, size_t cap);

/* The identity's fields in a record: run_id, run_id_source, smbios_uuid,
 * system_serial (not "serial": the run record's serial is the serial port), mac, ip
 * (docs/netboot.md, the upload contract). */
void run_ident_json(const struct run_ident *id, struct json *j);

/* The name every upload of this run starts with:
 * <compact time>-<serial, at most 32 file-safe bytes>-<MAC as 12 hex digits,
 * or "nomac">-<run id>. Returns its length (0: does not fit). */
size_t run_ident_upload_base(char *dst, size_t cap, const struct run_ident *id, const char *compact_time);

#endif
