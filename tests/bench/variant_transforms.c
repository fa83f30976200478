/* The scene-variant transforms (bench/variant_mesh.h): rotations are proper,
 * uniform and deterministic, keep edge lengths and areas (in double, and
 * within float rounding once written); scales keep the centre; grids and
 * merges write the counts they should, whole or not at all. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obj_loader.h"
#include "test_support.h"
#include "variant_mesh.h"

/* Random triangles in the unit cube: nt triangles, 3 vertices each. */
static kd_vmesh random_mesh(uint32_t nt, uint64_t seed)
{
    kd_vmesh vm = {0};
    vm.num_vertices = 3 * nt;
    vm.num_triangles = nt;
    vm.pos = malloc(9 * (size_t)nt * sizeof *vm.pos);
    vm.indices = malloc(3 * (size_t)nt * sizeof *vm.indices);
    uint64_t s = seed;
    for (uint32_t i = 0; i < 9 * nt; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        vm.pos[i] = (double)(s >> 11) * 0x1p-53;
    }
    for (uint32_t i = 0; i < 3 * nt; i++)
        vm.indices[i] = i;
    return vm;
}

static double dist(const double *p, const double *q)
{
    double d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

static double area(const double *a, const double *b, const double *c)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = b[k] - a[k];
        e2[k] = c[k] - a[k];
    }
    double x = e1[1] * e2[2] - e1[2] * e2[1], y = e1[2] * e2[0] - e1[0] * e2[2],
           z = e1[0] * e2[1] - e1[1] * e2[0];
    return 0.5 * sqrt(x * x + y * y + z * z);
}

/* Largest relative change of an edge length or a triangle area, b against a. */
static double worst_change(const kd_vmesh *a, const kd_vmesh *b)
{
    double worst = 0.0;
    for (uint32_t t = 0; t < a->num_triangles; t++) {
        const double *pa[3], *pb[3];
        for (int i = 0; i < 3; i++) {
            pa[i] = a->pos + 3 * (size_t)a->indices[3 * t + i];
            pb[i] = b->pos + 3 * (size_t)b->indices[3 * t + i];
        }
        for (int i = 0; i < 3; i++) {
            double la = dist(pa[i], pa[(i + 1) % 3]), lb = dist(pb[i], pb[(i + 1) % 3]);
            worst = fmax(worst, fabs(la - lb) / la);
        }
        double aa = area(pa[0], pa[1], pa[2]), ab = area(pb[0], pb[1], pb[2]);
        worst = fmax(worst, fabs(aa - ab) / aa);
    }
    return worst;
}

static kd_vmesh copy_mesh(const kd_vmesh *src)
{
    kd_vmesh vm = *src;
    vm.pos = malloc(3 * (size_t)src->num_vertices * sizeof *vm.pos);
    vm.indices = malloc(3 * (size_t)src->num_triangles * sizeof *vm.indices);
    memcpy(vm.pos, src->pos, 3 * (size_t)src->num_vertices * sizeof *vm.pos);
    memcpy(vm.indices, src->indices, 3 * (size_t)src->num_triangles * sizeof *vm.indices);
    return vm;
}

static void test_rotation_is_proper(void)
{
    for (uint64_t seed = 0; seed < 200; seed++) {
        double q[4], m[3][3];
        kd_quat_from_seed(seed, q);
        CHECK(fabs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1.0) < 1e-14);
        kd_quat_to_matrix(q, m);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double dot = m[i][0] * m[j][0] + m[i][1] * m[j][1] + m[i][2] * m[j][2];
                CHECK_MSG(fabs(dot - (i == j)) < 1e-14, "seed %llu: rows %d,%d dot %g",
                          (unsigned long long)seed, i, j, dot);
            }
        double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        CHECK_MSG(fabs(det - 1.0) < 1e-13, "seed %llu: det %g", (unsigned long long)seed, det);
    }
}

/* The same seed, the same bits; other seeds, other rotations; and the
 * rotated images of one direction spread evenly over the sphere: their mean
 * near zero and each axis's square near 1/3, as a uniform rotation gives. */
