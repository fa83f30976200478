/* What a scankd_scene holds, shared by the API's source files. */
#ifndef KD_API_INTERNAL_H
#define KD_API_INTERNAL_H

#include "api_device.h"
#include "kd_trace.h"
#include "scankd.h"
#include "tree_io.h"

struct scankd_scene {
    kd_tree tree;
    float *tri_verts;       /* 9 floats per triangle, as the traversal reads them */
    kd_trace_scene trace;   /* the host view over tree and tri_verts, checked */
    scankd_device built_on; /* AUTO for a tree loaded from a file */
    double build_ms;
    kd_api_gpu *gpu;        /* the device copy, made by the first GPU trace */
    kd_tree_origin origin;  /* the mesh's fingerprint and the builder, saved with the tree */
};

/* Checks a mesh handed to the API (arrays present, triangles, indices in
 * range); who names the function in the message. */
kd_status kd_api_check_mesh(const char *who, const kd_mesh *mesh, kd_error *err);

#endif
