#include "kd_parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

enum { KD_MAX_WORKERS = 256 };

typedef struct pool_job {
    size_t n, chunk;
    atomic_size_t next;
    kd_range_fn fn;
    void *ctx;
} pool_job;

typedef struct worker_arg {
    pool_job *job;
    int worker;
} worker_arg;

static void *worker_main(void *p)
{
    worker_arg *arg = p;
    pool_job *job = arg->job;
    for (;;) {
        size_t begin = atomic_fetch_add(&job->next, job->chunk);
        if (begin >= job->n)
            break;
        size_t end = begin + job->chunk < job->n ? begin + job->chunk : job->n;
        job->fn(job->ctx, begin, end, arg->worker);
    }
    return NULL;
}

int kd_parallel_num_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > KD_MAX_WORKERS ? KD_MAX_WORKERS : (int)n;
}

void kd_parallel_for(size_t n, size_t chunk, int num_threads, kd_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (chunk == 0)
        chunk = 1;
    int workers = num_threads > 0 ? num_threads : kd_parallel_num_cores();
    if (workers > KD_MAX_WORKERS)
        workers = KD_MAX_WORKERS;
    if ((size_t)workers > (n + chunk - 1) / chunk)
        workers = (int)((n + chunk - 1) / chunk);
    pool_job job = {.n = n, .chunk = chunk, .fn = fn, .ctx = ctx};
    atomic_init(&job.next, 0);
    pthread_t threads[KD_MAX_WORKERS];
    worker_arg args[KD_MAX_WORKERS];
    int started = 0;
    for (int w = 1; w < workers; w++) {
        args[w] = (worker_arg){&job, w};
        if (pthread_create(&threads[w], NULL, worker_main, &args[w]) != 0)
            break; /* fewer threads still finish the work */
        started = w;
    }
    args[0] = (worker_arg){&job, 0};
    worker_main(&args[0]);
    for (int w = 1; w <= started; w++)
        pthread_join(threads[w], NULL);
}
