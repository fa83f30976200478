/* The exact SAH sweep (Wald & Havran 2006, section 4.2) in the closed-box
 * semantics of cpu_build_internal.h, and pbrt's rules for stopping. */
#include <math.h>

#include "cpu_build_internal.h"
#include "kd_parallel.h"

static inline void consider(kd_split *best, const kd_sah_axis *sah, int axis, uint32_t key,
                            uint32_t nl, uint32_t nr)
{
    float pos = kd_key_float(key);
    double cost = kd_sah_axis_cost(sah, pos, nl, nr);
    /* Strictly lower only: the sweep visits axes and positions in increasing
     * order, so ties keep the lowest (axis, position). */
    if (cost < best->cost) {
        best->found = true;
        best->axis = axis;
        best->pos = pos;
        best->cost = cost;
        best->num_left = nl;
        best->num_right = nr;
    }
}

/* The best plane on one axis; best is only replaced by a strictly cheaper plane. */
static void sweep_axis(const kd_event_lists *lists, const kd_aabb *box,
                       const kd_build_params *params, int axis, kd_split *best)
{
    if (!(box->lo[axis] < box->hi[axis]))
        return; /* a flat box has no plane strictly inside on this axis */
    kd_sah_axis sah;
    kd_sah_axis_init(&sah, box, axis, params);
    uint32_t lo_key = kd_float_key(box->lo[axis]), hi_key = kd_float_key(box->hi[axis]);
    const kd_event *ev = lists->ev[axis];
    uint32_t count = lists->count[axis], n = lists->num_tris;

    /* below: triangles with clipped min < q; ended: with clipped max < q */
    uint32_t below = 0, ended = 0;
    uint32_t prev_key = 0; /* no position yet: every q- is above it */
    uint32_t i = 0;
    while (i < count) {
        uint32_t key = kd_event_key(ev[i]);
        uint32_t num_end = 0, num_planar = 0, num_start = 0;
        do {
            int type = kd_event_type(ev[i]);
            num_end += type == KD_EVENT_END;
            num_planar += type == KD_EVENT_PLANAR;
            num_start += type == KD_EVENT_START;
            i++;
        } while (i < count && kd_event_key(ev[i]) == key);
        uint32_t next_key = i < count ? kd_event_key(ev[i]) : 0xffffffffu;

        /* At q: left takes min <= q, right takes max >= q. */
        uint32_t left_at = below + num_start + num_planar;
        uint32_t right_at = n - ended;
        /* q-: what starts or lies at q goes right only. */
        uint32_t down = kd_key_next_down(key);
        if (down > prev_key && down > lo_key && down < hi_key)
            consider(best, &sah, axis, down, below, right_at);
        if (key > lo_key && key < hi_key)
            consider(best, &sah, axis, key, left_at, right_at);
        /* q+: what ends or lies at q goes left only. */
        uint32_t up = kd_key_next_up(key);
        if (up < next_key && up > lo_key && up < hi_key)
            consider(best, &sah, axis, up, left_at, n - ended - num_end - num_planar);

        below = left_at;
        ended += num_end + num_planar;
        prev_key = key;
    }
}

typedef struct sweep_job {
    const kd_event_lists *lists;
    const kd_aabb *box;
    const kd_build_params *params;
    kd_split best[3];
} sweep_job;

static void sweep_axes(void *ctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    sweep_job *job = ctx;
    for (size_t axis = begin; axis < end; axis++)
        sweep_axis(job->lists, job->box, job->params, (int)axis, &job->best[axis]);
}

/* Nodes this large sweep their three axes on separate threads (a thread
 * start costs far less than such a sweep). */
enum { PARALLEL_SWEEP_EVENTS = 1 << 18 };

kd_split kd_find_best_split(const kd_event_lists *lists, const kd_aabb *box,
                            const kd_build_params *params, int num_threads)
{
    sweep_job job = {lists, box, params, {{false, 0, 0.0f, INFINITY, 0, 0}}};
    for (int a = 1; a < 3; a++)
        job.best[a] = job.best[0];
    size_t events = (size_t)lists->count[0] + lists->count[1] + lists->count[2];
    if (num_threads > 1 && events >= PARALLEL_SWEEP_EVENTS)
        kd_parallel_for(3, 1, num_threads, sweep_axes, &job);
    else
        sweep_axes(&job, 0, 3, 0);
    /* Axis order with strict comparison: ties keep the lowest axis, as one
     * sequential sweep would. */
    kd_split best = job.best[0];
    for (int a = 1; a < 3; a++)
        if (job.best[a].cost < best.cost)
            best = job.best[a];
    return best;
}

bool kd_leaf_before_sweep(uint32_t num_tris, const kd_path_state *path, const kd_aabb *box,
                          const kd_build_params *params)
{
    if ((int64_t)num_tris <= (int64_t)params->max_leaf_prims || path->depth_left <= 0)
        return true;
    /* A box without area (a segment or a point) is met by no ray of positive
     * measure: nothing to gain from splitting it. */
    return !(kd_box_area(box) > 0.0);
}

bool kd_leaf_after_sweep(uint32_t num_tris, const kd_split *split, const kd_build_params *params,
                         kd_path_state *path)
{
    if (!split->found)
        return true;
    double leaf_cost = (double)params->intersect_cost * (double)num_tris;
    if (split->cost > leaf_cost)
        path->bad_refines++;
    if ((split->cost > (double)params->bad_cost_ratio * leaf_cost &&
         (int64_t)num_tris < (int64_t)params->max_prims_in_leaf_for_cost_cutoff) ||
        path->bad_refines >= params->max_bad_refines)
        return true;
    /* The duplication bound: with each child's share of the budget in
     * proportion to its triangles, a subtree never holds more references
     * than max_duplication x (its triangles / the path's product so far). */
    path->duplication *= ((double)split->num_left + (double)split->num_right) / (double)num_tris;
    if (params->max_duplication > 0.0f && path->duplication > (double)params->max_duplication)
        return true;
    path->depth_left--;
    return false;
}
