package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class ScoreTest {

    @Test
    void geometricMeanOfHandPickedValues() {
        assertEquals(2.0, Score.geometricMean(DoubleStream.of(1, 4)), 1e-12);
        assertEquals(4.0, Score.geometricMean(DoubleStream.of(2, 8, 4)), 1e-12);
        assertEquals(1.0, Score.geometricMean(DoubleStream.of(0.5, 2)), 1e-12);
        assertEquals(3.0, Score.geometricMean(DoubleStream.of(3)), 1e-12);
        assertEquals(10.0, Score.geometricMean(DoubleStream.of(1, 10, 100)), 1e-12);
    }

    @Test
    void aSpeedupAndTheMatchingSlowdownCancel() {
        assertEquals(1.0, Score.geometricMean(DoubleStream.of(1.7, 1 / 1.7, 3.1, 1 / 3.1)), 1e-12);
        // twice as fast on one shape and twice as slow on another is no gain (the arithmetic mean says 1.125)
        assertEquals(1.0, Score.geometricMean(DoubleStream.of(2, 0.5, 1, 1)), 1e-12);
    }

    @Test
    void scaleEquivariantAndBetweenMinAndMax() {
        double[] v = {0.8, 1.3, 2.9, 0.4, 1.1};
        double g = Score.geometricMean(DoubleStream.of(v));
        double g3 = Score.geometricMean(DoubleStream.of(v).map(x -> 3 * x));
        assertEquals(3 * g, g3, 1e-12);
        assertTrue(g > 0.4 && g < 2.9, "" + g);
    }

    @Test
    void manySmallFactorsDoNotUnderflow() {
        // 2000 values of 1e-200: a running product would underflow to 0, the log-sum does not
        assertEquals(1e-200, Score.geometricMean(DoubleStream.generate(() -> 1e-200).limit(2000)), 1e-209);
        assertEquals(1e200, Score.geometricMean(DoubleStream.generate(() -> 1e200).limit(2000)), 1e191);
    }

    /** A median of {@code ms} whose 95% interval is {@code [ms / k, ms * k]}. */
    private static Stats median(double ms, double k) {
        return new Stats(30, ms, ms / k, ms * k, ms, ms, ms / k);
    }

    private static ShapeResult timed(Stats candidate, Stats baseline) {
        return ShapeResult.checked("4x1024", 1, 1e-7, 1e-9, null).withTiming(candidate, baseline, median(0.5, 1),
                "kernel");
    }

    @Test
    void oneShapesIntervalIsItsMediansIntervalCarriedThroughTheRatio() {
        // an exact baseline at 2 ms, a candidate at 1 ms known within a factor of 2: speedup 2, between 1 and 4
        Score s = Score.over(List.of(timed(median(1, 2), median(2, 1))));
        assertEquals(2, s.speedup(), 1e-12);
        assertEquals(1, s.ciLow(), 1e-12);
        assertEquals(4, s.ciHigh(), 1e-12);
        assertEquals(0.5, s.floorFraction(), 1e-12);
    }

    @Test
    void bothMediansNoiseAddsAndIndependentShapesAverageItDown() {
        double one = Math.log(Score.over(List.of(timed(median(1, 2), median(2, 1)))).ciHigh() / 2);
        double both = Math.log(Score.over(List.of(timed(median(1, 2), median(2, 2)))).ciHigh() / 2);
        assertEquals(Math.sqrt(2) * one, both, 1e-12, "two independent errors add in variance");
        Score four = Score.over(Collections.nCopies(4, timed(median(1, 2), median(2, 1))));
        assertEquals(one / 2, Math.log(four.ciHigh() / four.speedup()), 1e-12, "the mean of 4 shapes: half the width");
        assertEquals(four.speedup() * four.speedup(), four.ciLow() * four.ciHigh(), 1e-12, "symmetric in logs");
    }

    @Test
    void anUntimedShapeHasNoScore() {
        ShapeResult untimed = ShapeResult.checked("4x1024", 1, 1e-7, 1e-9, null);
        assertThrows(IllegalArgumentException.class, () -> Score.over(List.of(untimed)));
        assertThrows(IllegalArgumentException.class, () -> Score.over(List.of()));
    }

    @Test
    void theIntervalIsSavedAndResultsSavedWithoutOneStillLoad() throws Exception {
        ObjectMapper json = new ObjectMapper();
        CandidateResult scored = CandidateResult.builder("k.cu", Verdict.PASS, 1)
                .score(Score.over(List.of(timed(median(1, 2), median(2, 1))))).build();
        CandidateResult back = json.readValue(json.writeValueAsString(scored), CandidateResult.class);
        assertEquals(scored, back);
        assertEquals(4, back.scoreCiHigh(), 1e-12);
        Path saved = TestFiles.root().resolve("mutations/default-h100/seed-online.json");
        MutantRecord old = json.readValue(Files.readString(saved), MutantRecord.class);
        assertNotNull(old.result().score());
        assertNull(old.result().scoreCiLow(), "saved before scores had an interval");
    }
}
