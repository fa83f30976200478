/* Runs the built scankd binary (KD_SCANKD_EXE) with arguments and captures its exit
 * code, stdout and stderr, for the CLI tests. */
#ifndef KD_CLI_RUN_H
#define KD_CLI_RUN_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

typedef struct cli_result {
    int exit_code; /* -1 when it did not exit normally */
    char out[65536];
    char err[65536];
    size_t out_bytes; /* of stdout, which may hold binary data (a PNG) */
} cli_result;

/* Reads up to size - 1 bytes of path into buf, NUL-terminated; returns how many. */
static inline size_t cli_read_file(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return n;
}

/* Runs scankd with args (NULL-terminated, not counting argv[0]). */
static inline void cli_run(cli_result *r, const char *const *args)
{
    char out_path[512], err_path[512];
    char name[64];
    snprintf(name, sizeof name, "cli_out_%ld.txt", (long)getpid());
    kd_test_tmp_path(name, out_path, sizeof out_path);
    snprintf(name, sizeof name, "cli_err_%ld.txt", (long)getpid());
    kd_test_tmp_path(name, err_path, sizeof err_path);

    const char *argv[32];
    int argc = 0;
    argv[argc++] = KD_SCANKD_EXE;
    for (; args[argc - 1] && argc < 31; argc++)
        argv[argc] = args[argc - 1];
    argv[argc] = NULL;

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0)
            _exit(126);
        dup2(out, 1);
        dup2(err, 2);
        execv(KD_SCANKD_EXE, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    r->exit_code = -1;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
        r->exit_code = WEXITSTATUS(status);
    r->out_bytes = cli_read_file(out_path, r->out, sizeof r->out);
    cli_read_file(err_path, r->err, sizeof r->err);
    remove(out_path);
    remove(err_path);
}

/* Describes a command line for failure messages. */
static inline const char *cli_describe(const char *const *args)
{
    static char text[512];
    size_t n = (size_t)snprintf(text, sizeof text, "scankd");
    for (int i = 0; args[i] && n < sizeof text; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, " %s", args[i]);
    return text;
}

#endif
