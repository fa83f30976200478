/* scankd verify: its help text and command-line parsing. */
#include <stdio.h>
#include <string.h>

#include "cmd_verify.h"
#include "kd_parallel.h"
#include "verify.h"

static const char k_cmd[] = "verify";

static void print_usage(FILE *f)
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
            " GPU hits (--device gpu): the verification camera is ray-cast on the GPU and on\n"
            "     the CPU through the same tree, and every pixel must hit the same triangle.\n"
            "The checks run on the CPU; only the build and the GPU side of the hit check use\n"
            "the GPU. Any violation or mismatch makes the run fail.\n"
            "\n"
            "options:\n"
            "  --device KIND          gpu, cpu or auto (default auto: the GPU when a CUDA device\n"
            "                         exists, else the CPU with a notice on stderr); where the\n"
            "                         tree is built; gpu also checks GPU hits; gpu without\n"
            "                         a device fails\n"
            "  --tree FILE            verify this saved tree instead of building one\n"
            "  --rays N               check a random sample of N camera rays (pixels)\n"
            "  --all-pixels           check every pixel, whatever the scene size\n"
            "  --interior-rays N      rays from inside the scene (default %d; 0 for none)\n"
            "  --seed S               seed of the random samples (default 1)\n"
            "  --tolerance R          relative distance tolerance for coincident triangles\n"
            "                         (default %g)\n"
            "  -o, --output FILE      write the verification image: the shaded render with\n"
            "                         every mismatched pixel in red\n"
            "  --compare REF.png      also compare the shaded render (same camera; --size\n"
            "                         defaults to REF's size) with REF\n"
            "  --compare-threshold T  fail when the mean absolute difference per channel, in\n"
            "                         0..255 units over all pixels, exceeds T (default %g)\n",
            KD_VERIFY_SAMPLE_ABOVE, KD_VERIFY_DEFAULT_SAMPLE, KD_VERIFY_DEFAULT_INTERIOR,
            KD_VERIFY_DEFAULT_INTERIOR, (double)KD_VERIFY_DEFAULT_TOLERANCE,
            KD_VERIFY_DEFAULT_THRESHOLD);
    kd_camera_print_options(f, 25);
    fprintf(f,
            "                         (default size %dx%d)\n"
            "  --threads N            worker threads (default: all %d cores)\n"
            "  --json FILE|-          also write the results as JSON ('-': stdout, text left out)\n"
            "  --quiet                no progress line and no text report\n"
            "  -h, --help             show this help\n"
            "\n"
            "Exit status: 0 everything checked passed, 1 a violation, a mismatch, an image\n"
            "difference over the threshold, a GPU/CPU hit difference or an error (--device gpu\n"
            "without a CUDA device included), 2 usage error.\n",
            KD_VERIFY_DEFAULT_SIZE, KD_VERIFY_DEFAULT_SIZE, kd_parallel_num_cores());
}

/* Parses the value of a numeric option; returns 0, or the usage exit code. */
static int numeric_option(const char *opt, const char *value, verify_args *a, bool *have_threshold)
{
    long n;
    float x;
    if (strcmp(opt, "--rays") == 0) {
        if (!kd_parse_int(value, 1, 100000000, &n))
            return kd_cli_usage_error(k_cmd, "--rays '%s': expected a whole number in 1..10^8", value);
        a->rays = n;
    } else if (strcmp(opt, "--interior-rays") == 0) {
        if (!kd_parse_int(value, 0, 100000000, &n))
            return kd_cli_usage_error(k_cmd, "--interior-rays '%s': expected a whole number in 0..10^8", value);
        a->interior_rays = n;
    } else if (strcmp(opt, "--seed") == 0) {
        if (!kd_parse_int(value, 0, 2147483647L, &n))
            return kd_cli_usage_error(k_cmd, "--seed '%s': expected a whole number in 0..2^31-1", value);
        a->seed = (uint64_t)n;
    } else if (strcmp(opt, "--tolerance") == 0) {
        if (!kd_parse_float(value, &x) || !(x >= 0.0f && x < 1.0f))
            return kd_cli_usage_error(k_cmd, "--tolerance '%s': expected a number in [0, 1)", value);
        a->tolerance = x;
    } else if (strcmp(opt, "--compare-threshold") == 0) {
        if (!kd_parse_float(value, &x) || !(x >= 0.0f && x <= 255.0f))
            return kd_cli_usage_error(k_cmd, "--compare-threshold '%s': expected a number in [0, 255]", value);
        a->threshold = x;
        *have_threshold = true;
    } else { /* --threads */
        if (!kd_parse_int(value, 1, 256, &n))
            return kd_cli_usage_error(k_cmd, "--threads '%s': expected a whole number in 1..256", value);
        a->threads = (int)n;
    }
    return 0;
}

int kd_verify_parse_args(int argc, char **argv, verify_args *a)
{
    static const char *const numeric[] = {"--rays", "--interior-rays", "--seed", "--tolerance",
                                          "--compare-threshold", "--threads"};
    memset(a, 0, sizeof *a);
    a->interior_rays = KD_VERIFY_DEFAULT_INTERIOR;
    a->seed = 1;
    a->tolerance = KD_VERIFY_DEFAULT_TOLERANCE;
    a->threshold = KD_VERIFY_DEFAULT_THRESHOLD;
    bool have_threshold = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        kd_error err;
        int camera = kd_camera_parse_option(argc, argv, &i, &a->camera, &err);
        if (camera < 0)
            return kd_cli_usage_error(k_cmd, "%s", err.message);
        if (camera > 0)
            continue;
        const char **text = NULL;
        bool is_numeric = false;
        for (size_t k = 0; k < sizeof numeric / sizeof numeric[0]; k++)
            is_numeric = is_numeric || strcmp(arg, numeric[k]) == 0;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_usage(stdout);
            return -1;
        } else if (strcmp(arg, "--tree") == 0) {
            text = &a->tree;
        } else if (strcmp(arg, "-o") == 0 || strcmp(arg, "--output") == 0) {
            text = &a->output;
        } else if (strcmp(arg, "--json") == 0) {
            text = &a->json;
        } else if (strcmp(arg, "--compare") == 0) {
            text = &a->compare;
        } else if (strcmp(arg, "--device") == 0) {
            if (kd_cli_device_option(k_cmd, kd_cli_option_value(k_cmd, argc, argv, &i), &a->device))
                return KD_EXIT_USAGE;
        } else if (strcmp(arg, "--all-pixels") == 0) {
            a->all_pixels = true;
        } else if (strcmp(arg, "--quiet") == 0) {
            a->quiet = true;
        } else if (is_numeric) {
            const char *value = kd_cli_option_value(k_cmd, argc, argv, &i);
            if (!value)
                return KD_EXIT_USAGE;
            int bad = numeric_option(arg, value, a, &have_threshold);
            if (bad)
                return bad;
        } else if (kd_cli_scene_argument(k_cmd, arg, &a->scene) != KD_EXIT_OK) {
            return KD_EXIT_USAGE;
        }
        if (text && !(*text = kd_cli_option_value(k_cmd, argc, argv, &i)))
            return KD_EXIT_USAGE;
    }
    if (!a->scene)
        return kd_cli_usage_error(k_cmd, "no scene given (usage: scankd verify SCENE.obj [options])");
    if (have_threshold && !a->compare)
        return kd_cli_usage_error(k_cmd, "--compare-threshold needs --compare REF.png");
    if (a->rays && a->all_pixels)
        return kd_cli_usage_error(k_cmd, "--rays and --all-pixels exclude each other");
    return KD_EXIT_OK;
}
