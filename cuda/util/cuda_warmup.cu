// The CUDA context made while the host does other work (cuda_warmup.h).
#include "cuda_warmup.h"

#include <pthread.h>
#include <stdlib.h>

#include <cuda_runtime.h>

struct kd_cuda_warmup {
    pthread_t thread;
    void (*then)(void *);
    void *arg;
};

static void *make_context(void *arg)
{
    const kd_cuda_warmup *w = (const kd_cuda_warmup *)arg;
    // cudaFree(0) is the customary way to make the primary context and nothing else.
    if (cudaFree(0) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (w->then)
        w->then(w->arg);
    return NULL;
}

extern "C" kd_cuda_warmup *kd_cuda_warmup_start(void (*then)(void *), void *arg)
{
    kd_cuda_warmup *w = (kd_cuda_warmup *)malloc(sizeof *w);
    if (w) {
        w->then = then;
        w->arg = arg;
    }
    if (w && pthread_create(&w->thread, NULL, make_context, w) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

extern "C" void kd_cuda_warmup_finish(kd_cuda_warmup *w)
{
    if (!w)
        return;
    pthread_join(w->thread, NULL);
    free(w);
}
