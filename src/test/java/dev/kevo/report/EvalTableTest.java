package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.result.CandidateResult;
import dev.kevo.result.ShapeResult;
import dev.kevo.result.Stats;
import dev.kevo.result.Verdict;
import dev.kevo.task.Shape;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvalTableTest {
    private static final Stats TIME = Stats.of(new double[] {0.010, 0.011, 0.012, 0.013, 0.014});

    private static String table(String flag) {
        ShapeResult shape = ShapeResult.checked(new Shape(4096, 4096), 1, 1e-7, 1e-9, null)
                .withTiming(TIME, TIME, TIME, "memcpy").withTimingAudit(flag, 14);
        CandidateResult result = CandidateResult.builder("k.cu", Verdict.PASS, 1).score(1.0, 1.0)
                .shapes(List.of(shape)).build();
        StringWriter out = new StringWriter();
        EvalTable.print(result, "block_two_pass.cu", false, new PrintWriter(out, true));
        return out.toString();
    }

    @Test
    void aTimingThatIsNotOneCleanModeIsMarkedOnItsShapeAndExplained() {
        String flagged = table("bimodal");
        assertTrue(flagged.contains("pass bimodal"), flagged);
        assertTrue(flagged.contains("not a clean number"), flagged);
    }

    @Test
    void aCleanTimingCarriesNoMark() {
        String clean = table(null);
        assertFalse(clean.contains("bimodal") || clean.contains("clean number"), clean);
    }
}
