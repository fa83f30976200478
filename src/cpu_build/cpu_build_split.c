/* Splitting a node's sorted event lists into its children's (Wald & Havran
 * 2006, section 5): classify the triangles by the split axis's events, copy
 * the events of one-sided triangles in order, clip each straddler to both
 * child boxes, sort its few new events and merge them in. */
#include <stdlib.h>

#include "cpu_build_internal.h"
#include "kd_parallel.h"

enum { SIDE_LEFT = 1, SIDE_RIGHT = 2, SIDE_BOTH = 3 };

kd_status kd_split_scratch_init(kd_split_scratch *s, uint32_t num_triangles, kd_error *err)
{
    memset(s, 0, sizeof *s);
    s->side = calloc(num_triangles ? num_triangles : 1, 1);
    if (!s->side)
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for split scratch");
    return KD_OK;
}

void kd_split_scratch_free(kd_split_scratch *s)
{
    free(s->side);
    free(s->straddlers);
    free(s->fresh[0]);
    free(s->fresh[1]);
    free(s->sort_tmp);
    memset(s, 0, sizeof *s);
}

static kd_status reserve(kd_split_scratch *s, uint32_t num_tris, kd_error *err)
{
    if (s->cap_straddlers >= num_tris)
        return KD_OK;
    size_t cap = s->cap_straddlers * 2 > num_tris ? s->cap_straddlers * 2 : num_tris;
    free(s->straddlers);
    free(s->fresh[0]);
    free(s->fresh[1]);
    free(s->sort_tmp);
    s->straddlers = malloc(cap * sizeof *s->straddlers);
    s->fresh[0] = malloc(6 * cap * sizeof(kd_event));
    s->fresh[1] = malloc(6 * cap * sizeof(kd_event));
    s->sort_tmp = malloc(2 * cap * sizeof(kd_event));
    if (!s->straddlers || !s->fresh[0] || !s->fresh[1] || !s->sort_tmp) {
        s->cap_straddlers = 0;
        return kd_error_set(err, KD_ERR_NOMEM, "out of memory for split scratch");
    }
    s->cap_straddlers = cap;
    return KD_OK;
}

typedef struct merge_job {
    const kd_event_lists *parent;
    const uint8_t *side;
    kd_event_lists *left, *right;
    const kd_event *fresh[2][3];
    uint32_t num_fresh[2][3];
} merge_job;

static void merge_axes(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    merge_job *job = ctx;
    for (size_t a = begin; a < end; a++) {
        const kd_event *in = job->parent->ev[a];
        kd_event *out_l = job->left->ev[a], *out_r = job->right->ev[a];
        const kd_event *fl = job->fresh[0][a], *fl_end = fl + job->num_fresh[0][a];
        const kd_event *fr = job->fresh[1][a], *fr_end = fr + job->num_fresh[1][a];
        for (uint32_t i = 0; i < job->parent->count[a]; i++) {
            kd_event e = in[i];
            uint8_t s = job->side[kd_event_tri(e)];
            if (s == SIDE_LEFT) {
                while (fl < fl_end && *fl < e)
                    *out_l++ = *fl++;
                *out_l++ = e;
            } else if (s == SIDE_RIGHT) {
                while (fr < fr_end && *fr < e)
                    *out_r++ = *fr++;
                *out_r++ = e;
            }
        }
        while (fl < fl_end)
            *out_l++ = *fl++;
        while (fr < fr_end)
            *out_r++ = *fr++;
        job->left->count[a] = (uint32_t)(out_l - job->left->ev[a]);
        job->right->count[a] = (uint32_t)(out_r - job->right->ev[a]);
    }
}

/* Nodes this large merge their three axes on separate threads. */
enum { PARALLEL_MERGE_EVENTS = 1 << 18 };

/* How the parent's triangles fall: on one side only, or on both. */
typedef struct side_counts {
    uint32_t left_only, right_only, straddlers;
} side_counts;

/* Classifies the triangles by the split axis's events into scratch->side:
 * left when clipped min <= pos, right when clipped max >= pos; the
 * straddlers are listed in scratch->straddlers. */
