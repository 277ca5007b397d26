// example.cu: calls the exported @@FN@@ on logits and labels as training gives them and checks it on the host against
// kevo's own float64 reference (below), in dtype @@DTYPE@@ (@@TYPES@@), with kevo's tolerance for @@FN@@, widened for
// @@OUT@@'s type, as written below. x is spread, one row in eight is ignored (label -100), and g, the incoming
// gradient of the loss, is drawn among the values kevo judged the kernel at.
// Build: nvcc -O3 -arch=sm_90 -o example example.cu @@P@@.cu
// Run:   ./example ROWSxCOLS ...
@@PRELUDE@@@@CONTEXT@@// ---- kevo's float64 reference of a row: its (max, sum of exp(x - max)) (kv_stat_start, kv_stat_add), then (max,
// log(sum)) (kv_row_prepare) and an element's log-probability (kv_expected): the functions kevo's evaluator computes
// @@FN@@'s reference with on the GPU, compiled for the host here.
@@REFERENCE@@// ---- end of kevo's reference

@@SUPPORT@@static int check(const char* text) {
    int rows = 0, cols = 0;
    if (parse_rows_cols(text, &rows, &cols)) return 2;
    const size_t n = (size_t)rows * cols;
    // Each tensor's elements: x and dx one a row and column, the labels one a row, the loss one.
    const size_t counts[] = {@@COUNTS@@};
    const size_t bytes[] = {@@ELEMENT_BYTES@@};
    static const bool outputs[] = {@@OUTPUTS@@};
    Buffer t[@@TENSORS@@];
    if (allocate(t, @@TENSORS@@, counts, bytes, text)) return 1;
    KEVO_X* x = (KEVO_X*)t[@@X_AT@@].host.data();
    long long* labels = (long long*)t[@@LABELS_AT@@].host.data();
    for (size_t i = 0; i < n; i++) x[i] = @@TO_IN@@((float)(uniform() * 16.0 - 8.0));
    for (int r = 0; r < rows; r++) labels[r] = r % 8 == 3 ? -100 : (long long)(uniform() * cols);
    @@SCALAR@@
    for (int i = 0; i < @@TENSORS@@; i++) {
        if (!outputs[i]) cudaMemcpy(t[i].device, t[i].host.data(), t[i].host.size(), cudaMemcpyHostToDevice);
    }
    cudaError_t e = @@P@@(@@CALL@@, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s (%s)\n", text, cudaGetErrorString(e), @@P@@_last_error());
        return 1;
    }
    cudaMemcpy(t[@@OUT_AT@@].host.data(), t[@@OUT_AT@@].device, t[@@OUT_AT@@].host.size(), cudaMemcpyDeviceToHost);
    cudaMemcpy(t[@@LOSS_AT@@].host.data(), t[@@LOSS_AT@@].device, t[@@LOSS_AT@@].host.size(), cudaMemcpyDeviceToHost);
    for (Buffer& b : t) cudaFree(b.device);
    const @@OUT_T@@* dx = (const @@OUT_T@@*)t[@@OUT_AT@@].host.data();
    const float loss = *(const float*)t[@@LOSS_AT@@].host.data();
    const KvAttention a = {1, 1, rows, cols, KEVO_MASK_NONE, 1.0f, nullptr, nullptr};
    std::vector<double2> row(rows);
    long long live = 0;
    for (int r = 0; r < rows; r++) {
        const KvRowAt at = kv_row_at(a, r);
        double2 stat = kv_stat_start();
        for (int c = 0; c < cols; c++) {
            stat = kv_stat_add(stat, kv_score(a, at, c, (double)@@FROM_IN@@(x[(size_t)r * cols + c])));
        }
        row[r] = kv_row_prepare(stat);
        live += labels[r] != -100;
    }
    // kevo's bound: dx = g (p - onehot(label)) / n within (@@ABS_TOL@@ + @@REL_TOL@@ p) |g| / n + @@REL_TOL@@ |ref| per
    // element and an L2 error within @@REL_L2@@ of |g| / n (p + onehot)'s; an ignored row's dx exactly 0; the loss (the
    // mean of (max - x[label]) + log(sum) over live rows, NaN with none) within @@REL_L2@@ of the mean of
    // |max - x[label]| + log(sum) + 1 (the 1: a float log of a sum >= 1 errs absolutely, however small the loss).
    // The sum (KV_CE_MEAN 0, in the reference above) divides by 1 instead of n, and its loss of no live row is 0.
    const double divisor = KV_CE_MEAN ? (double)live : 1.0;
    const double per = live > 0 ? (double)@@SCALE@@ / divisor : 0.0;
    double worst = 0, diff2 = 0, scale2 = 0, total = 0, magnitude = 0;
    size_t bad = 0;
    for (int r = 0; r < rows; r++) {
        const KvRowAt at = kv_row_at(a, r);
        const bool ignored = labels[r] == -100;
        if (!ignored) {
            const double v = (double)@@FROM_IN@@(x[(size_t)r * cols + labels[r]]);
            total -= kv_expected(kv_score(a, at, (int)labels[r], v), row[r]);
            magnitude += fabs(row[r].x - v) + row[r].y + 1.0;
        }
        for (int c = 0; c < cols; c++) {
            const double got = @@FROM_OUT@@(dx[(size_t)r * cols + c]);
            if (ignored) {
                if (got != 0) bad++;
                continue;
            }
            const double p = exp(kv_expected(kv_score(a, at, c, (double)@@FROM_IN@@(x[(size_t)r * cols + c])), row[r]));
            const double hot = c == labels[r] ? 1.0 : 0.0;
            const double ref = per * (p - hot), scale = fabs(per) * (p + hot), d = fabs(got - ref);
            if (!(d <= fabs(per) * (@@ABS_TOL@@ + @@REL_TOL@@ * p) + @@REL_TOL@@ * fabs(ref) + FLT_MIN * (1 + fabs(per)))) bad++;
            worst = fmax(worst, d);
            diff2 += d * d;
            scale2 += scale * scale;
        }
    }
    const double rel = scale2 > 0 ? sqrt(diff2 / scale2) : sqrt(diff2);
    const double want = live > 0 ? total / divisor : (KV_CE_MEAN ? NAN : 0.0);
    const bool loss_ok = live > 0 ? fabs((double)loss - want) <= @@REL_L2@@ * magnitude / divisor
                                                                 + FLT_EPSILON * fabs(want)
                                  : (KV_CE_MEAN ? isnan(loss) : loss == 0.0f);
    const bool ok = bad == 0 && rel <= @@REL_L2@@ && loss_ok;
    printf("%s: %s (loss %.9g against %.9g; dx max abs error %.3g, L2 error %.3g of the scales', %zu elements off)\n",
           text, ok ? "ok" : "WRONG", (double)loss, want, worst, rel, bad);
    return ok ? 0 : 1;
}

@@MAIN@@
