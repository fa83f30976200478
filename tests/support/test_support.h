/* A tiny test harness shared by every test program: checks that count
 * failures and report file and line, and helpers for finding scenes. */
#ifndef KD_TEST_SUPPORT_H
#define KD_TEST_SUPPORT_H

#include <stdbool.h>
#include <stdio.h>

extern int kd_test_failures;
extern int kd_test_checks;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        kd_test_checks++;                                                              \
        if (!(cond)) {                                                                 \
            kd_test_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECK_MSG(cond, ...)                                                           \
    do {                                                                               \
        kd_test_checks++;                                                              \
        if (!(cond)) {                                                                 \
            kd_test_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
        }                                                                              \
    } while (0)

/* Prints "N checks, M failed" and returns the process exit code (0 or 1). */
int kd_test_finish(const char *name);

/* Exit code that ctest reads as "skipped" (SKIP_RETURN_CODE). */
enum { KD_TEST_SKIP = 77 };

/* Full path of a shared scene by base name ("stanford_bunny"): the .obj if it
 * exists, else the .obj.gz. Returns false (and the .obj path) when neither exists. */
bool kd_test_shared_scene(const char *base, char *path, size_t path_bytes);

/* Full path of a file in the project's scenes/ folder. */
void kd_test_project_scene(const char *file, char *path, size_t path_bytes);

/* Whether the scankd executable under test sees a CUDA device (it says so
 * in --version), for the CLI tests, which link no CUDA runtime themselves. */
bool kd_test_cli_have_gpu(void);

/* A path under the test build's scratch folder. */
void kd_test_tmp_path(const char *file, char *path, size_t path_bytes);

#endif
