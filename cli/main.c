/* scankd: command-line entry. Dispatches to one subcommand per file (cmd_*.c). */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "cuda_status.h"
#include "commands.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

int kd_cmd_convert(int argc, char **argv); /* cmd_convert.c */

static const subcommand k_subcommands[] = {
    {"demo", kd_cmd_demo, "build, render and verify the default scene (the main job)"},
    {"info", kd_cmd_info, "load an OBJ file and report what it holds"},
    {"build", kd_cmd_build, "build a kd-tree, print its statistics, optionally save it"},
    {"render", kd_cmd_render, "ray-cast an image (shaded, depth, heat map)"},
    {"verify", kd_cmd_verify, "prove a tree right: invariants and ray agreement"},
    {"stats", kd_cmd_stats, "statistics of a tree (SAH cost, depth, leaves)"},
    {"bench", kd_cmd_bench, "benchmark loading, building and rendering scenes"},
    {"profile", kd_cmd_profile, "profile the GPU primitives against each other and CUB"},
    {"convert", kd_cmd_convert, "write a scene as PLY or OBJ (the triangles it loads to)"},
};

static void print_help(FILE *f)
{
    fprintf(f,
            "usage: scankd <command> [options]\n"
            "\n"
            "scankd builds kd-trees for ray tracing on the GPU with scan-based splitting,\n"
            "checks them against an exact-SAH CPU reference and ray-casts debug images.\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof k_subcommands / sizeof k_subcommands[0]; i++)
        fprintf(f, "  %-9s %s\n", k_subcommands[i].name, k_subcommands[i].summary);
    fprintf(f,
            "\n"
            "Run 'scankd <command> --help' for a command's options.\n"
            "Exit status: 0 success, 1 failure, 2 usage error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return kd_cli_usage_error(NULL, "no command given");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
        print_help(stdout);
        return KD_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0) {
        printf("scankd %s\nCUDA devices: %d\n", KD_VERSION, kd_cli_have_gpu() ? kd_cuda_device_count() : 0);
        return KD_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof k_subcommands / sizeof k_subcommands[0]; i++)
        if (strcmp(name, k_subcommands[i].name) == 0)
            return k_subcommands[i].run(argc - 1, argv + 1);
    return kd_cli_usage_error(NULL, "unknown command '%s'", name);
}
