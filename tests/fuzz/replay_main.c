/* The replay driver: runs a fuzz target's LLVMFuzzerTestOneInput on every file
 * given, or in the folders given, as libFuzzer would on its corpus, without clang:
 * the fuzz-labelled tests run the seed corpora and every past finding this way on
 * any compiler. A failing input aborts (the target's checks) or crashes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 1 << 16, size = 0;
    uint8_t *data = malloc(cap);
    size_t got;
    while ((got = fread(data + size, 1, cap - size, f)) > 0) {
        size += got;
        if (size == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    uint8_t *exact = malloc(size ? size : 1); /* so that reading past the end is caught where it can be */
    memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int run_path(const char *path, int *count)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "replay: %s not found\n", path);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        (*count)++;
        return run_file(path);
    }
    DIR *d = opendir(path);
    int failures = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        failures += run_path(child, count);
    }
    if (d)
        closedir(d);
    return failures;
}

int main(int argc, char **argv)
{
    int count = 0, failures = 0;
    for (int i = 1; i < argc; i++)
        failures += run_path(argv[i], &count);
    printf("replay: %d inputs run%s\n", count, failures ? ", some unreadable" : "");
    return failures || count == 0 ? 1 : 0;
}
