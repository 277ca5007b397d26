package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
    void theFloorsIntervalComesFromTheCopysMedianAndTheCandidates() {
        // the copy exact at 0.5 ms, the candidate at 1 ms known within a factor of 2: floor 0.5, between 0.25 and 1
        Score s = Score.over(List.of(timed(median(1, 2), median(2, 1))));
        assertEquals(0.25, s.floorCiLow(), 1e-12);
        assertEquals(1.0, s.floorCiHigh(), 1e-12);
        ShapeResult noisyCopy = ShapeResult.checked("4x1024", 1, 1e-7, 1e-9, null).withTiming(median(1, 1),
                median(2, 1), median(0.5, 2), "kernel");
        Score copyNoise = Score.over(List.of(noisyCopy));
        assertEquals(2, copyNoise.ciLow(), 1e-12, "the copy's noise is not the speedup's");
        assertEquals(0.25, copyNoise.floorCiLow(), 1e-12);
    }

    /** A result is saved with its score flat, under the names it always had, and reads back as it was. */
    @Test
    void aScoreIsSavedFlatAndReadsBackWhole() throws Exception {
        ObjectMapper json = new ObjectMapper();
        CandidateResult scored = CandidateResult.builder("k.cu", Verdict.PASS, 1)
                .score(Score.over(List.of(timed(median(1, 2), median(2, 1))))).build();
        JsonNode saved = json.readTree(json.writeValueAsString(scored));
        assertEquals(2, saved.get("score").asDouble(), 1e-12);
        assertEquals(1, saved.get("scoreCiLow").asDouble(), 1e-12);
        assertEquals(4, saved.get("scoreCiHigh").asDouble(), 1e-12);
        assertEquals(0.5, saved.get("floorFraction").asDouble(), 1e-12);
        assertEquals(0.25, saved.get("floorCiLow").asDouble(), 1e-12);
        CandidateResult back = json.readValue(json.writeValueAsString(scored), CandidateResult.class);
        assertEquals(scored, back);
        CandidateResult rejected = CandidateResult.rejected("k.cu", null, null, Verdict.NAN_OUTPUT, "4x1024: NaN", 1);
        assertFalse(json.writeValueAsString(rejected).contains("score"));
        assertNull(json.readValue(json.writeValueAsString(rejected), CandidateResult.class).score());
    }

    /** Campaigns saved before the score was one value, and before it had an interval, still read. */
    @Test
    void resultsSavedWithTheOldFlatFieldsStillRead() throws Exception {
        ObjectMapper json = new ObjectMapper();
        Path noInterval = TestFiles.root().resolve("mutations/default-h100/seed-online.json");
        Score old = json.readValue(Files.readString(noInterval), MutantRecord.class).result().score();
        assertEquals(1.515351094684509, old.speedup(), 0);
        assertEquals(0.22866053593849192, old.floorFraction(), 0);
        assertFalse(old.hasInterval(), "saved before scores had an interval");
        assertNull(old.floorCiLow());
        EvalRecord withInterval = json.readValue(TestFiles.root()
                .resolve("bench/results/hardening-round3b-h100/seeds.json").toFile(), EvalRecord.class);
        JsonNode first = json.readTree(TestFiles.root().resolve("bench/results/hardening-round3b-h100/seeds.json")
                .toFile()).get("results").get(0);
        Score read = withInterval.results().getFirst().score();
        assertEquals(first.get("score").asDouble(), read.speedup(), 0);
        assertEquals(first.get("scoreCiLow").asDouble(), read.ciLow(), 0);
        assertEquals(first.get("scoreCiHigh").asDouble(), read.ciHigh(), 0);
        assertEquals(first.get("floorFraction").asDouble(), read.floorFraction(), 0);
        assertNull(read.floorCiLow(), "saved before the floor had an interval");
        assertThrows(Exception.class, () -> json.readValue("{\"name\":\"k.cu\",\"verdict\":\"pass\",\"inputSeed\":1,"
                + "\"score\":1.5}", CandidateResult.class), "a score without its floor is damage");
    }
}
