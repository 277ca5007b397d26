package dev.kevo.export;

import dev.kevo.data.Dtype;
import dev.kevo.data.Precision;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * How an exported package spells the element types it was exported for: the CUDA types of its C API
 * ({@code __nv_bfloat16}, not kevo.h's storage words, which only the kernel file sees; the bits are the same), torch's
 * scalar types in C++ and in Python, and the host conversions its example uses.
 */
final class ExportTypes {
    private ExportTypes() {
    }

    static String cType(Dtype t) {
        return switch (t) {
            case FP32 -> "float";
            case BF16 -> "__nv_bfloat16";
            case FP16 -> "__half";
        };
    }

    private static String include(Dtype t) {
        return switch (t) {
            case FP32 -> "";
            case BF16 -> "#include <cuda_bf16.h>\n";
            case FP16 -> "#include <cuda_fp16.h>\n";
        };
    }

    /** The headers that declare the CUDA types of {@code dtype}'s pair, each once. */
    static String includes(Precision dtype) {
        Set<String> lines = new LinkedHashSet<>();
        lines.add(include(dtype.x()));
        lines.add(include(dtype.y()));
        return String.join("", lines);
    }

    static String torch(Dtype t) {
        return switch (t) {
            case FP32 -> "torch::kFloat32";
            case BF16 -> "torch::kBFloat16";
            case FP16 -> "torch::kHalf";
        };
    }

    static String python(Dtype t) {
        return switch (t) {
            case FP32 -> "torch.float32";
            case BF16 -> "torch.bfloat16";
            case FP16 -> "torch.float16";
        };
    }

    /** The host function that converts a float to {@code t} (a cast for float). */
    static String fromFloat(Dtype t) {
        return switch (t) {
            case FP32 -> "(float)";
            case BF16 -> "__float2bfloat16";
            case FP16 -> "__float2half";
        };
    }

    /** The host function that converts {@code t} to a float (a cast for float). */
    static String toFloat(Dtype t) {
        return switch (t) {
            case FP32 -> "(float)";
            case BF16 -> "__bfloat162float";
            case FP16 -> "__half2float";
        };
    }
}
