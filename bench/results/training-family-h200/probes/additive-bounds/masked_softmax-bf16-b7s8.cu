/*@kevo
{
  "op": "masked_softmax",
  "description": "builtin genome: in registers, cols <= 1024 a row per 16-32 lanes, cols <= 16384 a row per block of 128-512 threads; cols >= 8192 with rows <= sms: rows split over many blocks, in one launch (2 x 512 threads per SM, partials exchanged in slots) chunks of up to 32 floats per thread in registers, longer ones streamed twice, else chunk stats then merge and normalise; 16384 < cols <= 393216: a row on chip per cluster of up to 16 blocks of 256 threads (16 floats each in registers, 80 in shared memory, exponentials taken 16 at a time as they land); else a block per row, two reads",
  "dtype": "bf16",
  "workspace": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows))) * 8",
  "plans": [
    { "when": "mask_kind == 0 && (cols <= 128)", "launches": [
      { "kernel": "softmax_short_g16_n1_none", "grid": "cdiv(rows, 8)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 128)", "launches": [
      { "kernel": "softmax_short_g16_n1_limit", "grid": "cdiv(rows, 8)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 128)", "launches": [
      { "kernel": "softmax_short_g16_n1_additive", "grid": "cdiv(rows, 8)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 256)", "launches": [
      { "kernel": "softmax_short_g32_n1_none", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 256)", "launches": [
      { "kernel": "softmax_short_g32_n1_limit", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 256)", "launches": [
      { "kernel": "softmax_short_g32_n1_additive", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 512)", "launches": [
      { "kernel": "softmax_short_g32_n2_none", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 512)", "launches": [
      { "kernel": "softmax_short_g32_n2_limit", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 512)", "launches": [
      { "kernel": "softmax_short_g32_n2_additive", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 1024)", "launches": [
      { "kernel": "softmax_short_g32_n4_none", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 1024)", "launches": [
      { "kernel": "softmax_short_g32_n4_limit", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 1024)", "launches": [
      { "kernel": "softmax_short_g32_n4_additive", "grid": "cdiv(rows, 4)", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 4096)", "launches": [
      { "kernel": "softmax_fused_e8_none", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 4096)", "launches": [
      { "kernel": "softmax_fused_e8_limit", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 4096)", "launches": [
      { "kernel": "softmax_fused_e8_additive", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 8192)", "launches": [
      { "kernel": "softmax_fused_e16_none", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 8192)", "launches": [
      { "kernel": "softmax_fused_e16_limit", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 8192)", "launches": [
      { "kernel": "softmax_fused_e16_additive", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 16384)", "launches": [
      { "kernel": "softmax_fused_e32_none", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 16384)", "launches": [
      { "kernel": "softmax_fused_e32_limit", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 16384)", "launches": [
      { "kernel": "softmax_fused_e32_additive", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 40960)", "launches": [
      { "kernel": "softmax_fused_e32_s48_none", "grid": "rows * (2 * sms / rows)", "block": 512, "smem": "98304", "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 40960)", "launches": [
      { "kernel": "softmax_fused_e32_s48_limit", "grid": "rows * (2 * sms / rows)", "block": 512, "smem": "98304", "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 40960)", "launches": [
      { "kernel": "softmax_fused_e32_s48_additive", "grid": "rows * (2 * sms / rows)", "block": 512, "smem": "98304", "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 2097152)", "launches": [
      { "kernel": "softmax_fused_stream_none", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 2097152)", "launches": [
      { "kernel": "softmax_fused_stream_limit", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (((cols >= 8192 && rows <= sms) || cols > 2097152) && rows <= 2 * sms && cols <= (2 * sms / rows) * 2097152)", "launches": [
      { "kernel": "softmax_fused_stream_additive", "grid": "rows * (2 * sms / rows)", "block": 512, "cooperative": true, "args": ["x", "y", "cols", "2 * sms / rows", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && ((cols >= 8192 && rows <= sms) || cols > 2097152)", "launches": [
      { "kernel": "softmax_split_stats_none", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] },
      { "kernel": "softmax_split_norm_none", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "y", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && ((cols >= 8192 && rows <= sms) || cols > 2097152)", "launches": [
      { "kernel": "softmax_split_stats_limit", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] },
      { "kernel": "softmax_split_norm_limit", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "y", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && ((cols >= 8192 && rows <= sms) || cols > 2097152)", "launches": [
      { "kernel": "softmax_split_stats_additive", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] },
      { "kernel": "softmax_split_norm_additive", "grid": "rows * max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "block": 256, "args": ["x", "y", "ws", "cols", "max(cdiv(cols, 1048576), min(cdiv(cols, 4096), cdiv(8 * sms, rows)))", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols > 16384 && cols <= 393216)", "launches": [
      { "kernel": "softmax_cluster_t256_r2_s10_g2_none", "grid": "rows * cdiv(cols, 24576)", "block": 256, "smem": "40960", "cluster": "cdiv(cols, 24576)", "args": ["x", "y", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols > 16384 && cols <= 393216)", "launches": [
      { "kernel": "softmax_cluster_t256_r2_s10_g2_limit", "grid": "rows * cdiv(cols, 24576)", "block": 256, "smem": "40960", "cluster": "cdiv(cols, 24576)", "args": ["x", "y", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols > 16384 && cols <= 393216)", "launches": [
      { "kernel": "softmax_cluster_t256_r2_s10_g2_additive", "grid": "rows * cdiv(cols, 24576)", "block": 256, "smem": "40960", "cluster": "cdiv(cols, 24576)", "args": ["x", "y", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 2048)", "launches": [
      { "kernel": "softmax_block_t128_n2_none", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 2048)", "launches": [
      { "kernel": "softmax_block_t128_n2_limit", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 2048)", "launches": [
      { "kernel": "softmax_block_t128_n2_additive", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 4096)", "launches": [
      { "kernel": "softmax_block_t128_n4_none", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 4096)", "launches": [
      { "kernel": "softmax_block_t128_n4_limit", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 4096)", "launches": [
      { "kernel": "softmax_block_t128_n4_additive", "grid": "rows", "block": 128, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 8192)", "launches": [
      { "kernel": "softmax_block_t256_n4_none", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 8192)", "launches": [
      { "kernel": "softmax_block_t256_n4_limit", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 8192)", "launches": [
      { "kernel": "softmax_block_t256_n4_additive", "grid": "rows", "block": 256, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (cols <= 16384)", "launches": [
      { "kernel": "softmax_block_t512_n4_none", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (cols <= 16384)", "launches": [
      { "kernel": "softmax_block_t512_n4_limit", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (cols <= 16384)", "launches": [
      { "kernel": "softmax_block_t512_n4_additive", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 0 && (true)", "launches": [
      { "kernel": "softmax_loop_none", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "(mask_kind == 1 || mask_kind == 2) && (true)", "launches": [
      { "kernel": "softmax_loop_limit", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] },
    { "when": "mask_kind == 3 && (true)", "launches": [
      { "kernel": "softmax_loop_additive", "grid": "rows", "block": 512, "args": ["x", "y", "rows", "cols", "lengths", "mask", "scale", "heads", "queries", "mask_kind"] } ] }
  ]
}
*/
#include "kevo.h"

// Rendered by kevo's built-in agent from the genome
// {"short":{"maxCols":1024,"minLanes":16,"growth":2,"threads":128,"vec":4,"online":false,"exp":"FAST","load":"LDG","store":"PLAIN","skipMasked":false},"block":{"maxCols":16384,"minThreads":128,"maxThreads":512,"elems":32,"firstElems":16,"vec":4,"online":false,"reduce":"SHUFFLE","exp":"FAST","load":"LDG","store":"PLAIN","minBlocks":0,"skipMasked":true},"split":{"minCols":8192,"rowsPct":100,"minChunk":4096,"blocksPerSm":8,"reverse":true,"pass":{"threads":256,"vec":2,"tile":2,"unroll":1,"online":false,"reduce":"SHUFFLE","exp":"EXP2","statsLoad":"PLAIN","normLoad":"LDCS","store":"STCS"},"fused":{"elems":32,"smem":6,"threads":512,"blocksPerSm":2,"vec":4,"stream":true,"reduce":"SHUFFLE","exp":"EXP2","load":"PLAIN","store":"PLAIN"}},"cluster":{"minCols":16384,"maxCluster":16,"threads":256,"regVecs":2,"smemVecs":10,"group":2,"fit":true,"load":"PLAIN","store":"PLAIN","skipMasked":false},"loop":{"gridCap":0,"pass":{"threads":512,"vec":4,"tile":2,"unroll":1,"online":false,"reduce":"SHUFFLE","exp":"EXP2","statsLoad":"PLAIN","normLoad":"LDCS","store":"STCS"}}}

// Gene encodings: each *Cfg struct below names one regime's choices with these.
enum { EXP_ACCURATE = 0, EXP_FAST = 1, EXP_EXP2 = 2 };
enum { LOAD_PLAIN = 0, LOAD_LDG = 1, LOAD_LDCG = 2, LOAD_LDCS = 3 };
enum { STORE_PLAIN = 0, STORE_STCG = 1, STORE_STCS = 2 };
enum { REDUCE_SHUFFLE = 0, REDUCE_SMEM = 1 };

// x and y hold float, kevo_bf16 or kevo_half (the file's dtype, kevo.h); every value is a float once read, so all
// arithmetic and accumulation is float32. Vec<T, V> is one access of V consecutive elements of T: W, the type it
// moves, and W to and from V floats (scaled on the way out). Floats move as float, float2 and float4; 16-bit elements
// as plain words of as many bytes, which the cache-hint intrinsics take (they know no 16-bit struct). Eight floats are
// two float4: what a bf16-fp32 thread stores for one 16-byte load of x.
template <class T, int V> struct Vec;
template <class T, int V> using VecW = typename Vec<T, V>::W;

template <> struct Vec<float, 1> {
    typedef float W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w; }
    static __device__ __forceinline__ W pack(const float* v, float scale) { return v[0] * scale; }
};
template <> struct Vec<float, 2> {
    typedef float2 W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w.x; o[1] = w.y; }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return make_float2(v[0] * scale, v[1] * scale);
    }
};
template <> struct Vec<float, 4> {
    typedef float4 W;
    static __device__ __forceinline__ void unpack(W w, float* o) { o[0] = w.x; o[1] = w.y; o[2] = w.z; o[3] = w.w; }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return make_float4(v[0] * scale, v[1] * scale, v[2] * scale, v[3] * scale);
    }
};
template <class W> struct Two { W lo, hi; };
template <> struct Vec<float, 8> {
    typedef Two<float4> W;
    static __device__ __forceinline__ void unpack(W w, float* o) {
        Vec<float, 4>::unpack(w.lo, o);
        Vec<float, 4>::unpack(w.hi, o + 4);
    }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        return W{Vec<float, 4>::pack(v, scale), Vec<float, 4>::pack(v + 4, scale)};
    }
};

