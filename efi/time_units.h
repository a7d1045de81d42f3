/* Time units: one definition for every file that converts between
 * nanoseconds (plat_now_ns, plat_delay_ns) and larger units. */
#ifndef BAREMARK_TIME_UNITS_H
#define BAREMARK_TIME_UNITS_H

#define NS_PER_US 1000ull
#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull

#endif
