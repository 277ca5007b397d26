// example.cu: calls the exported @@FN@@ on random rows and checks it on the host
// against kevo's own float64 reference of @@FN@@ (below), in dtype @@DTYPE@@ (@@TYPES@@),
// with kevo's tolerance for @@FN@@, widened for @@OUT@@'s type, as written below.
// Build: nvcc -O3 -arch=sm_90 -o example example.cu @@P@@.cu
// Run:   ./example 4096x4096 1x1000000 ...
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "@@P@@.h"

#ifndef KEVO_INF
#define KEVO_INF INFINITY
#endif
// ---- kevo's float64 reference of @@FN@@: the functions kevo's evaluator computes it with on the GPU,
// compiled for the host here. A row's statistic starts empty (kv_stat_start), takes each element (kv_stat_add), is
// prepared once (kv_row_prepare); an element's expected output then follows from its input (kv_expected).
@@REFERENCE@@// ---- end of kevo's reference

static int check(int rows, int cols) {
    size_t n = (size_t)rows * cols;
    std::vector<@@IN_T@@> in(n);    // @@IN@@
    std::vector<@@OUT_T@@> out(n);  // @@OUT@@
    unsigned long long state = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        in[i] = @@TO_IN@@((float)((double)(state >> 11) / 9007199254740992.0 * 16.0 - 8.0));
    }
    @@IN_T@@* d_in = nullptr;
    @@OUT_T@@* d_out = nullptr;
    if (cudaMalloc(&d_in, n * sizeof(*d_in)) != cudaSuccess || cudaMalloc(&d_out, n * sizeof(*d_out)) != cudaSuccess) {
        fprintf(stderr, "%dx%d: cannot allocate device memory\n", rows, cols);
        return 1;
    }
    cudaMemcpy(d_in, in.data(), n * sizeof(*d_in), cudaMemcpyHostToDevice);
    cudaError_t e = @@P@@(@@CALL@@, rows, cols, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%dx%d: %s (%s)\n", rows, cols, cudaGetErrorString(e), @@P@@_last_error());
        return 1;
    }
    cudaMemcpy(out.data(), d_out, n * sizeof(*d_out), cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    double worst = 0, diff2 = 0, ref2 = 0;
    size_t bad = 0;
    for (int r = 0; r < rows; r++) {
        const @@IN_T@@* xr = &in[(size_t)r * cols];
        double2 stat = kv_stat_start();
        for (int c = 0; c < cols; c++) stat = kv_stat_add(stat, (double)@@FROM_IN@@(xr[c]));
        const double2 row = kv_row_prepare(stat);
        for (int c = 0; c < cols; c++) {
            double ref = kv_expected((double)@@FROM_IN@@(xr[c]), row), got = @@FROM_OUT@@(out[(size_t)r * cols + c]);
            double d = fabs(got - ref);
            if (!(d <= @@ABS_TOL@@ + @@REL_TOL@@ * fabs(ref))) bad++;
            worst = fmax(worst, d);
            diff2 += d * d;
            ref2 += ref * ref;
        }
    }
    double rel = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    bool ok = bad == 0 && rel <= @@REL_L2@@;
    printf("%dx%d: %s (max abs error %.3g, relative L2 %.3g, %zu elements off)\n", rows, cols, ok ? "ok" : "WRONG",
           worst, rel, bad);
    return ok ? 0 : 1;
}

int main(int argc, char** argv) {
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        int rows, cols;
        if (sscanf(argv[i], "%dx%d", &rows, &cols) != 2) {
            fprintf(stderr, "%s: expected ROWSxCOLS\n", argv[i]);
            return 2;
        }
        failed += check(rows, cols);
    }
    if (argc == 1) failed += check(1024, 1000) + check(8, 128256);
    return failed ? 1 : 0;
}
