package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import dev.kevo.task.op.VendorBaseline;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The evaluator's Java side for a gradient operator (softmax_backward, log_softmax_backward), where no GPU is needed:
 * which buffers it guards, what a launch is bound to, which cuDNN call is its vendor's, how its build of kevo's kernels
 * is composed, and that the floor's copies fit its buffers; and that the forward operators' side is what it was.
 * BackwardGpuTest judges them on a GPU.
 */
class GradientInputsTest {
    private static final List<Operator> GRADIENTS = List.of(Operators.SOFTMAX_BACKWARD,
            Operators.LOG_SOFTMAX_BACKWARD);
    private static final List<Operator> FORWARDS = List.of(Operators.SOFTMAX, Operators.LOG_SOFTMAX,
            Operators.MASKED_SOFTMAX);

    /**
     * dy gets a guarded buffer per input set beside y, as a mask's tensors get theirs beside x; for a forward operator
     * the buffers beside x are exactly the mask's, as before gradients.
     */
    @Test
    void dyIsGuardedBesideYAndAForwardOperatorKeepsItsMasksTensors() {
        for (Operator op : GRADIENTS) {
            assertEquals(List.of("dy"), Workbench.besideFirst(op).stream().map(Tensor::name).toList(), op.id());
        }
        for (Operator op : FORWARDS) {
            assertEquals(op.extraInputs(), Workbench.besideFirst(op), op.id());
        }
        assertEquals(List.of("lengths", "mask"), Workbench.besideFirst(Operators.MASKED_SOFTMAX).stream()
                .map(Tensor::name).toList());
    }

    /** A launch gets y, dy, dx and the workspace by the operator's names, each the buffer it is. */
    @Test
    void aGradientsLaunchGetsYDyAndDxByName() {
        DevicePointer[] p = pointers(4);
        DevicePointer y = p[0];
        DevicePointer dy = p[1];
        DevicePointer dx = p[2];
        DevicePointer ws = p[3];
        Inputs inputs = new Inputs(List.of(y, dy), DevicePointer.none(), DevicePointer.none(), Map.of(), null);
        for (Operator op : GRADIENTS) {
            Bindings b = inputs.bindings(new Task(op, Precision.BF16), new Shape(3, 5), Outputs.of(dx), ws);
            assertSame(y, b.pointer("y"), op.id());
            assertSame(dy, b.pointer("dy"), op.id());
            assertSame(dx, b.pointer("dx"), op.id());
            assertSame(ws, b.pointer("ws"), op.id());
            assertEquals(4, b.values().size(), b.values()::toString);
        }
        assertSame(y, inputs.x(), "the floor's copies read the first row input");
    }

    /** A forward operator's launch is bound as it always was: x, the mask's tensors where read, y, ws, the scale. */
    @Test
    void aForwardLaunchIsBoundAsBefore() {
        DevicePointer[] p = pointers(3);
        DevicePointer x = p[0];
        Inputs inputs = new Inputs(x, p[1], p[2], Map.of(Task.SCALE, 0.125f));
        assertEquals(List.of(x), inputs.rowInputs());
        assertNull(inputs.source(), "a forward operator's inputs are derived from nothing");
        Shape padded = Shape.parse("2x3x4x5").withMask(MaskKind.PADDING);
        DevicePointer y = DevicePointer.unallocated();
        Bindings b = inputs.bindings(new Task(Operators.MASKED_SOFTMAX, Precision.FP32), padded, Outputs.of(y),
                DevicePointer.unallocated());
        assertSame(x, b.pointer("x"));
        assertSame(p[1], b.pointer("lengths"));
        assertFalse(b.pointer("mask") == p[2], "a padding shape reads no additive mask");
        assertSame(y, b.pointer("y"));
        assertEquals(0.125f, b.get("scale"));
    }

    /** {@code n} distinct pointers to nothing, told apart by identity. */
    private static DevicePointer[] pointers(int n) {
        DevicePointer[] out = new DevicePointer[n];
        for (int i = 0; i < n; i++) {
            out[i] = DevicePointer.unallocated();
        }
        return out;
    }