template <int BYTES> struct Bits;
template <> struct Bits<2> { typedef unsigned short T; };
template <> struct Bits<4> { typedef unsigned T; };
template <> struct Bits<8> { typedef uint2 T; };
template <> struct Bits<16> { typedef uint4 T; };

__device__ __forceinline__ void split_words(unsigned w, unsigned* u) { u[0] = w; }
__device__ __forceinline__ void split_words(uint2 w, unsigned* u) { u[0] = w.x; u[1] = w.y; }
__device__ __forceinline__ void split_words(uint4 w, unsigned* u) { u[0] = w.x; u[1] = w.y; u[2] = w.z; u[3] = w.w; }
__device__ __forceinline__ void join_words(const unsigned* u, unsigned& w) { w = u[0]; }
__device__ __forceinline__ void join_words(const unsigned* u, uint2& w) { w = make_uint2(u[0], u[1]); }
__device__ __forceinline__ void join_words(const unsigned* u, uint4& w) { w = make_uint4(u[0], u[1], u[2], u[3]); }

// 16-bit elements, little-endian: the element at the lower address is a word's low half. Rounded to nearest even.
template <class T, int V> struct Vec16 {
    typedef typename Bits<2 * V>::T W;
    static __device__ __forceinline__ void unpack(W w, float* o) {
        if constexpr (V == 1) {
            o[0] = kevo_to_float(T{w});
        } else {
            unsigned u[V / 2];
            split_words(w, u);
#pragma unroll
            for (int i = 0; i < V / 2; ++i) {
                o[2 * i] = kevo_to_float(T{(unsigned short)(u[i] & 0xffffu)});
                o[2 * i + 1] = kevo_to_float(T{(unsigned short)(u[i] >> 16)});
            }
        }
    }
    static __device__ __forceinline__ W pack(const float* v, float scale) {
        if constexpr (V == 1) {
            return kevo_from_float<T>(v[0] * scale).bits;
        } else {
            unsigned u[V / 2];
#pragma unroll
            for (int i = 0; i < V / 2; ++i) {
                u[i] = (unsigned)kevo_from_float<T>(v[2 * i] * scale).bits
                       | ((unsigned)kevo_from_float<T>(v[2 * i + 1] * scale).bits << 16);
            }
            W w;
            join_words(u, w);
            return w;
        }
    }
};
template <class T> struct IsBf16 { static constexpr bool value = false; };
template <> struct IsBf16<kevo_bf16> { static constexpr bool value = true; };
template <int V> struct Vec<kevo_bf16, V> : Vec16<kevo_bf16, V> {};
template <int V> struct Vec<kevo_half, V> : Vec16<kevo_half, V> {};

template <int HINT, class T> __device__ __forceinline__ T load(const T* p) {
    if constexpr (HINT == LOAD_LDG) return __ldg(p);
    else if constexpr (HINT == LOAD_LDCG) return __ldcg(p);
    else if constexpr (HINT == LOAD_LDCS) return __ldcs(p);
    else return *p;
}

template <int HINT, class T> __device__ __forceinline__ void store(T* p, T v) {
    if constexpr (HINT == STORE_STCG) __stcg(p, v);
    else if constexpr (HINT == STORE_STCS) __stcs(p, v);
    else *p = v;
}

template <int HINT, class W> __device__ __forceinline__ void store(Two<W>* p, Two<W> v) {
    store<HINT>(&p->lo, v.lo);
    store<HINT>(&p->hi, v.hi);
}

// One element: the peeled heads and tails of rows that are not vector-aligned.
template <int HINT, class T> __device__ __forceinline__ float load_one(const T* p) {
    float v;
    Vec<T, 1>::unpack(load<HINT>(reinterpret_cast<const VecW<T, 1>*>(p)), &v);
    return v;
}

template <int HINT, class T> __device__ __forceinline__ void store_one(T* p, float v, float scale) {
    store<HINT>(reinterpret_cast<VecW<T, 1>*>(p), Vec<T, 1>::pack(&v, scale));
}

// exp(v - m) with the difference taken first, in every mode: a row masked with the lowest finite float (-3.4e38,
// as Hugging Face masks) has m = v there, and exp(0) = 1 is the right answer. Folding m into one fma with log2(e)
// (v * log2e - m * log2e) overflows m * log2e to -inf on such a row and gives inf - inf.
// The modes: ACCURATE is expf; EXP2 is exp2f of the difference times log2(e), the hardware exponential and a fix-up
// for results below 2^-126 (a compare and two multiplies an element); FAST is the hardware exponential alone
// (ex2.approx.ftz), those results flushed to 0. A flushed exp(v - m) is a weight below 1.2e-38 of a row whose own max
// weighs 1: no output moves by more than that absolute amount, far inside every operator's tolerance. The fix-up is
// three of the few instructions an element has in the kernels that hold a 16-bit row on chip, which are
// issue-bound.
template <int EXP> struct Num {
    // exp(v - m); 0 when v is -inf (m must be finite then).
    static __device__ __forceinline__ float exp_from(float v, float m) {
        if constexpr (EXP == EXP_FAST) {
            float e;
            asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"((v - m) * KEVO_LOG2E));
            return e;
        } else if constexpr (EXP == EXP_EXP2) {
            return exp2f((v - m) * KEVO_LOG2E);
        } else {
            return expf(v - m);
        }
    }
};

// The mode of the cluster kernels, whose regime has no exp gene: FAST for a 16-bit x, whose rows held on chip are
// issue-bound, EXP2 for float32, whose cluster kernels ran no faster with FAST (bench/results/training-family-h200/,
// call 25).
template <class X> constexpr int cluster_exp = sizeof(X) == 2 ? EXP_FAST : EXP_EXP2;

// A partial softmax: max m over some elements, s = sum of exp(v - max) over them; (-inf, 0) when empty.
struct Stat { float m, s; };

// masked_softmax's prologue, the one place a score is formed: every kernel below reads x through it, so that what it
// folds and writes are scores, scale * x + mask, -inf where the mask kind masks the key; the rest is softmax's, and
// a row with no score left writes 0 (its max is -inf: kernels take its exponentials against 0 and scale them by 0).
// The launch's attention arguments are set once a block, by thread 0 before a barrier (Attention::set, called by
// every kernel's entry), so that the templates keep softmax's parameters; a row's mask is found from its x pointer.
enum { MASK_NONE = 0, MASK_CAUSAL = 1, MASK_PADDING = 2, MASK_ADDITIVE = 3 };
// A kernel's fixed kinds (OfKind, below): any kind, the launch's argument; or the kinds that only limit a row's keys.
enum { MASK_ANY = -1, MASK_LIMIT = -2 };

struct Attention {
    const void* x;
    const int* lengths;
    const void* mask;
    float scale;
    int heads, queries, cols, kind;

    static __device__ __forceinline__ Attention& block() { __shared__ Attention a; return a; }
    template <class X> static __device__ __forceinline__ void set(const X* x, const int* lengths, const X* mask,
                                                                  float scale, int heads, int queries, int cols,
                                                                  int kind) {
        if (threadIdx.x == 0) block() = Attention{x, lengths, mask, scale, heads, queries, cols, kind};
        __syncthreads();
    }

    // The row a kernel's `visit`-th row is. Under an additive mask rows are visited query by query, a query's heads
    // one after another, so that its mask row, which every head adds, comes from DRAM once and from L2 for the other
    // heads: a head's queries in turn read a mask larger than L2 (4096 x 4096 floats) again for every head, twice
    // the bytes of x. A bijection of [0, rows), and a visit past the last row is past it still. Only the kernels of
    // many rows (lanes, blocks, the loop) take it: rows split over blocks or clusters are few a launch, and a query's
    // heads already run side by side there.
    static __device__ __forceinline__ long long row(long long visit) {
        const Attention& a = block();
        if (a.kind != MASK_ADDITIVE || a.heads == 1) return visit;
        // 32-bit division: a launch's rows are an int, and a visit is at most a block's rows past them.
        const unsigned v = (unsigned)visit, h = v % (unsigned)a.heads, t = v / (unsigned)a.heads;
        return ((long long)(t / (unsigned)a.queries) * a.heads + h) * a.queries + t % (unsigned)a.queries;
    }
};

// The lowest finite value of x's type (torch.finfo(dtype).min): an additive mask's entry of it, or -inf, masks its key.
__device__ __forceinline__ float lowest_of(float) { return -FLT_MAX; }
__device__ __forceinline__ float lowest_of(kevo_bf16) { return __uint_as_float(0xFF7F0000u); }
__device__ __forceinline__ float lowest_of(kevo_half) { return -65504.0f; }

// One row's mask: keys at or past `limit` are masked (causal aligned to the bottom right: query q sees keys up to
// q + cols - queries; padding: the batch entry's length), and `bias` is the row's additive mask, null under the other
// kinds. The score is one rounding of the exact value, as the reference rounds it: scale * x (scaled), or
// fma(scale, x, bias).
// A kernel's mask kinds where its config fixes them (OfKind<Cfg, K>: a plan launches it for those kinds only): none,
// MASK_LIMIT (causal or padding) or additive; else MASK_ANY, the launch's argument. Fixed, the prologue holds only
// what its kinds need beside the row: none, the scale alone (the general prologue took 16 more registers in a 16-bit
// block kernel than softmax's, which left it fewer blocks an SM); causal and padding, a limit; additive, the mask
// row's pointer.
template <class C, class = void> struct MaskOf { static constexpr int value = MASK_ANY; };
template <class C> struct MaskOf<C, decltype(void(C::MASK))> { static constexpr int value = C::MASK; };
template <class C, int K> struct OfKind : C { static constexpr int MASK = K; };

