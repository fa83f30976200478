// Block layer: moving a tile between global memory and registers, "striped
// by vector" (block_scan.cuh): thread t's j-th vector holds the four
// consecutive elements starting at tile index (j * THREADS + t) * 4.
//
// As in CUB, only the last, partial tile pays for bounds checks: a caller
// passes `vector` for a full tile whose buffer is aligned (16 bytes; 4 for
// one-byte elements), which then moves in vectors, unguarded; any other tile
// (the partial last one, or a misaligned buffer) moves element by element,
// guarded, and the elements past the end take the caller's fill value.
//
// The array and its length are taken by reference: a kernel that passes
// fields of its parameter struct then keeps reading them from the parameter
// bank where they are used, rather than holding them in registers.
#ifndef KD_BLOCK_LOAD_STORE_CUH
#define KD_BLOCK_LOAD_STORE_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

// The 16-byte vector of four 4-byte elements.
template <typename T>
struct kd_vec4;
template <>
struct kd_vec4<uint32_t> {
    typedef uint4 type;
    static __device__ __forceinline__ uint4 make(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
    {
        return make_uint4(a, b, c, d);
    }
};
template <>
struct kd_vec4<float> {
    typedef float4 type;
    static __device__ __forceinline__ float4 make(float a, float b, float c, float d)
    {
        return make_float4(a, b, c, d);
    }
};

// Index of element k of thread t's j-th vector of the tile at tile_base.
template <int THREADS>
__host__ __device__ __forceinline__ size_t kd_striped_index(size_t tile_base, unsigned t, int j, int k)
{
    return tile_base + (size_t)(j * THREADS + t) * 4 + k;
}

// Fill rules for the elements past the end: a constant, or the array's last
// element (read only by a partial tile, n > 0).
template <typename T>
struct kd_fill_value {
    T value;
    __device__ __forceinline__ T operator()() const { return value; }
};
template <typename T>
struct kd_fill_last {
    const T *const &in;
    const size_t &n;
    __device__ __forceinline__ T operator()() const { return in[n - 1]; }
};

// Loads the tile starting at in + tile_base (n elements in all).
template <int THREADS, int VECS, typename T, typename Fill>
__device__ __forceinline__ void kd_block_load_striped(const T *const &in, size_t tile_base, const size_t &n,
                                                      bool vector,
                                                      T (&items)[VECS][4], Fill fill)
{
    typedef typename kd_vec4<T>::type V;
    const unsigned t = threadIdx.x;
    if (vector) {
        const V *in4 = reinterpret_cast<const V *>(in + tile_base);
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            const V v = in4[j * THREADS + t];
            items[j][0] = v.x, items[j][1] = v.y, items[j][2] = v.z, items[j][3] = v.w;
        }
    } else {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const size_t i = kd_striped_index<THREADS>(tile_base, t, j, k);
                items[j][k] = i < n ? in[i] : fill();
            }
        }
    }
}

// The same for one-byte elements: a vector is one 32-bit word, element k in
// byte k; past the end, 0.
template <int THREADS, int VECS>
__device__ __forceinline__ void kd_block_load_striped_bytes(const uint8_t *const &in, size_t tile_base, const size_t &n,
                                                            bool vector, uint32_t (&words)[VECS])
{
    const unsigned t = threadIdx.x;
    if (vector) {
        const uint32_t *in4 = reinterpret_cast<const uint32_t *>(in + tile_base);
#pragma unroll
        for (int j = 0; j < VECS; j++)
            words[j] = in4[j * THREADS + t];
    } else {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
            words[j] = 0;
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const size_t i = kd_striped_index<THREADS>(tile_base, t, j, k);
                words[j] |= (i < n ? (uint32_t)in[i] : 0u) << (8 * k);
            }
        }
    }
}

// Stores a tile to out + tile_base: element k of vector j is value(j, k), a
// function the caller inlines (the values are made where they are stored);
// elements at n and beyond are not written.
template <int THREADS, int VECS, typename T, typename Value>
__device__ __forceinline__ void kd_block_store_striped(T *out, size_t tile_base, const size_t &n, bool vector,
                                                       Value value)
{
    typedef typename kd_vec4<T>::type V;
    const unsigned t = threadIdx.x;
    if (vector) {
        V *out4 = reinterpret_cast<V *>(out + tile_base);
#pragma unroll
        for (int j = 0; j < VECS; j++)
            out4[j * THREADS + t] = kd_vec4<T>::make(value(j, 0), value(j, 1), value(j, 2), value(j, 3));
    } else {
#pragma unroll
        for (int j = 0; j < VECS; j++) {
#pragma unroll
            for (int k = 0; k < 4; k++) {
                const size_t i = kd_striped_index<THREADS>(tile_base, t, j, k);
                if (i < n)
                    out[i] = value(j, k);
            }
        }
    }
}

// Stores one vector of four elements at out[first] (first a multiple of 4),
// for kernels that finish their vectors one at a time.
template <typename T>
__device__ __forceinline__ void kd_store_vector(T *out, size_t first, const size_t &n, bool vector,
                                                const T (&v)[4])
{
    if (vector) {
        reinterpret_cast<typename kd_vec4<T>::type *>(out)[first / 4] = kd_vec4<T>::make(v[0], v[1], v[2], v[3]);
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (first + k < n)
                out[first + k] = v[k];
    }
}

#endif
