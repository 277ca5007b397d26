// One tensor of the C API, on the host and on the device: its elements for the shape (0 where the mask kind does not
// read it, and then the C API gets null).
struct Buffer {
    std::vector<unsigned char> host;
    void* device = nullptr;
};

static unsigned long long state;

static double uniform() {  // in [0, 1)
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(state >> 11) / 9007199254740992.0;
}


// A ROWSxCOLS argument, read into rows and cols, with the random state seeded from them; 2, after a message, where it
// is not one.
[[maybe_unused]] static int parse_rows_cols(const char* text, int* rows, int* cols) {
    int end = 0;
    if (sscanf(text, "%dx%d%n", rows, cols, &end) != 2 || text[end] || *rows < 1 || *cols < 1) {
        fprintf(stderr, "%s: expected ROWSxCOLS\n", text);
        return 2;
    }
    state = 0x9e3779b97f4a7c15ull ^ ((size_t)*rows * *cols);
    return 0;
}

// Each of the C API's tensors, counts[i] elements of bytes[i] each, on the host and on the device; 1, after a
// message, where the device has no room.
[[maybe_unused]] static int allocate(Buffer* t, int tensors, const size_t* counts, const size_t* bytes,
                                     const char* text) {
    for (int i = 0; i < tensors; i++) {
        t[i].host.resize(counts[i] * bytes[i]);
        if (cudaMalloc(&t[i].device, t[i].host.size()) != cudaSuccess) {
            fprintf(stderr, "%s: cannot allocate device memory\n", text);
            return 1;
        }
    }
    return 0;
}
