/* A record sink for unit tests: it keeps every record emitted (type and
 * JSON) so that a test can look for the ones it expects. Set it up with
 *     static struct sink sink = { "test", capture, NULL, NULL, NULL, NULL };
 * and empty it with nrecs = 0. */
#ifndef BAREMARK_TEST_CAPTURE_SINK_H
#define BAREMARK_TEST_CAPTURE_SINK_H

#include "efi/record.h"

#define MAX_RECS 512
extern char rec_type[MAX_RECS][24];
extern char rec_json[MAX_RECS][2048];
extern unsigned nrecs;          /* records kept (those past MAX_RECS are dropped) */

/* struct sink's emit: keep one record. */
void capture(struct sink *s, const char *type, const char *json, const char *human);
/* Records of this type whose JSON holds needle1 and needle2 (NULL: any). */
unsigned count_records(const char *type, const char *needle1, const char *needle2);

#endif
