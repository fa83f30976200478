/* scene_variants: writes an OBJ made from shared scenes turned, scaled, moved,
 * merged and copied on a grid (variant_mesh.h), for the quality suite
 * (quality_suite.sh) and the large scenes of the build-speed and scale work.
 * The same arguments always give the same file. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kd_parse.h"
#include "obj_loader.h"
#include "variant_mesh.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };
enum { MAX_INPUTS = 64, MAX_OPS = 16 };

typedef enum op_kind { OP_ROTATE, OP_ROTATE_AXIS, OP_SCALE, OP_TRANSLATE, OP_TRANSLATE_SIZES, OP_CENTER } op_kind;

typedef struct op {
    op_kind kind;
    uint64_t seed;
    double v[4];
} op;

typedef struct input {
    const char *path;
    op ops[MAX_OPS];
    int num_ops;
    uint32_t grid[3];
} input;

typedef struct args {
    input inputs[MAX_INPUTS];
    int num_inputs;
    const char *output;
    int row;      /* layout: side by side along +x */
    double gap;
    int quiet;
    char command_line[1024];
} args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: scene_variants INPUT [OPERATION...] [INPUT [OPERATION...]]... -o OUT.obj|OUT.ply\n"
            "\n"
            "Writes one OBJ (or PLY) holding every INPUT (.obj or .obj.gz) after its operations, applied\n"
            "in the order given, in double precision, rounded to float once on writing.\n"
            "Rotations and scales act about the centre of the input's bounds.\n"
            "\n"
            "operations (each applies to the input before it):\n"
            "  --rotate SEED            a uniformly random rotation drawn from SEED (0..2^63-1)\n"
            "  --rotate-axis X Y Z DEG  a rotation by DEG degrees about the axis (X, Y, Z)\n"
            "  --scale S                scale by S > 0\n"
            "  --translate X Y Z        move by (X, Y, Z)\n"
            "  --translate-sizes X Y Z  move by (X, Y, Z) times the input's size (the largest\n"
            "                           extent of its bounds, as it is at that point)\n"
            "  --center                 move the centre of its bounds to the origin\n"
            "  --grid NX NY NZ          NX x NY x NZ copies, spaced by the input's extent on each\n"
            "                           axis times 1 + gap; must be the input's last operation\n"
            "\n"
            "options:\n"
            "  -o, --output FILE        the OBJ to write, whole or not at all (- for stdout); a name\n"
            "                           ending in .ply writes binary PLY (the same floats), which\n"
            "                           loads far faster\n"
            "  --layout overlap|row     overlap: inputs stay where they are (default); row: each\n"
            "                           input after the first sits beside the one before, along +x\n"
            "  --gap F                  gap between grid copies and row neighbours, as a fraction\n"
            "                           of the extent, F >= 0 (default 0.1)\n"
            "  -q, --quiet              no summary on stderr\n"
            "  -h, --help               this text\n");
}

static int usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "scene_variants: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n(scene_variants --help lists the arguments)\n");
    return EXIT_USAGE;
}