template <class X, int KIND = MASK_ANY> struct Prologue {
    static constexpr bool LIMITED = KIND == MASK_ANY || KIND == MASK_LIMIT;
    static constexpr bool BIASED = KIND == MASK_ANY || KIND == MASK_ADDITIVE;
    float scale;
    int limit;
    const X* bias;

    // The prologue of the row at xr, whose index a kernel passes where it holds it (row >= 0). The limit kinds take
    // it: one division for the row's query or batch entry instead of three (found from x's pointer, a row's mask
    // took about 130 instructions a thread, 8 an element in a 16-bit block kernel of 4096 columns: ncu,
    // bench/results/training-family-h200/ call 40). A mask tensor's row is found from the pointer even so: from the
    // index, the additive register kernels took 4-9 more registers (ptxas sm_90), and the fp32 ones lost blocks an
    // SM and 5-11% at 1024-4096 columns (call 41).
    __device__ __forceinline__ explicit Prologue(const X* xr, long long row = -1) {
        const Attention& a = Attention::block();
        scale = a.scale;
        limit = a.cols;
        bias = nullptr;
        if constexpr (KIND != MASK_NONE) find_mask(a, BIASED || row < 0 ? row_of(a, xr) : (unsigned)row);
    }

    // Whether a kernel of config C reads x's vector from column c. Keys at or past a limit kind's limit are masked
    // whatever x holds there: a kernel whose regime skips masked keys (the genome's skipMasked, C::SKIP_MASKED) does
    // not read them, and its loads wait for the limit. A vector not read is taken as -inf, or 0 where cp.async fills
    // it, and scored -inf.
    template <class C> __device__ __forceinline__ bool reads(int c) const { return reads<C>(c, limit); }

    // reads() before the prologue is constructed, for a kernel that constructs it after x's loads: `reach` is the
    // row's limit (reach_of), unused where C reads every key.
    template <class C> static __device__ __forceinline__ int reach_of(const X* xr, long long row) {
        if constexpr (LIMITED && C::SKIP_MASKED) return Prologue(xr, row).limit;
        else return 0;
    }
    template <class C> static __device__ __forceinline__ bool reads(int c, int reach) {
        if constexpr (LIMITED && C::SKIP_MASKED) return c < reach;
        else return true;
    }

    // Whether the launch's kind is k: known where the kernel's kinds exclude it.
    static __device__ __forceinline__ bool is(const Attention& a, int k) {
        if constexpr (KIND == MASK_ANY) return a.kind == k;
        else if constexpr (KIND == MASK_LIMIT) return (k == MASK_CAUSAL || k == MASK_PADDING) && a.kind == k;
        else return KIND == k;
    }

    // The index of the row at xr (32-bit divisions wherever they suffice: a launch's rows are an int, and its
    // elements mostly fit 32 bits; a 64-bit division is several times the instructions).
    static __device__ __forceinline__ unsigned row_of(const Attention& a, const X* xr) {
        const unsigned long long off = static_cast<unsigned long long>(xr - static_cast<const X*>(a.x));
        return off <= 0xFFFFFFFFull ? (unsigned)off / (unsigned)a.cols : (unsigned)(off / (unsigned long long)a.cols);
    }

    // The row's limit and mask pointer, from its query and batch entry.
    __device__ __forceinline__ void find_mask(const Attention& a, unsigned row) {
        const unsigned q = row % (unsigned)a.queries;
        const long long b = row / ((unsigned)a.queries * (unsigned)a.heads);
        if (is(a, MASK_CAUSAL)) limit = (int)max(0LL, min((long long)a.cols, (long long)q + a.cols - a.queries + 1));
        else if (is(a, MASK_PADDING)) limit = max(0, min(a.cols, a.lengths[b]));
        else if (is(a, MASK_ADDITIVE)) bias = static_cast<const X*>(a.mask) + (b * a.queries + q) * a.cols;
    }

    // Whether this row has a mask tensor: always under a fixed additive kind, never under the others.
    __device__ __forceinline__ bool biased() const {
        if constexpr (KIND == MASK_ANY) return bias != nullptr;
        else return KIND == MASK_ADDITIVE;
    }

    // scale * v rounded once: __fmul_rn, which the compiler never contracts. Fused with an exponential's v - max into
    // fma(x, scale, -max), a row of the lowest float under an inexact scale (1/sqrt(80)) gave exponents of the
    // product's rounding error, about 1e31, instead of 0 (MaskedSoftmaxGpuTest's lowest-mask case, bf16).
    __device__ __forceinline__ float scaled(float v) const { return __fmul_rn(v, scale); }

    // The score of an element r columns past the limit (r < 0: before it), with the mask's value m there.
    __device__ __forceinline__ float score_rel(float v, int r, float m) const {
        if constexpr (LIMITED) {
            if (r >= 0) return -KEVO_INF;
        }
        if (!biased()) return scaled(v);
        // -inf and the lowest finite value are the only values at or below the lowest: one test (NaN fails it).
        return m <= lowest_of(X{}) ? -KEVO_INF : fmaf(scale, v, m);
    }

    // Whether the mask's n values at b can be read as one vector.
    template <int n> static __device__ __forceinline__ bool vector_at(const X* b) {
        return n > 1 && (reinterpret_cast<unsigned long long>(b) & (sizeof(VecW<X, n>) - 1)) == 0;
    }

    // The mask's values at n consecutive elements from b, r columns past the limit, as a vector where `whole`
    // (vector_at<n>(b)); apart from their use (scores), so that a kernel can issue all its loads of a row's mask
    // before it waits for any (apply_all).
    template <int n> __device__ __forceinline__ void bias_from(float* m, const X* b, bool whole, int r) const {
        if constexpr (BIASED) {
            if (!biased()) return;
            if (whole) {
                Vec<X, n>::unpack(*reinterpret_cast<const VecW<X, n>*>(b), m);
            } else {
#pragma unroll
                for (int i = 0; i < n; ++i) m[i] = r + i < 0 ? kevo_to_float(b[i]) : 0.0f;
            }
        }
    }

    // The mask's values at n consecutive elements from column c.
    template <int n> __device__ __forceinline__ void bias_at(float* m, int c) const {
        if constexpr (BIASED) {
            if (biased()) bias_from<n>(m, bias + c, vector_at<n>(bias + c), c - limit);
        }
    }

    // The scores of n consecutive elements, r columns past the limit, in place, from the mask's values there. A
    // vector wholly before the limit and without a mask tensor, a row's usual one under every kind but the additive,
    // takes one test and a product an element: the test an element cost 16-bit rows, whose arithmetic per byte is
    // twice a float row's, more than their memory time allows (the masked bf16 campaign's rows trailed fp32's
    // everywhere).
    template <int n> __device__ __forceinline__ void scores_rel(float* v, const float* m, int r) const {
        bool plain = !biased();
        if constexpr (LIMITED) plain = plain && r + n <= 0;
        if (plain) {
#pragma unroll
            for (int i = 0; i < n; ++i) v[i] = scaled(v[i]);
        } else {
#pragma unroll
            for (int i = 0; i < n; ++i) v[i] = score_rel(v[i], r + i, biased() ? m[i] : 0.0f);
        }
    }

    // The scores of n consecutive elements from column c, in place.
    template <int n> __device__ __forceinline__ void apply(float* v, int c) const {
        float m[n];
        bias_at<n>(m, c);
        scores_rel<n>(v, m, c - limit);
    }

    // The vectors of V a float thread reads the mask of at once where it does not hold its words: 16 values. The
    // fp32 cluster kernel spills a little for them and still ran its long additive rows faster than read a vector at
    // a time; chunks of 8 split the block kernels of one value a vector into two waits a row and ran them slower
    // (bench/results/training-family-h200/ call 45).
    template <int V> static constexpr int CHUNK = 16 / V > 0 ? 16 / V : 1;

    // A thread's words of the mask for apply_all, the k-th vector's at c0 + k * STEP * V, read whole where the row's
    // mask is aligned for them (`whole`). Issued before x's loads (fetch), so that the thread waits for both at once:
    // read where scored, a 16-bit row waited out one more L2 latency for each vector after x's, a fifth of a 16-bit
    // block kernel's stalls under an additive mask (ncu, bench/results/training-family-h200/ call 40). Held (ON) in up
    // to 16 registers, and for 16-bit x, whose values take twice the registers of their words, in up to 8 where a
    // row spans more than 128 threads: holding 16 left a 16-bit block kernel of 512 threads one block an SM, where
    // a warp's row and a 128-thread block's ran their additive rows faster for them (calls 42 and 48).
    template <int N, int V, int STEP> struct Words {
        static constexpr bool ON = BIASED && V > 1 && N * V * sizeof(X) <= (sizeof(X) == 4 || STEP <= 128 ? 64 : 32);
        VecW<X, V> w[ON ? N : 1];
        bool whole;
    };

    // The mask words of a thread's N vectors of V from column c0 (the k-th at c0 + k * STEP * V, where k * STEP <
    // room), in flight when it returns.
    template <int N, int V, int STEP> __device__ __forceinline__ Words<N, V, STEP> fetch(int c0, int room) const {
        Words<N, V, STEP> h;
        h.whole = false;
        if constexpr (Words<N, V, STEP>::ON) {
            const X* b = bias + c0;
            h.whole = biased() && vector_at<V>(b);
            if (h.whole) {
#pragma unroll
                for (int k = 0; k < N; ++k) {
                    if (k * STEP < room) h.w[k] = load<LOAD_LDG>(reinterpret_cast<const VecW<X, V>*>(b + k * STEP * V));
                }
            }
        }
        return h;
    }

    // fetch's words for the row at xr, before its prologue is wanted: a kernel whose registers are full while x's
    // loads are in flight (the cluster kernels) constructs its prologue after them, and holds only the words (where
    // it holds any) across them. A thread that holds none constructs nothing here.
    template <int N, int V, int STEP>
    static __device__ __forceinline__ Words<N, V, STEP> fetch_at(const X* xr, int c0, int room) {
        if constexpr (Words<N, V, STEP>::ON) {
            return Prologue(xr).template fetch<N, V, STEP>(c0, room);
        } else {
            Words<N, V, STEP> h;
            h.whole = false;
            return h;
        }
    }

    // The scores of a thread's N vectors of V held in registers, the k-th at v + k * V from column c0 + k * STEP * V,
    // there where k * STEP < room, with the mask's `words` (fetch) where it holds them. Every vector's column is
    // c0's plus a constant, so the thread holds c0 and the count in registers, not a column and a test a vector (held
    // a vector each, they cost the kinds that test columns a block an SM against the unmasked kernel:
    // bench/results/training-family-h200/ calls 36-37).
    // Without the words, for float x, every mask load of a chunk of up to 16 values (CHUNK) first, then its scores,
    // so that the chunk's vectors are in flight together and the thread waits for them once: a load a vector, each
    // used before the next is issued, waits out L2's or DRAM's latency N times a row, and the additive kind ran at
    // half the speed of the others that way (bench/results/forward-family-h100/README.md). With 16-bit x, a vector
    // at a time there.
    template <int N, int V, int STEP>
    __device__ __forceinline__ void apply_all(float* v, const Words<N, V, STEP>& words, int c0, int room) const {
        // None of the thread's keys masked: its scores with one test. A thread's padding vectors (past room) are -inf
        // and stay so under a positive scale (kevo draws 1/sqrt(d)); a caller's scale of 0 or below takes the general
        // path. Under a limit, a thread whose last vector ends before it: a causal row with fewer queries than keys,
        // or a long padded one, has most of its threads so, which tested each vector against the limit otherwise.
        constexpr int D = STEP * V;  // columns from one vector to the next
        bool plain = scale > 0.0f && !biased();
        if constexpr (LIMITED) plain = plain && c0 + (N - 1) * D + V <= limit;
        if (plain) {
#pragma unroll
            for (int i = 0; i < N * V; ++i) v[i] = scaled(v[i]);
            return;
        }
        const int r0 = c0 - limit;
        if constexpr (Words<N, V, STEP>::ON) {
            if (words.whole) {
#pragma unroll
                for (int k = 0; k < N; ++k) {
                    if (k * STEP < room) {
                        float m[V];
                        Vec<X, V>::unpack(words.w[k], m);
                        scores_rel<V>(v + k * V, m, r0 + k * D);
                    }
                }
                return;
            }
        }
        // A vector's mask values come from b + k * D: one vector or none, as b is (D * sizeof(X) is a multiple of
        // the vector's bytes).
        const X* b = bias + c0;
        const bool whole = BIASED && biased() && vector_at<V>(b);
        // A 16-bit row's aligned mask reads take a loop of their own: with the alignment a runtime test inside one
        // loop, ptxas kept both ways' registers live and the additive block kernel lost a block an SM.
        if constexpr (sizeof(X) == 2 && BIASED) {
            if (whole) { apply_each<N, V, STEP>(v, b, true, r0, room); return; }
        }
        if constexpr (sizeof(X) == 4) {
            constexpr int B = CHUNK<V> < N ? CHUNK<V> : N;
#pragma unroll
            for (int k0 = 0; k0 < N; k0 += B) {
                float m[B * V];
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    const int k = k0 + j;
                    if (k < N && k * STEP < room) bias_from<V>(m + j * V, b + k * D, whole, r0 + k * D);
                }
#pragma unroll
                for (int j = 0; j < B; ++j) {
                    const int k = k0 + j;
                    if (k < N && k * STEP < room) scores_rel<V>(v + k * V, m + j * V, r0 + k * D);
                }
            }
        } else {
            apply_each<N, V, STEP>(v, b, whole, r0, room);
        }
    }

    // apply_all's vectors one at a time: each one's mask read (from b + k * STEP * V, as one vector where `whole`),
    // then its scores.
    template <int N, int V, int STEP>
    __device__ __forceinline__ void apply_each(float* v, const X* b, bool whole, int r0, int room) const {
        constexpr int D = STEP * V;
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if (k * STEP < room) {
                float m[V];
                bias_from<V>(m, b + k * D, whole, r0 + k * D);
                scores_rel<V>(v + k * V, m, r0 + k * D);
            }
        }
    }

    // The scores of one vector of V from column c, in place: the j-th of the mask `words` where they were read whole,
    // else read now.
    template <int B, int V, int STEP>
    __device__ __forceinline__ void apply_from(float* v, const Words<B, V, STEP>& words, int j, int c) const {
        if constexpr (Words<B, V, STEP>::ON) {
            if (words.whole) {
                float m[V];
                Vec<X, V>::unpack(words.w[j], m);
                scores_rel<V>(v, m, c - limit);
                return;
            }
        }
        apply<V>(v, c);
    }

    __device__ __forceinline__ float one(float v, int c) const {
        apply<1>(&v, c);
        return v;
    }
};

