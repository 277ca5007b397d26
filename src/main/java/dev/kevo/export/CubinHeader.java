package dev.kevo.export;

import dev.kevo.data.JudgedBuild;

/**
 * Writes {@code kevo_<op>_cubin.h}: the judged cubin as a byte array, with the architecture it was built for, which
 * the launcher loads ({@code cudaLibraryLoadData}) and holds the device to.
 */
final class CubinHeader {
    private static final int PER_LINE = 24;

    private CubinHeader() {
    }

    static String render(OperatorApi api, JudgedBuild build, byte[] cubin, String banner) {
        String sm = build.arch().replaceFirst("^(sm|compute)_", "").replaceAll("[^0-9]", "");
        StringBuilder out = new StringBuilder(cubin.length * 5 + 1024);
        out.append(banner);
        out.append("// The cubin kevo judged: ").append(CText.comment(build.compiler())).append(", ")
                .append(CText.comment(String.join(" ", build.options()))).append("\n// SHA-256 ")
                .append(build.sha256()).append(" (kevo-export.json, \"build\").\n#pragma once\n");
        out.append("#define ").append(api.macro()).append("_CUBIN_ARCH ").append(CText.string(build.arch())).append('\n');
        out.append("#define ").append(api.macro()).append("_CUBIN_SM ").append(sm.isEmpty() ? "0" : sm).append('\n');
        // 8-byte aligned: the driver reads the ELF image in place.
        out.append("alignas(8) static const unsigned char ").append(api.prefix()).append("_cubin[")
                .append(cubin.length).append("] = {");
        for (int i = 0; i < cubin.length; i++) {
            out.append(i % PER_LINE == 0 ? "\n    " : " ").append(cubin[i] & 0xff).append(',');
        }
        out.append("\n};\n");
        return out.toString();
    }
}
