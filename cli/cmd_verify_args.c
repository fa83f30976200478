/* scankd verify: its options, help text and command-line parsing. */
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "image.h"
#include "cmd_verify.h"
#include "verify.h"

static const char k_cmd[] = "verify";

static void print_about(FILE *f)
{
    fprintf(f,
            "usage: scankd verify SCENE.obj [options]\n"
            "\n"
            "Proves a kd-tree right (built with the CPU exact-SAH builder, or on the GPU with\n"
            "--device gpu, or given by --tree):\n"
            " (a) invariants, exhaustively: child indices in range and after their parent,\n"
            "     every node reached once from the root, leaf ranges inside the index array,\n"
            "     triangle indices in range, splits inside their node's box (so children\n"
            "     partition it), leaf depth within the tree's cap, the root box containing every\n"
            "     triangle, and every triangle that truly overlaps a leaf's closed box (exact\n"
            "     triangle-box test) listed in that leaf;\n"
            " (b) ray agreement: for every pixel of the verification image (on scenes over %d\n"
            "     triangles a random sample of %d pixels) plus %d rays from random points inside\n"
            "     the scene in random directions, the tree's closest hit must equal the\n"
            "     brute-force closest hit over all triangles: the same triangle, or a different\n"
            "     one at the same distance within a relative tolerance (coincident triangles).\n"
            "     The camera rays' diffuse bounces (one cosine-weighted ray from each hit, drawn\n"
            "     from --seed and the pixel, as render --ray-kind diffuse casts them) are checked\n"
            "     against brute force the same way.\n"
            " GPU hits (--device gpu): the verification camera and its bounces are ray-cast on\n"
            "     the GPU and on the CPU through the same tree, and every pixel's primary and\n"
            "     bounce rays must hit the same triangles.\n"
            "The checks run on the CPU; only the build and the GPU side of the hit check use\n"
            "the GPU. Any violation or mismatch makes the run fail, and so does a run that\n"
            "verified nothing: no ray hit the scene, or the camera cannot frame it.\n",
            KD_VERIFY_SAMPLE_ABOVE, KD_VERIFY_DEFAULT_SAMPLE, KD_VERIFY_DEFAULT_INTERIOR);
}

static void set_defaults(void *args)
{
    verify_args *a = args;
    memset(a, 0, sizeof *a);
    a->interior_rays = KD_VERIFY_DEFAULT_INTERIOR;
    a->seed = 1;
    a->tolerance = KD_VERIFY_DEFAULT_TOLERANCE;
    a->threshold = KD_VERIFY_DEFAULT_THRESHOLD;
}

#define ARG(field) offsetof(verify_args, field)

