/* scankd demo: the main job on the default scene in one command — build the
 * tree, render the shaded and heat-map images, and prove the tree right with
 * the verifier. It runs the render and verify subcommands, so the demo shows
 * exactly what those commands do. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char *const k_cmd = "demo";

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: scankd demo [SCENE.obj] [-o DIR] [--device gpu|cpu|auto]\n"
            "\n"
            "Builds a kd-tree over SCENE (default: the project's Cornell box,\n"
            "%s), renders a shaded image and a traversal heat map,\n"
            "then verifies the tree (exhaustive invariants and ray agreement with brute force).\n"
            "\n"
            "options:\n"
            "  -o DIR             folder for the images (default out)\n"
            "  --device KIND      where to build and trace: gpu, cpu or auto (default auto)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when the tree verified, 1 on any failure, 2 usage error.\n",
            KD_DEFAULT_SCENE);
}

int kd_cmd_demo(int argc, char **argv)
{
    const char *scene = NULL, *dir = "out", *device = "auto";
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return KD_EXIT_OK;
        } else if (strcmp(arg, "-o") == 0) {
            if (!(dir = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--device") == 0) {
            if (!(device = kd_cli_option_value(k_cmd, argc, argv, &i)))
                return KD_EXIT_USAGE;
            if (strcmp(device, "gpu") && strcmp(device, "cpu") && strcmp(device, "auto"))
                return kd_cli_usage_error(k_cmd, "--device '%s': expected gpu, cpu or auto", device);
        } else if (kd_cli_scene_argument(k_cmd, arg, &scene) != KD_EXIT_OK) {
            return KD_EXIT_USAGE;
        }
    }
    if (!scene)
        scene = KD_DEFAULT_SCENE;

    char shaded[1024], steps[1024], diff[1024];
    snprintf(shaded, sizeof shaded, "%s/demo_shaded.png", dir);
    snprintf(steps, sizeof steps, "%s/demo_steps.png", dir);
    snprintf(diff, sizeof diff, "%s/demo_verify.png", dir);

    printf("== scankd render %s\n", scene);
    fflush(stdout);
    char *render_shaded[] = {"render", (char *)scene, "--device", (char *)device, "--image", "shaded",
                             "-o", shaded, NULL};
    int rc = kd_cmd_render(8, render_shaded);
    if (rc != KD_EXIT_OK)
        return rc;
    char *render_steps[] = {"render", (char *)scene, "--device", (char *)device, "--image", "steps",
                            "-o", steps, "--quiet", NULL};
    rc = kd_cmd_render(9, render_steps);
    if (rc != KD_EXIT_OK)
        return rc;
    printf("\n== scankd verify %s\n", scene);
    fflush(stdout);
    char *verify[] = {"verify", (char *)scene, "--device", (char *)device, "-o", diff, NULL};
    rc = kd_cmd_verify(6, verify);
    if (rc != KD_EXIT_OK)
        return rc;
    printf("\ndemo: wrote %s, %s and %s\n", shaded, steps, diff);
    return KD_EXIT_OK;
}
