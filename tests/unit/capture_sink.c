/* A record sink that keeps what it is given (see capture_sink.h). */
#include <string.h>

#include "capture_sink.h"
#include "efi/lib/bmlib.h"

char rec_type[MAX_RECS][24];
char rec_json[MAX_RECS][2048];
unsigned nrecs;

void capture(struct sink *s, const char *type, const char *json, const char *human)
{
    (void)s;
    (void)human;
    if (nrecs < MAX_RECS) {
        bm_strlcpy(rec_type[nrecs], type, sizeof(rec_type[0]));
        bm_strlcpy(rec_json[nrecs], json, sizeof(rec_json[0]));
        nrecs++;
    }
}

unsigned count_records(const char *type, const char *needle1, const char *needle2)
{
    unsigned n = 0;

    for (unsigned i = 0; i < nrecs; i++)
        if (!strcmp(rec_type[i], type) && (!needle1 || strstr(rec_json[i], needle1)) &&
            (!needle2 || strstr(rec_json[i], needle2)))
            n++;
    return n;
}
