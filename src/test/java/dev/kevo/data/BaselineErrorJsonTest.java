package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** baselineRelativeL2 in stored results: additive, and an unusable vendor output (recorded as +Inf) still reads. */
class BaselineErrorJsonTest {
    private final ObjectMapper json = new ObjectMapper();

    private static ShapeResult timed() {
        Stats s = Stats.of(new double[] {0.01, 0.01, 0.01});
        return ShapeResult.checked("1x10000000", 3, 1e-6, 1e-9, null).withTiming(s, s, s, "kernel");
    }

    @Test
    void aRecordedErrorRoundTripsEvenWhenInfinite() throws Exception {
        for (double error : new double[] {1.8e-4, Double.POSITIVE_INFINITY}) {
            ShapeResult r = timed().withBaselineRelativeL2(error);
            ShapeResult back = json.readValue(json.writeValueAsString(r), ShapeResult.class);
            assertEquals(error, back.baselineRelativeL2());
            assertEquals(r, back);
        }
    }

    @Test
    void withoutOneTheFieldIsAbsentAndOldRecordsRead() throws Exception {
        String text = json.writeValueAsString(timed());
        assertFalse(text.contains("baselineRelativeL2"), text);
        assertNull(json.readValue(text, ShapeResult.class).baselineRelativeL2());
    }
}
