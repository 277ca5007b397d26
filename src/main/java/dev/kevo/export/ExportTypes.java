package dev.kevo.export;

import dev.kevo.data.Dtype;
import dev.kevo.data.Precision;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an exported package spells the dtypes it was exported for: the CUDA types of its C API ({@code __nv_bfloat16},
 * not kevo.h's storage words, which only the kernel file sees; the bits are the same), torch's scalar types, the host
 * conversions its example uses, and the tolerance that example checks with.
 */
record ExportTypes(Precision dtype) {

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

    private static String torch(Dtype t) {
        return switch (t) {
            case FP32 -> "torch::kFloat32";
            case BF16 -> "torch::kBFloat16";
            case FP16 -> "torch::kHalf";
        };
    }

    private static String python(Dtype t) {
        return switch (t) {
            case FP32 -> "torch.float32";
            case BF16 -> "torch.bfloat16";
            case FP16 -> "torch.float16";
        };
    }

    /** The host function that converts a float to {@code t} (a cast for float). */
    private static String fromFloat(Dtype t) {
        return switch (t) {
            case FP32 -> "(float)";
            case BF16 -> "__float2bfloat16";
            case FP16 -> "__float2half";
        };
    }

    /** The host function that converts {@code t} to a float (a cast for float). */
    private static String toFloat(Dtype t) {
        return switch (t) {
            case FP32 -> "(float)";
            case BF16 -> "__bfloat162float";
            case FP16 -> "__half2float";
        };
    }

    /**
     * A simplified form of kevo's tolerance for y's type: float32's per-element bound widened by the type's relative
     * precision (2^-8 in bf16, 2^-11 in fp16, with fp16's smallest subnormal step as an absolute term), and a relative
     * L2 bound of that precision; float32 keeps kevo's own. kevo itself allows one unit in the last place.
     */
    private static String[] tolerance(Dtype y) {
        return switch (y) {
            case FP32 -> new String[] {"1e-6", "1e-4", "1e-4"};
            case BF16 -> new String[] {"1e-6", "4e-3", "4e-3"};
            case FP16 -> new String[] {"1.2e-7", "5e-4", "5e-4"};
        };
    }

    /** The slots the templates take: {@code X_T}, {@code Y_T}, {@code TYPE_INCLUDES}, {@code TORCH_X}, ... */
    Map<String, String> slots() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("DTYPE", dtype.id());
        s.put("X_T", cType(dtype.x()));
        s.put("Y_T", cType(dtype.y()));
        String includes = include(dtype.x()) + (dtype.x() == dtype.y() ? "" : include(dtype.y()));
        s.put("TYPE_INCLUDES", includes);
        s.put("TORCH_X", torch(dtype.x()));
        s.put("TORCH_Y", torch(dtype.y()));
        s.put("PY_X", python(dtype.x()));
        s.put("PY_Y", python(dtype.y()));
        s.put("TO_X", fromFloat(dtype.x()));
        s.put("FROM_X", toFloat(dtype.x()));
        s.put("FROM_Y", toFloat(dtype.y()));
        String[] tol = tolerance(dtype.y());
        s.put("ABS_TOL", tol[0]);
        s.put("REL_TOL", tol[1]);
        s.put("REL_L2", tol[2]);
        return s;
    }
}
