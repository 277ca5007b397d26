// example.cu: calls the exported softmax on random rows and checks it against a float64 softmax on the host,
// in dtype @@DTYPE@@ (x of @@X_T@@, y of @@Y_T@@), with kevo's tolerance as written below for y's type.
// Build: nvcc -O3 -arch=sm_90 -o example example.cu kevo_softmax.cu     Run: ./example 4096x4096 1x1000000 ...
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "kevo_softmax.h"

static int check(int rows, int cols) {
    size_t n = (size_t)rows * cols;
    std::vector<@@X_T@@> x(n);
    std::vector<@@Y_T@@> y(n);
    unsigned long long state = 0x9e3779b97f4a7c15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        x[i] = @@TO_X@@((float)((double)(state >> 11) / 9007199254740992.0 * 16.0 - 8.0));
    }
    @@X_T@@* dx = nullptr;
    @@Y_T@@* dy = nullptr;
    if (cudaMalloc(&dx, n * sizeof(*dx)) != cudaSuccess || cudaMalloc(&dy, n * sizeof(*dy)) != cudaSuccess) {
        fprintf(stderr, "%dx%d: cannot allocate device memory\n", rows, cols);
        return 1;
    }
    cudaMemcpy(dx, x.data(), n * sizeof(*dx), cudaMemcpyHostToDevice);
    cudaError_t e = kevo_softmax(dx, dy, rows, cols, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%dx%d: %s (%s)\n", rows, cols, cudaGetErrorString(e), kevo_softmax_last_error());
        return 1;
    }
    cudaMemcpy(y.data(), dy, n * sizeof(*dy), cudaMemcpyDeviceToHost);
    cudaFree(dx);
    cudaFree(dy);
    double worst = 0, diff2 = 0, ref2 = 0;
    size_t bad = 0;
    for (int r = 0; r < rows; r++) {
        const @@X_T@@* xr = &x[(size_t)r * cols];
        double m = -INFINITY, s = 0;
        for (int c = 0; c < cols; c++) m = fmax(m, (double)@@FROM_X@@(xr[c]));
        for (int c = 0; c < cols; c++) s += exp((double)@@FROM_X@@(xr[c]) - m);
        for (int c = 0; c < cols; c++) {
            double ref = exp((double)@@FROM_X@@(xr[c]) - m) / s, got = @@FROM_Y@@(y[(size_t)r * cols + c]);
            double d = fabs(got - ref);
            if (!(d <= @@ABS_TOL@@ + @@REL_TOL@@ * fabs(ref))) bad++;
            worst = fmax(worst, d);
            diff2 += d * d;
            ref2 += ref * ref;
        }
    }
    double rel = sqrt(diff2 / ref2);
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
