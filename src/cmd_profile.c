/* scankd profile: not built yet (issue #4). Says so plainly rather than pretend. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

int kd_cmd_profile(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: scankd profile ...\n\n'scankd profile' is not implemented yet (issue #4).\n");
        return KD_EXIT_OK;
    }
    kd_cli_error("profile", "not implemented yet (issue #4)");
    return KD_EXIT_FAILURE;
}
