/* MegaRAID SAS driver (MFI firmware interface): one disk per logical drive
 * and per pass-through (JBOD / system) physical drive. */
#ifndef BAREMARK_MEGASAS_H
#define BAREMARK_MEGASAS_H

#include "../blkdev.h"

extern const struct bm_driver megasas_driver;

#endif
