#include "kd_mesh.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

void kd_mesh_free(kd_mesh *mesh)
{
    if (!mesh)
        return;
    free(mesh->positions);
    free(mesh->indices);
    memset(mesh, 0, sizeof *mesh);
}

kd_aabb kd_mesh_bounds(const kd_mesh *mesh)
{
    kd_aabb box = {{FLT_MAX, FLT_MAX, FLT_MAX}, {-FLT_MAX, -FLT_MAX, -FLT_MAX}};
    for (uint64_t i = 0; i < 3ull * mesh->num_triangles; i++) {
        const float *p = mesh->positions + 3ull * mesh->indices[i];
        for (int a = 0; a < 3; a++) {
            if (p[a] < box.lo[a]) box.lo[a] = p[a];
            if (p[a] > box.hi[a]) box.hi[a] = p[a];
        }
    }
    return box;
}