template <int EXP> struct MergeOp {
    __device__ __forceinline__ Stat operator()(Stat a, Stat b) const {
        const float m = fmaxf(a.m, b.m);
        if (m == -KEVO_INF) return a;  // both empty: exp(-inf - -inf) would be NaN
        return Stat{m, a.s * Num<EXP>::exp_from(a.m, m) + b.s * Num<EXP>::exp_from(b.m, m)};
    }
};
struct MaxOp { __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct SumOp { __device__ __forceinline__ float operator()(float a, float b) const { return a + b; } };

__device__ __forceinline__ float shfl_xor(float v, int o) { return __shfl_xor_sync(KEVO_FULL_MASK, v, o); }
__device__ __forceinline__ Stat shfl_xor(Stat v, int o) { return Stat{shfl_xor(v.m, o), shfl_xor(v.s, o)}; }

// Butterfly over aligned groups of W lanes: every lane ends with its group's result. All 32 lanes call it.
template <int W, class T, class Op> __device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
    for (int o = W / 2; o > 0; o >>= 1) v = op(v, shfl_xor(v, o));
    return v;
}

// Reduction over aligned groups of G threads (G a power of two), result in every thread: a warp
// butterfly for G <= 32, else G is the whole block. Block reductions get their own shared array per
// value type and operator; the closing barrier lets the next row reuse it.
template <int G, int STYLE, class T, class Op> __device__ __forceinline__ T group_reduce(T v, Op op) {
    if constexpr (G <= 32) {
        return warp_reduce<G>(v, op);
    } else if constexpr (STYLE == REDUCE_SHUFFLE) {
        constexpr int WARPS = G / 32;
        __shared__ T sh[WARPS];
        v = warp_reduce<32>(v, op);
        if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
        __syncthreads();
        // Every group of WARPS lanes holds all warp results, so every lane gets the total.
        v = warp_reduce<WARPS>(sh[threadIdx.x & (WARPS - 1)], op);
        __syncthreads();
        return v;
    } else {
        __shared__ T sh[G];
        sh[threadIdx.x] = v;
        __syncthreads();
#pragma unroll
        for (int o = G / 2; o > 0; o >>= 1) {
            if ((int)threadIdx.x < o) sh[threadIdx.x] = op(sh[threadIdx.x], sh[threadIdx.x + o]);
            __syncthreads();
        }
        v = sh[0];
        __syncthreads();
        return v;
    }
}

// A row seen as up to V-1 scalar head elements (up to the first V-aligned element), nv aligned vectors
// of V elements, then up to V-1 scalar tail elements. x and y are 16-byte aligned, rows are not: a
// vector is at most 16 bytes of x, and a store of 32 bytes of y is two of 16.
struct Peel { int head, nv, tail; };

template <int V> __device__ __forceinline__ Peel peel(long long base, int cols) {
    const int head = V == 1 ? 0 : min(cols, (int)((V - (base & (V - 1))) & (V - 1)));
    const int nv = (cols - head) / V;
    return Peel{head, nv, cols - head - nv * V};
}

// Whole rows in registers. A row belongs to a group of G threads: G <= 32 lanes of one warp (a warp
// holds 32 / G rows) or the whole block (G == THREADS). Each thread keeps N vectors and, for unaligned
// rows, one head and one tail element (threads below head / tail, so G >= V - 1). The plan guarantees
// cols <= G * N * V. Loops over v[] are fully unrolled so v[] is indexed by constants and stays in
// registers; x is read once and y written once.
template <class C, int THREADS, int G, int N, class X, class Y>
__device__ __forceinline__ void register_rows(const X* __restrict__ x, Y* __restrict__ y, int rows, int cols) {
    constexpr int V = C::VEC, RPB = THREADS / G;
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    typedef Num<C::EXP> K;
    const int lane = threadIdx.x & (G - 1);
    // No row loop: the grid, cdiv(rows, RPB), never exceeds rows, and NVRTC 11.8 fails with "unsupported
    // operation" on a row loop around this body when V == 2 and N >= 4.
    // A warp with no row leaves as a whole, so the shuffles below always have all 32 lanes.
    if (G <= 32 && (long long)blockIdx.x * RPB + (threadIdx.x >> 5) * (32 / G) >= rows) return;
    const long long row = Attention::row((long long)blockIdx.x * RPB + threadIdx.x / G);
    const bool live = row < rows;  // false only for groups past the last row in a shared warp
    const long long base = row * cols;
    const Peel p = peel<V>(base, cols);
    const X* xr = x + base;
    Y* yr = y + base;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);
    // The row's mask found before x's loads are issued: its divisions (and a padding length's load) are done with
    // before the row's registers fill, which held the limit kind's block kernels a block an SM below the unmasked.
    // A row past the last takes row 0's and never uses it.
    const Prologue<X, MaskOf<C>::value> pro(live ? xr : x, live ? row : 0);
    const auto maskw = pro.template fetch<N, V, G>(p.head + lane * V, live ? p.nv - lane : 0);

    float v[N * V];
    float h = -KEVO_INF, t = -KEVO_INF;  // padding as -inf vanishes in both max and exp
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int q = lane + k * G;
        if (live && q < p.nv && pro.template reads<C>(p.head + q * V)) {
            XV::unpack(load<C::LOAD>(xv + q), v + k * V);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) v[k * V + e] = -KEVO_INF;
        }
    }
    if (V > 1 && live) {
        if (lane < p.head) h = load_one<C::LOAD>(xr + lane);
        if (lane < p.tail) t = load_one<C::LOAD>(xr + p.head + p.nv * V + lane);
    }
    if (live) {
        pro.template apply_all<N, V, G>(v, maskw, p.head + lane * V, p.nv - lane);
        if (V > 1 && lane < p.head) h = pro.one(h, lane);
        if (V > 1 && lane < p.tail) t = pro.one(t, p.head + p.nv * V + lane);
    }
    float m = fmaxf(h, t);
