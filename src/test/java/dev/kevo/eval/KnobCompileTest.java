package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.task.op.Task;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Verdict;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knob;
import dev.kevo.task.KnobRewriter;
import dev.kevo.task.PlanResolver;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Knobs reach the compiled code (real NVRTC, no GPU), and every seed passes {@code kevo check}'s preflight with
 * its knobs at their current values and at every other allowed value.
 */
@NeedsNvrtc
class KnobCompileTest {

    private static final String ARCH = "sm_90";
    private static Nvrtc nvrtc;
    private static Suite shapes;

    @BeforeAll
    static void load() {
        nvrtc = Nvrtc.load(Optional.empty());
        List<Shape> all = new ArrayList<>();
        for (String suite : List.of("standard", "long", "quick", "seed004")) {
            SuiteFile.load(TestFiles.root().resolve("evaluator/suites/" + suite + ".yaml")).shapes().stream()
                    .filter(s -> !all.contains(s)).forEach(all::add);
        }
        shapes = new Suite("all", "every shipped suite's shapes", all);
    }

    /** A kernel whose code only compiles when BLOCK is a multiple of 32, and which needs MODE's choice macro. */
    static final String GUARDED = """
            /*@kevo
            { "description": "knob guard",
              "knobs": { "BLOCK": { "values": [48, 128, 256], "value": 256 },
                         "MODE": { "values": ["FAST", "ACCURATE"], "value": "FAST" } },
              "plans": [ { "launches": [ { "kernel": "k", "grid": "cdiv(rows * cols, BLOCK)", "block": "BLOCK",
                                           "args": ["x", "y", "rows", "cols"] } ] } ] }
            */
            #include "kevo.h"
            static_assert(BLOCK % 32 == 0, "BLOCK must be a whole number of warps");
            #if !defined(MODE_FAST) && !defined(MODE_ACCURATE)
            #error "MODE's choice macro is missing"
            #endif
            extern "C" __global__ void __launch_bounds__(BLOCK) k(const float* x, float* y, int rows, int cols) {
                __shared__ float tile[BLOCK];
                tile[threadIdx.x] = 0.0f;
                const long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
                if (i < (long long)rows * cols) y[i] = x[i] + tile[threadIdx.x];
            }
            """;

    private static CandidateResult check(KernelFile file, Suite suite) {
        return new Preflight(nvrtc, ARCH, 132, suite, Task.softmax(Precision.FP32)).check(file, 1, Optional.empty());
    }

    @Test
    void theKnobsCurrentValuesAreDefinedWhenTheFileCompiles() {
        KernelFile file = ContractParser.parse("guard.cu", null, GUARDED);
        Suite one = new Suite("one", "", List.of(new Shape(4, 100)));
        CandidateResult ok = check(file, one);
        assertEquals(Verdict.PASS, ok.verdict(), ok.detail());

        KernelFile odd = ContractParser.parse("guard.cu", null, KnobRewriter.rewrite(file, Map.of("BLOCK", "48")));
        CandidateResult rejected = check(odd, one);
        assertEquals(Verdict.COMPILE_ERROR, rejected.verdict(), rejected.detail());
        assertTrue(rejected.detail().contains("BLOCK must be a whole number of warps"), rejected.detail());

        KernelFile accurate = ContractParser.parse("guard.cu", null,
                KnobRewriter.rewrite(file, Map.of("MODE", "ACCURATE", "BLOCK", "128")));
        assertEquals(Verdict.PASS, check(accurate, one).verdict());
    }

    @Test
    void withoutKevoDefiningTheMacrosTheFileDoesNotCompile() {
        // The same source compiled as a plain file: proves the definitions come from kevo, not from the source.
        assertTrue(assertThrowsCompile(GUARDED).contains("BLOCK"));
    }

    private static String assertThrowsCompile(String source) {
        try {
            nvrtc.compile("guard.cu", source, dev.kevo.cuda.Prelude.headers(), ARCH);
        } catch (dev.kevo.cuda.CompileException e) {
            return e.getMessage();
        }
        throw new AssertionError("compiled without its knobs defined");
    }

