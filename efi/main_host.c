/* Linux entry point of the host build: build/host/baremark key=value ... */
#include "app.h"
#include "platform.h"

void plat_host_set_args(int argc, char **argv);

int main(int argc, char **argv)
{
    int exit_mode;
    plat_host_set_args(argc, argv);
    return baremark_main(&exit_mode);
}
