/* The address rules every SMBus transaction passes (smbus_bus.h), checked
 * by the layer above the drivers and again by each driver. */
#include "smbus_bus.h"

bool smbus_xact_allowed(uint8_t addr, bool write, uint8_t cmd, uint8_t data)
{
    bool spa = addr == SMBUS_EE1004_SPA0 || addr == SMBUS_EE1004_SPA1;

    if (!write)
        return smbus_addr_is_spd(addr) || spa;
    if (spa)
        return cmd == 0 && data == 0;
    return smbus_addr_is_spd(addr) && cmd == SMBUS_SPD5118_MR11 && data <= SMBUS_SPD5118_MR11_PAGE_MASK;
}
