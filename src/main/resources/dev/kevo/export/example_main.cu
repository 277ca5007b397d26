int main(int argc, char** argv) {
    int failed = 0;
    for (int i = 1; i < argc; i++) {
        const int r = check(argv[i]);
        if (r == 2) return 2;
        failed += r;
    }
    if (argc == 1) {
        static const char* const shapes[] = {@@DEFAULT_SHAPES@@};
        for (const char* s : shapes) failed += check(s);
    }
    return failed ? 1 : 0;
}
