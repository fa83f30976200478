// The GPU build from the device mesh to the finished device tree: the four
// stages in order, with the memory cap, the timing and the profile.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_build_common.cuh"
#include "kd_kernel_clock.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void release_scratch(kd_gpu_builder *b)
{
    for (int i = 0; i < KD_GB_NUM_BUFFERS; i++)
        if (i != KD_GB_MESH_POS && i != KD_GB_MESH_IDX)
            kd_gb_release(b, i);
}

#if KD_DEVICE_CODE
static kd_status make_events(kd_gpu_builder *b, kd_error *err)
{
    if (b->host || b->events_made)
        return KD_OK;
    for (int i = 0; i <= KD_GPU_NUM_STAGES; i++)
        KD_TRY(kd_gb_cuda(err, cudaEventCreate(&b->stage_ev[i]), "cudaEventCreate"));
    for (int i = 0; i < 2 * KD_GB_MAX_TIMED; i++)
        KD_TRY(kd_gb_cuda(err, cudaEventCreate(&b->reduce_ev[i]), "cudaEventCreate"));
    for (int i = 0; i < KD_GB_MAX_STEP_MARKS; i++)
        KD_TRY(kd_gb_cuda(err, cudaEventCreate(&b->step_ev[i]), "cudaEventCreate"));
    b->events_made = 1;
    return KD_OK;
}

// The profile's stage, reduction and step times from the build's events.
static void event_times(kd_gpu_builder *b, kd_gpu_build_profile *prof)
{
    for (int i = 0; i < KD_GPU_NUM_STAGES; i++) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, b->stage_ev[i], b->stage_ev[i + 1]) == cudaSuccess)
            prof->stage_ms[i] = ms;
    }
    for (int i = 0; i < b->num_timed; i++) {
        float ms = 0.0f;
        if (cudaEventElapsedTime(&ms, b->reduce_ev[2 * i], b->reduce_ev[2 * i + 1]) == cudaSuccess)
            prof->reduce_ms += ms;
    }
    for (int i = 1; i < b->num_step_marks; i++) {
        float ms = 0.0f;
        int step = b->step_of[i];
        if (step == KD_GB_STEP_START || cudaEventElapsedTime(&ms, b->step_ev[i - 1], b->step_ev[i]) != cudaSuccess)
            continue;
        prof->step_ms[step] += ms;
        prof->step_count[step]++;
    }
    (void)cudaGetLastError();
}

// The profile's figures from a window of the kernel clock.
static kd_gpu_kernel_times kernel_times_of(const kd_kernel_clock_sum &sum)
{
    kd_gpu_kernel_times k;
    memset(&k, 0, sizeof k);
    k.clocked = 1;
    k.reduce_ms = sum.tagged_ms;
    k.num_reduce = sum.num_tagged;
    k.all_ms = sum.all_ms;
    k.num_all = sum.num_all;
    k.busy_ms = sum.busy_ms;
    return k;
}
#endif

static void stage_mark(kd_gpu_builder *b, int profile, int index)
{
#if KD_DEVICE_CODE
    if (profile && !b->host)
        cudaEventRecord(b->stage_ev[index], b->stream);
#endif
    kd_gb_step_mark(b, profile, KD_GB_STEP_START);
}

// A stage that runs whole (no batches make it smaller) refused by the cap:
// the message says that what it asked for is the least it needs.
static kd_status whole_stage_short(const kd_gpu_builder *b, kd_status st, const char *stage, kd_error *err)
{
    if (st != KD_ERR_DEVICE_OOM || !b->cap_bytes)
        return st;
    char why[sizeof err->message];
    snprintf(why, sizeof why, "%s", err->message);
    return kd_error_set(err, st, "%s; the %s runs whole and needs that much at least", why, stage);
}

static kd_status build(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    int prof = s->opts->profile;
    const kd_gb_build_state initial = *s;
    for (;;) {
        stage_mark(b, prof, 0);
        KD_TRY(whole_stage_short(b, kd_gb_stage_preprocess(b, s, err), "preprocess", err));
        stage_mark(b, prof, 1);
        KD_TRY(whole_stage_short(b, kd_gb_stage_large(b, s, err), "large stage (over every triangle)", err));
        s->profile->large_peak_device_bytes = b->peak_bytes;
        KD_TRY(kd_gb_stage_below_large(b, s, err));
        if (!s->redo_in_batches)
            break;
        *s = initial; // a capped whole run spent the level: again, in batches only
        s->batches_only = 1;
    }
    stage_mark(b, prof, 2);
    if (!s->small_done)
        KD_TRY(kd_gb_stage_small(b, s, err)); // after batches, none is left
    stage_mark(b, prof, 3);
    KD_TRY(whole_stage_short(b, kd_gb_stage_output(b, s, err), "output stage (over the whole node pool)", err));
    stage_mark(b, prof, 4);
#if KD_DEVICE_CODE
    if (!b->host)
        KD_TRY(kd_gb_cuda(err, cudaStreamSynchronize(b->stream), "GPU build kernels"));
#endif
    return KD_OK;
}

