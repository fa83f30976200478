/* scankd demo: the main job on the default scene in one command — build the
 * tree, render the shaded and heat-map images, and prove the tree right with
 * the verifier. It runs the render and verify subcommands, so the demo shows
 * exactly what those commands do. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "cli_util.h"
#include "cmd_render_common.h"
#include "commands.h"

static const char *const k_cmd = "demo";

/* The default scene lies beside the executable (kd_cli_share_file), so
 * that scankd finds it wherever it was installed or built. */
static bool find_default_scene(char *path, size_t bytes) { return kd_cli_share_file("cornell_box.obj", path, bytes); }

typedef struct demo_args {
    const char *scene, *dir;
    int device; /* index in kd_cli_device_names */
    const char *view; /* --view NAME, or NULL */
} demo_args;

static void print_about(FILE *f)
{
    char scene[2 * 4096 + 256];
    bool found = find_default_scene(scene, sizeof scene);
    fprintf(f,
            "usage: scankd demo [SCENE.obj] [options]\n"
            "\n"
            "Builds a kd-tree over SCENE (default: the project's Cornell box,\n"
            "%s%s), renders a shaded image and a traversal heat map,\n"
            "then verifies the tree (exhaustive invariants and ray agreement with brute force).\n",
            found ? "" : "missing: looked for ", scene);
}

static void set_defaults(void *args)
{
    demo_args *a = args;
    memset(a, 0, sizeof *a);
    a->dir = "out";
}

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = offsetof(demo_args, scene)},
    {.kind = KD_CLI_STRING, .name = "--out-dir", .alias = "-o", .metavar = "DIR",
     .offset = offsetof(demo_args, dir),
     .help = "folder for the images, made when missing (default %D); -o, kept for older scripts, names "
             "the folder here, where the other commands' -o names a file"},
    {.kind = KD_CLI_ENUM, .name = "--device", .metavar = "KIND", .offset = offsetof(demo_args, device),
     .names = kd_cli_device_names, .expects = "gpu, cpu or auto",
     .help = "where to build and trace: gpu, cpu or auto (default %D)"},
    KD_CLI_VIEW_OPTION(offsetof(demo_args, view)),
};

static const kd_cli_command k_command = {
    .name = "demo",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 when the tree verified, 1 on any failure, 2 usage error.\n",
    .style = KD_CLI_SAY_EXPECTED,
    .args_size = sizeof(demo_args),
    .defaults = set_defaults,
};

/* The images the demo writes into a folder. */
enum { DEMO_SHADED, DEMO_STEPS, DEMO_VERIFY, DEMO_NUM_IMAGES };
static const char *const k_image_names[DEMO_NUM_IMAGES] = {"demo_shaded.png", "demo_steps.png",
                                                           "demo_verify.png"};
static const char *const k_image_about[DEMO_NUM_IMAGES] = {
    "shaded render", "heat map of traversal steps per ray", "verification image (mismatches in red)"};

/* Renders both images in one run (one build), then verifies. "--" keeps a
 * scene named like an option an argument. */
static int run_steps(const demo_args *a, const char *scene, char paths[][1024])
{
    char pattern[1024];
    snprintf(pattern, sizeof pattern, "%s/demo.png", a->dir); /* render adds _shaded and _steps */
    char *device = (char *)kd_cli_device_names[a->device];
    printf("== scankd render %s\n", scene);
    fflush(stdout);
    /* --view default is the same camera as none. */
    char *view = (char *)(a->view ? a->view : "default");
    char *render[] = {"render", "--device", device, "--image", "shaded", "--image", "steps", "-o", pattern,
                      "--view", view, "--", (char *)scene, NULL};
    int rc = kd_cmd_render_as(k_cmd, 13, render);
    if (rc != KD_EXIT_OK)
        return rc;
    printf("\n== scankd verify %s\n", scene);
    fflush(stdout);
    char *verify[] = {"verify", "--device", device, "-o", paths[DEMO_VERIFY], "--view", view, "--", (char *)scene,
                      NULL};
    return kd_cmd_verify_as(k_cmd, 9, verify);
}

int kd_cmd_demo(int argc, char **argv)
{
    demo_args a;
    set_defaults(&a);
    int code = kd_cli_parse(&k_command, argc, argv, &a, NULL);
    if (code >= 0)
        return code;
    char default_scene[2 * 4096 + 256];
    const char *scene = a.scene;
    if (!scene) {
        if (!find_default_scene(default_scene, sizeof default_scene)) {
            kd_cli_error(k_cmd, "the default scene is missing: looked for %s; name a scene: "
                                "scankd demo SCENE.obj", default_scene);
            return KD_EXIT_FAILURE;
        }
        scene = default_scene;
    }
    kd_error err;
    if (kd_check_output_dir(a.dir, &err) != KD_OK) {
        kd_cli_error(k_cmd, "%s", err.message);
        return KD_EXIT_FAILURE;
    }
    char paths[DEMO_NUM_IMAGES][1024];
    for (int i = 0; i < DEMO_NUM_IMAGES; i++)
        snprintf(paths[i], sizeof paths[i], "%s/%s", a.dir, k_image_names[i]);
    if ((code = run_steps(&a, scene, paths)) != KD_EXIT_OK)
        return code;
    printf("\ndemo: wrote %d images\n", DEMO_NUM_IMAGES);
    for (int i = 0; i < DEMO_NUM_IMAGES; i++)
        printf("  %-40s %s\n", paths[i], k_image_about[i]);
    return KD_EXIT_OK;
}
