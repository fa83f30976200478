/* scankd demo: not built yet (issue #3). Says so plainly rather than pretend. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

int kd_cmd_demo(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: scankd demo ...\n\n'scankd demo' is not implemented yet (issue #3).\n");
        return KD_EXIT_OK;
    }
    kd_cli_error("demo", "not implemented yet (issue #3)");
    return KD_EXIT_FAILURE;
}