    /** cuDNN's backward for a gradient, its forward otherwise, each with the algorithm of the operator's function. */
    @Test
    void cudnnsBackwardServesAGradientWithItsForwardsAlgorithm() {
        assertEquals(Cudnn.Algorithm.ACCURATE, CudnnBaselineRun.algorithm(VendorBaseline.CUDNN_SOFTMAX_ACCURATE));
        assertEquals(Cudnn.Algorithm.LOG, CudnnBaselineRun.algorithm(VendorBaseline.CUDNN_SOFTMAX_LOG));
        assertEquals(Cudnn.Algorithm.ACCURATE,
                CudnnBaselineRun.algorithm(VendorBaseline.CUDNN_SOFTMAX_BACKWARD_ACCURATE));
        assertEquals(Cudnn.Algorithm.LOG, CudnnBaselineRun.algorithm(VendorBaseline.CUDNN_SOFTMAX_BACKWARD_LOG));
        for (Operator op : GRADIENTS) {
            assertTrue(CudnnBaselineRun.backward(op.vendor().orElseThrow()), op.id());
        }
        for (Operator op : List.of(Operators.SOFTMAX, Operators.LOG_SOFTMAX)) {
            assertFalse(CudnnBaselineRun.backward(op.vendor().orElseThrow()), op.id());
        }
    }

    /**
     * A gradient's build of kevo's kernels is its forward's, byte for byte (x generated, its statistics, y from them),
     * then its own reference and harness_backward.cu; a forward operator's build is the harness, its score and its
     * reference, nothing of a gradient's.
     */
    @Test
    void aGradientsBuildIsItsForwardsThenItsOwnAndAForwardsIsAsBefore() {
        for (Precision dtype : Precision.SUPPORTED) {
            for (Operator op : GRADIENTS) {
                Operator forward = op.gradientOf().orElseThrow();
                String source = TrustedKernels.source(new Task(op, dtype));
                assertEquals(TrustedKernels.source(new Task(forward, dtype)) + BackwardKernels.source(op), source);
                assertTrue(source.indexOf("#line 1 \"" + forward.id() + ".cu\"") < source.indexOf(
                        "#line 1 \"" + op.id() + ".cu\""), "the forward's reference first");
                assertTrue(source.endsWith(Prelude.resource(BackwardKernels.class, BackwardKernels.SOURCE_NAME)));
            }
            for (Operator op : FORWARDS) {
                assertEquals(TrustedKernels.constants(dtype) + "#line 1 \"" + TrustedKernels.SOURCE_NAME + "\"\n"
                        + Prelude.resource(TrustedKernels.class, TrustedKernels.SOURCE_NAME) + "\n"
                        + op.scoreSource() + "\n#line 1 \"" + op.id() + ".cu\"\n" + op.referenceSource(),
                        TrustedKernels.source(new Task(op, dtype)), op.id());
            }
        }
    }

    /**
     * The floor of a gradient is a copy of its bytes (two reads and a write): the memcpy and the copy kernel read
     * them from an input set's first row input (y) and write them to the output's buffer (dx), which hold them.
     */
    @Test
    void theFloorsCopiesOfAGradientsBytesFitItsBuffers() {
        List<Shape> shapes = List.of(new Shape(1, 10_000_000), new Shape(1823, 781), new Shape(32, 128));
        for (Operator op : GRADIENTS) {
            for (Precision dtype : Precision.SUPPORTED) {
                Task task = new Task(op, dtype);
                long capacity = Workbench.copyCapacity(task, shapes);
                int perElement = dtype.x().bytes() + dtype.y().bytes();
                for (Shape shape : shapes) {
                    long floor = task.floorBytes(shape);
                    assertEquals((2L * dtype.x().bytes() + dtype.y().bytes()) * shape.elements(), floor);
                    long copied = task.floorCopyElements(shape);
                    assertTrue(copied * perElement >= floor && copied * perElement < floor + perElement,
                            task + " " + shape + ": the copy kernel moves the floor's bytes");
                    assertTrue(capacity >= floor / 2, "the memcpy's bytes");
                    assertTrue(capacity >= copied * Math.max(dtype.x().bytes(), dtype.y().bytes()),
                            "the copy kernel's reads and writes");
                }
            }
        }
        Task softmax = Task.softmax(Precision.BF16_FP32);
        assertEquals(10_000_000L * 4, Workbench.copyCapacity(softmax, shapes), "a forward's as before: x's elements, y's type");
    }

    /**
     * The evaluator judges the task it is given (what a GPU test of a gradient constructs), and only under the settings
     * of that task: checked before anything touches the GPU.
     */
    @Test
    void anEvaluatorRefusesATaskItsSettingsDoNotName() {
        Suite suite = Suite.of("one", List.of("32x128"));
        EvalSettings softmax = EvalSettings.defaults();
        assertThrows(IllegalArgumentException.class, () -> new Evaluator(null, null, null, suite, null, softmax,
                new Task(Operators.SOFTMAX_BACKWARD, Precision.FP32)));
        EvalSettings backward = softmax.toBuilder().op("softmax_backward").build();
        assertThrows(IllegalArgumentException.class, () -> new Evaluator(null, null, null, suite, null, backward,
                new Task(Operators.SOFTMAX_BACKWARD, Precision.BF16)));
    }
}
