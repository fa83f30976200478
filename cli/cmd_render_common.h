/* What the build, stats, render and verify commands share: the --device
 * choice, the camera and SAH-constant options, loading the scene, a progress
 * line on a terminal and the report of how the scene and its tree were
 * prepared. */
#ifndef KD_CMD_RENDER_COMMON_H
#define KD_CMD_RENDER_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "camera.h"
#include "cli_options.h"
#include "cli_progress.h"
#include "cli_util.h"
#include "cpu_render.h"
#include "gpu_render.h"
#include "render_scene.h"

/* --device gpu|cpu|auto. */
typedef enum kd_cli_device {
    KD_CLI_DEVICE_AUTO = 0, /* the GPU when a CUDA device exists, else the CPU */
    KD_CLI_DEVICE_CPU,
    KD_CLI_DEVICE_GPU
} kd_cli_device;

/* The names of kd_cli_device, in its order. */
extern const char *const kd_cli_device_names[];

/* The --device row of an option table whose argument struct holds the
 * choice as an int at offset `at`; more_help ends its help text. */
#define KD_CLI_DEVICE_OPTION(at, more_help)                                                         \
    {.kind = KD_CLI_ENUM, .name = "--device", .metavar = "KIND", .offset = (at),                    \
     .names = kd_cli_device_names, .expects = "gpu, cpu or auto",                                  \
     .help = "gpu, cpu or auto (default auto: the GPU when a CUDA device exists, else the CPU "     \
             "with a notice on stderr)" more_help}

/* Resolves the requested device to CPU or GPU. auto without a CUDA device
 * falls back to the CPU with one notice line on stderr ("scankd <command>: no
 * CUDA device, <fallback>"), left out when quiet. Returns -1 to go on, or
 * KD_EXIT_FAILURE (message printed) when gpu is asked for and none exists. */
int kd_cli_device_resolve(const char *command, kd_cli_device requested, bool quiet,
                          const char *fallback, kd_cli_device *resolved);

/* The option table's parser of --sah-constants t,i,e into a kd_sah_constants
 * (three numbers >= 0, e <= 1). */
int kd_cli_sah_constants_option(const char *command, int argc, char **argv, int *i, void *dest);

/* The camera options (--eye --look --up --fov --size WxH) as rows of an option
 * table whose argument struct holds a kd_camera_request at offset `at`;
 * size_help is the help text of --size. */
int kd_cli_camera_option(const char *command, int argc, char **argv, int *i, void *dest);
#define KD_CLI_CAMERA_OPTIONS(at, size_help)                                                       \
    {.kind = KD_CLI_CUSTOM, .name = "--eye", .metavar = "X,Y,Z", .offset = (at),                   \
     .parse = kd_cli_camera_option, .help = "camera position (default: framed on the scene bounds)"},\
    {.kind = KD_CLI_CUSTOM, .name = "--look", .metavar = "X,Y,Z", .offset = (at),                  \
     .parse = kd_cli_camera_option,                                                               \
     .help = "point looked at (default: centre of the scene bounds)"},                             \
    {.kind = KD_CLI_CUSTOM, .name = "--up", .metavar = "X,Y,Z", .offset = (at),                    \
     .parse = kd_cli_camera_option, .help = "up direction (default 0,1,0)"},                       \
    {.kind = KD_CLI_CUSTOM, .name = "--fov", .metavar = "DEG", .offset = (at),                     \
     .parse = kd_cli_camera_option,                                                               \
     .help = "vertical field of view in degrees, 0 < DEG < 180 (default 40)"},                     \
    {.kind = KD_CLI_CUSTOM, .name = "--size", .metavar = "WxH", .offset = (at),                    \
     .parse = kd_cli_camera_option, .help = (size_help)}

/* The --device-memory-limit row of an option table (a uint64_t at offset
 * `at`; 0: no limit), with the flags of the command's GPU-only options. */
#define KD_CLI_MEMORY_LIMIT_OPTION(at, option_flags)                                               \
    {.kind = KD_CLI_BYTES, .name = "--device-memory-limit", .metavar = "BYTES", .offset = (at),     \
     .flags = (option_flags),                                                                     \
     .help = "the GPU builder holds at most BYTES of device memory (K, M, G, T: powers of 1024, "  \
             "e.g. 80G); a build that needs more runs its lower stages in batches, and one that "  \
             "cannot fails, saying how much it needs (default: none but the device's)"}

/* The --max-refs-per-triangle row (a float at offset `at`), with the flags
 * of the command's GPU-only options. */
#define KD_CLI_MAX_REFS_OPTION(at, option_flags)                                                   \
    {.kind = KD_CLI_FLOAT, .name = "--max-refs-per-triangle", .metavar = "R", .offset = (at),      \
     .min = 2, .max = 1024, .flags = (option_flags),                                              \
     .help = "GPU builder: the references a path may multiply a triangle into, %R: a larger "      \
             "budget gives lower-SAH trees on scenes of large slanted triangles, at more memory "  \
             "and build time (default %D)"}

/* Loads an OBJ scene into *mesh and its wall time into *load_ms (host
 * milliseconds), with a progress line (progress may be NULL); with gpu (the
 * command builds on the GPU) the CUDA context is made and the builder's
 * kernels loaded meanwhile (kd_scene_load_mesh). On failure prints
 * "scankd <command>: why" and returns false. */