#pragma unroll
    for (int i = 0; i < N * V; ++i) m = fmaxf(m, v[i]);

    float scale;  // y = exp(v - own max) * scale
    if constexpr (C::ONLINE) {
        // One reduction of (max, sum) pairs instead of two; exponents are taken against this
        // thread's own max and rescaled once. A thread with only -inf takes exps against 0 (its exps are 0).
        const float km = m;
        const float kr = m == -KEVO_INF ? 0.0f : km;
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], kr); s += v[i]; }
        h = K::exp_from(h, kr);
        t = K::exp_from(t, kr);
        const Stat st = group_reduce<G, C::REDUCE>(Stat{km, s + h + t}, MergeOp<C::EXP>());
        scale = K::exp_from(km, st.m) / st.s;
        if (st.m == -KEVO_INF) scale = 0.0f;  // no score left: 0, as SDPA writes it
    } else {
        // A row with no score left is all -inf: its exponentials against 0 are 0, and it writes 0 (below).
        float km = group_reduce<G, C::REDUCE>(m, MaxOp());
        const bool noneLeft = km == -KEVO_INF;
        if (noneLeft) km = 0.0f;
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < N * V; ++i) { v[i] = K::exp_from(v[i], km); s += v[i]; }
        h = K::exp_from(h, km);
        t = K::exp_from(t, km);
        scale = 1.0f / group_reduce<G, C::REDUCE>(s + h + t, SumOp());
        if (noneLeft) scale = 0.0f;  // no score left: 0, as SDPA writes it
    }

    if (live) {
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const int q = lane + k * G;
            if (q < p.nv) store<C::STORE>(yv + q, YV::pack(v + k * V, scale));
        }
        if (V > 1) {
            if (lane < p.head) store_one<C::STORE>(yr + lane, h, scale);
            if (lane < p.tail) store_one<C::STORE>(yr + p.head + p.nv * V + lane, t, scale);
        }
    }
}

// Folds n elements into a running Stat. ONLINE: element by element (a rescale whenever the max grows);
// otherwise the tile's max first, then its exps with one rescale of the running sum.
template <class C, int n> __device__ __forceinline__ void accumulate(Stat& st, const float* v) {
    typedef Num<C::EXP> K;
    if constexpr (C::ONLINE) {
#pragma unroll
        for (int i = 0; i < n; ++i) {
            const float k = v[i];
            if (k > st.m) {
                st.s = st.s * K::exp_from(st.m, k) + K::exp_from(v[i], k);
                st.m = k;
            } else if (v[i] != -KEVO_INF) {  // -inf adds 0, and exp(-inf - -inf) would be NaN
                st.s += K::exp_from(v[i], st.m);
            }
        }
    } else {
        float m = v[0];
#pragma unroll
        for (int i = 1; i < n; ++i) m = fmaxf(m, v[i]);
        if (m == -KEVO_INF) return;
        const float k = fmaxf(st.m, m);
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < n; ++i) s += K::exp_from(v[i], k);
        st.s = st.s * K::exp_from(st.m, k) + s;
        st.m = k;
    }
}

// Streaming over part of a row: this thread's share of the aligned vectors [q0, q1), TILE vectors in
// flight per iteration, and with extras the row's peeled head and tail. q stays below 2^31 + the stride,
// so unsigned never wraps.
template <class C, class X> __device__ __forceinline__ Stat stream_stats(const X* xr, Peel p, unsigned q0,
                                                                      unsigned q1, bool extras) {
    constexpr int V = C::VEC, T = C::THREADS, TILE = C::TILE;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    Stat st = {-KEVO_INF, 0.0f};
    const Prologue<X, MaskOf<C>::value> pro(xr);
#pragma unroll C::UNROLL
    for (unsigned q = q0 + threadIdx.x; q < q1; q += T * TILE) {
        float v[TILE * V];
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) {
                Vec<X, V>::unpack(load<C::STATS_LOAD>(xv + qj), v + j * V);
                pro.template apply<V>(v + j * V, p.head + (int)qj * V);
            } else {
#pragma unroll
                for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
            }
        }
        accumulate<C, TILE * V>(st, v);
    }
    if (V > 1 && extras) {
        const int tc = p.head + p.nv * V + threadIdx.x;
        const float e[2] = {(int)threadIdx.x < p.head ? pro.one(load_one<C::STATS_LOAD>(xr + threadIdx.x), threadIdx.x) : -KEVO_INF,
                            (int)threadIdx.x < p.tail ? pro.one(load_one<C::STATS_LOAD>(xr + tc), tc) : -KEVO_INF};
        accumulate<C, 2>(st, e);
    }
    return st;
}

// Writes y = exp(x - max) * inv over the same share of a row that stream_stats read.
template <class C, class X, class Y> __device__ __forceinline__ void stream_write(const X* xr, Y* yr, Peel p,
        unsigned q0, unsigned q1, bool extras, float k, float inv) {
    constexpr int V = C::VEC, T = C::THREADS, TILE = C::TILE;
    typedef Num<C::EXP> K;
    const Prologue<X, MaskOf<C>::value> pro(xr);
    if (k == -KEVO_INF) {  // no score left: exponentials against 0, scaled by 0, as SDPA writes the row
        k = 0.0f;
        inv = 0.0f;
    }
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);
#pragma unroll C::UNROLL
    for (unsigned q = q0 + threadIdx.x; q < q1; q += T * TILE) {
        float v[TILE * V];
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) Vec<X, V>::unpack(load<C::NORM_LOAD>(xv + qj), v + j * V);
        }
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            if (q + j * T < q1) pro.template apply<V>(v + j * V, p.head + (int)(q + j * T) * V);
        }
#pragma unroll
        for (int j = 0; j < TILE; ++j) {
            const unsigned qj = q + j * T;
            if (qj < q1) {
#pragma unroll
                for (int e = 0; e < V; ++e) v[j * V + e] = K::exp_from(v[j * V + e], k);
                store<C::STORE>(yv + qj, Vec<Y, V>::pack(v + j * V, inv));
            }
        }
    }
    if (V > 1 && extras) {
        if ((int)threadIdx.x < p.head) {
            store_one<C::STORE>(yr + threadIdx.x,
                                K::exp_from(pro.one(load_one<C::NORM_LOAD>(xr + threadIdx.x), threadIdx.x), k), inv);
        }
        if ((int)threadIdx.x < p.tail) {
            const int c = p.head + p.nv * V + threadIdx.x;
            store_one<C::STORE>(yr + c, K::exp_from(pro.one(load_one<C::NORM_LOAD>(xr + c), c), k), inv);
        }
    }
}

// Chunk k of a row: an equal share of its aligned vectors; chunk 0 also takes the peeled head and tail.
struct Chunk { unsigned q0, q1; };
__device__ __forceinline__ Chunk chunk_of(Peel p, int k, int chunks) {
    const long long per = ((long long)p.nv + chunks - 1) / chunks;
    const long long q0 = min((long long)p.nv, k * per);
    return Chunk{(unsigned)q0, (unsigned)min((long long)p.nv, q0 + per)};
}

// The (max, sum) of chunk k of a row, for block b = row * chunks + k, merged across the block. An all
// -inf or empty chunk gives (-inf, 0), which the merge ignores.
template <class C, class X> __device__ __forceinline__ Stat chunk_stat(const X* __restrict__ x, int cols, int chunks) {
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<C::VEC>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const Stat st = stream_stats<C>(x + base, p, c.q0, c.q1, k == 0);
    return group_reduce<C::THREADS, C::REDUCE>(st, MergeOp<C::EXP>());
}

// Split rows, pass 1: block b stores its chunk's (max, sum) in ws[b].
template <class C, class X> __device__ __forceinline__ void split_stats(const X* __restrict__ x,
                                                                    float2* __restrict__ ws, int cols, int chunks) {
    const Stat st = chunk_stat<C>(x, cols, chunks);
    if (threadIdx.x == 0) ws[blockIdx.x] = make_float2(st.m, st.s);
}

// A block's partials, one per thread, merged: the max first, then each sum rescaled to it once and plain
// sums (a (max, sum) merge at every step of the reduce costs two exponentials a step: 0.3 us more on
// each long-row shape of an H100, bench/results/long-rows-h100/exchange.txt).
template <class C, int THREADS> __device__ __forceinline__ Stat merge_partials(Stat st) {
    const float m = group_reduce<THREADS, C::REDUCE>(st.m, MaxOp());
    const float s = st.m == -KEVO_INF ? 0.0f : st.s * Num<C::EXP>::exp_from(st.m, m);
    return Stat{m, group_reduce<THREADS, C::REDUCE>(s, SumOp())};
}

// The (max, sum) of a row from its chunks' partials, read past L1 (other blocks wrote them).
template <class C, int THREADS> __device__ __forceinline__ Stat row_stat(const float2* part, int chunks) {
    Stat st = {-KEVO_INF, 0.0f};
    for (int i = threadIdx.x; i < chunks; i += THREADS) {
        const float2 q = __ldcg(part + i);
        st = MergeOp<C::EXP>()(st, Stat{q.x, q.y});
    }
    return merge_partials<C, THREADS>(st);
}

// Split rows, second half: block b normalises its own chunk with its row's (max, sum), re-reading x
// while it is likely still in L2.
template <class C, class X, class Y> __device__ __forceinline__ void split_write(const X* __restrict__ x,
        Y* __restrict__ y, Stat st, int cols, int chunks, int b) {
    const int row = b / chunks, k = b % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<C::VEC>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    stream_write<C>(x + base, y + base, p, c.q0, c.q1, k == 0, st.m, 1.0f / st.s);  // s >= 1: the max adds exp(0)
}

// Split rows, pass 2 of two launches: the row's partials from ws. REVERSE visits the chunks read last first.
template <class C, class X, class Y> __device__ __forceinline__ void split_norm(const X* __restrict__ x,
        Y* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks) {
    const int b = C::REVERSE ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const Stat st = row_stat<C, C::THREADS>(ws + (long long)(b / chunks) * chunks, chunks);
    split_write<C>(x, y, st, cols, chunks, b);
}

// How the blocks of a one-launch plan meet (its when keeps the grid co-resident: at most blocksPerSm
// blocks of at most 1024 / blocksPerSm threads per SM). Each block publishes its chunk's (max, sum)
// in a slot of two 64-bit words {launch tag, value}: a partial and its readiness are one single-copy
// -atomic store, so the row's blocks poll the slots themselves and see the last partial one L2 round
// trip after it is stored. A counter barrier followed by a read of the partials took an arrival, a
// poll and the read: 0.9 us more at 8x128256 and 1.3 us more at 32x50257 on an H100, where clusters
// meeting in distributed shared memory were no faster (bench/results/long-rows-h100/exchange.txt).
// Slots are this module's globals: the workspace cannot hold them, its contents are undefined at every
// launch. A slot has a 128-byte line of its own, and only thread 0 reads the launch counter (below):
// with eight slots to a line, and every thread reading the counter on entry, the few lines that every
// block touches cost 0.7-0.8 us on the 4 MB shapes on an H100 (long-rows-h100/merge.txt, slots-a-line.txt).
#define KEVO_MAX_GRID 4096
#define KEVO_GRID_ROUND (1ull << 20)  // more blocks than any co-resident grid
#define KEVO_SLOT_WORDS 16
__device__ unsigned long long kevo_grid_arrivals = 0;
__device__ unsigned long long kevo_slots[KEVO_SLOT_WORDS * KEVO_MAX_GRID];

