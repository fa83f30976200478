/* The kernel clock (kd_kernel_clock.h) on CUPTI's activity API.
 *
 * CUPTI hands over filled record buffers through a callback, from its own
 * thread or from the flush at stop, so the records are gathered under a lock
 * and matched at stop: a kernel or memset is tagged when the API call that
 * launched it (its correlation id) was made inside a tagged region, which
 * CUPTI reports as an external-correlation record. Those records come only
 * with the runtime API's records, so those are enabled too (and ignored). */
#include "kd_kernel_clock.h"

#include <stdlib.h>
#include <string.h>

#if defined(KD_HAVE_CUPTI)
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <pthread.h>

enum { CLOCK_BUFFER_BYTES = 4 << 20, CLOCK_ALIGN = 8 };
/* The external id our tags carry (any constant: the kind is ours alone). */
#define CLOCK_TAG_ID 0x6b64u

typedef struct {
    pthread_mutex_t lock;
    int registered, running;
    kd_kernel_clock_record *timed;
    size_t num_timed, cap_timed;
    uint32_t *tagged; /* correlation ids of calls made inside tags */
    size_t num_tagged, cap_tagged;
    uint32_t num_untimed; /* kernels CUPTI could give no timestamps for */
    uint32_t num_unread;  /* buffers whose records could not all be read */
    int out_of_memory;
} clock_state;

static clock_state g_clock = {PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, 0, 0, NULL, 0, 0, 0, 0, 0};

static const CUpti_ActivityKind clock_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};
enum { NUM_KINDS = sizeof clock_kinds / sizeof clock_kinds[0] };

/* Grows *items (of size bytes each) to hold one more; 0 when out of memory. */
static int grow(void **items, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 1;
    size_t next = *cap ? 2 * *cap : 1024;
    void *p = realloc(*items, next * size);
    if (!p)
        return 0;
    *items = p;
    *cap = next;
    return 1;
}

static void add_timed(uint32_t correlation, uint64_t start, uint64_t end)
{
    if (start == 0 && end == 0) {
        g_clock.num_untimed++;
        return;
    }
    if (!grow((void **)&g_clock.timed, &g_clock.cap_timed, g_clock.num_timed, sizeof(kd_kernel_clock_record))) {
        g_clock.out_of_memory = 1;
        return;
    }
    kd_kernel_clock_record r = {correlation, start, end};
    g_clock.timed[g_clock.num_timed++] = r;
}

static void add_tagged(uint32_t correlation)
{
    if (!grow((void **)&g_clock.tagged, &g_clock.cap_tagged, g_clock.num_tagged, sizeof(uint32_t))) {
        g_clock.out_of_memory = 1;
        return;
    }
    g_clock.tagged[g_clock.num_tagged++] = correlation;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = (uint8_t *)aligned_alloc(CLOCK_ALIGN, CLOCK_BUFFER_BYTES);
    *size = *buffer ? CLOCK_BUFFER_BYTES : 0;
    *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    CUpti_Activity *record = NULL;
    pthread_mutex_lock(&g_clock.lock);
    CUptiResult r = CUPTI_ERROR_MAX_LIMIT_REACHED; /* the end of the buffer */
    while (valid > 0 && (r = cuptiActivityGetNextRecord(buffer, valid, &record)) == CUPTI_SUCCESS) {
        if (!g_clock.running)
            continue; /* a late buffer of an earlier window */
        if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)record;
            add_timed(k->correlationId, k->start, k->end);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)record;
            add_timed(m->correlationId, m->start, m->end);
        } else if (record->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const CUpti_ActivityExternalCorrelation *x = (const CUpti_ActivityExternalCorrelation *)record;
            if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0 && x->externalId == CLOCK_TAG_ID)
                add_tagged(x->correlationId);
        }
    }
    /* Anything but the buffer's end (an incomplete record, say) leaves
     * records unread: the sums would fall short, so it counts as a drop. */
    if (r != CUPTI_ERROR_MAX_LIMIT_REACHED && g_clock.running)
        g_clock.num_unread++;
    pthread_mutex_unlock(&g_clock.lock);
    free(buffer);
}