bool kd_cli_load_mesh(const char *command, const char *obj_path, kd_cli_progress *progress, bool gpu,
                      kd_mesh *mesh, double *load_ms);

/* What kd_cli_scene_and_camera prepares. */
typedef struct kd_cli_scene_args {
    const char *scene, *tree;  /* the OBJ, and a tree file or NULL to build */
    bool force_tree;           /* --force-tree: a tree of another mesh with a warning */
    int threads;               /* CPU workers (0: all cores) */
    kd_cli_device device;      /* resolved: where to build */
    const kd_camera_request *camera;
    int default_size;          /* square, unless asked otherwise */
    uint64_t max_device_bytes; /* --device-memory-limit; 0: none */
    kd_cli_progress *progress; /* the loading and building steps' line, or NULL */
    const char *view;          /* --view NAME, or NULL */
} kd_cli_scene_args;

/* The --view row of an option table (a const char * at offset `at`). */
#define KD_CLI_VIEW_OPTION(at)                                                                      \
    {.kind = KD_CLI_STRING, .name = "--view", .metavar = "NAME", .offset = (at),                     \
     .help = "a named camera: default (the outside framing), inside (an eye inside the scene's box, "\
             "in its roomiest free space, looking along the longest horizontal axis), or a view of "  \
             "this scene in a views file (views.txt beside the scene, then share/scankd/scenes/"     \
             "views.txt beside scankd); --eye, --look, --up and --fov override its parts; an unknown "\
             "NAME lists the scene's views"}

/* The views file places, in the order they are read, for the scene at
 * scene_path: views.txt in the scene's folder, then the one shipped beside
 * the executable. Returns how many paths it filled (at most 3). */
int kd_cli_views_files(const char *scene_path, char paths[][4096 + 64]);

/* path receives <the executable's folder>/<place>/<file> for the first
 * place of share/scankd/scenes beside the executable (an install's
 * ../share, or the build tree's share) where the file is readable; false,
 * with the places looked at in path, when none is. */
bool kd_cli_share_file(const char *file, char *path, size_t bytes);

/* Resolves --view NAME into req for the scene at scene_path before the
 * scene is loaded: a views file's line, or a computed view (*computed),
 * which kd_view_computed finishes once the tree exists. Returns -1 to go on,
 * or the exit code with the message printed: 2 for an unknown name (the
 * message lists the scene's views), 1 for a malformed views file. */
int kd_cli_view_resolve(const char *command, const char *scene_path, const char *view, kd_camera_request *req,
                        bool *computed);

/* Loads the scene and builds its tree on the resolved device (or loads the
 * tree file, whose header is checked before the mesh is loaded), sets the
 * camera up framed on the scene and prints the "scene", "tree" and "camera"
 * lines to report unless it is NULL; a --force-tree warning goes to stderr.
 * Returns -1 to go on, or the exit code with the message printed and
 * nothing left to free: 2 for a camera the options make impossible, 1 for
 * any other failure (a scene the automatic camera cannot frame included). */
int kd_cli_scene_and_camera(const char *command, const kd_cli_scene_args *args, FILE *report, kd_scene *scene,
                            kd_camera *cam);

/* The --force-tree row of an option table (a bool at offset `at`). */
#define KD_CLI_FORCE_TREE_OPTION(at)                                                                \
    {.kind = KD_CLI_FLAG, .name = "--force-tree", .offset = (at),                                    \
     .help = "use the --tree file even when it was built over another mesh (its fingerprint differs) "\
             "or records none (format version 1), with a warning; a tree of another triangle count, "\
             "or whose box does not hold the scene, is refused all the same"}

/* Casts the camera's rays through the scene on the GPU: uploads the tree
 * and triangles, runs kd_gpu_render_with and frees the upload. */
kd_status kd_cli_gpu_cast(const kd_scene *scene, const kd_camera *cam, const kd_gpu_render_options *options,
                          kd_render_buffers *buf, kd_gpu_render_stats *stats, kd_error *err);

/* The --ray-kind row of an option table (an int holding a kd_ray_kind at offset
 * `at`); verify's --rays is a count of rays. */
extern const char *const kd_cli_ray_kind_names[];
#define KD_CLI_RAYS_OPTION(at, more_help)                                                           \
    {.kind = KD_CLI_ENUM, .name = "--ray-kind", .metavar = "KIND", .offset = (at),                      \
     .names = kd_cli_ray_kind_names, .expects = "primary or diffuse",                               \
     .help = "primary (default: one camera ray per pixel) or diffuse (the camera rays, then one "    \
             "cosine-weighted diffuse bounce from each primary hit, seeded so the CPU and the GPU "   \
             "cast the same rays; timed apart)" more_help}

/* "scene ..." and "tree ..." lines of the text report. */
void kd_cli_print_scene(FILE *f, const char *obj_path, const char *tree_path, const kd_scene *scene);
void kd_cli_print_camera(FILE *f, const kd_camera *cam);
/* The same as JSON members of an open object. */
void kd_cli_json_scene(kd_json *json, const char *obj_path, const char *tree_path,
                       const kd_scene *scene);
void kd_cli_json_camera(kd_json *json, const kd_camera *cam);

#endif
