/* scankd info: not built yet (issue #2). Says so plainly rather than pretend. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

int kd_cmd_info(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: scankd info ...\n\n'scankd info' is not implemented yet (issue #2).\n");
        return KD_EXIT_OK;
    }
    kd_cli_error("info", "not implemented yet (issue #2)");
    return KD_EXIT_FAILURE;
}