__device__ __forceinline__ unsigned& kevo_block_tag() { __shared__ unsigned tag; return tag; }

// The tag of this launch. Every launch adds exactly KEVO_GRID_ROUND to one counter (block 0 adds what the
// grid does not), after reading it: the count read on entry, in whole rounds, numbers the launches.
// Thread 0 reads it on entry; the block takes it from shared memory after its next barrier (launch_tag).
__device__ __forceinline__ void read_launch_tag() {
    if (gridDim.x > KEVO_MAX_GRID) __trap();
    if (threadIdx.x == 0) {
        unsigned long long c;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(c) : "l"(&kevo_grid_arrivals) : "memory");
        kevo_block_tag() = (unsigned)(c / KEVO_GRID_ROUND) + 1u;
    }
}
__device__ __forceinline__ unsigned launch_tag() { return kevo_block_tag(); }

// Thread 0 publishes the block's partial, then counts the block in (nobody waits on the count).
__device__ __forceinline__ void publish_partial(unsigned tag, Stat st) {
    if (threadIdx.x == 0) {
        const unsigned long long m = ((unsigned long long)tag << 32) | __float_as_uint(st.m);
        const unsigned long long s = ((unsigned long long)tag << 32) | __float_as_uint(st.s);
        asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" :: "l"(kevo_slots + KEVO_SLOT_WORDS * blockIdx.x), "l"(m), "l"(s) : "memory");
        const unsigned long long add = blockIdx.x == 0 ? KEVO_GRID_ROUND - gridDim.x + 1 : 1ull;
        asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" :: "l"(&kevo_grid_arrivals), "l"(add) : "memory");
    }
}

__device__ __forceinline__ Stat await_partial(int b, unsigned tag) {
    unsigned long long m, s;
    do {
        asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(m), "=l"(s) : "l"(kevo_slots + KEVO_SLOT_WORDS * b) : "memory");
    } while ((unsigned)(m >> 32) != tag || (unsigned)(s >> 32) != tag);
    return Stat{__uint_as_float((unsigned)m), __uint_as_float((unsigned)s)};
}

// The (max, sum) of the block's row: a thread waits on each of the row's slots, then the block merges.
template <class C, int THREADS> __device__ __forceinline__ Stat await_row(unsigned tag, int chunks) {
    const int first = blockIdx.x / chunks * chunks;
    Stat st = {-KEVO_INF, 0.0f};
    for (int i = threadIdx.x; i < chunks; i += THREADS) st = MergeOp<C::EXP>()(st, await_partial(first + i, tag));
    return merge_partials<C, THREADS>(st);
}

// One group of a thread's elements: exponentials against the group's own max, in place (none can overflow);
// its (max, sum), (-inf, 0) when all are -inf.
template <class K, int M> __device__ __forceinline__ Stat take_group(float* u) {
    float m = -KEVO_INF;
#pragma unroll
    for (int i = 0; i < M; ++i) m = fmaxf(m, u[i]);
    const float key = m == -KEVO_INF ? 0.0f : m;
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < M; ++i) { u[i] = K::exp_from(u[i], key); s += u[i]; }
    return Stat{m == -KEVO_INF ? -KEVO_INF : key, s};
}

// A thread's groups (the register part's, then G more) merged into one (max, sum): the max first, then each group's
// sum rescaled to it once.
template <class K, int G> __device__ __forceinline__ Stat merge_groups(Stat reg, const Stat* grp) {
    float m = reg.m;
#pragma unroll
    for (int g = 0; g < G; ++g) m = fmaxf(m, grp[g].m);
    float s = reg.m == -KEVO_INF ? 0.0f : reg.s * K::exp_from(reg.m, m);
#pragma unroll
    for (int g = 0; g < G; ++g) s += grp[g].m == -KEVO_INF ? 0.0f : grp[g].s * K::exp_from(grp[g].m, m);
    return Stat{m, s};
}

// What a group's exponentials are scaled by at the write, given the row's max and 1 / its sum; 0 for an all -inf group.
template <class K> __device__ __forceinline__ float group_scale(Stat group, float rowMax, float inv) {
    return group.m == -KEVO_INF ? 0.0f : K::exp_from(group.m, rowMax) * inv;
}

// A thread's j-th vector of V floats in shared memory, in planes of up to four floats with the THREADS threads'
// slots of a plane side by side, so that a warp's access to a plane is consecutive: 32-byte slots (a 16-bit
// x's 8 elements) side by side would spread each 16-byte access of a warp over twice the banks' rows.
template <int V, int THREADS> struct Held {
    static constexpr int PLANES = V > 4 ? V / 4 : 1, PV = V > 4 ? 4 : V;
    typedef VecW<float, PV> Plane;
    static __device__ __forceinline__ void put(Plane* h, int j, const float* u) {
#pragma unroll
        for (int i = 0; i < PLANES; ++i) {
            h[(j * PLANES + i) * THREADS + threadIdx.x] = Vec<float, PV>::pack(u + i * PV, 1.0f);
        }
    }
    static __device__ __forceinline__ void get(const Plane* h, int j, float* u) {
#pragma unroll
        for (int i = 0; i < PLANES; ++i) {
            Vec<float, PV>::unpack(h[(j * PLANES + i) * THREADS + threadIdx.x], u + i * PV);
        }
    }
};

// Split rows in one launch, each block's chunk held on chip: N vectors per thread in registers and S more in
// dynamic shared memory (each thread its own slots, so no barrier guards them). Exponentials are taken as
// the chunk lands rather than after the block's max: the register part as one group, the shared part in
// groups of GS vectors, each group against its own max and kept where its elements were, with one (max,
// sum) a group. Taken after the block's max, 1x10^7's 80 exponentials a thread sat between the last load
// and the exchange: 33.1-33.4 us instead of 31.8-31.9 on an H100 (long-rows-h100/fused-groups.txt). A
// thread's groups merge into one (max, sum); the block reduces max first, then plain sums (merging (max,
// sum) pairs costs two exponentials a step); the partial is published and the row's partials awaited and
// merged; each group is written scaled by exp(group max - row max) / row sum. x is read once and y
// written once, like a copy. The plan keeps every chunk within THREADS * (N + S) vectors. Shared memory
// holds floats whatever x's dtype, V * 4 bytes a vector (Held), so that exponentials can replace x in place.
template <class C, int THREADS, int N, int S, class X, class Y>
__device__ __forceinline__ void split_fused(const X* __restrict__ x, Y* __restrict__ y, int cols, int chunks) {
    constexpr int V = C::VEC, GS = 2, G = (S + GS - 1) / GS;
    typedef Num<C::EXP> K;
    typedef Held<V, THREADS> H;
    static_assert(THREADS > 32, "the launch tag is read after a block reduce's barrier");
    read_launch_tag();
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    typename H::Plane* held = reinterpret_cast<typename H::Plane*>(kevo_dynamic_smem);
    const int row = blockIdx.x / chunks, k = blockIdx.x % chunks;
    const long long base = (long long)row * cols;
    const Peel p = peel<V>(base, cols);
    const Chunk c = chunk_of(p, k, chunks);
    const X* xr = x + base;
    Y* yr = y + base;
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(xr + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(yr + p.head);
    const bool extras = V > 1 && k == 0;
    const auto maskw = Prologue<X, MaskOf<C>::value>::template fetch_at<N, V, THREADS>(
            xr, p.head + (int)(c.q0 + threadIdx.x) * V, (int)(c.q1 - c.q0 - threadIdx.x));

    float v[N * V + 2];  // the register part, then the row's head and tail elements (block k == 0 only)
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) {
            Vec<X, V>::unpack(load<C::LOAD>(xv + q), v + j * V);
        } else {
#pragma unroll
            for (int e = 0; e < V; ++e) v[j * V + e] = -KEVO_INF;
        }
    }
    v[N * V] = v[N * V + 1] = -KEVO_INF;
    if (extras) {
        if ((int)threadIdx.x < p.head) v[N * V] = load_one<C::LOAD>(xr + threadIdx.x);
        if ((int)threadIdx.x < p.tail) v[N * V + 1] = load_one<C::LOAD>(xr + p.head + p.nv * V + threadIdx.x);
    }
    const Prologue<X, MaskOf<C>::value> pro(xr);
    pro.template apply_all<N, V, THREADS>(v, maskw, p.head + (int)(c.q0 + threadIdx.x) * V,
                                          (int)(c.q1 - c.q0 - threadIdx.x));
    if (extras && (int)threadIdx.x < p.head) v[N * V] = pro.one(v[N * V], threadIdx.x);
    if (extras && (int)threadIdx.x < p.tail) v[N * V + 1] = pro.one(v[N * V + 1], p.head + p.nv * V + threadIdx.x);
    const Stat reg = take_group<K, N * V + 2>(v);
    Stat grp[G > 0 ? G : 1];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        // Stored as it arrives, folding the group's max; then its exponentials, a vector at a time.
        float m = -KEVO_INF;
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
            if (q < c.q1) {
                float u[V];
                Vec<X, V>::unpack(load<C::LOAD>(xv + q), u);
                pro.template apply<V>(u, p.head + (int)q * V);
                H::put(held, j, u);
#pragma unroll
                for (int e = 0; e < V; ++e) m = fmaxf(m, u[e]);
            }
        }
        const float key = m == -KEVO_INF ? 0.0f : m;
        float sum = 0.0f;
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            if (c.q0 + threadIdx.x + (N + j) * THREADS < c.q1) {
                float u[V];
                H::get(held, j, u);
#pragma unroll
                for (int e = 0; e < V; ++e) { u[e] = K::exp_from(u[e], key); sum += u[e]; }
                H::put(held, j, u);
            }
        }
        grp[g] = Stat{m == -KEVO_INF ? -KEVO_INF : key, sum};
    }
    const Stat th = merge_groups<K, G>(reg, grp);
    const float kb = group_reduce<THREADS, C::REDUCE>(th.m, MaxOp());
    const float sb = group_reduce<THREADS, C::REDUCE>(th.m == -KEVO_INF ? 0.0f : th.s * K::exp_from(th.m, kb), SumOp());
    const unsigned tag = launch_tag();
    publish_partial(tag, Stat{kb, sb});
    const Stat rs = await_row<C, THREADS>(tag, chunks);
    const float inv = 1.0f / rs.s;  // s >= 1: the row max adds exp(0)
    const float fr = group_scale<K>(reg, rs.m, inv);
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const unsigned q = c.q0 + threadIdx.x + j * THREADS;
        if (q < c.q1) store<C::STORE>(yv + q, Vec<Y, V>::pack(v + j * V, fr));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        const float f = group_scale<K>(grp[g], rs.m, inv);
