/* Violations of the tree invariants (verify.h, part a) as text. */
#include <stdio.h>

#include "verify.h"

const char *kd_violation_kind_name(kd_violation_kind kind)
{
    switch (kind) {
    case KD_VIOLATION_STRUCTURE: return "structure";
    case KD_VIOLATION_INDEX: return "triangle index out of range";
    case KD_VIOLATION_SPLIT: return "split outside its node";
    case KD_VIOLATION_DEPTH: return "depth over the cap";
    case KD_VIOLATION_ROOT: return "triangle outside the root box";
    case KD_VIOLATION_MISSING: return "overlapping triangle not listed";
    default: return "unknown";
    }
}

static void format_box(const kd_aabb *b, char *text, size_t bytes)
{
    snprintf(text, bytes, "[%g %g %g]-[%g %g %g]", (double)b->lo[0], (double)b->lo[1],
             (double)b->lo[2], (double)b->hi[0], (double)b->hi[1], (double)b->hi[2]);
}

void kd_verify_describe(const kd_violation *v, char *text, size_t bytes)
{
    char box[160];
    format_box(&v->box, box, sizeof box);
    switch (v->kind) {
    case KD_VIOLATION_STRUCTURE:
        switch (v->reason) {
        case KD_REASON_CHILD_RANGE:
            snprintf(text, bytes, "node %u (depth %u): above child %u is out of range or not after it",
                     v->node, v->depth, v->value);
            break;
        case KD_REASON_LEAF_RANGE:
            snprintf(text, bytes, "leaf %u (depth %u): its entries from %u run past the index array",
                     v->node, v->depth, v->value);
            break;
        case KD_REASON_SHARED:
            snprintf(text, bytes, "node %u is reached a second time (depth %u)", v->node, v->depth);
            break;
        case KD_REASON_UNREACHED:
            snprintf(text, bytes, "node %u is not reached from the root", v->node);
            break;
        case KD_REASON_TRIANGLE_COUNT:
            snprintf(text, bytes, "the tree was built over %u triangles, not the scene's", v->value);
            break;
        default:
            snprintf(text, bytes, "the tree has no nodes");
        }
        break;
    case KD_VIOLATION_INDEX:
        snprintf(text, bytes, "leaf %u: entry %u names triangle %u, beyond the last", v->node,
                 v->value, v->tri);
        break;
    case KD_VIOLATION_SPLIT:
        snprintf(text, bytes, "node %u (depth %u): split %g on axis %c outside its box %s", v->node,
                 v->depth, (double)v->split, "xyz"[v->value % 3], box);
        break;
    case KD_VIOLATION_DEPTH:
        if (v->reason == KD_REASON_CAP_LIMIT)
            snprintf(text, bytes, "the tree's depth cap %u exceeds the limit %u", v->value,
                     KD_TREE_DEPTH_LIMIT);
        else
            snprintf(text, bytes, "leaf %u at depth %u, over the cap %u", v->node, v->depth, v->value);
        break;
    case KD_VIOLATION_ROOT:
        snprintf(text, bytes, "triangle %u reaches outside the root box %s", v->tri, box);
        break;
    case KD_VIOLATION_MISSING:
        snprintf(text, bytes, "leaf %u (depth %u, box %s): triangle %u %s the box but is not listed",
                 v->node, v->depth, box, v->tri, v->touches_only ? "touches" : "overlaps");
        break;
    default:
        snprintf(text, bytes, "unknown violation");
    }
}
