/* Finishing an OBJ parse: forward references checked, degenerate triangles dropped
 * and counted, arrays handed to the mesh. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "obj_internal.h"

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

static const char *const k_kind_names[3] = {"face index", "face texture coordinate index",
                                            "face normal index"};
static const char *const k_kind_plurals[3] = {"vertices", "texture coordinates", "normals"};

kd_status kd_obj_parser_finish(kd_obj_parser *ps, kd_mesh *mesh)
{
    /* Positive indices that pointed forward: the first record beyond the final count
     * is the earliest bad one (records are increasing in both index and line). */
    for (int kind = 0; kind < 3; kind++) {
        const kd_obj_element_refs *refs = &ps->refs[kind];
        for (size_t r = 0; r < refs->num_forward; r++)
            if (refs->forward[r].index > refs->count)
                return kd_error_set(ps->err, KD_ERR_PARSE,
                                    "%s:%" PRIu64 ": %s %" PRIu64 " is out of range (the file defines %" PRIu64 " %s)",
                                    ps->name, refs->forward[r].line, k_kind_names[kind],
                                    refs->forward[r].index, refs->count, k_kind_plurals[kind]);
    }
    uint64_t num_read = ps->num_triangles;
    if (num_read == 0)
        return kd_error_set(ps->err, KD_ERR_PARSE,
                            "%s: no triangles: the file has no faces ('f' statements; %" PRIu64 " vertices)",
                            ps->name, ps->refs[KD_OBJ_POSITION].count);

    /* Drop degenerate triangles, compacting in place. */
    const float *pos = ps->positions;
    uint32_t *idx = ps->indices;
    uint64_t kept = 0, nonfinite = 0, zero_area = 0;
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
        return kd_error_set(ps->err, KD_ERR_INVALID,
                            "%s: no usable triangles: all %" PRIu64 " were dropped (%" PRIu64 " with a NaN or infinite coordinate, %" PRIu64 " with zero area)",
                            ps->name, num_read, nonfinite, zero_area);

    /* Hand over the arrays, trimmed to size (shrinking cannot fail in practice; keep
     * the larger block if it does). */
    uint64_t nv = ps->refs[KD_OBJ_POSITION].count;
    float *positions = realloc(ps->positions, (size_t)nv * 3 * sizeof(float));
    uint32_t *indices = realloc(ps->indices, (size_t)kept * 3 * sizeof(uint32_t));
    mesh->positions = positions ? positions : ps->positions;
    mesh->indices = indices ? indices : ps->indices;
    ps->positions = NULL;
    ps->indices = NULL;
    mesh->num_vertices = (uint32_t)nv;
    mesh->num_triangles = (uint32_t)kept;
    mesh->num_faces_read = ps->num_faces;
    mesh->num_triangles_read = num_read;
    mesh->num_dropped_nonfinite = nonfinite;
    mesh->num_dropped_zero_area = zero_area;
    return KD_OK;
}