#pragma unroll
        for (int j = g * GS; j < S && j < (g + 1) * GS; ++j) {
            const unsigned q = c.q0 + threadIdx.x + (N + j) * THREADS;
            if (q < c.q1) {
                float u[V];
                H::get(held, j, u);
                store<C::STORE>(yv + q, Vec<Y, V>::pack(u, f));
            }
        }
    }
    if (extras) {
        if ((int)threadIdx.x < p.head) store_one<C::STORE>(yr + threadIdx.x, v[N * V], fr);
        if ((int)threadIdx.x < p.tail) store_one<C::STORE>(yr + p.head + p.nv * V + threadIdx.x, v[N * V + 1], fr);
    }
}

// Split rows in one launch for chunks too long for registers: the two passes of the two-launch plan, with
// the partials exchanged in slots instead of a second launch.
template <class C, class X, class Y> __device__ __forceinline__ void split_fused_stream(const X* __restrict__ x,
        Y* __restrict__ y, int cols, int chunks) {
    static_assert(C::THREADS > 32, "the launch tag is read after a block reduce's barrier");
    read_launch_tag();
    const Stat st = chunk_stat<C>(x, cols, chunks);
    const unsigned tag = launch_tag();
    publish_partial(tag, st);
    split_write<C>(x, y, await_row<C, C::THREADS>(tag, chunks), cols, chunks, blockIdx.x);
}

// Rows of any length, a block per row (grid-stride over rows): one streaming pass for (max, sum), a
// block merge, then a second pass that re-reads the row (from L2 unless the row is huge) and writes.
template <class C, class X, class Y> __device__ __forceinline__ void loop_rows(const X* __restrict__ x,
        Y* __restrict__ y, int rows, int cols) {
    for (long long visit = blockIdx.x; visit < rows; visit += gridDim.x) {
        const long long row = Attention::row(visit);
        const long long base = row * cols;
        const Peel p = peel<C::VEC>(base, cols);
        Stat st = stream_stats<C>(x + base, p, 0, p.nv, true);
        st = group_reduce<C::THREADS, C::REDUCE>(st, MergeOp<C::EXP>());
        stream_write<C>(x + base, y + base, p, 0, p.nv, true, st.m, 1.0f / st.s);
    }
}

// A balanced tree of op over V values (V a power of two): the order a float4's lanes were folded in.
template <int V, class Op> __device__ __forceinline__ float tree(const float* u, Op op) {
    if constexpr (V == 1) return u[0];
    else return op(tree<V / 2>(u, op), tree<V / 2>(u + V / 2, op));
}

// Ends a group of this thread's cp.async copies, and waits until at most `pending` of its groups are still in flight:
// the instruction takes that count as an immediate, which `pending` becomes once the caller's loop is unrolled.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_pending(int pending) {
    switch (pending) {
        case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
        case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
        case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
        case 3: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
        case 4: asm volatile("cp.async.wait_group 4;" ::: "memory"); break;
        case 5: asm volatile("cp.async.wait_group 5;" ::: "memory"); break;
        case 6: asm volatile("cp.async.wait_group 6;" ::: "memory"); break;
        default: asm volatile("cp.async.wait_group 7;" ::: "memory"); break;  // waits longer than asked: still safe
    }
}

// Rows of many held on chip across a thread-block cluster (launched with "cluster": cdiv(cols, capacity)): block
// `rank` of the cluster holds a contiguous share of the row's aligned 16-byte vectors of x (V elements), N per thread
// in registers and S in shared memory (fetched by cp.async, so they do not pass through registers). The up to V - 1
// unaligned elements at each end go to the first and last block, with the register part.
// Exponentials are taken against a group's own max (exp(v - m) by the difference first, so a row of -FLT_MAX gives
// exp(0), not inf - inf): the register part is one group; the shared part is one more (C::GROUP 0: after the whole
// share has landed) or groups of C::GROUP vectors, one cp.async group each, taken in order as each lands. With one
// block to an SM and a wave's blocks in step, the memory idles through whatever a block computes between its last
// load and its exchange; groups leave only the last one's exponentials there, and cost their waits. A thread's
// groups merge into one (max, sum); the pairs merge over the block, then once across the cluster in distributed
// shared memory; each group is then written scaled by exp(group max - row max) / row sum.
// x is read once. A float x's exponentials replace it in shared memory. A 16-bit x's fit there only as 16-bit values:
// with a bf16 y they are kept as fp16, three bits finer than y, so the output's error stays near the rounded
// reference's, and the write is spared its unpacking, difference and exponential. With a float or fp16 y, fp16
// exponentials would cost accuracy, and the write takes them again from x (the same exponential of the same values).
template <class C, int THREADS, int N, int S, class X, class Y>
__device__ __forceinline__ void cluster_rows(const X* __restrict__ x, Y* __restrict__ y, int cols) {
    constexpr int V = 16 / sizeof(X);
    constexpr int GS = C::GROUP > 0 && C::GROUP < S ? C::GROUP : (S > 0 ? S : 1), G = (S + GS - 1) / GS;
    constexpr bool KEEP = sizeof(X) == sizeof(float);
    constexpr bool KEEP_HALF = sizeof(X) == 2 && IsBf16<Y>::value;
    typedef Num<cluster_exp<X>> K;
    typedef Vec<kevo_half, V> HV;  // fp16 exponentials in a 16-bit x's slots: the same 16-byte word
    typedef Vec<X, V> XV;
    typedef Vec<Y, V> YV;
    extern __shared__ __align__(16) unsigned char kevo_dynamic_smem[];
    VecW<X, V>* held = reinterpret_cast<VecW<X, V>*>(kevo_dynamic_smem);
    __shared__ KevoClusterExchange<float2> stats;  // the blocks' (max, sum) pairs
    stats.begin();
    const float NEG = -KEVO_INF;
    const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
    const long long base = (long long)(blockIdx.x / size) * cols;
    const Peel p = peel<V>(base, cols);
    const int per = kevo_cdiv(p.nv, (int)size);
    const int v0 = (int)rank * per, v1 = min(v0 + per, p.nv);
    const VecW<X, V>* xv = reinterpret_cast<const VecW<X, V>*>(x + base + p.head);
    VecW<Y, V>* yv = reinterpret_cast<VecW<Y, V>*>(y + base + p.head);
    const int t = threadIdx.x;
    using Pro = Prologue<X, MaskOf<C>::value>;  // the prologue of the kernel's mask kinds
    const int reach = Pro::template reach_of<C>(x + base, blockIdx.x / size);
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            const int i = v0 + t + (N + k) * THREADS;
            kevo_cp_async16(&held[k * THREADS + t], xv + (i < v1 ? i : 0),
                            i < v1 && Pro::template reads<C>(p.head + i * V, reach));
        }
        cp_async_commit();
    }
    float neg[V];
#pragma unroll
    for (int e = 0; e < V; ++e) neg[e] = NEG;
    const VecW<X, V> none = XV::pack(neg, 1.0f);  // -inf in x's type: padding that vanishes in max and exp
    const auto maskw = Pro::template fetch_at<N, V, THREADS>(x + base, p.head + (v0 + t) * V, v1 - v0 - t);
    float r[N * V + 2];  // the register part, then the row's head and tail elements (first and last block only)
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        XV::unpack(i < v1 && Pro::template reads<C>(p.head + i * V, reach) ? load<C::LOAD>(xv + i) : none, r + k * V);
    }
    r[N * V] = rank == 0 && t < p.head ? load_one<C::LOAD>(x + base + t) : NEG;
    r[N * V + 1] = rank == size - 1 && t < p.tail ? load_one<C::LOAD>(x + base + p.head + (long long)V * p.nv + t) : NEG;
    // The row's index, which a cluster holds, spares the limit kinds the division of x's offset.
    const Pro pro(x + base, blockIdx.x / size);
    pro.template apply_all<N, V, THREADS>(r, maskw, p.head + (v0 + t) * V, v1 - v0 - t);
    if (rank == 0 && t < p.head) r[N * V] = pro.one(r[N * V], t);
    if (rank == size - 1 && t < p.tail) r[N * V + 1] = pro.one(r[N * V + 1], p.head + V * p.nv + t);
    const Stat reg = take_group<K, N * V + 2>(r);
    Stat grp[G > 0 ? G : 1];
    // A float row's shared vectors are scored once, from mask words read a chunk at a time (a vector at a time, the
    // fp32 cluster kernel's additive rows stalled on the mask's loads: ncu, bench/results/training-family-h200/
    // call 44). A 16-bit row's scores do not fit its shared slots. Under an additive mask, a group of up to 16 values
    // keeps its scores in registers from its max to its exponentials (HOLD), its mask words fetched before the
    // group's x is waited for, so that the thread waits for both at once; formed again from x and a mask read a
    // vector at a time, the additive rows ran slower (calls 50-51). Other 16-bit rows score twice, reading the
    // mask as they go (holding the words for both passes did not pay: call 38).
    constexpr bool HOLD = !KEEP && MaskOf<C>::value == MASK_ADDITIVE && GS * V <= 16;
    float sc[HOLD ? GS : 1][V];
    constexpr int SB = KEEP ? Pro::template CHUNK<V> : HOLD ? GS : 1;
    typename Pro::template Words<SB, V, THREADS> sw;
    // The column of the thread's k-th shared vector, and its vectors from there on (fetch's room).
    const auto shared_col = [&](int k) { return p.head + (v0 + t + (N + k) * THREADS) * V; };
    const auto shared_room = [&](int k) { return v1 - v0 - t - (N + k) * THREADS; };
