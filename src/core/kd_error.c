#include "kd_error.h"

#include <stdarg.h>
#include <stdio.h>

kd_status kd_error_set(kd_error *err, kd_status status, const char *fmt, ...)
{
    if (err) {
        va_list args;
        va_start(args, fmt);
        err->status = status;
        vsnprintf(err->message, sizeof err->message, fmt, args);
        va_end(args);
    }
    return status;
}

void kd_error_clear(kd_error *err)
{
    if (err) {
        err->status = KD_OK;
        err->message[0] = '\0';
    }
}

const char *kd_status_name(kd_status status)
{
    switch (status) {
    case KD_OK: return "ok";
    case KD_ERR_IO: return "i/o error";
    case KD_ERR_PARSE: return "parse error";
    case KD_ERR_INVALID: return "invalid data";
    case KD_ERR_NOMEM: return "out of memory";
    case KD_ERR_CUDA: return "CUDA error";
    case KD_ERR_NO_DEVICE: return "no CUDA device";
    case KD_ERR_DEVICE_OOM: return "out of device memory";
    case KD_ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown error";
}