static int parse_double(const char *text, double *out)
{
    if (!text || !*text)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || *end || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

/* n numbers after argv[*i] into v; advances *i past them. */
static int take_numbers(int argc, char **argv, int *i, int n, double *v)
{
    if (*i + n >= argc)
        return usage_error("%s needs more numbers", argv[*i]);
    for (int k = 0; k < n; k++)
        if (!parse_double(argv[*i + 1 + k], &v[k]))
            return usage_error("'%s' is not a finite number", argv[*i + 1 + k]);
    *i += n;
    return EXIT_OK;
}

static int parse_grid(int argc, char **argv, int *i, input *in)
{
    if (in->grid[0] != 1 || in->grid[1] != 1 || in->grid[2] != 1)
        return usage_error("%s given twice for one input", argv[*i]);
    if (*i + 3 >= argc)
        return usage_error("%s needs NX NY NZ", argv[*i]);
    for (int a = 0; a < 3; a++) {
        long n;
        if (!kd_parse_int(argv[*i + 1 + a], 1, 100000, &n))
            return usage_error("--grid: '%s' is not a count in 1..100000", argv[*i + 1 + a]);
        in->grid[a] = (uint32_t)n;
    }
    *i += 3;
    return EXIT_OK;
}

/* One operation of the current input; argv[*i] starts with "--". */
static int parse_op(int argc, char **argv, int *i, input *in)
{
    const char *name = argv[*i];
    if (in->grid[0] != 1 || in->grid[1] != 1 || in->grid[2] != 1)
        return usage_error("%s after --grid: --grid must be its input's last operation", name);
    if (in->num_ops == MAX_OPS)
        return usage_error("%s: too many operations on one input", name);
    op *o = &in->ops[in->num_ops];
    memset(o, 0, sizeof *o);
    int rc = EXIT_OK;
    if (strcmp(name, "--rotate") == 0) {
        long seed;
        if (*i + 1 >= argc || !kd_parse_int(argv[*i + 1], 0, INT64_MAX, &seed))
            return usage_error("%s needs a seed in 0..2^63-1", name);
        o->kind = OP_ROTATE;
        o->seed = (uint64_t)seed;
        *i += 1;
    } else if (strcmp(name, "--rotate-axis") == 0) {
        o->kind = OP_ROTATE_AXIS;
        rc = take_numbers(argc, argv, i, 4, o->v);
        if (!rc && o->v[0] == 0 && o->v[1] == 0 && o->v[2] == 0)
            return usage_error("%s: the axis must not be zero", name);
    } else if (strcmp(name, "--scale") == 0) {
        o->kind = OP_SCALE;
        rc = take_numbers(argc, argv, i, 1, o->v);
        if (!rc && !(o->v[0] > 0))
            return usage_error("%s: the factor must be > 0", name);
    } else if (strcmp(name, "--translate") == 0 || strcmp(name, "--translate-sizes") == 0) {
        o->kind = strcmp(name, "--translate") == 0 ? OP_TRANSLATE : OP_TRANSLATE_SIZES;
        rc = take_numbers(argc, argv, i, 3, o->v);
    } else if (strcmp(name, "--center") == 0) {
        o->kind = OP_CENTER;
    } else {
        return usage_error("unknown argument '%s'", name);
    }
    if (rc == EXIT_OK)
        in->num_ops++;
    return rc;
}

/* Options that are not operations; returns -1 when argv[*i] is none of them. */
static int parse_global(int argc, char **argv, int *i, args *a)
{
    const char *name = argv[*i];
    if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
        if (*i + 1 >= argc)
            return usage_error("%s needs a file", name);
        a->output = argv[++*i];
    } else if (strcmp(name, "--layout") == 0) {
        const char *v = *i + 1 < argc ? argv[*i + 1] : "";
        if (strcmp(v, "overlap") != 0 && strcmp(v, "row") != 0)
            return usage_error("--layout takes overlap or row, not '%s'", v);
        a->row = strcmp(v, "row") == 0;
        ++*i;
    } else if (strcmp(name, "--gap") == 0) {
        double g;
        if (take_numbers(argc, argv, i, 1, &g))
            return EXIT_USAGE;
        if (!(g >= 0))
            return usage_error("--gap: '%s' must be >= 0", argv[*i]);
        a->gap = g;
    } else if (strcmp(name, "-q") == 0 || strcmp(name, "--quiet") == 0) {
        a->quiet = 1;
    } else {
        return -1;
    }
    return EXIT_OK;
}

static void record_command_line(int argc, char **argv, args *a)
{
    size_t n = (size_t)snprintf(a->command_line, sizeof a->command_line, "scene_variants");
    for (int i = 1; i < argc && n < sizeof a->command_line; i++)
        n += (size_t)snprintf(a->command_line + n, sizeof a->command_line - n, " %s", argv[i]);
}