#pragma unroll
    for (int g = 0; g < G; ++g) {
        if constexpr (HOLD) {
            sw = pro.template fetch<SB, V, THREADS>(shared_col(g * GS), shared_room(g * GS));
        }
        cp_async_wait_pending(G - 1 - g);
        float m = NEG;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            if (v0 + t + (N + k) * THREADS < v1) {
                float w[V];
                XV::unpack(held[k * THREADS + t], w);
                const int col = shared_col(k);
                if constexpr (SB > 1) {
                    if (!HOLD && (k - g * GS) % SB == 0) sw = pro.template fetch<SB, V, THREADS>(col, shared_room(k));
                    pro.template apply_from<SB, V, THREADS>(w, sw, (k - g * GS) % SB, col);
                } else {
                    pro.template apply<V>(w, col);
                }
                if constexpr (KEEP) held[k * THREADS + t] = XV::pack(w, 1.0f);  // scores, formed (and masks read) once
                if constexpr (HOLD) {
#pragma unroll
                    for (int e = 0; e < V; ++e) sc[k - g * GS][e] = w[e];
                }
                m = fmaxf(m, tree<V>(w, MaxOp()));
            }
        }
        const float key = m == NEG ? 0.0f : m;
        float s = 0.0f;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            if (v0 + t + (N + k) * THREADS < v1) {
                float w[V];
                if constexpr (HOLD) {  // the scores held since the max: x is not read again
#pragma unroll
                    for (int e = 0; e < V; ++e) w[e] = sc[k - g * GS][e];
                } else {
                    XV::unpack(held[k * THREADS + t], w);
                    if constexpr (!KEEP) pro.template apply<V>(w, shared_col(k));
                }
#pragma unroll
                for (int e = 0; e < V; ++e) w[e] = K::exp_from(w[e], key);
                s += tree<V>(w, SumOp());
                if constexpr (KEEP) held[k * THREADS + t] = XV::pack(w, 1.0f);
                if constexpr (KEEP_HALF) held[k * THREADS + t] = HV::pack(w, 1.0f);
            }
        }
        grp[g] = Stat{m == NEG ? NEG : key, s};
    }
    // Keys are plain maxima here, merged by the exponential of their difference.
    Stat row = group_reduce<THREADS, REDUCE_SHUFFLE>(merge_groups<K, G>(reg, grp), MergeOp<EXP_FAST>());
    if (size > 1) {
        stats.exchange(make_float2(row.m, row.s));
        const float2 q = (t & 31) < (int)size ? stats.get(t & 31) : make_float2(NEG, 0.0f);
        row = warp_reduce<32>(Stat{q.x, q.y}, MergeOp<EXP_FAST>());
        stats.done();
    }
    const float inv = 1.0f / row.s;  // s >= 1 unless the row is all -inf: the row max adds exp(0)
    const float fr = group_scale<K>(reg, row.m, inv);
#pragma unroll
    for (int k = 0; k < N; ++k) {
        const int i = v0 + t + k * THREADS;
        if (i < v1) store<C::STORE>(yv + i, YV::pack(r + k * V, fr));
    }
#pragma unroll
    for (int g = 0; g < G; ++g) {
        const float f = group_scale<K>(grp[g], row.m, inv);
        const float key = grp[g].m == NEG ? 0.0f : grp[g].m;
#pragma unroll
        for (int k = g * GS; k < S && k < (g + 1) * GS; ++k) {
            const int i = v0 + t + (N + k) * THREADS;
            if (i < v1) {
                float w[V];
                if constexpr (KEEP_HALF) {
                    HV::unpack(held[k * THREADS + t], w);
                } else {
                    XV::unpack(held[k * THREADS + t], w);
                }
                if constexpr (!KEEP && !KEEP_HALF) {
                    pro.template apply<V>(w, p.head + i * V);
#pragma unroll
                    for (int e = 0; e < V; ++e) w[e] = K::exp_from(w[e], key);
                }
                store<C::STORE>(yv + i, YV::pack(w, f));
            }
        }
    }
    if (rank == 0 && t < p.head) store_one<C::STORE>(y + base + t, r[N * V], fr);
    if (rank == size - 1 && t < p.tail) store_one<C::STORE>(y + base + p.head + (long long)V * p.nv + t, r[N * V + 1], fr);
    stats.finish();
}

struct ShortCfg {
    static constexpr int VEC = 8;
    static constexpr int EXP = EXP_FAST;
    static constexpr int LOAD = LOAD_LDG;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
    static constexpr bool SKIP_MASKED = false;
};
struct BlockCfg {
    static constexpr int VEC = 8;
    static constexpr int EXP = EXP_FAST;
    static constexpr int LOAD = LOAD_LDG;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
    static constexpr bool SKIP_MASKED = true;
};
struct SplitCfg {
    static constexpr int THREADS = 256;
    static constexpr int VEC = 4;
    static constexpr int TILE = 2;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
    static constexpr bool REVERSE = true;
};
struct FusedCfg {
    static constexpr int VEC = 8;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
};
struct FusedStreamCfg {
    static constexpr int THREADS = 512;
    static constexpr int VEC = 4;
    static constexpr int TILE = 2;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};
struct ClusterCfg {
    static constexpr int LOAD = LOAD_PLAIN;
    static constexpr int STORE = STORE_PLAIN;
    static constexpr int GROUP = 2;
    static constexpr bool SKIP_MASKED = false;
};
struct LoopCfg {
    static constexpr int THREADS = 512;
    static constexpr int VEC = 8;
    static constexpr int TILE = 2;
    static constexpr int UNROLL = 1;
    static constexpr int EXP = EXP_EXP2;
    static constexpr int STATS_LOAD = LOAD_PLAIN;
    static constexpr int NORM_LOAD = LOAD_LDCS;
    static constexpr int STORE = STORE_STCS;
    static constexpr int REDUCE = REDUCE_SHUFFLE;
    static constexpr bool ONLINE = false;
};

extern "C" __global__ void __launch_bounds__(128) softmax_short_g16_n1_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_NONE>, 128, 16, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g16_n1_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_LIMIT>, 128, 16, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g16_n1_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_ADDITIVE>, 128, 16, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n1_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_NONE>, 128, 32, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n1_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_LIMIT>, 128, 32, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n1_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_ADDITIVE>, 128, 32, 1>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n2_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_NONE>, 128, 32, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n2_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_LIMIT>, 128, 32, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n2_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_ADDITIVE>, 128, 32, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n4_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_NONE>, 128, 32, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_short_g32_n4_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_LIMIT>, 128, 32, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128, 8) softmax_short_g32_n4_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<ShortCfg, MASK_ADDITIVE>, 128, 32, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e8_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_NONE>, 512, 1, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e8_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_LIMIT>, 512, 1, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e8_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_ADDITIVE>, 512, 1, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e16_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_NONE>, 512, 2, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e16_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_LIMIT>, 512, 2, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e16_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_ADDITIVE>, 512, 2, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_NONE>, 512, 4, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_LIMIT>, 512, 4, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_ADDITIVE>, 512, 4, 0>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_s48_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_NONE>, 512, 4, 6>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_s48_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_LIMIT>, 512, 4, 6>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_e32_s48_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused<OfKind<FusedCfg, MASK_ADDITIVE>, 512, 4, 6>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_stream_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused_stream<OfKind<FusedStreamCfg, MASK_NONE>>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_stream_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused_stream<OfKind<FusedStreamCfg, MASK_LIMIT>>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(512, 2) softmax_fused_stream_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_fused_stream<OfKind<FusedStreamCfg, MASK_ADDITIVE>>(x, y, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_stats_none(const kevo_bf16* __restrict__ x, float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_stats<OfKind<SplitCfg, MASK_NONE>>(x, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_norm_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_norm<OfKind<SplitCfg, MASK_NONE>>(x, y, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_stats_limit(const kevo_bf16* __restrict__ x, float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_stats<OfKind<SplitCfg, MASK_LIMIT>>(x, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_norm_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_norm<OfKind<SplitCfg, MASK_LIMIT>>(x, y, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_stats_additive(const kevo_bf16* __restrict__ x, float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_stats<OfKind<SplitCfg, MASK_ADDITIVE>>(x, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256) softmax_split_norm_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, const float2* __restrict__ ws, int cols, int chunks, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    split_norm<OfKind<SplitCfg, MASK_ADDITIVE>>(x, y, ws, cols, chunks);
}
extern "C" __global__ void __launch_bounds__(256, 4) softmax_cluster_t256_r2_s10_g2_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    cluster_rows<OfKind<ClusterCfg, MASK_NONE>, 256, 2, 10>(x, y, cols);
}
extern "C" __global__ void __launch_bounds__(256, 4) softmax_cluster_t256_r2_s10_g2_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    cluster_rows<OfKind<ClusterCfg, MASK_LIMIT>, 256, 2, 10>(x, y, cols);
}
extern "C" __global__ void __launch_bounds__(256, 4) softmax_cluster_t256_r2_s10_g2_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    cluster_rows<OfKind<ClusterCfg, MASK_ADDITIVE>, 256, 2, 10>(x, y, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n2_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_NONE>, 128, 128, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n2_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_LIMIT>, 128, 128, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n2_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_ADDITIVE>, 128, 128, 2>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n4_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_NONE>, 128, 128, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128) softmax_block_t128_n4_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_LIMIT>, 128, 128, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(128, 7) softmax_block_t128_n4_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_ADDITIVE>, 128, 128, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_block_t256_n4_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_NONE>, 256, 256, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_block_t256_n4_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_LIMIT>, 256, 256, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(256) softmax_block_t256_n4_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_ADDITIVE>, 256, 256, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_block_t512_n4_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_NONE>, 512, 512, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_block_t512_n4_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_LIMIT>, 512, 512, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_block_t512_n4_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    register_rows<OfKind<BlockCfg, MASK_ADDITIVE>, 512, 512, 4>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_loop_none(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    loop_rows<OfKind<LoopCfg, MASK_NONE>>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_loop_limit(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    loop_rows<OfKind<LoopCfg, MASK_LIMIT>>(x, y, rows, cols);
}
extern "C" __global__ void __launch_bounds__(512) softmax_loop_additive(const kevo_bf16* __restrict__ x, kevo_bf16* __restrict__ y, int rows, int cols, const int* __restrict__ lengths, const kevo_bf16* __restrict__ mask, float scale, int heads, int queries, int mask_kind) {
    Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);
    loop_rows<OfKind<LoopCfg, MASK_ADDITIVE>>(x, y, rows, cols);
}
