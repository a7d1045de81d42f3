/* Memory benchmark: placeholder until the engine lands. */
#include "mem.h"
#include "../record.h"

int mem_run(const struct config *c, const struct sysinfo *si)
{
    (void)c;
    (void)si;
    return BM_OK;
}
