package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.task.op.Task;
import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import dev.kevo.config.SuiteFile;
import dev.kevo.task.ContractParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvalSettingsTest {

    private static final Path ROOT = Path.of(System.getProperty("kevo.root", "."));

    @TempDir
    Path dir;

    private Path write(String yaml) throws IOException {
        Path file = dir.resolve("eval.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    @Test
    void theShippedConfigLoadsAndNamesThingsThatExist() {
        EvalSettings settings = EvalSettings.load(ROOT.resolve("config/eval.yaml"));
        assertEquals(List.of(InputCase.values()), settings.cases(), "every input case, in order");
        KevoHome home = new KevoHome(ROOT);
        assertFalse(SuiteFile.load(home.suite(settings.suite())).shapes().isEmpty());
        assertEquals(BaselineChoice.AUTO, settings.baseline(), "cuDNN where it loads, else block_two_pass");
        assertEquals("softmax", settings.op());
        Task task = Task.of(settings);
        assertFalse(ContractParser.read(home.baseline(task.op().ownBaseline())).plans().isEmpty(),
                "the operator's own baseline, where cuDNN cannot serve it");
        MeasurementMethod m = settings.measurement();
        assertTrue(m.minRepetitions() >= 5 && m.maxRepetitions() >= m.minRepetitions());
        assertTrue(m.targetCi() > 0 && m.targetCi() < 1);
    }

    @Test
    void launchDeadlineKeysAreReadAndTheOthersKeepTheirDefaults() throws IOException {
        EvalSettings s = EvalSettings.load(write("limits:\n  launch_floor_s: 2.5\n  launch_factor: 40\n"));
        assertEquals(PhaseLimits.builder().launchMinimumSeconds(2.5).launchFactor(40).build(), s.limits());
        Path bad = write("limits:\n  launch_factor: 0\n");
        assertThrows(KevoException.class, () -> EvalSettings.load(bad));
    }

    @Test
    void aDtypeIsReadAndAnUnknownOrUnjudgedOneIsOneLineNamingTheKnownOnes() throws IOException {
        assertEquals(Precision.BF16_FP32, EvalSettings.load(write("dtype: bf16-fp32\n")).dtype());
        for (String bad : new String[] {"bf8", "fp16-bf16"}) {
            KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(write("dtype: " + bad + "\n")));
            assertContains(e.getMessage(), "eval.yaml", "dtype '" + bad + "'", "known: fp32, bf16, fp16, bf16-fp32");
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void launchCheckKeysAreReadAndABoundBelowTheTimedMedianIsRefused() throws IOException {
        EvalSettings s = EvalSettings.load(write("launch_checks:\n  slow_factor: 4\n  slow_slack_ms: 0.5\n"
                + "  require_deterministic: true\n"));
        assertEquals(LaunchChecks.builder().slowFactor(4).slowSlackMs(0.5).requireDeterministic(true).build(),
                s.launchChecks());
        assertEquals(4.5, s.launchChecks().slowestAllowedMs(1.0), 1e-12, "4 x a 1 ms median + 0.5 ms");
        // a factor below 1 would reject a kernel whose checked launches are as fast as its timed ones
        KevoException e = assertThrows(KevoException.class,
                () -> EvalSettings.load(write("launch_checks:\n  slow_factor: 0.5\n")));
        assertContains(e.getMessage(), "eval.yaml", "launch_checks.slow_factor");
    }

    @Test
    void everyKeyIsRead() throws IOException {
        EvalSettings s = EvalSettings.load(write("""
                suite: quick
                baseline: mine
                cases: [masked, normal-4]
                tolerance:
                  relative_l2: 3.0e-5
                  absolute: 2.0e-7
                  relative: 5.0e-5
                measurement:
                  settle_ms: 50
                  warmup_ms: 7.5
                  min_repetitions: 9
                  max_repetitions: 99
                  target_ci: 0.02
                  ci_floor_us: 0.5
                  max_seconds_per_shape: 1.5
                  flush_l2: false
                  input_sets: 4
                """));
        assertEquals("quick", s.suite());
        assertEquals("mine", s.baseline());
        assertEquals(List.of(InputCase.MASKED, InputCase.NORMAL_4), s.cases());
        assertEquals(new Tolerance(3.0e-5, 2.0e-7, 5.0e-5), s.tolerance());
        assertEquals(new MeasurementMethod(50, 7.5, 9, 99, 0.02, 0.5, 1.5, false, 4), s.measurement());
    }

    @Test
    void shapesBeyondTheSuiteAreReadSwitchedOffAndCheckedOneLineEach() throws IOException {
        EvalSettings s = EvalSettings.load(write(
                "beyond_suite:\n  fresh: [one-row, narrow, narrow]\n  held_out: 3\n  at_scale: 16384x131072\n"
                        + "  sm_counts: [132, 148]\n"));
        assertEquals(new BeyondSuite(List.of(ShapeRegime.ONE_ROW, ShapeRegime.NARROW, ShapeRegime.NARROW), 3,
                "16384x131072", List.of(132, 148)), s.beyondSuite());
        assertEquals(List.of(ShapeRegime.MANY_ROWS, ShapeRegime.LM_HEAD, ShapeRegime.ONE_ROW), s.beyondSuite()
                .heldOutRegimes(), "the held-out shapes reach past the suite's rows first, then the fresh regimes");
        BeyondSuite off = EvalSettings.load(write("beyond_suite:\n  fresh: []\n")).beyondSuite();
        assertEquals(List.of(), off.fresh());
        assertEquals(BeyondSuite.defaults().heldOut(), off.heldOut());
        assertEquals(List.of(ShapeRegime.values()).size(), java.util.Set.copyOf(off.heldOutRegimes()).size(),
                "with no fresh regimes the held-out shapes cycle through all of them");
        Path regime = write("beyond_suite:\n  fresh: [narrow, wide]\n");
        assertContains(assertThrows(KevoException.class, () -> EvalSettings.load(regime)).getMessage(),
                ":2: 'beyond_suite.fresh", "'wide'", "one-row");
        Path shape = write("beyond_suite:\n  at_scale: 16384*131072\n");
        assertContains(assertThrows(KevoException.class, () -> EvalSettings.load(shape)).getMessage(),
                "at_scale", "ROWSxCOLS");
        Path many = write("beyond_suite:\n  held_out: 1000\n");
        assertContains(assertThrows(KevoException.class, () -> EvalSettings.load(many)).getMessage(), "held_out");
    }

    @Test
    void absentKeysTakeTheDefaults() throws IOException {
        EvalSettings s = EvalSettings.load(write("tolerance:\n  absolute: 0.0\nmeasurement:\n  input_sets: 2\n"));
        EvalSettings d = EvalSettings.defaults();
        assertEquals(d.suite(), s.suite());
        assertEquals(d.baseline(), s.baseline());
        assertEquals(d.cases(), s.cases());
        assertNull(d.tolerance(), "no block: the operator's own");
        assertEquals(new Tolerance(Defaults.TOLERANCE_RELATIVE_L2, 0.0, Defaults.TOLERANCE_RELATIVE), s.tolerance(),
                "a block's absent keys take softmax's values");
        MeasurementMethod m = d.measurement();
        assertEquals(new MeasurementMethod(m.settleMillis(), m.warmupMillis(), m.minRepetitions(), m.maxRepetitions(), m.targetCi(),
                m.ciEnoughMicros(), m.maxSecondsPerShape(), m.flushL2(), 2), s.measurement());
    }

    @Test
    void withSuiteAndBaselineReplaceOnlyThatField() {
        EvalSettings s = EvalSettings.defaults().withSuite("quick").withBaseline("other");
        assertEquals("quick", s.suite());
        assertEquals("other", s.baseline());
        assertEquals(EvalSettings.defaults().tolerance(), s.tolerance());
        assertEquals(EvalSettings.defaults().measurement(), s.measurement());
        assertEquals("standard", EvalSettings.defaults().suite(), "DEFAULT is not modified");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "suite: quick\\nmeasurement:\\n  warmup_msec: 5\\n; 3; measurement.warmup_msec",
            "suite: quick\\nbogus: 1\\n; 2; bogus",
            "tolerance:\\n  relative_l2: 3.0e-5\\n  absolutee: 1\\n; 3; tolerance.absolutee",
            "measurement:\\n  flush_l2: true\\n  flushL2: false\\n; 3; measurement.flushL2",
            "bogus: [1]\\nsuite: quick\\n; 1; bogus",
    })
    void unknownKeysNameFileLineAndKey(String yaml, int line, String key) throws IOException {
        Path file = write(yaml.replace("\\n", "\n"));
        KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(file));
        java.util.regex.Matcher m = Pattern.compile(Pattern.quote(file.toString()) + ":(\\d+): unknown key '"
                + Pattern.quote(key) + "' \\(known here: .*\\)").matcher(e.getMessage());
        assertTrue(m.matches(), e::getMessage);
        // the exact line is unknownKeysNameTheirOwnLine's business; here: a line, and not one before the key
        assertTrue(Integer.parseInt(m.group(1)) >= line, e::getMessage);
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(KevoException.Kind.INPUT, e.kind());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "suite: quick\\nmeasurement:\\n  warmup_msec: 5\\n; 3; measurement.warmup_msec",
            "measurement:\\n  warmup_msec: 5\\n  min_repetitions: 20\\n; 2; measurement.warmup_msec",
            "suite: quick\\nbogus: 1\\n; 2; bogus",
            "bogus: 1\\n\\n# comment\\n\\nsuite: quick\\n; 1; bogus",
            "tolerance:\\n  relative_l2: 3.0e-5\\n  absolutee: 1\\n; 3; tolerance.absolutee",
    })
    void unknownKeysNameTheirOwnLine(String yaml, int line, String key) throws IOException {
        Path file = write(yaml.replace("\\n", "\n"));
        KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(file));
        assertTrue(e.getMessage().startsWith(file + ":" + line + ": unknown key '" + key + "'"), e::getMessage);
    }

    @Test
    void unknownNestedKeyListsTheKnownOnesOfItsSection() throws IOException {
        Path file = write("measurement:\n  warmup_msec: 5\n");
        KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(file));
        assertContains(e.getMessage(), "warmup_ms", "min_repetitions", "flush_l2");
        assertFalse(e.getMessage().contains("relative_l2"), "only the measurement section's keys");
    }

    @Test
    void mistypedValuesNameFileLineAndKey() throws IOException {
        Path file = write("suite: quick\nmeasurement:\n  min_repetitions: many\n");
        KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(file));
        assertTrue(e.getMessage().startsWith(file + ":3: 'measurement.min_repetitions'"), e::getMessage);
        assertFalse(e.getMessage().contains("\n"));
    }

    /** A value of the wrong kind says what the key takes and what the file holds, in YAML's words, not Java's. */
    @Test
    void wrongTypesSayWhatTheKeyTakes() throws IOException {
        List<List<String>> cases = List.of(
                List.of("tolerance:\n  relative_l2: high\n", ":2: 'tolerance.relative_l2': expected a number, got \"high\""),
                List.of("measurement:\n  flush_l2: maybe\n", ":2: 'measurement.flush_l2': expected true or false, got \"maybe\""),
                List.of("measurement:\n  min_repetitions: [1, 2]\n",
                        ":2: 'measurement.min_repetitions': expected a whole number, got a list"),
                List.of("cases:\n  normal-1: yes\n", ":2: 'cases': expected a list, got a mapping"),
                List.of("limits: 5\n", ":1: 'limits': expected a mapping of keys, got 5"));
        for (List<String> c : cases) {
            Path file = write(c.get(0));
            KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(file), c.get(0));
            assertEquals(file + c.get(1), e.getMessage());
        }
    }

    @Test
    void outOfRangeValuesNameTheKey() throws IOException {
        Path file = write("measurement:\n  min_repetitions: 2\n");
        RuntimeException e = assertThrows(RuntimeException.class, () -> EvalSettings.load(file));
        assertContains(e.getMessage(), "min_repetitions");
        Path inputSets = write("measurement:\n  input_sets: 17\n");
        assertContains(assertThrows(RuntimeException.class, () -> EvalSettings.load(inputSets)).getMessage(),
                "input_sets");
        Path ci = write("measurement:\n  target_ci: 1.5\n");
        assertContains(assertThrows(RuntimeException.class, () -> EvalSettings.load(ci)).getMessage(), "target_ci");
        Path floor = write("measurement:\n  ci_floor_us: -1\n");
        assertContains(assertThrows(RuntimeException.class, () -> EvalSettings.load(floor)).getMessage(), "ci_floor_us");
    }

    @Test
    void unknownCaseIdIsNamed() throws IOException {
        Path file = write("cases: [normal-1, gaussian]\n");
        RuntimeException e = assertThrows(RuntimeException.class, () -> EvalSettings.load(file));
        assertContains(e.getMessage(), "'gaussian'", "normal-1", "masked");
    }

    @Test
    void invalidValuesAreInputErrorsNamingTheFile() throws IOException {
        for (String yaml : List.of("measurement:\n  min_repetitions: 2\n", "cases: [normal-1, gaussian]\n",
                "cases: []\n", "tolerance:\n  relative_l2: 0\n")) {
            Path file = write(yaml);
            RuntimeException e = assertThrows(RuntimeException.class, () -> EvalSettings.load(file));
            KevoException k = assertInstanceOf(KevoException.class, e, yaml);
            assertEquals(KevoException.Kind.INPUT, k.kind());
            assertContains(k.getMessage(), file.toString());
        }
    }

    /** A file that sets nothing takes every default, as config/eval.yaml's comments promise of absent keys. */
    @Test
    void emptyAndMissingFiles() throws IOException {
        for (String text : List.of("", "\n", "# every key at its default\n", "---\n")) {
            assertEquals(EvalSettings.defaults(), EvalSettings.load(write(text)), () -> "'" + text + "'");
        }
        Path missing = dir.resolve("none.yaml");
        assertEquals(missing + ": no such file",
                assertThrows(KevoException.class, () -> EvalSettings.load(missing)).getMessage());
    }

    @Test
    void sanitizeTakesItsThreeWordsAndNothingElse() throws IOException {
        assertEquals(SanitizeWhen.CHAMPION, EvalSettings.defaults().sanitize());
        assertEquals(SanitizeWhen.EVERY, EvalSettings.load(write("sanitize: every\n")).sanitize());
        assertEquals(SanitizeWhen.OFF, EvalSettings.load(write("sanitize: off\n")).sanitize());
        Path bad = write("sanitize: sometimes\n");
        KevoException e = assertThrows(KevoException.class, () -> EvalSettings.load(bad));
        assertContains(e.getMessage(), "eval.yaml", "sanitize", "sometimes", "off, champion, every");
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
