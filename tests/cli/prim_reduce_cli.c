/* CPU test of the profiler's command line that needs no GPU: --help exits 0
 * and prints the usage, an unknown primitive or option exits 2, and without
 * a GPU a valid request exits 1 and says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "test_support.h"

static int run(const char *args, char *output, size_t output_bytes)
{
    char command[2048];
    snprintf(command, sizeof command, "\"%s\" %s 2>&1", KD_SCANKD_EXE, args);
    FILE *p = popen(command, "r");
    if (!p)
        return -1;
    size_t used = 0;
    output[0] = '\0';
    while (used + 1 < output_bytes) {
        const size_t got = fread(output + used, 1, output_bytes - 1 - used, p);
        if (got == 0)
            break;
        used += got;
    }
    output[used] = '\0';
    char sink[256];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void)
{
    static char out[16384];
    CHECK(run("profile --help", out, sizeof out) == 0);
    CHECK(strstr(out, "usage: scankd profile") != NULL);
    CHECK(strstr(out, "--block-sizes") != NULL);
    CHECK(run("profile bogus", out, sizeof out) == 2);
    CHECK(strstr(out, "bogus") != NULL);
    CHECK(run("profile reduce --sizes 12:10", out, sizeof out) == 2);
    CHECK(run("profile reduce --reps 0", out, sizeof out) == 2);
    CHECK(run("profile reduce --op median", out, sizeof out) == 2);
    CHECK(run("profile reduce --block-sizes 100", out, sizeof out) == 2);
    CHECK(run("profile reduce --frobnicate", out, sizeof out) == 2);
    if (!kd_test_cli_have_gpu()) {
        CHECK(run("profile reduce --sizes 10:12", out, sizeof out) == 1);
        CHECK(strstr(out, "no CUDA device: the profiler needs a GPU") != NULL);
        CHECK(run("profile", out, sizeof out) == 1);
    }
    return kd_test_finish("prim_reduce_cli");
}
