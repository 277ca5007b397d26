package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class ScoreTest {

    @Test
    void geometricMeanOfHandPickedValues() {
        assertEquals(2.0, Evaluator.geometricMean(DoubleStream.of(1, 4)), 1e-12);
        assertEquals(4.0, Evaluator.geometricMean(DoubleStream.of(2, 8, 4)), 1e-12);
        assertEquals(1.0, Evaluator.geometricMean(DoubleStream.of(0.5, 2)), 1e-12);
        assertEquals(3.0, Evaluator.geometricMean(DoubleStream.of(3)), 1e-12);
        assertEquals(10.0, Evaluator.geometricMean(DoubleStream.of(1, 10, 100)), 1e-12);
    }

    @Test
    void aSpeedupAndTheMatchingSlowdownCancel() {
        assertEquals(1.0, Evaluator.geometricMean(DoubleStream.of(1.7, 1 / 1.7, 3.1, 1 / 3.1)), 1e-12);
        // twice as fast on one shape and twice as slow on another is no gain (the arithmetic mean says 1.125)
        assertEquals(1.0, Evaluator.geometricMean(DoubleStream.of(2, 0.5, 1, 1)), 1e-12);
    }

    @Test
    void scaleEquivariantAndBetweenMinAndMax() {
        double[] v = {0.8, 1.3, 2.9, 0.4, 1.1};
        double g = Evaluator.geometricMean(DoubleStream.of(v));
        double g3 = Evaluator.geometricMean(DoubleStream.of(v).map(x -> 3 * x));
        assertEquals(3 * g, g3, 1e-12);
        assertTrue(g > 0.4 && g < 2.9, "" + g);
    }

    @Test
    void manySmallFactorsDoNotUnderflow() {
        // 2000 values of 1e-200: a running product would underflow to 0, the log-sum does not
        assertEquals(1e-200, Evaluator.geometricMean(DoubleStream.generate(() -> 1e-200).limit(2000)), 1e-209);
        assertEquals(1e200, Evaluator.geometricMean(DoubleStream.generate(() -> 1e200).limit(2000)), 1e191);
    }
}
