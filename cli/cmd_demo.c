/* scankd demo: the main job on the default scene in one command — build the
 * tree, render the shaded and heat-map images, and prove the tree right with
 * the verifier. It runs the render and verify subcommands, so the demo shows
 * exactly what those commands do. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"

static const char *const k_cmd = "demo";

/* The default scene lies beside the executable, where an install puts it
 * (<prefix>/bin/../share/scankd/scenes) or where the build copies it next to
 * the build tree's scankd (<build>/share/scankd/scenes; cli/CMakeLists.txt),
 * so that scankd finds it wherever it was installed or built. */
static const char *const k_scene_places[] = {"../share/scankd/scenes/cornell_box.obj",
                                             "share/scankd/scenes/cornell_box.obj"};
enum { NUM_SCENE_PLACES = sizeof k_scene_places / sizeof k_scene_places[0] };

/* The folder holding the running executable, or false. */
static bool exe_folder(char *dir, size_t bytes)
{
    ssize_t n = readlink("/proc/self/exe", dir, bytes - 1);
    if (n <= 0)
        return false;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return false;
    *slash = '\0';
    return true;
}

/* Fills path with the default scene and returns true, or names where it
 * looked (in path) and returns false. */
static bool find_default_scene(char *path, size_t bytes)
{
    char dir[4096], candidate[4096 + 64];
    if (!exe_folder(dir, sizeof dir)) {
        snprintf(path, bytes, "/proc/self/exe (unreadable, so the executable's folder is unknown)");
        return false;
    }
    for (int i = 0; i < NUM_SCENE_PLACES; i++) {
        snprintf(candidate, sizeof candidate, "%s/%s", dir, k_scene_places[i]);
        if (access(candidate, R_OK) == 0) {
            snprintf(path, bytes, "%s", candidate);
            return true;
        }
    }
    snprintf(path, bytes, "%s/%s and %s/%s", dir, k_scene_places[0], dir, k_scene_places[1]);
    return false;
}

static void print_usage(FILE *f)
{
    char scene[2 * 4096 + 256];
    bool found = find_default_scene(scene, sizeof scene);
    fprintf(f,
            "usage: scankd demo [SCENE.obj] [-o DIR] [--device gpu|cpu|auto]\n"
            "\n"
            "Builds a kd-tree over SCENE (default: the project's Cornell box,\n"
            "%s%s), renders a shaded image and a traversal heat map,\n"
            "then verifies the tree (exhaustive invariants and ray agreement with brute force).\n"
            "\n"
            "options:\n"
            "  -o DIR             folder for the images (default out)\n"
            "  --device KIND      where to build and trace: gpu, cpu or auto (default auto)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 when the tree verified, 1 on any failure, 2 usage error.\n",
            found ? "" : "missing: looked for ", scene);
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
    char default_scene[2 * 4096 + 256];
    if (!scene) {
        if (!find_default_scene(default_scene, sizeof default_scene)) {
            kd_cli_error(k_cmd, "the default scene is missing: looked for %s; name a scene: "
                                "scankd demo SCENE.obj", default_scene);
            return KD_EXIT_FAILURE;
        }
        scene = default_scene;
    }

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