static void test_rotation_is_uniform_and_deterministic(void)
{
    double q1[4], q2[4], q3[4];
    kd_quat_from_seed(12345, q1);
    kd_quat_from_seed(12345, q2);
    kd_quat_from_seed(12346, q3);
    CHECK(memcmp(q1, q2, sizeof q1) == 0);
    CHECK(memcmp(q1, q3, sizeof q1) != 0);
    enum { N = 20000 };
    double mean[3] = {0, 0, 0}, sq[3] = {0, 0, 0};
    for (uint64_t seed = 0; seed < N; seed++) {
        double q[4], m[3][3];
        kd_quat_from_seed(seed, q);
        kd_quat_to_matrix(q, m);
        for (int a = 0; a < 3; a++) { /* the image of (0.6, 0, 0.8) */
            double v = 0.6 * m[a][0] + 0.8 * m[a][2];
            mean[a] += v / N;
            sq[a] += v * v / N;
        }
    }
    for (int a = 0; a < 3; a++) {
        CHECK_MSG(fabs(mean[a]) < 0.02, "axis %d: mean %g", a, mean[a]);
        CHECK_MSG(fabs(sq[a] - 1.0 / 3.0) < 0.02, "axis %d: mean square %g", a, sq[a]);
    }
}

static void test_axis_angle(void)
{
    double q[4], m[3][3], axis[3] = {0, 0, 2};
    kd_quat_from_axis_angle(axis, 90.0, q);
    kd_quat_to_matrix(q, m);
    /* x goes to y, y to -x, z stays. */
    double want[3][3] = {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            CHECK_MSG(fabs(m[i][j] - want[i][j]) < 1e-15, "m[%d][%d] = %g", i, j, m[i][j]);
}

static void test_rotation_keeps_lengths_and_areas(void)
{
    kd_vmesh base = random_mesh(500, 7);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        kd_vmesh vm = copy_mesh(&base);
        double q[4], m[3][3];
        kd_quat_from_seed(seed, q);
        kd_quat_to_matrix(q, m);
        kd_vmesh_rotate(&vm, m);
        double lo0[3], hi0[3], lo1[3], hi1[3];
        kd_vmesh_bounds(&base, lo0, hi0);
        kd_vmesh_bounds(&vm, lo1, hi1);
        CHECK_MSG(worst_change(&base, &vm) < 1e-12, "seed %llu: change %g",
                  (unsigned long long)seed, worst_change(&base, &vm));
        /* A rotation generally moves the box: the mesh did turn. */
        CHECK(fabs(lo0[0] - lo1[0]) + fabs(hi0[1] - hi1[1]) > 1e-6);
        kd_vmesh_free(&vm);
    }
    kd_vmesh_free(&base);
}

static void test_scale_and_translate(void)
{
    kd_vmesh vm = random_mesh(100, 3);
    double lo0[3], hi0[3], lo1[3], hi1[3];
    kd_vmesh_bounds(&vm, lo0, hi0);
    double size0 = kd_vmesh_size(&vm);
    kd_vmesh_scale(&vm, 1e-3);
    kd_vmesh_bounds(&vm, lo1, hi1);
    for (int a = 0; a < 3; a++)
        CHECK(fabs((lo0[a] + hi0[a]) - (lo1[a] + hi1[a])) < 1e-12);
    CHECK(fabs(kd_vmesh_size(&vm) - 1e-3 * size0) < 1e-15);
    double t[3] = {100, -5, 1e4};
    kd_vmesh_translate(&vm, t);
    kd_vmesh_bounds(&vm, lo0, hi0);
    for (int a = 0; a < 3; a++)
        CHECK(fabs(lo0[a] - (lo1[a] + t[a])) < 1e-9);
    kd_vmesh_center(&vm);
    kd_vmesh_bounds(&vm, lo0, hi0);
    for (int a = 0; a < 3; a++)
        CHECK(fabs(lo0[a] + hi0[a]) < 1e-12);
    kd_vmesh_free(&vm);
}

static void tmp_file(const char *name, char *path, size_t bytes)
{
    char file[128];
    snprintf(file, sizeof file, "variants_%ld_%s", (long)getpid(), name);
    kd_test_tmp_path(file, path, bytes);
}

/* Reads back what the writer wrote, as the builders will. */
static kd_status reload(const char *path, kd_mesh *mesh)
{
    kd_error err = {0};
    kd_status st = kd_obj_load_file(path, mesh, &err);
    CHECK_MSG(st == KD_OK, "%s", err.message);
    return st;
}

