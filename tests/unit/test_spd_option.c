/* The spd= option: on (default), force, off; anything else refused with
 * a message naming what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "config.h"
#include "inventory/spd_inventory.h"

static void test_spd_option_values(void **state)
{
    static struct config c;
    char err[CONFIG_ERR_LEN];
    (void)state;
    config_defaults(&c);
    assert_int_equal(c.spd, SPD_MODE_ON);
    assert_int_equal(config_parse_args(&c, "spd=force", err, sizeof(err)), BM_OK);
    assert_int_equal(c.spd, SPD_MODE_FORCE);
    assert_int_equal(config_parse_args(&c, "spd=off", err, sizeof(err)), BM_OK);
    assert_int_equal(c.spd, SPD_MODE_OFF);
    assert_int_equal(config_parse_args(&c, "spd=yes", err, sizeof(err)), BM_EINVAL);
    assert_non_null(strstr(err, "on, force or off"));
    assert_non_null(strstr(config_help_text(), "spd"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spd_option_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
