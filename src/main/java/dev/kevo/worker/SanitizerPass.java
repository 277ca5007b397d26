package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.Sanitized;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A kernel file run under each compute-sanitizer tool, each in a worker of its own (the sanitizer runs one tool per
 * process) on this host, on the device of {@code setup}'s workers: the worker compiles the file, runs every
 * plan the suite reaches on the smallest suite shape that reaches it, on two input cases, in buffers of exactly
 * the shape's size, untimed, with no baseline (see {@code SanitizedRun}). A tool's run passes only when the worker
 * answered, the tool's summary is there and counts nothing, it printed no finding and it exited 0: a report that
 * is missing or cut short is never a pass. The first tool that does not pass ends the pass.
 */
final class SanitizerPass {
    /** What makes a worker a sanitizer's: it runs the file's plans and nothing of an evaluation. */
    static final String WORKER_FLAG = "--sanitize-run";
    /** How long a sanitizer's worker may take to exit once told to: the tool finishes its report then. */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(60);

    private final Supervisor.Setup setup;
    private final String device;

    SanitizerPass(Supervisor.Setup setup, String device) {
        this.setup = setup;
        this.device = device;
    }

    /** What one tool's run came to. */
    record Outcome(Verdict verdict, String detail, List<String> shapes, List<Integer> plans, JudgedBuild build) {
        Outcome(Verdict verdict, String detail, CandidateResult ran) {
            this(verdict, detail, ran.shapes().stream().map(ShapeResult::shape).toList(),
                    ran.shapes().stream().map(ShapeResult::plan).filter(java.util.Objects::nonNull).distinct()
                            .sorted().toList(), ran.build());
        }
    }

    Sanitized run(KernelFile file, long inputSeed, Evaluator.Run judged) {
        long start = System.nanoTime();
        List<String> tools = new ArrayList<>();
        Map<String, Double> toolSeconds = new LinkedHashMap<>();
        List<String> shapes = List.of();
        List<Integer> plans = List.of();
        JudgedBuild build = null;
        Outcome failed = null;
        for (SanitizerTool tool : SanitizerTool.values()) {
            tools.add(tool.id());
            long toolStart = System.nanoTime();
            Outcome outcome = runTool(tool, file, inputSeed, judged);
            toolSeconds.put(tool.id(), (System.nanoTime() - toolStart) / 1e9);
            if (!outcome.shapes().isEmpty()) {
                shapes = outcome.shapes();
                plans = outcome.plans();
                build = outcome.build() != null ? outcome.build() : build;
            }
            if (!outcome.verdict().passed()) {
                failed = outcome;
                break;
            }
        }
        return Sanitized.builder(failed == null ? Verdict.PASS : failed.verdict())
                .detail(failed == null ? null : failed.detail()).tools(tools).shapes(shapes).plans(plans).build(build)
                .seconds((System.nanoTime() - start) / 1e9).toolSeconds(toolSeconds).device(device).sanitizer(setup.sanitizer().version())
                .date(OffsetDateTime.now(ZoneOffset.UTC).toString()).build();
    }

    private Outcome runTool(SanitizerTool tool, KernelFile file, long inputSeed, Evaluator.Run judged) {
        Path log;
        try {
            log = Files.createTempFile("kevo-" + tool.id() + "-", ".log");
        } catch (IOException e) {
            throw KevoException.environment("cannot make a file for compute-sanitizer's report: " + e.getMessage());
        }
        ToolLauncher launcher = new ToolLauncher(w -> setup.sanitizer().command(tool, log, w));
        List<String> command = new ArrayList<>(setup.workerCommand());
        command.add(WORKER_FLAG);
        CandidateResult ran;
        Supervisor worker = new Supervisor(Supervisor.Setup.builder(command, setup.suite(), setup.settings())
                .launcher(launcher).build());
        try {
            ran = worker.evaluate(file, inputSeed, judged);
        } catch (KevoException e) {
            throw new KevoException(e.kind(), "under compute-sanitizer " + tool.id() + ": " + e.getMessage(), e);
        } finally {
            // The tool writes its summary as the worker exits, after the work.
            worker.close(EXIT_GRACE);
        }
        String text;
        try {
            text = Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            text = "";
        }
        Outcome outcome = judge(tool, ran, SanitizerReport.parse(tool, text), launcher.exitCode(), log);
        boolean kept = !outcome.verdict().passed() && outcome.detail().contains(log.toString());
        if (!kept) {
            try {
                Files.deleteIfExists(log);
            } catch (IOException e) {
                // A report left in the temporary folder harms nothing.
            }
        }
        return outcome;
    }

    /**
     * One tool's run: what the worker answered, what the tool wrote, and how the sanitizer exited. A finding is the
     * tool's verdict whatever the worker said (memcheck ends a kernel at a bad access, and the worker may then
     * report a fault); short of one, a worker that gave no clean answer gives its own verdict, and a report that
     * does not add up keeps its log for a person to read.
     */
    static Outcome judge(SanitizerTool tool, CandidateResult ran, SanitizerReport report, OptionalInt exit,
                         Path log) {
        if (!report.findings().isEmpty() || report.count() > 0) {
            return new Outcome(tool.verdict(), report.detail(), ran);
        }
        if (!ran.passed()) {
            return new Outcome(ran.verdict(), tool.id() + ": under the sanitizer, " + ran.verdict().id()
                    + (ran.detail() == null ? "" : ": " + ran.detail()), ran);
        }
        String kept = "; its report: " + log;
        if (!report.summarized() || report.targetFailed()) {
            return new Outcome(Verdict.WORKER_CRASHED, report.detail() + exitNote(exit) + kept, ran);
        }
        if (exit.isEmpty() || exit.getAsInt() != 0) {
            Verdict verdict = exit.isPresent() && exit.getAsInt() == ComputeSanitizer.FINDINGS_EXIT ? tool.verdict()
                    : Verdict.WORKER_CRASHED;
            return new Outcome(verdict, tool.id() + ": a clean report, but" + exitNote(exit) + kept, ran);
        }
        if (ran.shapes().isEmpty()) {
            return new Outcome(Verdict.WORKER_CRASHED, tool.id() + ": the worker ran no shape", ran);
        }
        return new Outcome(Verdict.PASS, null, ran);
    }

    private static String exitNote(OptionalInt exit) {
        return exit.isPresent() ? " (compute-sanitizer exited " + exit.getAsInt() + ")"
                : " (compute-sanitizer had not exited)";
    }
}
