package dev.kevo.task;

import dev.kevo.data.Shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.store.SourceHash;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KnobsTest {

    private static final String BODY = "\n*/\n#include \"kevo.h\"\nextern \"C\" __global__ void k(const float* x, "
            + "float* y, int cols) { }\n";

    /** A header with the given knobs, rule and launch fields. */
    private static String source(String knobs, String rule, String launch) {
        return "/*@kevo\n{ \"description\": \"knobbed\",\n"
                + (knobs == null ? "" : "  \"knobs\": " + knobs + ",\n")
                + (rule == null ? "" : "  \"knob_rule\": " + rule + ",\n")
                + "  \"plans\": [ { \"when\": \"cols <= SHORT_MAX\", \"launches\": [ { \"kernel\": \"k\", "
                + launch + ", \"args\": [\"x\", \"y\", \"cols\"] } ] },\n"
                + "             { \"launches\": [ { \"kernel\": \"k\", \"grid\": \"rows\", \"block\": 1024, "
                + "\"args\": [\"x\", \"y\", \"cols\"] } ] } ] }" + BODY;
    }

    private static final String KNOBS = "{ \"BLOCK\": { \"values\": [512, 128, 256, 1024], \"value\": 256 },\n"
            + "    \"VEC\": { \"range\": [1, 4], \"value\": 4 },\n"
            + "    \"SHORT_MAX\": { \"range\": [512, 4096, 512], \"value\": 1024, \"about\": \"where rows stop being short\" },\n"
            + "    \"MODE\": { \"values\": [\"ONLINE\", \"TWO_PASS\"], \"value\": \"ONLINE\" } }";
    private static final String RULE = "\"BLOCK * VEC <= 2048\"";
    private static final String LAUNCH = "\"grid\": \"cdiv(rows, BLOCK / 32)\", \"block\": \"BLOCK\", "
            + "\"smem\": \"BLOCK * VEC * 4\"";

    private static KernelFile good() {
        return ContractParser.parse("k.cu", null, source(KNOBS, RULE, LAUNCH));
    }

    private static String fails(String knobs, String rule, String launch) {
        String message = assertThrows(ContractException.class,
                () -> ContractParser.parse("k.cu", null, source(knobs, rule, launch))).getMessage();
        assertFalse(message.contains("\n"), () -> "not one line: " + message);
        assertTrue(message.startsWith("k.cu:"), () -> "names the file: " + message);
        return message;
    }

    @Test
    void knobsParseWithValuesRangesChoicesAndRule() {
        Knobs knobs = good().knobs();
        assertEquals(List.of("BLOCK", "VEC", "SHORT_MAX", "MODE"), knobs.names());
        assertEquals(List.of("128", "256", "512", "1024"), knobs.get("BLOCK").orElseThrow().values(), "sorted");
        assertEquals(List.of("1", "2", "3", "4"), knobs.get("VEC").orElseThrow().values());
        assertEquals(8, knobs.get("SHORT_MAX").orElseThrow().values().size());
        assertFalse(knobs.get("MODE").orElseThrow().integer());
        assertEquals(Map.of("BLOCK", 256L, "VEC", 4L, "SHORT_MAX", 1024L), knobs.numbers());
        assertEquals("BLOCK * VEC <= 2048", knobs.rule().orElseThrow().text());
        assertEquals(Map.of("BLOCK", "256", "VEC", "4", "SHORT_MAX", "1024", "MODE", "ONLINE", "MODE_ONLINE", "1"),
                knobs.macros());
        assertTrue(knobs.allowed());
        assertFalse(knobs.with(Map.of("BLOCK", "1024")).allowed(), "1024 * 4 breaks the rule");
    }

    @Test
    void aFileWithoutKnobsHasNone() {
        KernelFile plain = ContractParser.parse("k.cu", null, source(null, null,
                "\"grid\": \"rows\", \"block\": 256").replace("cols <= SHORT_MAX", "cols <= 1024"));
        assertTrue(plain.knobs().isEmpty());
        assertTrue(plain.knobs().macros().isEmpty());
    }

    @Test
    void plansEvaluateKnobsLikeShapeVariables() {
        KernelFile file = good();
        ResolvedPlan shortRows = PlanResolver.resolve(file, new Shape(1000, 1024), 132);
        assertEquals(0, shortRows.planIndex());
        assertEquals(256, shortRows.launches().getFirst().block());
        assertEquals(125, shortRows.launches().getFirst().grid());
        assertEquals(256 * 4 * 4, shortRows.launches().getFirst().smem());
        assertEquals(1, PlanResolver.resolve(file, new Shape(10, 1025), 132).planIndex(), "past SHORT_MAX");

        KernelFile tuned = ContractParser.parse("k.cu", null,
                KnobRewriter.rewrite(file, Map.of("BLOCK", "512", "VEC", "2", "SHORT_MAX", "2048")));
        ResolvedPlan retuned = PlanResolver.resolve(tuned, new Shape(1000, 1025), 132);
        assertEquals(0, retuned.planIndex(), "SHORT_MAX moved to 2048");
        assertEquals(512, retuned.launches().getFirst().block());
        assertEquals(63, retuned.launches().getFirst().grid());
    }

    @Test
    void aPlanErrorNamesTheKnobValues() {
        KernelFile file = ContractParser.parse("k.cu", null, source(
                "{ \"BLOCK\": { \"values\": [256, 2048], \"value\": 2048 } }", null,
                "\"grid\": \"rows\", \"block\": \"BLOCK\"").replace("SHORT_MAX", "1024"));
        String message = assertThrows(PlanException.class,
                () -> PlanResolver.resolve(file, new Shape(4, 100), 132)).getMessage();
        assertTrue(message.contains("BLOCK=2048"), message);
    }

    @Test
    void rewritingChangesOnlyTheCurrentValues() {
        KernelFile file = good();
        String child = KnobRewriter.rewrite(file, Map.of("BLOCK", "512", "MODE", "TWO_PASS"));
        assertEquals(file.source().replace("\"value\": 256", "\"value\": 512")
                .replace("\"value\": \"ONLINE\"", "\"value\": \"TWO_PASS\""), child);
        KernelFile reread = ContractParser.parse("k.cu", null, child);
        assertEquals("512", reread.knobs().get("BLOCK").orElseThrow().value());
        assertEquals("TWO_PASS", reread.knobs().get("MODE").orElseThrow().value());
        assertEquals(file.knobs().get("VEC"), reread.knobs().get("VEC"));
        assertNotEquals(SourceHash.of(file.source()), SourceHash.of(child), "the hash covers the values");
        assertEquals("BLOCK 256->512, MODE ONLINE->TWO_PASS", reread.knobs().movesFrom(file.knobs()));
    }

    @Test
    void rewritingRefusesValuesOutsideTheDeclaration() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KnobRewriter.rewrite(good(), Map.of("BLOCK", "300")));
        assertTrue(e.getMessage().contains("BLOCK"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KnobRewriter.rewrite(good(), Map.of("NOPE", "1")));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // unknown knob in an expression
        "'{ \"BLOCK\": { \"values\": [256], \"value\": 256 }, \"SHORT_MAX\": { \"values\": [1024], \"value\": 1024 } }' | | '\"grid\": \"rows\", \"block\": \"BLOK\"' | plan 1 launch 1 'block': unknown knob 'BLOK'",
        // a knob used where none is declared
        " | | '\"grid\": \"rows\", \"block\": \"BLOCK\"' | the header declares no knobs",
        // current value not allowed
        "'{ \"BLOCK\": { \"values\": [128, 256], \"value\": 300 }, \"SHORT_MAX\": { \"values\": [1024], \"value\": 1024 } }' | | '\"grid\": \"rows\", \"block\": \"BLOCK\"' | knobs.BLOCK: current value 300",
        // rule violated by current values
        "'{ \"BLOCK\": { \"values\": [1024], \"value\": 1024 }, \"SHORT_MAX\": { \"values\": [1024], \"value\": 1024 } }' | '\"BLOCK <= 512\"' | '\"grid\": \"rows\", \"block\": \"BLOCK\"' | knob_rule 'BLOCK <= 512' does not hold",
        // bad names
        "'{ \"block\": { \"values\": [1], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.block: a knob's name",
        "'{ \"KEVO_X\": { \"values\": [1], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.KEVO_X",
        "'{ \"ROWS\": { \"values\": [1], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.ROWS",
        // duplicate knob (the JSON reader refuses the second key)
        "'{ \"BLOCK\": { \"values\": [1], \"value\": 1 }, \"BLOCK\": { \"values\": [2], \"value\": 2 } }' | | '\"grid\": 1, \"block\": 1' | BLOCK",
        // malformed declarations
        "'{ \"BLOCK\": { \"values\": [1, 1], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK.values: 1 is listed twice",
        "'{ \"BLOCK\": { \"values\": [1, \"A\"], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK.values: all integers or all names",
        "'{ \"BLOCK\": { \"values\": [1.5], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK.values[0]",
        "'{ \"BLOCK\": { \"values\": [1] } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK: no 'value'",
        "'{ \"BLOCK\": { \"values\": [1], \"range\": [1, 2], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK: give either",
        "'{ \"BLOCK\": { \"range\": [4, 1], \"value\": 1 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK.range",
        "'{ \"BLOCK\": { \"values\": [1], \"value\": 1, \"step\": 2 } }' | | '\"grid\": 1, \"block\": 1' | knobs.BLOCK: unknown key 'step'",
        "'[1, 2]' | | '\"grid\": 1, \"block\": 1' | 'knobs' must be an object",
        // rules: unknown knob, shape variables, choices, without knobs
        "'{ \"BLOCK\": { \"values\": [1], \"value\": 1 } }' | '\"BLOCK * VEC <= 4\"' | '\"grid\": 1, \"block\": 1' | knob_rule: 'BLOCK * VEC <= 4': unknown knob 'VEC'",
        "'{ \"BLOCK\": { \"values\": [1], \"value\": 1 } }' | '\"BLOCK <= cols\"' | '\"grid\": 1, \"block\": 1' | uses 'cols'",
        "'{ \"MODE\": { \"values\": [\"A\", \"B\"], \"value\": \"A\" } }' | '\"MODE == 1\"' | '\"grid\": 1, \"block\": 1' | knob 'MODE' is a choice of names",
        " | '\"1 == 1\"' | '\"grid\": 1, \"block\": 1' | 'knob_rule' without 'knobs'",
        // a choice used as a number in a plan
        "'{ \"MODE\": { \"values\": [\"A\", \"B\"], \"value\": \"A\" }, \"SHORT_MAX\": { \"values\": [1024], \"value\": 1024 } }' | | '\"grid\": 1, \"block\": \"MODE\"' | knob 'MODE' is a choice of names",
    })
    void everyKnobErrorIsOneLineNamingTheFileAndKnob(String knobs, String rule, String launch, String expected) {
        String message = fails(knobs, rule, launch.replace("\"grid\": 1", "\"grid\": 1")).replace("\n", " ");
        assertTrue(message.contains(expected), () -> "expected '" + expected + "' in: " + message);
    }

    @Test
    void theReadmesWorkedExampleParsesAndPlans() throws java.io.IOException {
        String readme = java.nio.file.Files.readString(dev.kevo.TestFiles.root().resolve("docs/contract.md"));
        int section = readme.indexOf("### Knobs");
        int start = readme.indexOf("```cuda\n", section) + "```cuda\n".length();
        KernelFile example = ContractParser.parse("example.cu", null, readme.substring(start,
                readme.indexOf("```", start)));
        assertEquals(List.of("WARPS", "BLOCK", "SHORT_MAX", "EXP"), example.knobs().names());
        assertTrue(readme.contains("-DWARPS=4 -DBLOCK=512 -DSHORT_MAX=1024 -DEXP=EXP2 -DEXP_EXP2=1"));
        assertEquals("{WARPS=4, BLOCK=512, SHORT_MAX=1024, EXP=EXP2, EXP_EXP2=1}", example.knobs().macros().toString());
        assertEquals(128, PlanResolver.resolve(example, new Shape(100, 1000), 132).launches().getFirst().block());
        assertEquals(512, PlanResolver.resolve(example, new Shape(100, 2000), 132).launches().getFirst().block());
    }

    @Test
    void theSourceMayNotDefineAKnobItself() {
        String source = source("{ \"BLOCK\": { \"values\": [256], \"value\": 256 } }", null,
                "\"grid\": \"rows\", \"block\": \"BLOCK\"").replace("SHORT_MAX", "1024") + "#define BLOCK 128\n";
        String message = assertThrows(ContractException.class, () -> ContractParser.parse("k.cu", null, source))
                .getMessage();
        assertTrue(message.contains("knobs.BLOCK: the source #defines BLOCK"), message);
        ContractParser.parse("k.cu", null, source.replace("#define BLOCK 128", "#ifndef BLOCK\n#define BLOCK 128\n#endif"));
    }
}
