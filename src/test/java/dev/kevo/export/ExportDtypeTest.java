package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.data.Precision;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The dtype an export is written for: what the file implements, in the C API's and torch's own types. */
class ExportDtypeTest {

    @Test
    void aFileIsExportedInTheDtypesItImplementsAndRefusedInOthers() {
        ExportSource fp32Only = ExportSource.locate(TestFiles.root().resolve("seeds/block_stats.cu"));
        assertEquals(Precision.FP32, fp32Only.dtype(Optional.empty()), "float32 where the file implements it");
        KevoException e = assertThrows(KevoException.class, () -> fp32Only.dtype(Optional.of(Precision.BF16)));
        assertTrue(e.getMessage().contains("block_stats.cu implements dtype fp32, not bf16"), e.getMessage());
    }

    @Test
    void bf16InFloatOutTakesBf16TensorsAndReturnsFloatOnes(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        java.nio.file.Path online = java.nio.file.Files.copy(TestFiles.root().resolve("seeds/online.cu"),
                tmp.resolve("online.cu"));
        dev.kevo.SanitizerRecords.write(online, dev.kevo.data.Verdict.PASS, null, Precision.BF16_FP32);
        ExportPackage pkg = ExportPackage.build(ExportSource.locate(online), ExportTarget.TORCH,
                Optional.of(Precision.BF16_FP32), "test", Instant.EPOCH);
        dev.kevo.SanitizerRecords.write(online, dev.kevo.data.Verdict.PASS, null, Precision.FP32);
        KevoException other = assertThrows(KevoException.class, () -> ExportPackage.build(ExportSource.locate(online),
                ExportTarget.TORCH, Optional.of(Precision.BF16_FP32), "test", Instant.EPOCH));
        assertTrue(other.getMessage().contains("the judged cubin was built for other element types"),
                "a cubin judged in fp32 is not shipped as bf16-fp32: " + other.getMessage());
        String binding = pkg.files().get("kevo_softmax_torch.cpp");
        assertTrue(binding.contains("{\"x\", torch::kBFloat16, false, 0, 0xf}")
                && binding.contains("{\"y\", torch::kFloat32, true, 0, 0xf}"),
                "x taken in bf16, y returned in float32: " + binding);
        assertTrue(binding.contains("exported for dtype bf16-fp32"), "the error says which dtype and how to get another");
        assertTrue(pkg.files().get("kevo_softmax.h").contains(
                "cudaError_t kevo_softmax(const __nv_bfloat16* x, float* y, int rows, int cols"), "the C API's types");
        assertTrue(pkg.files().get("kevo_softmax_kernels.cu").contains("#define KEVO_X kevo_bf16\n#define KEVO_Y float\n"),
                "the kernel was compiled in the dtype exported");
        assertEquals("bf16-fp32", pkg.provenance().dtype());
    }
}