static side_counts classify(const kd_event_lists *parent, int axis, float pos, kd_split_scratch *scratch)
{
    uint8_t *side = scratch->side;
    uint32_t pos_key = kd_float_key(pos);
    side_counts n = {0, 0, 0};
    const kd_event *ev = parent->ev[axis];
    for (uint32_t i = 0; i < parent->count[axis]; i++) {
        uint32_t key = kd_event_key(ev[i]);
        int type = kd_event_type(ev[i]);
        uint32_t t = kd_event_tri(ev[i]);
        uint8_t add = (uint8_t)((type != KD_EVENT_END && key <= pos_key ? SIDE_LEFT : 0) |
                                (type != KD_EVENT_START && key >= pos_key ? SIDE_RIGHT : 0));
        uint8_t old = side[t], now = (uint8_t)(old | add);
        if (now == old)
            continue;
        side[t] = now;
        if (old == SIDE_LEFT)
            n.left_only--;
        else if (old == SIDE_RIGHT)
            n.right_only--;
        if (now == SIDE_LEFT)
            n.left_only++;
        else if (now == SIDE_RIGHT)
            n.right_only++;
        else
            scratch->straddlers[n.straddlers++] = t;
    }
    return n;
}

/* The straddlers' new events, per child and axis, each list sorted, and how
 * many straddlers each child keeps (those whose clip is not empty). */
typedef struct fresh_events {
    kd_event *ev[2][3];
    uint32_t num[2][3];
    uint32_t kept[2];
} fresh_events;

static void clip_straddlers(const kd_mesh *mesh, const kd_aabb *box, int axis, float pos,
                            const kd_split_scratch *scratch, uint32_t num_straddlers, fresh_events *f)
{
    kd_aabb child_box[2];
    kd_split_boxes(box, axis, pos, &child_box[0], &child_box[1]);
    memset(f, 0, sizeof *f);
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 3; a++)
            f->ev[c][a] = scratch->fresh[c] + (size_t)a * 2 * num_straddlers;
    for (uint32_t i = 0; i < num_straddlers; i++) {
        float v[3][3];
        kd_mesh_triangle(mesh, scratch->straddlers[i], v);
        for (int c = 0; c < 2; c++) {
            kd_aabb b;
            if (kd_clip_triangle_bounds(v, &child_box[c], &b)) {
                kd_events_emit(scratch->straddlers[i], &b, f->ev[c], f->num[c]);
                f->kept[c]++;
            }
        }
    }
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 3; a++)
            kd_events_sort(f->ev[c][a], scratch->sort_tmp, f->num[c][a]);
}

/* Room for the children: at most two events per one-sided triangle and
 * axis, and the straddlers' new ones. */
static kd_status alloc_children(const side_counts *n, const fresh_events *f, kd_event_lists *left,
                                kd_event_lists *right, kd_error *err)
{
    uint32_t cap_l[3], cap_r[3];
    for (int a = 0; a < 3; a++) {
        cap_l[a] = 2 * n->left_only + f->num[0][a];
        cap_r[a] = 2 * n->right_only + f->num[1][a];
    }
    kd_status st = kd_event_lists_alloc(left, cap_l, err);
    if (st == KD_OK && (st = kd_event_lists_alloc(right, cap_r, err)))
        kd_event_lists_free(left);
    return st;
}

/* Leaves the side array all zero for the next node. */
static void clear_sides(const kd_event_lists *parent, int axis, uint8_t *side)
{
    for (uint32_t i = 0; i < parent->count[axis]; i++)
        side[kd_event_tri(parent->ev[axis][i])] = 0;
}

kd_status kd_split_events(const kd_mesh *mesh, const kd_event_lists *parent, const kd_aabb *box,
                          int axis, float pos, kd_split_scratch *scratch, int num_threads,
                          kd_event_lists *left, kd_event_lists *right, kd_error *err)
{
    kd_status st = reserve(scratch, parent->num_tris, err);
    if (st)
        return st;
    const side_counts n = classify(parent, axis, pos, scratch);
    fresh_events f;
    clip_straddlers(mesh, box, axis, pos, scratch, n.straddlers, &f);
    if ((st = alloc_children(&n, &f, left, right, err))) {
        clear_sides(parent, axis, scratch->side);
        return st;
    }

    /* One ordered pass per axis sends each one-sided event to its child,
     * merging the sorted straddler events in on the way; the axes are
     * independent, so large nodes do them on separate threads. */
    merge_job job = {parent, scratch->side, left, right, {{0}}, {{0}}};
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 3; a++) {
            job.fresh[c][a] = f.ev[c][a];
            job.num_fresh[c][a] = f.num[c][a];
        }
    size_t events = (size_t)parent->count[0] + parent->count[1] + parent->count[2];
    if (num_threads > 1 && events >= PARALLEL_MERGE_EVENTS)
        kd_parallel_for(3, 1, num_threads, merge_axes, &job);
    else
        merge_axes(&job, 0, 3, 0);
    left->num_tris = n.left_only + f.kept[0];
    right->num_tris = n.right_only + f.kept[1];
    clear_sides(parent, axis, scratch->side);
    return KD_OK;
}
