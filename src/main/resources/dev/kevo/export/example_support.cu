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

