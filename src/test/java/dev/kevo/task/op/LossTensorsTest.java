package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.export.ExportPackage;
import dev.kevo.export.ExportTarget;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The tensors a loss brings (cross_entropy's, through the test operator {@link RowLossOperator}): int64 labels, one a
 * row, and a float32 loss, one element, whatever the dtype. Their bytes count in the floor; a kernel's parameters are
 * held to their types (a label read as int32 is the corpus's attack, caught from the source); kevo's evaluator takes
 * them, and export packages it for C++ and refuses a torch op of it in one line.
 */
class LossTensorsTest {

    private static final Operator LOSS = Operators.byId("row_loss");

    @Test
    void labelsAndTheLossCountInTheFloorInEveryDtype() {
        Shape shape = new Shape(6, 10);
        assertEquals(60L * 4 + 60L * 4 + 6 * 8 + 4, new Task(LOSS, Precision.FP32).floorBytes(shape));
        assertEquals(60L * 2 + 60L * 4 + 6 * 8 + 4, new Task(LOSS, Precision.BF16_FP32).floorBytes(shape));
        assertEquals(6, LOSS.tensors().get(1).extent().elements(Shape.attention(1, 2, 3, 10, dev.kevo.data.MaskKind.CAUSAL)),
                "labels are one a row under any layout");
    }

    private static KernelFile kernel(String labels, String loss) {
        return ContractParser.parse("k.cu", null, """
                /*@kevo { "op": "row_loss", "dtype": ["fp32", "bf16"],
                  "plans": [ { "launches": [ { "kernel": "k", "grid": "rows", "block": 32,
                                               "args": ["x", "labels", "dx", "loss", "cols"] } ] } ] } */
                #include "kevo.h"
                extern "C" __global__ void k(const KEVO_X* x, LABELS labels, KEVO_Y* dx, LOSS loss, int cols) { }
                """.replace("LABELS", labels).replace("LOSS", loss));
    }

    @Test
    void aKernelsLabelsAreSixtyFourBitsAndItsLossFloat32InEveryDtype() {
        for (Precision dtype : new Precision[] {Precision.FP32, Precision.BF16}) {
            for (String labels : new String[] {"const long long*", "const int64_t*", "const long*"}) {
                assertEquals(Optional.empty(), ParameterTypes.violation(kernel(labels, "float*"), dtype), labels);
            }
            String int32 = ParameterTypes.violation(kernel("const int*", "float*"), dtype).orElseThrow();
            assertTrue(int32.contains("takes labels as const int*") && int32.endsWith("(declare it long long*)"), int32);
            String typed = ParameterTypes.violation(kernel("const long long*", "KEVO_Y*"), dtype).orElse("");
            assertEquals(dtype.equals(Precision.BF16), typed.endsWith("(declare it float*)"),
                    dtype + ": a bf16 loss is no float32 one: " + typed);
        }
    }

    /**
     * The evaluator serves a loss's tensors (cross_entropy's, and any operator's of those extents), so its task is
     * made; export packages it for C++ and for torch, whose op takes labels of one a row and returns the loss as a
     * 0-dimensional tensor (TorchExportTest builds a loss's package).
     */
    @Test
    void theEvaluatorTakesALossAndExportPackagesIt() {
        for (String id : new String[] {"row_loss", "cross_entropy"}) {
            assertEquals(id, Task.of(EvalSettings.builder().op(id).build()).op().id());
            assertEquals(Optional.empty(), ExportPackage.unsupported(Operators.byId(id), ExportTarget.TORCH));
            assertEquals(Optional.empty(), ExportPackage.unsupported(Operators.byId(id), ExportTarget.CPP));
        }
        assertEquals(Optional.empty(), Task.unjudgedTensors(Operators.MASKED_SOFTMAX), "a mask's tensors are served");
        assertEquals(Optional.empty(), Task.unjudgedTensors(Operators.CROSS_ENTROPY), "a loss's tensors are served");
        assertEquals(Optional.empty(), ExportPackage.unsupported(Operators.SOFTMAX_BACKWARD, ExportTarget.TORCH));
    }
}
