package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kevo.GpuTest;
import dev.kevo.KevoException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** The cuDNN binding on a real GPU: kevo's layout, context and stream, and cuDNN's own status in its errors. */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CudnnGpuTest {
    private Gpu gpu;
    private Cudnn cudnn;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        try {
            cudnn = Cudnn.load(System.getenv());
        } catch (KevoException e) {
            System.err.println("SKIPPED cudnn test: " + e.getMessage());
        }
    }

    @AfterAll
    void close() {
        if (gpu != null) {
            gpu.close();
        }
    }

    /** Rows of different scales, on kevo's stream: y matches a double-precision softmax of each row. */
    @Test
    void rowsOfARowMajorMatrixAreSoftmaxedOnKevosStream() {
        assumeTrue(cudnn != null, "no cuDNN");
        int rows = 3;
        int cols = 1000;
        float[] x = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            int r = i / cols;
            x[i] = r == 1 ? 600 + (i % 97) * 0.5f : (float) Math.sin(i * 0.37) * (r + 1) * 4;
        }
        try (DeviceBuffer dx = gpu.alloc(x.length * 4L); DeviceBuffer dy = gpu.alloc(x.length * 4L);
             Cudnn.Softmax softmax = cudnn.softmax(gpu)) {
            gpu.upload(dx.pointer(), x, x.length * 4L);
            gpu.fill(dy.pointer(), 0x7FBADBAD, x.length);
            int prepared = softmax.prepare(rows, cols);
            softmax.run(prepared, dx.pointer(), dy.pointer(), rows + "x" + cols);
            float[] y = new float[x.length];
            gpu.download(dy.pointer(), y, y.length * 4L);
            for (int r = 0; r < rows; r++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int c = 0; c < cols; c++) {
                    max = Math.max(max, x[r * cols + c]);
                }
                double sum = 0;
                for (int c = 0; c < cols; c++) {
                    sum += Math.exp(x[r * cols + c] - max);
                }
                for (int c = 0; c < cols; c++) {
                    double ref = Math.exp(x[r * cols + c] - max) / sum;
                    float got = y[r * cols + c];
                    int row = r;
                    int col = c;
                    assertTrue(Math.abs(got - ref) <= 1e-6 + 1e-4 * ref,
                            () -> "row " + row + " col " + col + ": " + got + " vs " + ref);
                }
            }
        }
        System.out.println("cuDNN " + cudnn.version() + " from " + cudnn.location());
    }

    /** A shape cuDNN refuses is one line naming the library, the call, the shape and cuDNN's status string. */
    @Test
    void aShapeCudnnRefusesNamesTheLibraryAndItsStatus() {
        assumeTrue(cudnn != null, "no cuDNN");
        try (Cudnn.Softmax softmax = cudnn.softmax(gpu)) {
            KevoException e = assertThrows(KevoException.class, () -> softmax.prepare(0, 5));
            assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
            assertTrue(e.getMessage().startsWith("cuDNN " + cudnn.location() + ": cudnnSetTensor4dDescriptor (0x5) "
                    + "failed: CUDNN_STATUS_"), e.getMessage());
            assertTrue(!e.getMessage().contains("\n"), e.getMessage());
        }
    }

    /**
     * cudnnSoftmaxBackward in both algorithms on rows of a softmax's (or log_softmax's) output and a normal-like dy:
     * dx matches the float64 formula within the backward operators' tolerance (1e-4 of each element's dy scale), and
     * (softmax's) differs from what dy's mean in place of the dot product would give, so the rows can tell them apart.
     */
    @Test
    void softmaxBackwardInBothAlgorithmsIsTheGradient() {
        assumeTrue(cudnn != null, "no cuDNN");
        int rows = 3;
        int cols = 777;
        for (Cudnn.Algorithm algorithm : Cudnn.Algorithm.values()) {
            boolean log = algorithm == Cudnn.Algorithm.LOG;
            float[] y = new float[rows * cols];
            float[] dy = new float[rows * cols];
            for (int r = 0; r < rows; r++) {
                double sum = 0;
                for (int c = 0; c < cols; c++) {
                    sum += Math.exp(Math.sin(c * 0.61 + r) * 4 * (r + 1));
                }
                for (int c = 0; c < cols; c++) {
                    double x = Math.sin(c * 0.61 + r) * 4 * (r + 1);
                    y[r * cols + c] = (float) (log ? x - Math.log(sum) : Math.exp(x) / sum);
                    dy[r * cols + c] = (float) Math.cos(c * 1.3 + 7 * r);
                }
            }
            long bytes = y.length * 4L;
            try (DeviceBuffer dY = gpu.alloc(bytes); DeviceBuffer dDy = gpu.alloc(bytes); DeviceBuffer dDx = gpu.alloc(bytes);
                 Cudnn.Softmax softmax = cudnn.softmax(gpu, dev.kevo.data.Dtype.FP32, algorithm)) {
                gpu.upload(dY.pointer(), y, bytes);
                gpu.upload(dDy.pointer(), dy, bytes);
                gpu.fill(dDx.pointer(), 0x7FBADBAD, y.length);
                softmax.runBackward(softmax.prepare(rows, cols), dY.pointer(), dDy.pointer(), dDx.pointer(), "3x777");
                float[] dx = new float[y.length];
                gpu.download(dDx.pointer(), dx, bytes);
                int meanOff = 0;
                for (int r = 0; r < rows; r++) {
                    double dot = 0;
                    double abs = 0;
                    double mean = 0;
                    for (int c = 0; c < cols; c++) {
                        double term = log ? dy[r * cols + c] : (double) y[r * cols + c] * dy[r * cols + c];
                        dot += term;
                        abs += Math.abs(term);
                        mean += dy[r * cols + c] / (double) cols;
                    }
                    for (int c = 0; c < cols; c++) {
                        int i = r * cols + c;
                        double w = log ? Math.exp(y[i]) : y[i];
                        double ref = log ? dy[i] - w * dot : y[i] * (dy[i] - dot);
                        double wrong = y[i] * (dy[i] - mean);  // softmax's backward with dy's mean for the dot
                        double bound = 1e-4 * (Math.abs(dy[i]) + w * abs);
                        int at = i;
                        assertTrue(Math.abs(dx[i] - ref) <= bound, () -> algorithm + " element " + at + ": " + dx[at]
                                + " vs " + ref);
                        meanOff += !log && Math.abs(wrong - ref) > bound ? 1 : 0;
                    }
                }
                assertTrue(log || meanOff > 0, "the test's rows cannot tell dy's mean from the dot product");
            }
        }
    }
}
