package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.ExitCode;
import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kevo check} on a machine where no NVRTC is found: every other check still runs. The command is told that
 * none is found, so this runs the same with NVRTC installed or not.
 */
class CheckWithoutNvrtcTest {
    private static final int STANDARD_SHAPES = dev.kevo.config.SuiteFile.load(dev.kevo.TestFiles.root()
            .resolve("evaluator/suites/standard.yaml")).shapes().size();


    /** kevo with a check command that finds no NVRTC unless one is named. */
    private static Outcome kevo(String... args) {
        CommandLine.IFactory factory = new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                return type == CheckCommand.class ? type.cast(new CheckCommand(named -> named.map(Path::toString)))
                        : CommandLine.defaultFactory().create(type);
            }
        };
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(factory, new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(code, out.toString(), err.toString());
    }

    private static String seed(String name) {
        return TestFiles.root().resolve("seeds").resolve(name).toString();
    }

    @Test
    void goodFilesGetEveryCheckButTheCompileAndACodeOfTheirOwn() {
        Outcome o = kevo("check", seed("online.cu"), seed("register_rows.cu"));
        assertEquals(ExitCode.NOT_COMPILED.code(), o.code(), o.err());
        List<String> err = o.err().strip().lines().toList();
        assertEquals(1, err.size(), o.err());
        assertTrue(err.getFirst().startsWith("kevo: compiling skipped: no NVRTC library found"), o.err());
        assertTrue(o.out().contains(seed("online.cu") + ": ok, not compiled; kernels: softmax_online"), o.out());
        // the plans were resolved: every shape of the standard suite is placed under one of online.cu's plans
        List<String> online = o.out().lines().dropWhile(l -> !l.startsWith(seed("online.cu"))).skip(1)
                .takeWhile(l -> l.startsWith("  plan ")).toList();
        assertEquals(STANDARD_SHAPES, online.stream().mapToInt(l -> l.substring(l.indexOf(": ") + 2).split(" ").length).sum(),
                o.out());
    }

    @Test
    void thePlansNoShapeReachesShareOneLineAndEveryPlanIsNamedOnce() {
        Outcome o = kevo("check", seed("register_rows.cu"));
        List<String> plans = o.out().lines().dropWhile(l -> !l.startsWith(seed("register_rows.cu"))).skip(1)
                .takeWhile(l -> l.startsWith("  plan")).toList();
        assertTrue(plans.stream().filter(l -> l.contains("no shape of suite")).count() <= 1, o.out());
        int count = Integer.parseInt(plans.getFirst().replaceAll(".* of (\\d+):.*", "$1"));
        List<Integer> named = new ArrayList<>();
        for (String line : plans) {
            for (String part : line.replaceAll("^  plans? (.*) of \\d+:.*", "$1").split(", ")) {
                String[] range = part.split("-");
                for (int p = Integer.parseInt(range[0]); p <= Integer.parseInt(range[range.length - 1]); p++) {
                    named.add(p);
                }
            }
        }
        assertEquals(IntStream.rangeClosed(1, count).boxed().toList(), named.stream().sorted().toList(), o.out());
        assertTrue(count > plans.size(), "register_rows has plans the standard suite does not reach: " + o.out());
    }

    @Test
    void runsOfPlanNumbersAreWrittenShort() {
        assertEquals("2, 3, 7-12", CheckCommand.runs(List.of(2, 3, 7, 8, 9, 10, 11, 12)));
        assertEquals("5", CheckCommand.runs(List.of(5)));
        assertEquals("1-3, 5", CheckCommand.runs(List.of(1, 2, 3, 5)));
    }

    @Test
    void aHeaderErrorStillFailsTheFile(@TempDir Path dir) throws IOException {
        Path bad = Files.writeString(dir.resolve("bad.cu"), """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": "rowz", "block": 32, "args": ["y"]}]}]} */
                extern "C" __global__ void k(float* y) { }
                """);
        Outcome o = kevo("check", bad.toString(), seed("online.cu"));
        assertEquals(ExitCode.REJECTED.code(), o.code(), o.err());
        assertTrue(o.err().startsWith(bad.toString()), o.err());
        assertTrue(o.err().contains("rowz"), o.err());
        assertTrue(o.out().contains(seed("online.cu") + ": ok, not compiled"), o.out());
    }

    /**
     * The corpus's 8000-term expression once ended kevo check with a 1026-line StackOverflowError and exit 1, the
     * files after it unchecked. Now it is that file's one line, and the next file is still checked.
     */
    @Test
    void anExpressionPastTheLimitsFailsItsFileInOneLineAndTheNextIsChecked() {
        String deep = TestFiles.root().resolve("evaluator/adversarial/deep_expression.cu").toString();
        Outcome o = kevo("check", deep, seed("online.cu"));
        assertEquals(ExitCode.REJECTED.code(), o.code(), o.err());
        List<String> lines = o.err().strip().lines().filter(l -> l.startsWith(deep)).toList();
        assertEquals(1, lines.size(), o.err());
        assertTrue(lines.getFirst().startsWith(deep + ":5: plan 1 launch 1 'grid': "), o.err());
        assertTrue(lines.getFirst().contains("over the 1000-character limit for an expression"), o.err());
        assertTrue(o.out().contains(seed("online.cu") + ": ok, not compiled"), o.out());
    }

    @Test
    void aShapeNoPlanCoversFailsTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("short_only.cu"), """
                /*@kevo {"plans": [{"when": "cols <= 4096",
                   "launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["y"]}]}]} */
                extern "C" __global__ void k(float* y) { }
                """);
        Outcome o = kevo("check", file.toString());
        assertEquals(ExitCode.REJECTED.code(), o.code(), o.err());
        assertTrue(o.err().contains("no plan covers shape"), o.err());
    }

    @Test
    void aSourceRuleStillHolds(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("host.cu"), """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": 1, "block": 32, "args": ["y"]}]}]} */
                #include "kevo.h"
                #include <cstdio>
                extern "C" __global__ void k(float* y) { y[threadIdx.x] = 0; }
                """);
        Outcome o = kevo("check", file.toString());
        assertEquals(ExitCode.REJECTED.code(), o.code(), o.err());
        assertTrue(o.err().contains("source-rejected"), o.err());
    }

    /**
     * A file that declares bf16 but takes {@code float*} compiles, then reads two bf16 values as one float: check says
     * so in one line, with the parameter's line, before any compile; the same file judged as fp32 passes.
     */
    @Test
    void aPointerOfAnotherDtypeFailsTheFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("bf16_as_float.cu"), """
                /*@kevo {"dtype": ["fp32", "bf16"],
                   "plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["x", "y", "cols"]}]}]} */
                #include "kevo.h"
                extern "C" __global__ void k(const float* __restrict__ x,
                                             KEVO_Y* y, int cols) { }
                """);
        Outcome o = kevo("check", "--dtype", "bf16", file.toString());
        assertEquals(ExitCode.REJECTED.code(), o.code(), o.out() + o.err());
        assertTrue(o.err().contains("contract-error") && o.err().contains("bf16_as_float.cu: line 4: kernel k takes x as "
                + "const float* __restrict__, but dtype bf16 stores x as kevo_bf16 (declare it KEVO_X*)"), o.err());
        assertEquals(ExitCode.NOT_COMPILED.code(), kevo("check", "--dtype", "fp32", file.toString()).code());
    }

    /** Only an NVRTC nobody named may be missing: a named one that is not there is an error, not a skip. */
    @Test
    void aNamedNvrtcThatIsMissingIsStillAnError(@TempDir Path dir) {
        Outcome o = kevo("check", "--nvrtc", dir.resolve("libnvrtc.so.13").toString(), seed("online.cu"));
        assertEquals(ExitCode.USAGE.code(), o.code(), o.err());
        assertTrue(o.err().contains("no such file"), o.err());
    }

    /** The target's limits hold without a GPU: clusters need sm_90, and shared memory stops at the target's limit. */
    @Test
    void aClusterPlanFailsOnATargetWithoutClusters() {
        Outcome hopper = kevo("check", "--arch", "sm_90", seed("cluster_rows.cu"));
        assertEquals(ExitCode.NOT_COMPILED.code(), hopper.code(), hopper.err());
        Outcome ampere = kevo("check", "--arch", "sm_80", seed("cluster_rows.cu"));
        assertEquals(ExitCode.REJECTED.code(), ampere.code(), ampere.out() + ampere.err());
        String all = ampere.out() + ampere.err();
        assertTrue(all.contains("resources-exceeded") && all.contains("no thread-block clusters"), all);
        // a file with no cluster and small blocks passes on sm_89 too
        assertEquals(ExitCode.NOT_COMPILED.code(), kevo("check", "--arch", "sm_89", seed("online.cu")).code());
    }
}