static kd_status cupti_fail(kd_error *err, const char *what, CUptiResult r)
{
    const char *reason = NULL;
    if (cuptiGetResultString(r, &reason) != CUPTI_SUCCESS || !reason)
        reason = "unknown CUPTI error";
    return kd_error_set(err, KD_ERR_UNSUPPORTED, "kernel clock: %s: %s", what, reason);
}

static void disable_kinds(int count)
{
    for (int i = 0; i < count; i++)
        (void)cuptiActivityDisable(clock_kinds[i]);
}

int kd_kernel_clock_compiled(void) { return 1; }

kd_status kd_kernel_clock_start(kd_error *err)
{
    pthread_mutex_lock(&g_clock.lock);
    int busy = g_clock.running;
    if (!busy) {
        g_clock.running = 1;
        g_clock.num_timed = g_clock.num_tagged = 0;
        g_clock.num_untimed = 0;
        g_clock.num_unread = 0;
        g_clock.out_of_memory = 0;
    }
    pthread_mutex_unlock(&g_clock.lock);
    if (busy)
        return kd_error_set(err, KD_ERR_UNSUPPORTED, "kernel clock: already running");

    CUptiResult r = CUPTI_SUCCESS;
    if (!g_clock.registered) {
        r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
        if (r != CUPTI_SUCCESS)
            goto fail;
        g_clock.registered = 1;
    }
    for (int i = 0; i < NUM_KINDS; i++) {
        r = cuptiActivityEnable(clock_kinds[i]);
        if (r != CUPTI_SUCCESS) {
            disable_kinds(i);
            goto fail;
        }
    }
    return KD_OK;
fail:
    pthread_mutex_lock(&g_clock.lock);
    g_clock.running = 0;
    pthread_mutex_unlock(&g_clock.lock);
    return cupti_fail(err, "CUPTI activity tracing unavailable", r);
}

void kd_kernel_clock_tag_begin(void)
{
    (void)cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, CLOCK_TAG_ID);
}

void kd_kernel_clock_tag_end(void)
{
    (void)cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
}

kd_status kd_kernel_clock_stop(kd_kernel_clock_sum *sum, kd_error *err)
{
    memset(sum, 0, sizeof *sum);
    pthread_mutex_lock(&g_clock.lock);
    int running = g_clock.running;
    pthread_mutex_unlock(&g_clock.lock);
    if (!running)
        return kd_error_set(err, KD_ERR_INVALID, "kernel clock: stopped without a start");
    cudaError_t sync = cudaDeviceSynchronize();
    CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    disable_kinds(NUM_KINDS);
    size_t dropped = 0;
    (void)cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);

    pthread_mutex_lock(&g_clock.lock);
    kd_kernel_clock_match(g_clock.timed, g_clock.num_timed, g_clock.tagged, g_clock.num_tagged, sum);
    sum->num_dropped = (uint32_t)dropped + g_clock.num_untimed + g_clock.num_unread;
    int out_of_memory = g_clock.out_of_memory;
    g_clock.running = 0;
    pthread_mutex_unlock(&g_clock.lock);

    if (sync != cudaSuccess)
        return kd_error_set(err, KD_ERR_CUDA, "kernel clock: waiting for the device: %s",
                            cudaGetErrorString(sync));
    if (r != CUPTI_SUCCESS)
        return cupti_fail(err, "flushing CUPTI's records", r);
    if (out_of_memory)
        return kd_error_set(err, KD_ERR_NOMEM, "kernel clock: out of host memory for CUPTI's records");
    return KD_OK;
}

#else /* no CUPTI in this build */

int kd_kernel_clock_compiled(void) { return 0; }

kd_status kd_kernel_clock_start(kd_error *err)
{
    return kd_error_set(err, KD_ERR_UNSUPPORTED, "kernel clock: this build has no CUPTI");
}

void kd_kernel_clock_tag_begin(void) {}
void kd_kernel_clock_tag_end(void) {}

kd_status kd_kernel_clock_stop(kd_kernel_clock_sum *sum, kd_error *err)
{
    memset(sum, 0, sizeof *sum);
    return kd_error_set(err, KD_ERR_UNSUPPORTED, "kernel clock: this build has no CUPTI");
}

#endif
