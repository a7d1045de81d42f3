/* The native controller drivers baremark has, in probe order. */
#ifndef BAREMARK_REGISTRY_H
#define BAREMARK_REGISTRY_H

#include "blkdev.h"

/* NULL-terminated. */
extern const struct bm_driver *const bm_native_drivers[];

/* Find the native driver for a PCI function, or NULL. */
const struct bm_driver *registry_find(uint16_t vendor, uint16_t device, uint32_t class_code);

#endif
