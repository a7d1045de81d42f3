/* LSI Fusion-MPT SAS driver: what the rest of the program sees of it. The
 * driver's files share drivers/mpt/mpt_types.h (its layers and call map). */
#ifndef BAREMARK_MPT_H
#define BAREMARK_MPT_H

#include "../blkdev.h"

extern const struct bm_driver mpt_driver;

#endif