/* Returns -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, args *a)
{
    memset(a, 0, sizeof *a);
    a->gap = 0.1;
    record_command_line(argc, argv, a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return EXIT_OK;
        }
        int rc = parse_global(argc, argv, &i, a);
        if (rc >= 0) {
            if (rc)
                return rc;
        } else if (strcmp(arg, "--grid") == 0 && a->num_inputs > 0) {
            if ((rc = parse_grid(argc, argv, &i, &a->inputs[a->num_inputs - 1])))
                return rc;
        } else if (arg[0] == '-' && arg[1] == '-' && a->num_inputs > 0) {
            if ((rc = parse_op(argc, argv, &i, &a->inputs[a->num_inputs - 1])))
                return rc;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error(a->num_inputs ? "unknown argument '%s'"
                                             : "'%s' before any input: operations follow their input",
                               arg);
        } else {
            if (a->num_inputs == MAX_INPUTS)
                return usage_error("%s: too many inputs", arg);
            input *in = &a->inputs[a->num_inputs++];
            memset(in, 0, sizeof *in);
            in->path = arg;
            in->grid[0] = in->grid[1] = in->grid[2] = 1;
        }
    }
    if (a->num_inputs == 0)
        return usage_error("%s", "no input given");
    if (!a->output)
        return usage_error("%s", "no output given (-o FILE)");
    return -1;
}

static void apply_op(kd_vmesh *vm, const op *o)
{
    double q[4], m[3][3];
    switch (o->kind) {
    case OP_ROTATE:
    case OP_ROTATE_AXIS:
        if (o->kind == OP_ROTATE)
            kd_quat_from_seed(o->seed, q);
        else
            kd_quat_from_axis_angle(o->v, o->v[3], q);
        kd_quat_to_matrix(q, m);
        kd_vmesh_rotate(vm, m);
        break;
    case OP_SCALE:
        kd_vmesh_scale(vm, o->v[0]);
        break;
    case OP_TRANSLATE:
        kd_vmesh_translate(vm, o->v);
        break;
    case OP_TRANSLATE_SIZES: {
        double size = kd_vmesh_size(vm), t[3] = {o->v[0] * size, o->v[1] * size, o->v[2] * size};
        kd_vmesh_translate(vm, t);
        break;
    }
    case OP_CENTER:
        kd_vmesh_center(vm);
        break;
    }
}

/* Loads an input and applies its operations. */
static kd_status load_input(const input *in, kd_vmesh *vm, kd_error *err)
{
    kd_mesh mesh = {0};
    KD_TRY(kd_obj_load_file(in->path, &mesh, err));
    kd_status st = kd_vmesh_from_mesh(vm, &mesh, err);
    kd_mesh_free(&mesh);
    for (int k = 0; st == KD_OK && k < in->num_ops; k++)
        apply_op(vm, &in->ops[k]);
    return st;
}

/* Row layout: moves each part along x so that its grid's bounds start a gap
 * after the previous part's end. */
static void lay_out_row(kd_variant_part *parts, kd_vmesh *meshes, int n, double gap)
{
    double end = 0.0;
    for (int i = 0; i < n; i++) {
        double lo[3], hi[3];
        kd_vmesh_bounds(&meshes[i], lo, hi);
        double width = (hi[0] - lo[0]) + (parts[i].grid[0] - 1) * parts[i].spacing[0];
        if (i > 0) {
            double t[3] = {end + gap * width - lo[0], 0.0, 0.0};
            kd_vmesh_translate(&meshes[i], t);
            lo[0] += t[0];
        }
        end = lo[0] + width;
    }
}

static kd_status run(const args *a, kd_vmesh *meshes, kd_variant_counts *counts, kd_error *err)
{
    kd_variant_part parts[MAX_INPUTS];
    for (int i = 0; i < a->num_inputs; i++) {
        KD_TRY(load_input(&a->inputs[i], &meshes[i], err));
        parts[i].mesh = &meshes[i];
        memcpy(parts[i].grid, a->inputs[i].grid, sizeof parts[i].grid);
        kd_variant_grid_spacing(&meshes[i], a->gap, parts[i].spacing);
    }
    if (a->row)
        lay_out_row(parts, meshes, a->num_inputs, a->gap);
    const size_t len = strlen(a->output);
    if (len > 4 && strcmp(a->output + len - 4, ".ply") == 0)
        return kd_variants_write_ply(a->output, parts, a->num_inputs, counts, err);
    return kd_variants_write_obj(a->output, parts, a->num_inputs, a->command_line, counts, err);
}

int main(int argc, char **argv)
{
    static args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    static kd_vmesh meshes[MAX_INPUTS];
    kd_variant_counts counts = {0, 0};
    kd_error err = {0};
    kd_status st = run(&a, meshes, &counts, &err);
    for (int i = 0; i < a.num_inputs; i++)
        kd_vmesh_free(&meshes[i]);
    if (st) {
        fprintf(stderr, "scene_variants: %s\n", err.message);
        return EXIT_FAIL;
    }
    if (!a.quiet)
        fprintf(stderr, "scene_variants: wrote %s: %" PRIu64 " vertices, %" PRIu64 " triangles\n",
                a.output, counts.num_vertices, counts.num_triangles);
    return EXIT_OK;
}
