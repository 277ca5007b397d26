// example.cu: calls the exported @@FN@@ on inputs as training gives them and checks it on the host against kevo's own
// float64 reference of @@FN@@ (below), in dtype @@DTYPE@@ (@@TYPES@@), with kevo's tolerance for
// @@FN@@ (relative to dy's scale), widened for @@OUT@@'s type, as written below.
// @@Y@@ is @@FORWARD@@ of spread x rows (kevo's reference of @@FORWARD@@, rounded to its type), @@DY@@ is spread values.
// Build: nvcc -O3 -arch=sm_90 -o example example.cu @@P@@.cu
// Run:   ./example ROWSxCOLS ...
@@PRELUDE@@@@CONTEXT@@// ---- kevo's float64 reference of @@FORWARD@@, which makes @@Y@@ as the forward pass would have: the functions kevo's
// evaluator computes it with on the GPU, compiled for the host here.
@@FORWARD_SCORE@@@@FORWARD_REFERENCE@@// ---- kevo's float64 reference of @@FN@@: a row's dot product (kv_dot_start, kv_dot_add: the sum of the
// terms and of their magnitudes), then an element's expected output (kv_backward) and the weight that carries the dot
// product's rounding onto it (kv_weight).
@@REFERENCE@@// ---- end of kevo's reference

@@SUPPORT@@static int check(const char* text) {
    int rows = 0, cols = 0;
    if (parse_rows_cols(text, &rows, &cols)) return 2;
    const size_t n = (size_t)rows * cols;
    const size_t counts[] = {@@COUNTS@@};
    const size_t bytes[] = {@@ELEMENT_BYTES@@};
    Buffer t[@@TENSORS@@];
    if (allocate(t, @@TENSORS@@, counts, bytes, text)) return 1;
    // x spread over [-8, 8); y its @@FORWARD@@ in float64, rounded to y's type; dy spread over [-1, 1).
    KEVO_X* y = (KEVO_X*)t[@@Y_AT@@].host.data();
    KEVO_X* dy = (KEVO_X*)t[@@DY_AT@@].host.data();
    const KvAttention a = {1, 1, rows, cols, KEVO_MASK_NONE, 1.0f, nullptr, nullptr};
    std::vector<double> x(cols);
    for (int r = 0; r < rows; r++) {
        const KvRowAt at = kv_row_at(a, r);
        double2 stat = kv_stat_start();
        for (int c = 0; c < cols; c++) {
            x[c] = (double)@@FROM_IN@@(@@TO_IN@@((float)(uniform() * 16.0 - 8.0)));
            stat = kv_stat_add(stat, kv_score(a, at, c, x[c]));
        }
        const double2 row = kv_row_prepare(stat);
        for (int c = 0; c < cols; c++) {
            y[(size_t)r * cols + c] = @@TO_IN@@((float)kv_expected(kv_score(a, at, c, x[c]), row));
            dy[(size_t)r * cols + c] = @@TO_IN@@((float)(uniform() * 2.0 - 1.0));
        }
    }
    for (int i = 0; i < @@TENSORS@@; i++) {
        if (i != @@OUT_AT@@) cudaMemcpy(t[i].device, t[i].host.data(), t[i].host.size(), cudaMemcpyHostToDevice);
    }
    cudaError_t e = @@P@@(@@CALL@@, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s (%s)\n", text, cudaGetErrorString(e), @@P@@_last_error());
        return 1;
    }
    const @@OUT_T@@* dx = (const @@OUT_T@@*)t[@@OUT_AT@@].host.data();
    cudaMemcpy(t[@@OUT_AT@@].host.data(), t[@@OUT_AT@@].device, t[@@OUT_AT@@].host.size(), cudaMemcpyDeviceToHost);
    for (Buffer& b : t) cudaFree(b.device);
    // kevo's bound: |dx - ref| <= @@ABS_TOL@@ * scale + @@REL_TOL@@ * |ref| per element, and the L2 error
    // within @@REL_L2@@ of the scales', where scale = |dy| + weight(y) * sum over the row of |term|.
    double worst = 0, diff2 = 0, scale2 = 0;
    size_t bad = 0;
    for (int r = 0; r < rows; r++) {
        const KEVO_X* yr = &y[(size_t)r * cols];
        const KEVO_X* dyr = &dy[(size_t)r * cols];
        double2 dot = kv_dot_start();
        for (int c = 0; c < cols; c++) dot = kv_dot_add(dot, (double)@@FROM_IN@@(yr[c]), (double)@@FROM_IN@@(dyr[c]));
        for (int c = 0; c < cols; c++) {
            const double yc = (double)@@FROM_IN@@(yr[c]), dyc = (double)@@FROM_IN@@(dyr[c]);
            const double ref = kv_backward(yc, dyc, dot), got = @@FROM_OUT@@(dx[(size_t)r * cols + c]);
            const double scale = fabs(dyc) + kv_weight(yc) * dot.y;
            const double d = fabs(got - ref);
            if (kv_weight(yc) == 0 ? got != ref : !(d <= @@ABS_TOL@@ * scale + @@REL_TOL@@ * fabs(ref))) bad++;
            worst = fmax(worst, d);
            diff2 += d * d;
            scale2 += scale * scale;
        }
    }
    const double rel = scale2 > 0 ? sqrt(diff2 / scale2) : sqrt(diff2);
    const bool ok = bad == 0 && rel <= @@REL_L2@@;
    printf("%s: %s (max abs error %.3g, L2 error %.3g of the scales', %zu elements off)\n", text, ok ? "ok" : "WRONG",
           worst, rel, bad);
    return ok ? 0 : 1;
}

@@MAIN@@