package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestJvm;
import dev.kevo.agent.Agent;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.PhaseLimits;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.evolve.AgentPool;
import dev.kevo.evolve.Campaign;
import dev.kevo.evolve.CampaignListener;
import dev.kevo.evolve.Judge;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workers as steps of a real Slurm allocation (tools/slurm-local.sh's one-node cluster), with the fake worker so
 * that no GPU is needed: a campaign runs through srun, one step is scancelled in the middle of a judgement and the
 * campaign still judges every candidate exactly once; a step that never gets ready is left out, its node named once.
 */
@SlurmTest
class SlurmWorkersTest {
    private static final Suite SUITE = new Suite("tiny", "", List.of(new Shape(4, 100)));
    private static final Pattern GRANTED = Pattern.compile("Granted job allocation (\\d+)");
    private static String job;

    @BeforeAll
    static void allocate() throws Exception {
        job = allocation("kevo-test");
    }

    /** What sbatch or salloc gives a user; the test's own JVM runs outside it and reaches it with --jobid. */
    private static String allocation(String name) throws Exception {
        String out = run("salloc", "--no-shell", "--nodes=1", "--ntasks=4", "--job-name=" + name, "--time=10");
        Matcher m = GRANTED.matcher(out);
        assertTrue(m.find(), "salloc: " + out);
        return m.group(1);
    }

    @AfterAll
    static void release() throws Exception {
        if (job != null) {
            run("scancel", job);
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " hung");
        return out;
    }

    private static Supervisor step(int slot, PhaseLimits limits, String... fakeArgs) {
        return step(job, slot, limits, true, fakeArgs);
    }

    private static Supervisor step(String jobId, int slot, PhaseLimits limits, String... fakeArgs) {
        return step(jobId, slot, limits, true, fakeArgs);
    }

    /** A step of {@code jobId} running the fake worker; {@code connectBack} false: frames through srun's stdio. */
    private static Supervisor step(String jobId, int slot, PhaseLimits limits, boolean connectBack,
                                   String... fakeArgs) {
        List<String> command = TestJvm.command(FakeWorker.class, fakeArgs);
        EvalSettings settings = EvalSettings.builder().suite("tiny").baseline("none").limits(limits).build();
        return new Supervisor(Supervisor.Setup.builder(command, SUITE, settings).target("sm_90", 132)
                .launcher(new SrunLauncher(jobId, "localhost", slot, Optional.empty(), List.of(), connectBack)).build());
    }

    static String kernel(int gene) {
        return """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["x", "y"]}]}]} */
                #define GENE %d
                extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * GENE; }
                """.formatted(gene);
    }

    /**
     * Every proposal a new source (so that each is judged, no cache hits, and counts are exact), drawn from the
     * child's own randomness, so that a resumed campaign replays the same children.
     */
    static final class NewEachTime implements Agent {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public Proposal propose(ProposalRequest request) {
            return new Proposal(kernel(100 + request.random().nextInt(1_000_000_000)), Optional.empty(), "mutate",
                    "new gene", Optional.empty());
        }
    }

    private static final CampaignConfig CONFIG = CampaignConfig.builder().name("t").suite("tiny")
            .baseline("b").randomSeed(42L).islands(2).population(3).childrenPerGeneration(2).migrationInterval(2)
            .selection(new CampaignConfig.Selection(2, 1, 0.3))
            .agents(List.of(new CampaignConfig.AgentWeight("fake", 1.0, null)))
            .stop(new CampaignConfig.Stop(0, 0.0, 2, 0, 0.0)).build().validated();
    private static final List<KernelFile> SEEDS = List.of(ContractParser.parse("one.cu", null, kernel(3)),
            ContractParser.parse("two.cu", null, kernel(10)));

    private static CampaignState run(CampaignStore store, Judge workers) {
        return new Campaign(CONFIG, store, workers, new AgentPool(CONFIG.agents(), Map.of("fake", new NewEachTime())),
                SEEDS, null, CampaignListener.NONE, System::currentTimeMillis).run();
    }

    @Test
    void aCampaignThroughSrunStepsSurvivesAScancelledStepAndJudgesEachCandidateOnce(@TempDir Path dir)
            throws Exception {
        Path log = dir.resolve("judged.log");
        CampaignConfig config = CONFIG;
        CampaignStore store = CampaignStore.create(dir.resolve("c"), FrozenCampaign.of("test", "now", config,
                EvalSettings.defaults(), "tiny", List.of("4x100"), "b"), kernel(1));
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        // 1.5 s a judgement: scancel reaches the step within it even on a loaded machine.
        List<Supervisor> steps = List.of(step(0, PhaseLimits.defaults(), "serve", "0", log.toString(), "1500"),
                step(1, PhaseLimits.defaults(), "serve", "0", log.toString(), "1500"));
        AtomicReference<String> cancelled = new AtomicReference<>();
        try (WorkerPool pool = WorkerPool.start(steps, null, notices::add)) {
            Judge workers = Judge.of(pool);
            CompletableFuture<Void> killer = CompletableFuture.runAsync(() -> cancelled.set(cancelMidJudgement(log)));
            CampaignState state = run(store, workers);
            killer.get(60, TimeUnit.SECONDS);
            assertEquals(2, state.generation(), "the campaign ran to its end");

            List<String> lines = Files.readAllLines(log);
            String[] victim = cancelled.get().split(" ");
            String candidate = victim[0] + " " + victim[1];
            assertFalse(lines.contains("end " + cancelled.get()), "scancel hit mid-judgement: " + cancelled.get());
            Map<String, Long> ends = count(lines, "end ");
            Map<String, Long> starts = count(lines, "start ");
            ends.forEach((c, n) -> assertEquals(1L, n, c + " judged to the end exactly once"));
            assertEquals(2L, starts.get(candidate), "the cancelled candidate was started again: " + notices + " "
                    + store.mutants().stream().map(m -> m.result().verdict() + " " + m.result().detail()).toList());
            assertEquals(1L, ends.get(candidate), "and judged once, by another step");
            assertEquals(state.evaluations(), ends.size(), "every evaluation the campaign counted was judged once");

            List<MutantRecord> mutants = store.mutants();
            assertEquals(ends.size(), mutants.size(), "one record per judged candidate, none missing");
            for (MutantRecord m : mutants) {
                assertEquals(Verdict.PASS, m.result().verdict(), m.id() + ": " + m.result().detail());
                assertTrue(m.result().device().startsWith("localhost 0 Fake GPU"), m.result().device());
            }
            assertTrue(notices.stream().anyMatch(n -> n.contains("ended by the cluster") && n.contains("judged again")),
                    notices.toString());
            assertTrue(pool.restarts() >= 1, "the step that lost its worker started a new one");
        }
    }

    /**
     * Waits for a few judgements, then scancels the step of one seen starting in this very look at the log, so that
     * scancel has nearly all of the judgement's 1.5 s to land (one started earlier may end first: CI saw that on a
     * loaded machine); "NAME SEED STEP".
     */
    private static String cancelMidJudgement(Path log) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        java.util.Set<String> seen = new java.util.HashSet<>();
        try {
            while (System.nanoTime() < deadline) {
                List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
                long ended = lines.stream().filter(l -> l.startsWith("end ")).count();
                for (String line : lines.reversed()) {
                    String what = line.substring(line.indexOf(' ') + 1);
                    if (line.startsWith("start ") && seen.add(what) && ended >= 3
                            && !lines.contains("end " + what)) {
                        String out = run("scancel", what.split(" ")[2]);
                        System.err.println("scancel " + what + " at " + System.currentTimeMillis() + ": " + out);
                        return what;
                    }
                }
                lines.stream().filter(l -> l.startsWith("start ")).forEach(l -> seen.add(l.substring(6)));
                Thread.sleep(20);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new AssertionError("no judgement to cancel within 60 s");
    }

    private static Map<String, Long> count(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).map(l -> l.split(" "))
                .collect(Collectors.groupingBy(p -> p[1] + " " + p[2], Collectors.counting()));
    }

    /** Stands for the campaign process being killed: the evaluations after the first {@code limit} throw. */
    static final class Killed extends RuntimeException {
    }

    @Test
    void aCampaignStoppedInOneAllocationResumesInAnother(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("judged.log");
        CampaignStore store = CampaignStore.create(dir.resolve("c"), FrozenCampaign.of("test", "now", CONFIG,
                EvalSettings.defaults(), "tiny", List.of("4x100"), "b"), kernel(1));
        String first = allocation("kevo-first");
        try (WorkerPool pool = WorkerPool.start(List.of(step(first, 0, PhaseLimits.defaults(), "serve", "0",
                log.toString())), null, n -> { })) {
            AtomicInteger calls = new AtomicInteger();
            Judge dying = (file, seed) -> {
                if (calls.incrementAndGet() > 4) {
                    throw new Killed();
                }
                return pool.evaluate(file, seed, Evaluator.Run.plain());
            };
            org.junit.jupiter.api.Assertions.assertThrows(Killed.class, () -> run(store, dying));
        } finally {
            run("scancel", first);
        }
        String second = allocation("kevo-second");
        try (WorkerPool pool = WorkerPool.start(List.of(step(second, 0, PhaseLimits.defaults(), "serve", "0",
                log.toString())), null, n -> { })) {
            CampaignState state = run(CampaignStore.open(dir.resolve("c")), Judge.of(pool));
            assertEquals(2, state.generation(), "resumed to its end");
        } finally {
            run("scancel", second);
        }
        List<String> lines = Files.readAllLines(log);
        Map<String, Long> byJob = lines.stream().filter(l -> l.startsWith("end "))
                .collect(Collectors.groupingBy(l -> l.substring(l.lastIndexOf(' ') + 1).split("\\.")[0],
                        Collectors.counting()));
        long firstJudged = byJob.getOrDefault(first, 0L);
        assertTrue(firstJudged >= 2 && firstJudged <= 4, "the seeds and a child or two in the first: " + byJob);
        assertTrue(byJob.getOrDefault(second, 0L) > 0, "the rest in the second: " + byJob);
        Map<String, Long> ends = count(lines, "end ");
        List<MutantRecord> mutants = CampaignStore.open(dir.resolve("c")).mutants();
        assertTrue(mutants.stream().allMatch(m -> m.cachedFrom() == null), "no two children alike");
        assertEquals(ends.size(), mutants.size(), "every candidate judged in either allocation is a record");
        long repeated = ends.values().stream().mapToLong(n -> n - 1).sum();
        assertTrue(repeated <= 1, "at most the candidate in flight at the kill is judged again: " + ends);
        mutants.forEach(m -> assertEquals(Verdict.PASS, m.result().verdict(), m.id()));
    }

    @Test
    void framesGoThroughSrunsOwnStdioWhenAsked() {
        try (WorkerPool pool = WorkerPool.start(List.of(step(job, 0, PhaseLimits.defaults(), false, "serve", "0")), null,
                n -> { })) {
            CandidateResult judged = pool.evaluate(ContractParser.parse("k.cu", null, kernel(6)), 1,
                    Evaluator.Run.plain());
            assertEquals(Verdict.PASS, judged.verdict(), judged.detail());
            assertEquals("localhost 0 Fake GPU", judged.device());
        }
    }

    @Test
    void aStepThatNeverConnectsBackIsLeftOutNamingItsNode() {
        PhaseLimits quick = PhaseLimits.builder().startupSeconds(6).compileSeconds(20)
                .checkSeconds(20).timingSeconds(20).build();
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        try (WorkerPool pool = WorkerPool.start(List.of(step(0, quick, "serve", "0"), step(1, quick, "never-connect")),
                null, notices::add)) {
            assertEquals(1, pool.size(), "the connected step stays");
            assertEquals(1, notices.size(), notices.toString());
            assertTrue(notices.getFirst().startsWith("node localhost: the worker did not start: it did not connect "
                    + "back"), notices.getFirst());
        }
    }

    @Test
    void aStepThatNeverGetsReadyIsLeftOutWithOneNoticeNamingItsNode() {
        PhaseLimits quick = PhaseLimits.builder().startupSeconds(6).compileSeconds(20)
                .checkSeconds(20).timingSeconds(20).build();
        List<String> notices = Collections.synchronizedList(new ArrayList<>());
        List<Supervisor> steps = List.of(step(0, quick, "serve", "0"), step(1, quick, "mute"),
                step(2, quick, "mute"));
        try (WorkerPool pool = WorkerPool.start(steps, null, notices::add)) {
            assertEquals(1, pool.size(), "the ready step stays");
            assertEquals(1, notices.size(), "one notice for the node, not one per step: " + notices);
            assertTrue(notices.getFirst().startsWith("node localhost: the worker was not ready within 6 s"),
                    notices.getFirst());
            CandidateResult judged = pool.evaluate(ContractParser.parse("k.cu", null, kernel(5)), 1,
                    Evaluator.Run.plain());
            assertEquals(Verdict.PASS, judged.verdict(), judged.detail());
            assertEquals("localhost 0 Fake GPU", judged.device());
        }
    }
}
