// example.cu: calls the exported @@FN@@ on random inputs and checks it on the host
// against kevo's own float64 reference of @@FN@@ (below), in dtype @@DTYPE@@ (@@TYPES@@),
// with kevo's tolerance for @@FN@@, widened for @@OUT@@'s type, as written below.
// Build: nvcc -O3 -arch=sm_90 -o example example.cu @@P@@.cu
// Run:   ./example @@USAGE@@ ...
@@PRELUDE@@// ---- what an element's score may depend on beside the element (kevo's eval/harness.cu, compiled for the host):
// the rows' attention layout, the mask kind, the tensors a mask brings and the scale.
@@CONTEXT@@// ---- kevo's float64 reference of @@FN@@: the functions kevo's evaluator computes it with on the GPU,
// compiled for the host here. An element's score (kv_score) is what a row's statistic starts empty with
// (kv_stat_start), takes each score (kv_stat_add), is prepared once (kv_row_prepare); an element's expected output
// then follows from its score (kv_expected), exactly where kv_exact says so.
@@SCORE@@@@REFERENCE@@// ---- end of kevo's reference

@@SUPPORT@@static int check(const char* text) {
    int batch = 1, heads = 1, queries = 0, keys = 0, kind = -1, end = 0;
    const bool parsed = @@ATTENTION@@
            ? sscanf(text, "%dx%dx%dx%d%n", &batch, &heads, &queries, &keys, &end) == 4
            : sscanf(text, "%dx%d%n", &queries, &keys, &end) == 2;
    const char* mask = !parsed ? "?" : text[end] == ':' && @@ATTENTION@@ ? text + end + 1 : text[end] ? "?" : "none";
    for (int k = 0; k < KEVO_MASK_COUNT; k++) {
        if (strcmp(mask, kevo_mask_names[k]) == 0) kind = k;
    }
    if (kind < 0 || batch < 1 || heads < 1 || queries < 1 || keys < 1) {
        fprintf(stderr, "%s: expected @@USAGE@@\n", text);
        return 2;
    }
    const int rows = batch * heads * queries, cols = keys;
    @@SCALAR@@
    state = 0x9e3779b97f4a7c15ull ^ ((size_t)rows * cols) ^ ((unsigned long long)kind << 40);
    const size_t counts[] = {(size_t)rows * cols, kind == KEVO_MASK_PADDING ? (size_t)batch : 0,
                             kind == KEVO_MASK_ADDITIVE ? (size_t)batch * queries * cols : 0};  // by extent
    const int extent[] = {@@EXTENTS@@};
    const size_t bytes[] = {@@ELEMENT_BYTES@@};
    const bool output[] = {@@OUTPUTS@@};
    Buffer t[@@TENSORS@@];
    for (int i = 0; i < @@TENSORS@@; i++) {
        t[i].host.resize(counts[extent[i]] * bytes[i]);
        if (!t[i].host.empty() && cudaMalloc(&t[i].device, t[i].host.size()) != cudaSuccess) {
            fprintf(stderr, "%s: cannot allocate device memory\n", text);
            return 1;
        }
    }
    // x spread over [-8, 8); each batch entry's length in [0, keys] (0: its rows fully masked); an additive mask of
    // small biases with a quarter of its keys masked by x's type's lowest value, and every fourth row masked through.
    KEVO_X* x = (KEVO_X*)t[@@X@@].host.data();
    for (size_t i = 0; i < counts[0]; i++) x[i] = @@TO_IN@@((float)(uniform() * 16.0 - 8.0));
    const int* lengths = nullptr;
    const KEVO_X* bias = nullptr;
    @@FILL_MASKS@@
    for (int i = 0; i < @@TENSORS@@; i++) {
        if (!output[i] && t[i].device) cudaMemcpy(t[i].device, t[i].host.data(), t[i].host.size(), cudaMemcpyHostToDevice);
    }
    cudaError_t e = @@P@@(@@CALL@@, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s (%s)\n", text, cudaGetErrorString(e), @@P@@_last_error());
        return 1;
    }
    const @@OUT_T@@* y = (const @@OUT_T@@*)t[@@Y@@].host.data();
    cudaMemcpy(t[@@Y@@].host.data(), t[@@Y@@].device, t[@@Y@@].host.size(), cudaMemcpyDeviceToHost);
    for (Buffer& b : t) cudaFree(b.device);
    const KvAttention a = {batch, heads, queries, cols, kind, @@SCALE@@, lengths, bias};
    double worst = 0, diff2 = 0, ref2 = 0;
    size_t bad = 0;
    for (int r = 0; r < rows; r++) {
        const KvRowAt at = kv_row_at(a, r);
        const KEVO_X* xr = &x[(size_t)r * cols];
        double2 stat = kv_stat_start();
        for (int c = 0; c < cols; c++) stat = kv_stat_add(stat, kv_score(a, at, c, (double)@@FROM_IN@@(xr[c])));
        const double2 row = kv_row_prepare(stat);
        for (int c = 0; c < cols; c++) {
            const double score = kv_score(a, at, c, (double)@@FROM_IN@@(xr[c]));
            double ref = kv_expected(score, row), got = @@FROM_OUT@@(y[(size_t)r * cols + c]);
            double d = fabs(got - ref);
            if (kv_exact(score) ? got != ref : !(d <= @@ABS_TOL@@ + @@REL_TOL@@ * fabs(ref))) bad++;
            worst = fmax(worst, d);
            diff2 += d * d;
            ref2 += ref * ref;
        }
    }
    double rel = ref2 > 0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    bool ok = bad == 0 && rel <= @@REL_L2@@;
    printf("%s: %s (max abs error %.3g, relative L2 %.3g, %zu elements off)\n", text, ok ? "ok" : "WRONG", worst, rel,
           bad);
    return ok ? 0 : 1;
}

@@MAIN@@