    /** The seeds, and the knobbed answer bench/llm-knobs-h100.sh's scripted model gives. */
    static List<Path> seeds() {
        List<Path> files = new ArrayList<>(TestFiles.seeds());
        files.add(TestFiles.root().resolve("src/test/resources/llm/knobs-improve.md"));
        return files;
    }

    /** A kernel file, or the one cuda block of a model's answer. */
    private static KernelFile read(Path path) {
        if (!path.toString().endsWith(".md")) {
            return ContractParser.read(path);
        }
        try {
            String answer = java.nio.file.Files.readString(path);
            int start = answer.indexOf("```cuda\n") + "```cuda\n".length();
            return ContractParser.parse("answer.cu", null, answer.substring(start, answer.indexOf("```", start)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Every allowed value of every knob compiled: about 40 s on two cores, so CI's second pass runs it. */
    @ParameterizedTest
    @MethodSource("seeds")
    @Exhaustive
    void everySeedDeclaresKnobsAndPassesPreflightAtEveryAllowedValue(Path seed) {
        int compiled = passesPreflight(seed, Integer.MAX_VALUE);
        if (seed.getFileName().toString().equals("register_rows.cu")) {
            assertTrue(compiled >= 10, "register_rows compiles its warp count, elements per thread and long block");
        }
        if (seed.getFileName().toString().equals("improve.md")) {
            assertEquals(5 + 3 + 1, compiled, "the answer compiles every other WARPS, BLOCK and EXP");
        }
    }

    /** Each knob the code names at one allowed value besides its current one (CI's second pass). */
    @ParameterizedTest
    @MethodSource("seeds")
    @Exhaustive
    void everySeedDeclaresKnobsAndPassesPreflightAtAnotherValueOfEachKnob(Path seed) {
        int compiled = passesPreflight(seed, 1);
        if (seed.getFileName().toString().equals("improve.md")) {
            assertEquals(3, compiled, "the answer compiles another WARPS, BLOCK and EXP");
        }
    }

    /**
     * The file passes preflight at its knobs' current values, and at up to {@code perKnob} other allowed values of each
     * knob its code names (every allowed value of a launch-only knob has its plans resolved): how many variants
     * compiled.
     */
    private static int passesPreflight(Path seed, int perKnob) {
        KernelFile file = read(seed);
        assertFalse(file.knobs().isEmpty(), seed + " exposes its natural knobs");
        CandidateResult defaults = check(file, shapes);
        assertEquals(Verdict.PASS, defaults.verdict(), () -> seed + " at its defaults: " + defaults.detail());
        String body = file.source().substring(file.source().indexOf("*/"));
        int compiled = 0;
        for (Knob knob : file.knobs().knobs()) {
            // A knob the code names changes the cubin, so it is compiled; a launch-only knob changes the plans.
            // (a choice is tested through NAME_VALUE)
            boolean inCode = Pattern.compile("\\b" + knob.name() + (knob.integer() ? "\\b" : "(\\b|_)"))
                    .matcher(body).find();
            int compiledOfKnob = 0;
            for (String value : knob.values()) {
                if (value.equals(knob.value()) || !file.knobs().with(Map.of(knob.name(), value)).allowed()) {
                    continue;
                }
                KernelFile variant = ContractParser.parse(file.name(), null,
                        KnobRewriter.rewrite(file, Map.of(knob.name(), value)));
                String at = seed.getFileName() + " with " + knob.name() + "=" + value;
                if (inCode && compiledOfKnob < perKnob) {
                    CandidateResult result = check(variant, shapes);
                    assertEquals(Verdict.PASS, result.verdict(), () -> at + ": " + result.detail());
                    compiledOfKnob++;
                } else if (!inCode) {
                    for (Shape shape : shapes.shapes()) {
                        for (int sms : List.of(132, 108, 20)) {
                            PlanResolver.resolve(variant, shape, sms);
                        }
                    }
                }
            }
            compiled += compiledOfKnob;
        }
        return compiled;
    }
}
