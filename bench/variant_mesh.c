/* Scene variants: transforms in double (variant_mesh.h). */
#include "variant_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

kd_status kd_vmesh_from_mesh(kd_vmesh *vm, const kd_mesh *mesh, kd_error *err)
{
    memset(vm, 0, sizeof *vm);
    size_t nv = (size_t)mesh->num_vertices, nt = (size_t)mesh->num_triangles;
    vm->pos = malloc((nv ? 3 * nv : 1) * sizeof *vm->pos);
    vm->indices = malloc((nt ? 3 * nt : 1) * sizeof *vm->indices);
    if (!vm->pos || !vm->indices) {
        kd_vmesh_free(vm);
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for a mesh of %zu vertices", nv);
    }
    for (size_t i = 0; i < 3 * nv; i++)
        vm->pos[i] = mesh->positions[i];
    memcpy(vm->indices, mesh->indices, 3 * nt * sizeof *vm->indices);
    vm->num_vertices = mesh->num_vertices;
    vm->num_triangles = mesh->num_triangles;
    return KD_OK;
}

void kd_vmesh_free(kd_vmesh *vm)
{
    free(vm->pos);
    free(vm->indices);
    memset(vm, 0, sizeof *vm);
}

void kd_vmesh_bounds(const kd_vmesh *vm, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (size_t i = 0; i < 3 * (size_t)vm->num_triangles; i++) {
        const double *p = vm->pos + 3 * (size_t)vm->indices[i];
        for (int a = 0; a < 3; a++) {
            lo[a] = p[a] < lo[a] ? p[a] : lo[a];
            hi[a] = p[a] > hi[a] ? p[a] : hi[a];
        }
    }
    if (vm->num_triangles == 0)
        for (int a = 0; a < 3; a++)
            lo[a] = hi[a] = 0.0;
}

double kd_vmesh_size(const kd_vmesh *vm)
{
    double lo[3], hi[3], size = 0.0;
    kd_vmesh_bounds(vm, lo, hi);
    for (int a = 0; a < 3; a++)
        size = hi[a] - lo[a] > size ? hi[a] - lo[a] : size;
    return size;
}

/* splitmix64 (Steele, Lea and Flood): a full-period generator whose outputs
 * are well mixed even for consecutive seeds. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *state) { return (double)(splitmix64(state) >> 11) * 0x1p-53; }

void kd_quat_from_seed(uint64_t seed, double q[4])
{
    /* Shoemake (Graphics Gems III): uniform on the unit 3-sphere, hence a
     * uniformly distributed rotation. */
    uint64_t state = seed;
    double u1 = uniform01(&state), u2 = uniform01(&state), u3 = uniform01(&state);
    const double two_pi = 6.283185307179586476925;
    double r1 = sqrt(1.0 - u1), r2 = sqrt(u1);
    q[0] = r1 * sin(two_pi * u2);
    q[1] = r1 * cos(two_pi * u2);
    q[2] = r2 * sin(two_pi * u3);
    q[3] = r2 * cos(two_pi * u3);
}

void kd_quat_from_axis_angle(const double axis[3], double deg, double q[4])
{
    double len = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double half = deg * (3.14159265358979323846 / 360.0);
    double s = sin(half) / len;
    q[0] = axis[0] * s;
    q[1] = axis[1] * s;
    q[2] = axis[2] * s;
    q[3] = cos(half);
}

void kd_quat_to_matrix(const double q[4], double m[3][3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    m[0][0] = 1 - 2 * (y * y + z * z);
    m[0][1] = 2 * (x * y - z * w);
    m[0][2] = 2 * (x * z + y * w);
    m[1][0] = 2 * (x * y + z * w);
    m[1][1] = 1 - 2 * (x * x + z * z);
    m[1][2] = 2 * (y * z - x * w);
    m[2][0] = 2 * (x * z - y * w);
    m[2][1] = 2 * (y * z + x * w);
    m[2][2] = 1 - 2 * (x * x + y * y);
}

static void bounds_center(const kd_vmesh *vm, double c[3])
{
    double lo[3], hi[3];
    kd_vmesh_bounds(vm, lo, hi);
    for (int a = 0; a < 3; a++)
        c[a] = 0.5 * (lo[a] + hi[a]);
}

void kd_vmesh_rotate(kd_vmesh *vm, const double m[3][3])
{
    double c[3];
    bounds_center(vm, c);
    for (size_t i = 0; i < vm->num_vertices; i++) {
        double *p = vm->pos + 3 * i, d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        for (int a = 0; a < 3; a++)
            p[a] = c[a] + m[a][0] * d[0] + m[a][1] * d[1] + m[a][2] * d[2];
    }
}

void kd_vmesh_scale(kd_vmesh *vm, double s)
{
    double c[3];
    bounds_center(vm, c);
    for (size_t i = 0; i < vm->num_vertices; i++)
        for (int a = 0; a < 3; a++)
            vm->pos[3 * i + a] = c[a] + s * (vm->pos[3 * i + a] - c[a]);
}

void kd_vmesh_translate(kd_vmesh *vm, const double t[3])
{
    for (size_t i = 0; i < vm->num_vertices; i++)
        for (int a = 0; a < 3; a++)
            vm->pos[3 * i + a] += t[a];
}

void kd_vmesh_center(kd_vmesh *vm)
{
    double c[3];
    bounds_center(vm, c);
    double t[3] = {-c[0], -c[1], -c[2]};
    kd_vmesh_translate(vm, t);
}

void kd_variant_grid_spacing(const kd_vmesh *vm, double gap, double spacing[3])
{
    double lo[3], hi[3], size = kd_vmesh_size(vm);
    kd_vmesh_bounds(vm, lo, hi);
    for (int a = 0; a < 3; a++) {
        double extent = hi[a] - lo[a];
        spacing[a] = (extent > 0.0 ? extent : size) * (1.0 + gap);
    }
}
