/* Finishing an OBJ parse: forward references checked, then the shared last step
 * (mesh_finish.c). */
#include <inttypes.h>

#include "mesh_internal.h"

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

    kd_mesh_arrays arrays = {ps->positions, ps->indices, ps->refs[KD_OBJ_POSITION].count, num_read,
                             ps->num_faces};
    kd_status st = kd_mesh_take_arrays(&arrays, ps->name, mesh, ps->err);
    ps->positions = arrays.positions;
    ps->indices = arrays.indices;
    return st;
}
