package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.TestFiles;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;

/** {@code kevo eval --json} records: those saved before the settings took their config keys still read. */
class EvalRecordTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aRecordSavedWithTheOldSettingNamesReadsWithItsOwnValues() throws Exception {
        // written when the settings were saved under their Java names (warmupMillis, launchFloorSeconds, NORMAL_1)
        EvalRecord old = JSON.readValue(Files.readString(TestFiles.root()
                .resolve("bench/results/report-fixture-rejected-h100.json")), EvalRecord.class);
        assertEquals(20, old.settings().measurement().warmupMillis(), "not the default 5: the old key was read");
        // the eight cases it was judged on, read by their old names, not today's default list
        assertEquals(java.util.List.of(InputCase.values()).subList(0, 8), old.settings().cases());
    }

    @Test
    void aRecordReadsBackAsItWasWritten() throws Exception {
        EvalRecord r = EvalRecord.builder().kevoVersion("v").suite("quick").settings(EvalSettings.builder()
                .measurement(MeasurementMethod.builder().warmupMillis(7).ciEnoughMicros(0.2).build())
                .limits(PhaseLimits.builder().launchMinimumSeconds(3).build()).build()).build();
        assertEquals(r, JSON.readValue(JSON.writeValueAsString(r), EvalRecord.class));
    }
}
