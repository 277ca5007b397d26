// Accuracy probe (not part of kevo): a rendered kernel file's one-launch plan against a float64 CPU softmax,
// error per chunk. Build: nvcc -arch=sm_90 -std=c++17 -O3 -I. acc.cu -o acc  (lib.cuh: the kernel file, no header)
#include <cstdio>
#include <cmath>
#include <vector>
#include <random>
#include "kevo.h"
#include "lib.cuh"

int main() {
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    struct Case { int rows, cols; float scale; float shift; };
    for (Case cs : {Case{8, 128256, 1, 0}, Case{8, 128256, 4, 0}, Case{8, 128256, 20, 0}, Case{8, 128256, 0, 750},
                    Case{1, 1000000, 4, 0}}) {
        int rows = cs.rows, cols = cs.cols, chunks = 2 * sms / rows, grid = rows * chunks;
        size_t n = (size_t)rows * cols;
        std::vector<float> h(n), out(n);
        std::mt19937 g(1); std::normal_distribution<float> nd; std::uniform_real_distribution<float> ud(-250, 250);
        for (auto& v : h) v = cs.scale > 0 ? nd(g) * cs.scale : cs.shift + ud(g);
        float *x, *y; float2* ws; cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMalloc(&ws, 1 << 20);
        cudaMemcpy(x, h.data(), n * 4, cudaMemcpyHostToDevice);
        void* args[] = {&x, &y, &ws, &cols, &chunks};
        for (int rep = 0; rep < 3; ++rep)
            cudaLaunchCooperativeKernel((void*)softmax_fused_e8, grid, 512, args, 0, 0);
        cudaMemcpy(out.data(), y, n * 4, cudaMemcpyDeviceToHost);
        double num = 0, den = 0, worst = 0; long worstAt = -1;
        std::vector<double> chunkErr(grid, 0);
        for (int r = 0; r < rows; ++r) {
            double m = -INFINITY, s = 0;
            for (int c = 0; c < cols; ++c) m = std::max(m, (double)h[(size_t)r * cols + c]);
            for (int c = 0; c < cols; ++c) s += std::exp((double)h[(size_t)r * cols + c] - m);
            for (int c = 0; c < cols; ++c) {
                size_t i = (size_t)r * cols + c;
                double ref = std::exp((double)h[i] - m) / s, d = out[i] - ref;
                num += d * d; den += ref * ref;
                double rel = std::fabs(d) / std::max(ref, 1e-30);
                if (ref > 1e-12 && rel > worst) { worst = rel; worstAt = (long)i; }
                chunkErr[r * chunks + (int)((long long)c * chunks / cols)] += d * d;
            }
        }
        printf("%dx%d scale %g shift %g: rel L2 %.3g, worst rel %.3g at row %ld col %ld (y %.6g) %s\n", rows, cols, cs.scale, cs.shift,
               std::sqrt(num / den), worst, worstAt / cols, worstAt % cols, out[worstAt], cudaGetErrorString(cudaGetLastError()));
        int bad = 0;
        for (int b = 0; b < grid; ++b) if (chunkErr[b] > 0.01 * num) { if (bad++ < 6) printf("   chunk %d (row %d, k %d) carries %.0f%% of the error\n", b, b / chunks, b % chunks, 100 * chunkErr[b] / num); }
        cudaFree(x); cudaFree(y); cudaFree(ws);
    }
    return 0;
}
