/* Memory benchmark: latency curves, bandwidth, loaded latency, NUMA. */
#ifndef BAREMARK_MEM_H
#define BAREMARK_MEM_H

#include "../config.h"
#include "../inventory/inventory.h"

/* Run the memory benchmark at c->mem. Returns BM_OK, BM_EABORT on Esc. */
int mem_run(const struct config *c, const struct sysinfo *si);

#endif