static void test_grid_and_merge_counts(void)
{
    kd_vmesh a = random_mesh(300, 11), b = random_mesh(70, 12);
    kd_variant_part parts[2] = {{&a, {3, 2, 2}, {0}}, {&b, {1, 1, 1}, {0}}};
    kd_variant_grid_spacing(&a, 0.1, parts[0].spacing);
    char path[512];
    tmp_file("grid.obj", path, sizeof path);
    kd_variant_counts counts;
    kd_error err = {0};
    CHECK(kd_variants_write_obj(path, parts, 1, "grid", &counts, &err) == KD_OK);
    CHECK(counts.num_triangles == 12 * 300 && counts.num_vertices == 12 * 900);
    kd_mesh mesh = {0};
    if (reload(path, &mesh) == KD_OK) {
        CHECK_MSG(mesh.num_triangles == 12 * 300, "%u triangles", mesh.num_triangles);
        kd_aabb box = kd_mesh_bounds(&mesh);
        double lo[3], hi[3];
        kd_vmesh_bounds(&a, lo, hi);
        double want = 2 * parts[0].spacing[0] + (hi[0] - lo[0]);
        CHECK_MSG(fabs((box.hi[0] - box.lo[0]) - want) < 1e-5, "x extent %g, want %g",
                  (double)(box.hi[0] - box.lo[0]), want);
    }
    kd_mesh_free(&mesh);
    /* A merge: the counts add. */
    CHECK(kd_variants_write_obj(path, parts, 2, NULL, &counts, &err) == KD_OK);
    CHECK(counts.num_triangles == 12 * 300 + 70);
    if (reload(path, &mesh) == KD_OK)
        CHECK(mesh.num_triangles == 12 * 300 + 70 && mesh.num_vertices == 12 * 900 + 210);
    kd_mesh_free(&mesh);
    remove(path);
    kd_vmesh_free(&a);
    kd_vmesh_free(&b);
}

/* Far from the origin the written floats round, but by no more than float
 * rounding of the coordinates: edge lengths agree within a few ulps of them. */
static void test_written_rotation_within_float_rounding(void)
{
    kd_vmesh vm = random_mesh(200, 5), orig = random_mesh(200, 5);
    double q[4], m[3][3], t[3] = {1000, 0, 0};
    kd_quat_from_seed(99, q);
    kd_quat_to_matrix(q, m);
    kd_vmesh_rotate(&vm, m);
    kd_vmesh_translate(&vm, t);
    kd_variant_part part = {&vm, {1, 1, 1}, {0, 0, 0}};
    char path[512];
    tmp_file("far.obj", path, sizeof path);
    kd_variant_counts counts;
    kd_error err = {0};
    CHECK(kd_variants_write_obj(path, &part, 1, NULL, &counts, &err) == KD_OK);
    kd_mesh mesh = {0};
    if (reload(path, &mesh) == KD_OK) {
        kd_vmesh back;
        CHECK(kd_vmesh_from_mesh(&back, &mesh, &err) == KD_OK);
        double ulp = 1001.0 * 0x1p-23, worst = 0.0;
        for (uint32_t t = 0; t < orig.num_triangles; t++)
            for (int i = 0; i < 3; i++) {
                const uint32_t *ix = orig.indices + 3 * t;
                double la = dist(orig.pos + 3 * ix[i], orig.pos + 3 * ix[(i + 1) % 3]);
                double lb = dist(back.pos + 3 * ix[i], back.pos + 3 * ix[(i + 1) % 3]);
                worst = fmax(worst, fabs(la - lb));
            }
        CHECK_MSG(worst <= 2.0 * ulp, "edge length off by %g (ulp %g)", worst, ulp);
        kd_vmesh_free(&back);
    }
    kd_mesh_free(&mesh);
    remove(path);
    kd_vmesh_free(&vm);
    kd_vmesh_free(&orig);
}

/* A coordinate beyond the float range fails the write and leaves no file. */
static void test_whole_or_nothing(void)
{
    kd_vmesh vm = random_mesh(50, 9);
    kd_vmesh_scale(&vm, 1e39);
    kd_variant_part part = {&vm, {1, 1, 1}, {0, 0, 0}};
    char path[512];
    tmp_file("huge.obj", path, sizeof path);
    remove(path);
    kd_variant_counts counts;
    kd_error err = {0};
    CHECK(kd_variants_write_obj(path, &part, 1, NULL, &counts, &err) == KD_ERR_INVALID);
    CHECK_MSG(strstr(err.message, "float range") != NULL, "%s", err.message);
    CHECK(access(path, F_OK) != 0);
    /* Counts beyond what a mesh can index are refused before writing. */
    kd_variant_part big = {&vm, {100000, 100000, 1}, {1, 1, 1}};
    CHECK(kd_variants_count(&big, 1, &counts, &err) == KD_ERR_INVALID);
    kd_vmesh_free(&vm);
}

int main(void)
{
    test_rotation_is_proper();
    test_rotation_is_uniform_and_deterministic();
    test_axis_angle();
    test_rotation_keeps_lengths_and_areas();
    test_scale_and_translate();
    test_grid_and_merge_counts();
    test_written_rotation_within_float_rounding();
    test_whole_or_nothing();
    return kd_test_finish("variant_transforms");
}
