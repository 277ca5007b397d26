package dev.kevo.cuda;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * What NVRTC made of one source: the cubin for the target architecture, the compiler's log and how long it took.
 *
 * @param cubin machine code for {@code arch}, loadable without a JIT step
 * @param log NVRTC's messages (warnings too), lines in {@code file(line): ...} form
 */
public record Compilation(String name, String arch, byte[] cubin, String log, Duration time, List<String> options) {

    public Compilation {
        options = List.copyOf(options);
    }

    /** True when the cubin defines a kernel of that name (extern "C", so unmangled). */
    public boolean definesKernel(String kernel) {
        byte[] needle = (".text." + kernel + "\0").getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + needle.length <= cubin.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (cubin[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Compilation c && name.equals(c.name) && arch.equals(c.arch) && Arrays.equals(cubin, c.cubin);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(cubin);
    }
}
