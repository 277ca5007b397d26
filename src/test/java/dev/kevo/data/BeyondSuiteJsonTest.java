package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shapes checked beyond the suite in stored results: each fresh, held-out and at-scale shape with its regime and
 * verdict reads back as written, and results and confirmations saved before they existed still read.
 */
class BeyondSuiteJsonTest {
    private final ObjectMapper json = new ObjectMapper();

    private static CandidateResult judged() {
        ShapeResult fresh = ShapeResult.checked("93x77", 1, 1e-7, 1e-9, null).withRegime(ShapeRegime.NARROW);
        ShapeResult failed = ShapeResult.failed("1x5", Verdict.PLAN_ERROR, "k.cu: no plan covers shape 1x5")
                .withRegime(ShapeRegime.ONE_ROW);
        ShapeResult atScale = ShapeResult.checked("16385x131073", 2, 2e-7, 1e-9, null);
        return CandidateResult.builder("k.cu", Verdict.PLAN_ERROR, 7).timingSecret(99L)
                .detail("fresh shape 1x5: k.cu: no plan covers shape 1x5").freshShapes(List.of(fresh, failed))
                .atScale(List.of(fresh, atScale), "a note").judgedElements(2_147_631_105L).sourceHash("sha256:ab")
                .build();
    }

    @Test
    void freshAndAtScaleShapesRoundTripWithTheirRegimesAndVerdicts() throws Exception {
        CandidateResult r = judged();
        String text = json.writeValueAsString(r);
        assertTrue(text.contains("\"regime\":\"one-row\"") && text.contains("\"judgedElements\":2147631105"), text);
        CandidateResult back = json.readValue(text, CandidateResult.class);
        assertEquals(r, back);
        assertEquals(ShapeRegime.ONE_ROW, back.freshShapes().get(1).regime());
        assertEquals(Verdict.PLAN_ERROR, back.freshShapes().get(1).verdict());
        assertNull(back.atScaleShapes().get(1).regime(), "the at-scale shape has no regime");
    }

    @Test
    void resultsAndConfirmationsSavedBeforeReadWithNothingBeyondTheSuite() throws Exception {
        String old = "{\"name\":\"k.cu\",\"verdict\":\"pass\",\"score\":1.5,\"floorFraction\":0.5,\"inputSeed\":3,"
                + "\"shapes\":[{\"shape\":\"32x128\",\"verdict\":\"pass\",\"plan\":1}]}";
        CandidateResult r = json.readValue(old, CandidateResult.class);
        assertEquals(List.of(), r.freshShapes());
        assertNull(r.atScaleShapes(), "not asked for");
        assertNull(r.judgedElements());
        assertNull(r.shapes().getFirst().regime());
        String conf = "{\"device\":\"0 H100\",\"entries\":[{\"id\":\"g1\",\"recordedDevice\":\"1 H100\","
                + "\"recordedScore\":2.0,\"confirmed\":" + old + "}],\"championId\":\"g1\",\"championScore\":1.5}";
        Confirmation c = json.readValue(conf, Confirmation.class);
        assertEquals("g1", c.championId());
        assertNull(c.judgedElements());
    }

    @Test
    void aConfirmationNamesTheBestThatPassedAndWhatItWasJudgedOnOrNoneAndWhy() throws Exception {
        CandidateResult pass = CandidateResult.builder("a.cu", Verdict.PASS, 1).score(1.2, 0.5).device("0 H100")
                .atScale(List.of(), "at-scale shape 16385x131073 (2147631105 elements) not judged: out of memory")
                .judgedElements(262_668_288L).build();
        CandidateResult faster = CandidateResult.builder("b.cu", Verdict.PASS, 1).score(1.5, 0.5).device("0 H100")
                .judgedElements(2_147_631_105L).build();
        CandidateResult failed = CandidateResult.rejected("c.cu", null, null, Verdict.UNWRITTEN_OUTPUT,
                "at-scale shape 16385x131073: 2147631105 outputs never written", 1).toBuilder().device("0 H100")
                .build();
        Confirmation c = Confirmation.of(List.of(new Confirmation.Entry("c", "1 H100", 3.0, failed),
                new Confirmation.Entry("a", "1 H100", 2.0, pass), new Confirmation.Entry("b", "0 H100", 1.0, faster)));
        assertEquals("b", c.championId(), "the recorded best failed at scale; the best confirmed of the rest");
        assertEquals(2_147_631_105L, c.judgedElements());
        assertNull(c.note());
        Confirmation withNote = Confirmation.of(List.of(new Confirmation.Entry("a", "1 H100", 2.0, pass)));
        assertEquals(262_668_288L, withNote.judgedElements());
        assertTrue(withNote.note().contains("not judged: out of memory"), withNote.note());
        Confirmation none = Confirmation.of(List.of(new Confirmation.Entry("c", "1 H100", 3.0, failed)));
        assertNull(none.championId());
        assertNull(none.championScore());
        assertTrue(none.note().contains("no champion"), none.note());
        assertEquals(none, json.readValue(json.writeValueAsString(none), Confirmation.class));
        assertFalse(json.writeValueAsString(none).contains("championId"), "absent, not null");
    }
}
