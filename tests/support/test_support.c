#include "test_support.h"

#include <string.h>
#include <unistd.h>

int kd_test_failures = 0;
int kd_test_checks = 0;

int kd_test_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, kd_test_checks, kd_test_failures);
    return kd_test_failures == 0 ? 0 : 1;
}

bool kd_test_shared_scene(const char *base, char *path, size_t path_bytes)
{
    snprintf(path, path_bytes, "%s/%s.obj", KD_SHARED_SCENES_DIR, base);
    if (access(path, R_OK) == 0)
        return true;
    snprintf(path, path_bytes, "%s/%s.obj.gz", KD_SHARED_SCENES_DIR, base);
    if (access(path, R_OK) == 0)
        return true;
    snprintf(path, path_bytes, "%s/%s.obj", KD_SHARED_SCENES_DIR, base);
    return false;
}

void kd_test_project_scene(const char *file, char *path, size_t path_bytes)
{
    snprintf(path, path_bytes, "%s/%s", KD_PROJECT_SCENES_DIR, file);
}

void kd_test_tmp_path(const char *file, char *path, size_t path_bytes)
{
    snprintf(path, path_bytes, "%s/%s", KD_TEST_TMP_DIR, file);
}

bool kd_test_cli_have_gpu(void)
{
    static int cached = -1;
    if (cached >= 0)
        return cached != 0;
    char command[1200];
    snprintf(command, sizeof command, "'%s' --version", KD_SCANKD_EXE);
    FILE *p = popen(command, "r");
    int count = 0;
    char line[256];
    while (p && fgets(line, sizeof line, p))
        if (sscanf(line, "CUDA devices: %d", &count) == 1)
            break;
    if (p)
        pclose(p);
    cached = count > 0;
    return cached != 0;
}