static const kd_cli_option k_options[] = {
    {.kind = KD_CLI_POSITIONAL, .metavar = "scene", .offset = ARG(scene)},
    KD_CLI_DEVICE_OPTION(ARG(device), "; where the tree is built; gpu also checks GPU hits; gpu without a device fails"),
    KD_CLI_MEMORY_LIMIT_OPTION(ARG(device_memory_limit), 0),
    {.kind = KD_CLI_STRING, .name = "--tree", .metavar = "FILE", .offset = ARG(tree),
     .help = "verify this saved tree instead of building one; it must have been built over this very "
             "scene (the file records the mesh's fingerprint)"},
    KD_CLI_FORCE_TREE_OPTION(ARG(force_tree)),
    {.kind = KD_CLI_INT, .name = "--rays", .metavar = "N", .offset = ARG(rays), .min = 1, .max = 100000000,
     .expects = "a whole number in 1..10^8", .help = "check a random sample of N camera rays (pixels)"},
    {.kind = KD_CLI_FLAG, .name = "--all-pixels", .offset = ARG(all_pixels),
     .help = "check every pixel, whatever the scene size"},
    {.kind = KD_CLI_INT, .name = "--interior-rays", .metavar = "N", .offset = ARG(interior_rays), .min = 0,
     .max = 100000000, .expects = "a whole number in 0..10^8",
     .help = "rays from inside the scene (default %D; 0 for none)"},
    {.kind = KD_CLI_INT, .name = "--seed", .metavar = "S", .offset = ARG(seed), .min = 0,
     .max = 2147483647.0, .expects = "a whole number in 0..2^31-1",
     .help = "seed of the random samples and of the diffuse bounces (default %D)"},
    {.kind = KD_CLI_FLOAT, .name = "--tolerance", .metavar = "R", .offset = ARG(tolerance), .min = 0,
     .max = 1, .flags = KD_CLI_MAX_OPEN,
     .help = "relative distance tolerance for coincident triangles (default %D)"},
    {.kind = KD_CLI_STRING, .name = "--output", .alias = "-o", .metavar = "FILE", .offset = ARG(output),
     .help = "write the verification image: the shaded render with every mismatched pixel in red "
             "(.png, or .jpg for JPEG, by its name; '-': PNG on stdout)"},
    {.kind = KD_CLI_STRING, .name = "--compare", .metavar = "REF.png", .offset = ARG(compare),
     .help = "also compare the shaded render (same camera; --size defaults to REF's size) with REF"},
    {.kind = KD_CLI_FLOAT, .name = "--compare-threshold", .metavar = "T", .offset = ARG(threshold),
     .min = 0, .max = 255,
     .help = "fail when the mean absolute difference per channel, in 0..255 units over all pixels, "
             "exceeds T (default %D)"},
    KD_CLI_CAMERA_OPTIONS(ARG(camera), "image size in pixels, WxH (or W H), each 1..16384 (default "
                                       KD_CLI_STR(KD_VERIFY_DEFAULT_SIZE) "x"
                                       KD_CLI_STR(KD_VERIFY_DEFAULT_SIZE) ")"),
    KD_CLI_VIEW_OPTION(ARG(view)),
    {.kind = KD_CLI_INT, .name = "--threads", .metavar = "N", .offset = ARG(threads), .min = 1, .max = 256,
     .help = "worker threads, %R (default: all cores)"},
    {.kind = KD_CLI_STRING, .name = "--json", .metavar = "FILE|-", .offset = ARG(json),
     .help = "also write the results as JSON ('-': stdout, which then carries only the JSON)"},
    {.kind = KD_CLI_FLAG, .name = "--quiet", .offset = ARG(quiet), .help = "no progress line and no text report"},
};

#undef ARG

static const kd_cli_command k_command = {
    .name = "verify",
    .about = print_about,
    .options = k_options,
    .num_options = KD_CLI_COUNT(k_options),
    .epilog = "Exit status: 0 everything checked passed, 1 a violation, a mismatch, an image\n"
              "difference over the threshold, a GPU/CPU hit difference, nothing verified or an\n"
              "error (--device gpu without a CUDA device included), 2 usage error.\n",
    .style = KD_CLI_SAY_EXPECTED,
    .args_size = sizeof(verify_args),
    .defaults = set_defaults,
};

int kd_verify_parse_args(int argc, char **argv, verify_args *a)
{
    set_defaults(a);
    kd_cli_seen seen;
    const int code = kd_cli_parse(&k_command, argc, argv, a, &seen);
    if (code >= 0)
        return code;
    if (!a->scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd verify SCENE.obj [options])");
    if (kd_cli_given(&k_command, &seen, "--compare-threshold") && !a->compare)
        return kd_cli_usage_error(k_cmd, "--compare-threshold needs --compare REF.png");
    if (a->rays && a->all_pixels)
        return kd_cli_usage_error(k_cmd, "--rays and --all-pixels exclude each other");
    if (a->output && kd_image_format_of(a->output) == KD_IMAGE_FORMAT_UNKNOWN)
        return kd_cli_usage_error(k_cmd, "-o %s: verify writes .png or .jpg images, not %s", a->output,
                                  kd_image_extension(a->output));
    if (kd_cli_is_stdout(a->output) && kd_cli_is_stdout(a->json))
        return kd_cli_usage_error(k_cmd, "-o - and --json - cannot both write to stdout");
    return -1;
}
