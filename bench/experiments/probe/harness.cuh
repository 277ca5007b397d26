// The timing harness of the probes bound.cu and merge.cu (not part of kevo): variants timed the way kevo's
// evaluator times them: queued behind a gate, L2 flushed by a 256 MB read before every launch, one event pair per
// launch, variants interleaved in rotated order, medians of `rounds` launches after 5 warm-up rounds.
#pragma once
#include <cstdio>
#include <cmath>
#include <vector>
#include <string>
#include <functional>
#include <algorithm>
#include <cstdlib>

__global__ void gate_k(volatile int* g) {
    for (int n = 0; *g == 0 && n < 2000000; ++n) __nanosleep(1000);  // bounded: a lost host costs a wrong number
}
__global__ void flush_l2(const float4* buf, long long n, float* sink) {  // trusted.cu's kevo_flush
    float acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const float4 v = __ldcg(buf + i);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1.0e30f) *sink = acc;
}
__global__ void fill(float* x, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        x[i] = (float)((i * 2654435761ull) % 20011) / 2000.0f;
}
__global__ void kcopy(const float* __restrict__ x, float* __restrict__ y, long long n) {  // trusted.cu's kevo_copy
    const long long n4 = n / 4, stride = (long long)gridDim.x * blockDim.x, first = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (long long i = first; i < n4; i += stride) y4[i] = x4[i];
    for (long long i = n4 * 4 + first; i < n; i += stride) y[i] = x[i];
}

enum { FLOOR_COPY = 0, PROBE_COPY = 1, SOFTMAX = 2 };
struct Variant { std::string name; std::function<void()> launch; int kind; };

struct Bench {
    int sms = 0;
    float *x = nullptr, *y = nullptr, *sink = nullptr;
    float4* fbuf = nullptr;
    long long flushN = (256ll << 20) / 16;
    int *gate = nullptr, *dgate = nullptr;
    cudaEvent_t ev[2][32];

    int rounds = 200;

    Bench(int argc, char** argv) {
        setvbuf(stdout, NULL, _IONBF, 0);
        if (argc > 1) rounds = atoi(argv[1]);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
        cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
        int driver; cudaDriverGetVersion(&driver);
        printf("device %s, %d SMs, L2 %d MB, driver API %d\n", prop.name, sms, prop.l2CacheSize >> 20, driver);
        cudaMalloc(&fbuf, flushN * 16); cudaMalloc(&sink, 4); cudaMemset(fbuf, 0, flushN * 16);
        cudaMalloc(&x, 48 << 20); cudaMalloc(&y, 48 << 20);
        fill<<<sms * 4, 512>>>(x, 12000000);
        cudaHostAlloc(&gate, 4, cudaHostAllocMapped);
        cudaHostGetDevicePointer(&dgate, gate, 0);
        for (auto& e : ev) for (auto& f : e) cudaEventCreate(&f);
    }

    // The two copies kevo's floor is the faster of.
    void floors(std::vector<Variant>& vs, long long n) {
        float *xa = x, *ya = y;
        const int grid = (int)std::max(1ll, std::min((n / 4 + 511) / 512, (long long)sms * 4));
        vs.push_back({"memcpy", [=] { cudaMemcpyAsync(ya, xa, n * 4, cudaMemcpyDeviceToDevice); }, FLOOR_COPY});
        vs.push_back({"kevo_copy", [=] { kcopy<<<grid, 512>>>(xa, ya, n); }, FLOOR_COPY});
    }

    // Names of the variants whose output is wrong: probe copies must copy every element, softmax rows sum to 1.
    std::vector<std::string> wrong(const std::vector<Variant>& vs, int rows, int cols) {
        const long long n = (long long)rows * cols;
        std::vector<float> in(n), out(n);
        cudaMemcpy(in.data(), x, n * 4, cudaMemcpyDeviceToHost);
        std::vector<std::string> bad;
        for (const Variant& v : vs) {
            if (v.kind == FLOOR_COPY) continue;
            cudaMemset(y, 0xff, n * 4);
            v.launch();
            cudaDeviceSynchronize();
            cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost);
            bool ok = true;
            if (v.kind == SOFTMAX) {
                for (int r = 0; r < rows && ok; ++r) {
                    double s = 0;
                    for (long long i = 0; i < cols; ++i) s += out[(long long)r * cols + i];
                    ok = std::fabs(s - 1.0) < 1e-3;
                }
            } else {
                for (long long i = 0; i < n && ok; ++i) ok = out[i] == in[i];
            }
            if (!ok) bad.push_back(v.name);
        }
        return bad;
    }

    // Times every variant and prints medians, p10, p90 and the fraction of the floor (the faster copy).
    void time(const std::vector<Variant>& vs, int rounds, const char* title) {
        std::vector<std::vector<float>> t(vs.size());
        const int warm = 5;
        for (int r = 0; r < rounds + warm; ++r) {
            *gate = 0;
            gate_k<<<1, 1>>>(dgate);
            for (size_t j = 0; j < vs.size(); ++j) {
                flush_l2<<<sms * 4, 1024>>>(fbuf, flushN, sink);
                cudaEventRecord(ev[0][j]);
                vs[(j + r) % vs.size()].launch();
                cudaEventRecord(ev[1][j]);
            }
            *gate = 1;
            cudaEventSynchronize(ev[1][vs.size() - 1]);
            for (size_t j = 0; j < vs.size() && r >= warm; ++j) {
                float ms; cudaEventElapsedTime(&ms, ev[0][j], ev[1][j]);
                t[(j + r) % vs.size()].push_back(ms * 1000);
            }
        }
        std::vector<float> med(vs.size());
        float floor = 1e30f;
        for (size_t v = 0; v < vs.size(); ++v) {
            std::sort(t[v].begin(), t[v].end());
            med[v] = t[v][t[v].size() / 2];
            if (vs[v].kind == FLOOR_COPY) floor = std::min(floor, med[v]);
        }
        printf("%s (floor = faster copy, %.2f us; 0.80 of it allows %.2f us)\n", title, floor, floor / 0.8f);
        for (size_t v = 0; v < vs.size(); ++v) {
            const size_t k = t[v].size();
            printf("  %-30s median %7.2f us  p10 %7.2f  p90 %7.2f  floor fraction %.2f  (n=%zu)\n", vs[v].name.c_str(),
                   med[v], t[v][k / 10], t[v][k * 9 / 10], floor / med[v], k);
        }
    }
};
