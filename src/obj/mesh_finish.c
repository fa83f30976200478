/* The last step of every load: triangles with a NaN or infinite coordinate or an
 * exactly zero area dropped and counted, the arrays handed to the mesh. The OBJ and
 * PLY loaders share it, so both keep the same triangles. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_internal.h"

/* s + e == a + b exactly (Knuth's TwoSum; needs round-to-nearest and no overflow). */
static inline void two_sum(double a, double b, double *s, double *e)
{
    double sum = a + b;
    double b_virtual = sum - a;
    double a_virtual = sum - b_virtual;
    *s = sum;
    *e = (a - a_virtual) + (b - b_virtual);
}

/* Whether n doubles sum to exactly zero. The terms are accumulated into a
 * nonoverlapping expansion (Shewchuk's Grow-Expansion), which represents the sum
 * exactly; such an expansion is zero only when every component is zero. */
static bool exact_sum_is_zero(const double *terms, int n)
{
    double expansion[8];
    int m = 0;
    for (int k = 0; k < n; k++) {
        double q = terms[k];
        for (int i = 0; i < m; i++)
            two_sum(q, expansion[i], &q, &expansion[i]);
        expansion[m++] = q;
    }
    for (int i = 0; i < m; i++)
        if (expansion[i] != 0.0)
            return false;
    return true;
}

/* A triangle has zero area when the cross product of its edges, (b-a) x (c-a), is
 * exactly the zero vector, computed from the float coordinates without rounding.
 *
 * Filter: in double, edge differences and products each round by at most 2^-53
 * relative, so a component whose rounded value exceeds 2^-50 * (|p| + |q|) is
 * certainly nonzero, and one such component settles it (the common case). */
static inline bool certainly_nonzero_area(const float *a, const float *b, const float *c)
{
    double e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (double)b[k] - (double)a[k];
        e2[k] = (double)c[k] - (double)a[k];
    }
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double p = e1[i] * e2[j], q = e1[j] * e2[i];
        if (fabs(p - q) > 0x1p-50 * (fabs(p) + fabs(q)))
            return true;
    }
    return false;
}

/* Exact test when the filter cannot decide: component k of the cross product equals
 *   a_i b_j - a_j b_i + b_i c_j - b_j c_i + c_i a_j - c_j a_i   (i, j = k+1, k+2),
 * six products of two floats, each exact in double (48-bit significands, no overflow
 * or underflow for float inputs), summed exactly. Inputs must be finite. */
static bool exact_zero_area(const float *a, const float *b, const float *c)
{
    for (int k = 0; k < 3; k++) {
        int i = (k + 1) % 3, j = (k + 2) % 3;
        double terms[6] = {
            (double)a[i] * b[j], -((double)a[j] * b[i]), (double)b[i] * c[j],
            -((double)b[j] * c[i]), (double)c[i] * a[j], -((double)c[j] * a[i]),
        };
        if (!exact_sum_is_zero(terms, 6))
            return false;
    }
    return true;
}

bool kd_obj_triangle_zero_area(const float *a, const float *b, const float *c)
{
    return !certainly_nonzero_area(a, b, c) && exact_zero_area(a, b, c);
}

static inline bool all_finite(const float *a, const float *b, const float *c)
{
    /* x - x is 0 for finite x and NaN for NaN or infinity. */
    float s = (a[0] - a[0]) + (a[1] - a[1]) + (a[2] - a[2]) + (b[0] - b[0]) + (b[1] - b[1]) +
              (b[2] - b[2]) + (c[0] - c[0]) + (c[1] - c[1]) + (c[2] - c[2]);
    return s == 0.0f;
}

bool kd_mesh_grow(void **array, uint64_t *cap, size_t item_bytes, uint64_t need, uint64_t most)
{
    if (*array && need <= *cap)
        return true;
    uint64_t new_cap = *cap ? *cap : 64;
    while (new_cap < need)
        new_cap *= 2;
    if (new_cap > most)
        new_cap = most > need ? most : need;
    if (new_cap > SIZE_MAX / item_bytes)
        return false;
    void *bigger = realloc(*array, (size_t)(new_cap * item_bytes));
    if (!bigger)
        return false;
    *array = bigger;
    *cap = new_cap;
    return true;
}

kd_status kd_mesh_take_arrays(kd_mesh_arrays *arrays, const char *name, kd_mesh *mesh,
                              kd_error *err)
{
    /* Drop degenerate triangles, compacting in place. */
    const float *pos = arrays->positions;
    uint32_t *idx = arrays->indices;
    uint64_t num_read = arrays->num_read, kept = 0, nonfinite = 0, zero_area = 0;
    for (uint64_t t = 0; t < num_read; t++) {
        uint32_t i0 = idx[3 * t], i1 = idx[3 * t + 1], i2 = idx[3 * t + 2];
        const float *a = pos + 3 * (size_t)i0, *b = pos + 3 * (size_t)i1, *c = pos + 3 * (size_t)i2;
        if (!all_finite(a, b, c)) {
            nonfinite++;
            continue;
        }
        if (!certainly_nonzero_area(a, b, c) && exact_zero_area(a, b, c)) {
            zero_area++;
            continue;
        }
        idx[3 * kept] = i0;
        idx[3 * kept + 1] = i1;
        idx[3 * kept + 2] = i2;
        kept++;
    }
    if (kept == 0)
        return kd_error_set(err, KD_ERR_INVALID,
                            "%s: no usable triangles: all %" PRIu64 " were dropped (%" PRIu64 " with a NaN or infinite coordinate, %" PRIu64 " with zero area)",
                            name, num_read, nonfinite, zero_area);

    /* Hand over the arrays, trimmed to size (shrinking cannot fail in practice; keep
     * the larger block if it does). */
    uint64_t nv = arrays->num_vertices;
    float *positions = realloc(arrays->positions, (size_t)nv * 3 * sizeof(float));
    uint32_t *indices = realloc(arrays->indices, (size_t)kept * 3 * sizeof(uint32_t));
    mesh->positions = positions ? positions : arrays->positions;
    mesh->indices = indices ? indices : arrays->indices;
    arrays->positions = NULL;
    arrays->indices = NULL;
    mesh->num_vertices = (uint32_t)nv;
    mesh->num_triangles = (uint32_t)kept;
    mesh->num_faces_read = arrays->num_faces;
    mesh->num_triangles_read = num_read;
    mesh->num_dropped_nonfinite = nonfinite;
    mesh->num_dropped_zero_area = zero_area;
    return KD_OK;
}
