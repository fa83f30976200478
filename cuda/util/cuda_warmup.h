/* The CUDA context made on a thread of its own, so that its creation (tens
 * to hundreds of milliseconds) overlaps host work such as loading a scene.
 * Valid C and CUDA. */
#ifndef KD_CUDA_WARMUP_H
#define KD_CUDA_WARMUP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_cuda_warmup kd_cuda_warmup;

/* Starts making the current device's primary context, then runs then(arg)
 * (then may be NULL) on the same thread, where the context was made: work of
 * a layer above, such as loading its kernels; arg must outlive
 * kd_cuda_warmup_finish. NULL when no thread could be started (the first
 * CUDA call then makes it, as it would anyway). */
kd_cuda_warmup *kd_cuda_warmup_start(void (*then)(void *), void *arg);

/* Waits for it and frees w (NULL: nothing). A failure is left for the first
 * real CUDA call to report, with its own context. */
void kd_cuda_warmup_finish(kd_cuda_warmup *w);

#ifdef __cplusplus
}
#endif
#endif
