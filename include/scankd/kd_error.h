/* Error reporting shared by every layer of scankd.
 * Library functions return a kd_status and, on failure, fill a kd_error with a
 * human-readable reason; nothing below the CLI prints or exits. */
#ifndef KD_ERROR_H
#define KD_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_status {
    KD_OK = 0,
    KD_ERR_IO,          /* a file could not be opened, read or written */
    KD_ERR_PARSE,       /* malformed input (OBJ, tree file, arguments) */
    KD_ERR_INVALID,     /* a value out of range or inconsistent data */
    KD_ERR_NOMEM,       /* host allocation failed or a count would overflow */
    KD_ERR_CUDA,        /* a CUDA call or launch failed */
    KD_ERR_NO_DEVICE,   /* no CUDA device present */
    KD_ERR_DEVICE_OOM,  /* the device has too little free memory */
    KD_ERR_UNSUPPORTED  /* asked for something this build cannot do */
} kd_status;

enum { KD_ERROR_MESSAGE_BYTES = 512 };

typedef struct kd_error {
    kd_status status;
    char message[KD_ERROR_MESSAGE_BYTES];
} kd_error;

/* Records status and a printf-style reason in err (which may be NULL) and
 * returns status, so callers can write `return kd_error_set(err, ...)`. */
kd_status kd_error_set(kd_error *err, kd_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Returns the status of call from the enclosing function unless it is KD_OK. */
#define KD_TRY(call)                           \
    do {                                       \
        kd_status kd_try_st_ = (call);         \
        if (kd_try_st_ != KD_OK)               \
            return kd_try_st_;                 \
    } while (0)

/* Clears err to KD_OK with an empty message. */
void kd_error_clear(kd_error *err);

/* Short name of a status code ("io error", "parse error", ...). */
const char *kd_status_name(kd_status status);

#ifdef __cplusplus
}
#endif
#endif
