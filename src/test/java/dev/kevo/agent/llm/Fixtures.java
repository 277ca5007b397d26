package dev.kevo.agent.llm;

import dev.kevo.TestFiles;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.Precision;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.KernelResources;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.Score;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Stats;
import dev.kevo.data.Verdict;
import dev.kevo.data.Shape;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/** Kernels with measured results as a campaign would hand them to an agent, and agents on a loopback server. */
final class Fixtures {
    static final DeviceInfo H100 = DeviceInfo.builder().name("NVIDIA H100 80GB HBM3").pciBusId("0000:19:00.0")
            .ccMajor(9).sms(132).l2Bytes(52_428_800L).memoryBytes(85_520_809_984L).maxThreadsPerBlock(1024)
            .maxSharedPerBlockOptin(232_448).clockMHz(1980).memoryClockMHz(2619).memoryBusBits(5120)
            .driverVersion("580.159.04").build();
    static final TaskContext CONTEXT = new TaskContext(H100, "standard",
            List.of(Shape.parse("32x128"), Shape.parse("4096x4096"), Shape.parse("8x128256"),
                    Shape.parse("1x10000000")), Precision.FP32, "block_two_pass");

    private Fixtures() {
    }

    /**
     * seeds/online.cu as it was when the recorded model answers (llm/*.json) were written against it: their SEARCH
     * blocks quote its lines, so it stays as they saw it when the seed changes.
     */
    static String recordedParent() {
        try {
            return Files.readString(TestFiles.root().resolve("src/test/resources/llm/online-recorded.cu"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String seed(String name) {
        try {
            return Files.readString(TestFiles.root().resolve("seeds").resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Stats ms(double median) {
        return new Stats(20, median, median * 0.99, median * 1.01, median * 0.995, median * 1.005, median * 0.98);
    }

    /** An evaluator's result with what agents read; the rest (timings of phases, device) left out. */
    static CandidateResult result(Verdict verdict, String detail, Double score, Double floor, String compileLog,
                                  List<KernelResources> kernels, List<ShapeResult> shapes) {
        return CandidateResult.builder("k.cu", verdict, 11L).detail(detail)
                .score(score == null ? null : Score.withoutInterval(score, floor))
                .compiled(20.0, compileLog, kernels).shapes(shapes).evaluationMs(900.0).build();
    }

    static ShapeResult timed(String shape, double us, double baseUs, double copyUs) {
        return ShapeResult.checked(shape, 1, 9e-8, 1e-9, null)
                .withTiming(ms(us / 1000), ms(baseUs / 1000), ms(copyUs / 1000), "memcpy");
    }

    /** seeds/online.cu as measured on an H100 (README numbers). */
    static Candidate parent() {
        CandidateResult r = result(Verdict.PASS, null, 1.52, 0.23, null,
                List.of(new KernelResources("softmax_online", 16, 0, 256)),
                List.of(timed("32x128", 5.1, 5.2, 4.4), timed("4096x4096", 77.9, 80.4, 43.4),
                        timed("8x128256", 301.0, 315.4, 6.2), timed("1x10000000", 10387, 31659, 28.7)));
        return new Candidate("seed-online", recordedParent(), Optional.empty(), r);
    }

    static Candidate inspiration() {
        CandidateResult r = result(Verdict.PASS, null, 2.39, 0.36, null,
                List.of(new KernelResources("softmax_rows", 40, 24, 0)),
                List.of(timed("32x128", 4.6, 5.2, 4.4), timed("4096x4096", 44.0, 80.4, 43.4)));
        return new Candidate("g0004-i2-c1", seed("register_rows.cu"), Optional.empty(), r);
    }

    static Candidate compileFailure() {
        String source = recordedParent().replace("kevo_warp_online(m, s);\n    const int lane",
                "kevo_warp_onlin(m, s);\n    const int lane");
        CandidateResult r = result(Verdict.COMPILE_ERROR,
                "g0003-i1-c2.cu(28): error: identifier \"kevo_warp_onlin\" is undefined", null, null,
                "g0003-i1-c2.cu(28): error: identifier \"kevo_warp_onlin\" is undefined\n1 error detected in the "
                        + "compilation of \"g0003-i1-c2.cu\".", List.of(), List.of());
        return new Candidate("g0003-i1-c2", source, Optional.empty(), r);
    }

    static Candidate wrongResult() {
        String source = recordedParent().replace("const float inv = 1.0f / s;", "const float inv = 1.0f;");
        String detail = "4096x4096: case normal-1 (seed 77): 16777216 of 16777216 outputs off, first at row 0 col 0: "
                + "got 0.7431 expected 2.118e-04";
        CandidateResult r = result(Verdict.WRONG_RESULT, detail, null, null, null,
                List.of(new KernelResources("softmax_online", 16, 0, 256)),
                List.of(ShapeResult.failed("4096x4096", Verdict.WRONG_RESULT,
                        "case normal-1 (seed 77): first at row 0 col 0: got 0.7431 expected 2.118e-04")));
        return new Candidate("g0002-i0-c0", source, Optional.empty(), r);
    }

    static ProposalRequest request(Optional<Candidate> mate, List<Candidate> failures, long seed) {
        return ProposalRequest.builder(parent(), new SplittableRandom(seed)).context(CONTEXT).mate(mate)
                .inspirations(List.of(inspiration())).recentFailures(failures).build();
    }

    static ProposalRequest request() {
        return request(Optional.empty(), List.of(), 1);
    }

    /** An OpenAI-style spec against a loopback server; {@code change} adjusts it. */
    static ModelSpec spec(String provider, String baseUrl, String keyEnv, Consumer<ModelSpecBuilder> change) {
        ModelSpecBuilder b = new ModelSpecBuilder(provider, baseUrl, keyEnv);
        change.accept(b);
        return b.build().validated("agents[1].model");
    }

    /** Only improve: so that a test knows which template a proposal uses. */
    static final Map<String, Double> IMPROVE_ONLY = Map.of("improve", 1.0);

    /** The spec's fields, settable one by one in tests. */
    static final class ModelSpecBuilder {
        String provider;
        String model = "gpt-4.1";
        String baseUrl;
        String keyEnv;
        Double timeoutSeconds = 5.0;
        Integer retries = 2;
        Integer concurrency = 2;
        Double priceInput = 2.0;
        Double priceOutput = 8.0;
        Integer repairRounds = 2;
        Integer maxOutputTokens = 8192;
        Map<String, Double> templates = IMPROVE_ONLY;

        ModelSpecBuilder(String provider, String baseUrl, String keyEnv) {
            this.provider = provider;
            this.baseUrl = baseUrl;
            this.keyEnv = keyEnv;
        }

        ModelSpec build() {
            return ModelSpec.builder().provider(provider).model(model).baseUrl(baseUrl).apiKeyEnv(keyEnv)
                    .temperature(0.7).maxOutputTokens(maxOutputTokens).timeoutSeconds(timeoutSeconds).retries(retries)
                    .concurrency(concurrency).priceInput(priceInput).priceOutput(priceOutput)
                    .repairRounds(repairRounds).templates(templates).build();
        }
    }

    /** An agent named gpt (agents[1]) whose retry pauses are a few ms and are recorded in {@code pauses}. */
    static LlmAgent agent(ModelSpec spec, Map<String, String> env, List<Duration> pauses) {
        PromptTemplates templates = PromptTemplates.load(TestFiles.root().resolve(spec.prompts()), spec,
                "agents[1].model");
        RetryPolicy retry = new RetryPolicy(spec.retries(), Duration.ofMillis(10), Duration.ofMillis(40), pause -> {
            pauses.add(pause);
            Thread.sleep(pause);
        });
        return new LlmAgent("gpt", "agents[1]", spec, templates, env::get, retry);
    }
}
