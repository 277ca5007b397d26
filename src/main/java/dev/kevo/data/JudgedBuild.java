package dev.kevo.data;

import java.util.List;

/**
 * The machine code kevo judged: what an export must ship so that users run exactly it. kevo compiles a kernel file
 * with NVRTC; another compiler, or another version, makes other code from the same source.
 *
 * @param arch the target, as NVRTC was given it ({@code sm_90})
 * @param compiler the compiler and its version ({@code NVRTC 13.0})
 * @param options the options it was given (the dtype's and the knobs' macros among them)
 * @param sha256 the cubin's SHA-256, hex: the identity a package's cubin must have
 */
public record JudgedBuild(String arch, String compiler, List<String> options, String sha256) {

    public JudgedBuild {
        options = options == null ? List.of() : List.copyOf(options);
    }

    /** The cubin's file name in a cache of judged builds, and in a package. */
    public String fileName() {
        return sha256 + ".cubin";
    }
}