// A capped build that found no room while it held an earlier build's
// buffers (kept so that repeated builds reuse them) runs again without
// them, as the builder's first build would.
static kd_status build_under_cap(kd_gpu_builder *b, kd_gb_build_state *s, kd_error *err)
{
    const size_t kept =
        b->bytes_held - kd_gb_own_bytes(&b->buf[KD_GB_MESH_POS]) - kd_gb_own_bytes(&b->buf[KD_GB_MESH_IDX]);
    const kd_gb_build_state initial = *s;
    const kd_status st = build(b, s, err);
    if (st != KD_ERR_DEVICE_OOM || !b->cap_bytes || kept == 0)
        return st;
#if KD_DEVICE_CODE
    if (!b->host)
        (void)cudaStreamSynchronize(b->copy_stream); // a level's copy of the counts may still read them
#endif
    release_scratch(b);
    kd_gb_peak_reset(b);
    b->num_timed = 0;
    b->num_step_marks = 0;
    *s = initial;
    memset(s->profile, 0, sizeof *s->profile);
    kd_error_clear(err);
    return build(b, s, err);
}

extern "C" kd_status kd_gb_build_resolved(kd_gpu_builder *b, const kd_gpu_build_options *opts,
                                          kd_gpu_build_profile *profile, kd_error *err)
{
    if (!b->have_mesh)
        return kd_error_set(err, KD_ERR_INVALID, "GPU build: no mesh was given to the builder");
    b->have_tree = 0;
    b->cap_bytes = opts->max_device_bytes;
    if (b->cap_bytes && b->bytes_held > b->cap_bytes)
        release_scratch(b); // an earlier, uncapped build left more than the cap allows
    kd_gb_peak_reset(b);
#if KD_DEVICE_CODE
    if (opts->profile && !b->host)
        KD_TRY(make_events(b, err));
#endif
    b->num_timed = 0;
    b->num_step_marks = 0;

    kd_gpu_build_profile local;
    kd_gpu_build_profile *prof = profile ? profile : &local;
    memset(prof, 0, sizeof *prof);

    kd_gb_build_state s;
    memset(&s, 0, sizeof s);
    s.opts = opts;
    s.max_depth = opts->params.max_depth;
    s.num_tris = b->num_triangles;
    s.profile = prof;

    // The kernel clock's tracing slows the host's launches, so it is its own
    // option; where CUPTI cannot run (another tool holds it) the build goes
    // on without the figure.
    b->kernel_clock_on = 0;
    b->kernel_clock_tags = 0;
    kd_error clock_err;
    kd_error_clear(&clock_err);
    if (opts->profile && opts->kernel_clock) {
        if (b->host) {
            kd_error_set(&clock_err, KD_ERR_UNSUPPORTED, "kernel clock: an emulated build has no kernels");
        } else {
#if KD_DEVICE_CODE
            KD_TRY(kd_gb_cuda(err, cudaStreamSynchronize(b->stream), "GPU build: before the kernel clock"));
            b->kernel_clock_on = kd_kernel_clock_start(&clock_err) == KD_OK;
#endif
        }
    }

    double t0 = now_ms();
    kd_status st = build_under_cap(b, &s, err);
    prof->build_ms = now_ms() - t0;
#if KD_DEVICE_CODE
    if (b->kernel_clock_on) {
        for (; b->kernel_clock_tags > 0; b->kernel_clock_tags--)
            kd_kernel_clock_tag_end(); // a failed reduction call's, which would tag the next build's calls
        kd_kernel_clock_sum sum;
        b->kernel_clock_on = 0;
        if (kd_kernel_clock_stop(&sum, &clock_err) == KD_OK && sum.num_dropped > 0)
            kd_error_set(&clock_err, KD_ERR_UNSUPPORTED, "kernel clock: CUPTI lost %u records", sum.num_dropped);
        else if (clock_err.status == KD_OK)
            prof->kernel = kernel_times_of(sum);
    }
#endif
    if (opts->profile && opts->kernel_clock && !prof->kernel.clocked)
        snprintf(prof->kernel.error, sizeof prof->kernel.error, "%.*s",
                 (int)sizeof prof->kernel.error - 1, clock_err.message); // cut short if long
    prof->num_host_syncs++; // the final wait
    prof->device_bytes = b->bytes_held;
    prof->peak_device_bytes = b->peak_bytes;
    prof->num_small_roots = s.num_batches ? s.batch_small_roots : s.num_small_roots;
    prof->num_batches = s.num_batches;
    prof->num_handover_refs = s.handover_refs;
    if (st != KD_OK) {
#if KD_DEVICE_CODE
        if (!b->host) {
            (void)cudaStreamSynchronize(b->stream); // leave nothing running on failed buffers
            (void)cudaStreamSynchronize(b->copy_stream); // nor a large level's copy of the counts
        }
#endif
        return st;
    }
#if KD_DEVICE_CODE
    if (opts->profile && !b->host)
        event_times(b, prof);
#endif
    b->have_tree = 1;
    return KD_OK;
}
