package dev.kevo.export;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.KevoCli;
import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Verdict;
import dev.kevo.store.SourceHash;
import dev.kevo.task.op.Operators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kevo export} from the command line: what it finds, what it writes, and how it refuses. */
class ExportCommandTest {

    private static final Path CAMPAIGN = TestFiles.root().resolve("mutations/default-h100");
    /** The sample campaign shipped for a machine without a GPU, read as shipped: export writes only under --out. */
    private static final Path SAMPLE = TestFiles.root().resolve("mutations/sample-h100");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final OperatorApi SOFTMAX = OperatorApi.of(Operators.SOFTMAX);

    /** The sample campaign, copied and rehashed, with a clean sanitizer record beside each of {@code ids}. */
    private static Path sanitizedCampaign(Path tmp, String... ids) {
        Path copy = TestFiles.rehashedCampaignCopy(tmp);
        for (String id : ids) {
            SanitizerRecords.clean(copy.resolve(id + ".cu"));
        }
        return copy;
    }

    private static Path seed(String name, Path tmp) {
        return SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/" + name), tmp);
    }

    @Test
    void aMutantOfACampaignCarriesItsRecord(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("pkg");
        Path campaign = sanitizedCampaign(tmp, "g0011-i1-c0");
        KevoCli.Outcome r = kevo("export", campaign.resolve("g0011-i1-c0").toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
        JsonNode recorded = JSON.readTree(CAMPAIGN.resolve("g0011-i1-c0.json").toFile());
        assertEquals("g0011-i1-c0", p.at("/judged/mutantId").asText());
        assertEquals("default-h100", p.at("/judged/campaign").asText());
        assertEquals(recorded.at("/result/score").asDouble(), p.at("/judged/score").asDouble());
        assertEquals(JSON.readTree(campaign.resolve("g0011-i1-c0.json").toFile()).at("/sourceHash").asText(),
                p.at("/judged/recordedSourceHash").asText());
        assertEquals(SourceHash.of(Files.readString(CAMPAIGN.resolve("g0011-i1-c0.cu"))), p.at("/sourceHash").asText());
        assertTrue(p.at("/judged/sourceMatches").asBoolean());
        assertEquals("pass", p.at("/judged/verdict").asText());
        assertEquals(14, p.at("/judged/shapes").size());
        assertTrue(p.at("/exportedBy").asText().startsWith("kevo "));
        assertEquals("pass", p.at("/sanitized/verdict").asText());
        assertEquals(List.of("memcheck", "racecheck", "synccheck", "initcheck"),
                JSON.convertValue(p.at("/sanitized/tools"), List.class));
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("compute-sanitizer (Version 2025.3.1.0"), readme);
        assertTrue(readme.contains("mutant `g0011-i1-c0`") && readme.contains(
                String.format(java.util.Locale.ROOT, "score %.3fx", recorded.at("/result/score").asDouble())), readme);
        assertTrue(r.out().contains("mutant g0011-i1-c0 of default-h100"), r.out());
    }

    /**
     * The sample campaign as recorded holds legacy hashes (comments stripped), which once counted as a match. Now
     * its numbers go into the package marked as not tied to the file, and one line says to re-judge it.
     */
    @Test
    void aMutantRecordedUnderALegacyHashIsExportedMarkedWithOneRejudgeLine(@TempDir Path tmp) throws Exception {
        Path campaign = TestFiles.sampleCampaignCopy(tmp);
        SanitizerRecords.clean(campaign.resolve("g0011-i1-c0.cu"));
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", campaign.resolve("g0011-i1-c0").toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("legacy hash") && r.err().contains("re-judge this file (kevo reeval "), r.err());
        JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
        assertFalse(p.at("/judged/sourceMatches").asBoolean());
        assertTrue(Files.readString(out.resolve("README.md")).contains("recorded under a legacy source hash"));
    }

    /** The size limit on kernel files holds at export too: one line, before anything scans the text. */
    @Test
    void anOversizedFileIsOneLineAndExitTwo(@TempDir Path tmp) throws Exception {
        Path huge = Files.writeString(tmp.resolve("huge.cu"), Files.readString(TestFiles.root().resolve("seeds/online.cu"))
                + "// " + "a".repeat(dev.kevo.task.ContractParser.MAX_SOURCE_BYTES) + "\n");
        KevoCli.Outcome r = kevo("export", huge.toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains(huge + ": " + Files.size(huge) + " bytes, over the "
                + dev.kevo.task.ContractParser.MAX_SOURCE_BYTES + "-byte limit for a kernel file"), r.err());
    }

    @Test
    void aCampaignFolderStandsForItsChampion(@TempDir Path tmp) throws Exception {
        String best = JSON.readTree(CAMPAIGN.resolve("state.json").toFile()).get("bestId").asText();
        Path campaign = sanitizedCampaign(tmp, best);
        for (String given : List.of(campaign.toString(), campaign.resolve("champion").toString(),
                campaign.resolve(best + ".cu").toString())) {
            Path out = tmp.resolve("pkg-" + given.hashCode());
            KevoCli.Outcome r = kevo("export", given, "--out", out.toString());
            assertEquals(0, r.code(), given + ": " + r.err());
            assertEquals(best, JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile()).at("/judged/mutantId").asText(),
                    given);
        }
    }

    /** Without a GPU, the shipped sample's champion exports to both targets: sanitized, confirmed past 2^31. */
    @Test
    void theShippedSamplesChampionExportsToCppAndTorch(@TempDir Path tmp) throws Exception {
        String champion = JSON.readTree(SAMPLE.resolve("state.json").toFile()).get("bestId").asText();
        for (String target : List.of("cpp", "torch")) {
            Path out = tmp.resolve(target);
            KevoCli.Outcome r = kevo("export", SAMPLE.toString(), "--to", target, "--out", out.toString());
            assertEquals(0, r.code(), target + ": " + r.err());
            assertTrue(r.out().contains("mutant " + champion + " of sample-h100"), r.out());
            JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
            assertEquals(target, p.at("/target").asText());
            assertEquals(champion, p.at("/judged/mutantId").asText());
            assertEquals("pass", p.at("/judged/verdict").asText());
            assertTrue(p.at("/judged/sourceMatches").asBoolean());
            assertEquals(17, p.at("/judged/shapes").size());
            assertEquals("pass", p.at("/sanitized/verdict").asText());
            assertEquals(SourceHash.of(Files.readString(SAMPLE.resolve(champion + ".cu"))),
                    p.at("/sanitized/sourceHash").asText());
            assertTrue(p.at("/size/maxElements").asLong() > Integer.MAX_VALUE, p.at("/size").toString());
            assertTrue(Files.isRegularFile(out.resolve(target.equals("cpp") ? "example.cu" : "setup.py")), target);
        }
    }

    /**
     * Every example of {@code export --help} said to need no GPU runs as written from the checkout, on what ships
     * (with --out moved into a temporary folder): each writes a package.
     */
    @Test
    void theHelpsExamplesWithoutAGpuRun(@TempDir Path tmp) throws Exception {
        KevoCli.Outcome help = kevo("export", "--help");
        List<String> lines = help.out().lines().toList();
        int start = lines.indexOf("Examples without a GPU, on the sample campaign shipped with kevo:");
        assertTrue(start >= 0, help.out());
        List<List<String>> examples = lines.subList(start + 1, lines.size()).stream()
                .takeWhile(l -> l.startsWith("  kevo export "))
                .map(l -> List.of(l.replaceFirst("#.*", "").strip().split(" +"))).toList();
        assertEquals(3, examples.size(), help.out());
        for (List<String> example : examples) {
            List<String> args = new java.util.ArrayList<>(example.subList(1, example.size()));
            int out = args.indexOf("--out");
            Path folder = tmp.resolve("example-" + examples.indexOf(example));
            if (out >= 0) {
                args.set(out + 1, folder.toString());
            } else {
                args.addAll(List.of("--out", folder.toString()));
            }
            KevoCli.Outcome r = kevo(args.toArray(String[]::new));
            assertEquals(0, r.code(), example + ": " + r.err());
            assertTrue(Files.isRegularFile(folder.resolve("kevo_softmax.cu")), example.toString());
        }
    }

    @Test
    void aPlainFileSaysItWasNotJudged(@TempDir Path tmp) throws Exception {
        Path seed = seed("online.cu", tmp);
        Path out = tmp.resolve("online");
        KevoCli.Outcome r = kevo("export", seed.toString(), "--to", "torch", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
        assertTrue(p.at("/judged").isMissingNode());
        assertTrue(p.at("/note").asText().startsWith("not judged"), p.toString());
        assertEquals(SourceHash.of(Files.readString(seed)), p.at("/sourceHash").asText());
        assertEquals("torch", p.at("/target").asText());
        assertTrue(Files.readString(out.resolve("README.md")).contains("not judged"));
        for (String f : List.of("kevo_softmax.cu", "kevo_softmax.h", "kevo_softmax_plan.h", "kevo_softmax_torch.cpp",
                "setup.py", "example.py")) {
            assertTrue(Files.isRegularFile(out.resolve(f)), f);
        }
    }

    /**
     * A log_softmax file exports as log_softmax, to either target: every file, symbol, macro, the torch op, the README
     * and the examples' references are log_softmax's, and nothing of softmax's is left in any of them.
     */
    @Test
    void aLogSoftmaxFileExportsUnderLogSoftmaxsNamesAndChecks(@TempDir Path tmp) throws Exception {
        for (String kernel : List.of("seeds/log_softmax/online.cu", "evaluator/baselines/log_softmax_two_pass.cu")) {
            Path dir = Files.createDirectories(tmp.resolve(kernel.replace('/', '-')));
            Path file = SanitizerRecords.cleanCopy(TestFiles.root().resolve(kernel), dir);
            for (String target : List.of("cpp", "torch")) {
                Path out = dir.resolve(target);
                KevoCli.Outcome r = kevo("export", file.toString(), "--to", target, "--out", out.toString());
                assertEquals(0, r.code(), kernel + " " + target + ": " + r.err());
                assertTrue(r.out().contains("(log_softmax " + target + ","), r.out());
                List<String> expected = new java.util.ArrayList<>(List.of("kevo_log_softmax.cu", "kevo_log_softmax.h",
                        "kevo_log_softmax_plan.h", "kevo_log_softmax_cubin.h", "kevo_log_softmax_kernels.cu",
                        "README.md", ExportPackage.PROVENANCE));
                expected.addAll(target.equals("cpp") ? List.of("example.cu")
                        : List.of("kevo_log_softmax_torch.cpp", "setup.py", "example.py"));
                assertEquals(expected.stream().sorted().toList(), Toolchain.files(out, "").stream()
                        .map(f -> f.getFileName().toString()).sorted().toList());
                for (String name : expected) {
                    String text = Files.readString(out.resolve(name));
                    // The kernel file itself is kept as judged: its comments may say softmax (the operator's family).
                    if (!name.endsWith("_kernels.cu")) {
                        assertFalse(text.contains("kevo_softmax") || text.contains("KEVO_SOFTMAX")
                                || text.contains("torch.softmax") || text.matches("(?s).*\\bsoftmax\\(.*"),
                                kernel + " " + target + ": " + name + " speaks of softmax");
                    }
                }
                JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
                assertEquals("log_softmax", p.at("/op").asText());
                String header = Files.readString(out.resolve("kevo_log_softmax.h"));
                assertTrue(header.contains("cudaError_t kevo_log_softmax(const float* x, float* y, int rows, int cols, "
                        + "cudaStream_t stream);") && header.contains("y = log_softmax(x) over each row"), header);
                String readme = Files.readString(out.resolve("README.md"));
                assertTrue(readme.startsWith("# kevo log_softmax: " + file.getFileName()), readme);
                assertTrue(readme.contains("kevo_log_softmax(x, y, rows, cols, stream)"), readme);
                if (target.equals("cpp")) {
                    String example = Files.readString(out.resolve("example.cu"));
                    // log_softmax's reference (its kv_expected), not softmax's exp(v - max) / sum
                    assertTrue(example.contains("return (v - row.x) - row.y;"), example);
                    assertFalse(example.contains("exp(v - row.x) * row.y"), example);
                    assertTrue(example.contains("kevo_log_softmax((const float*)t[0].device, (float*)t[1].device, rows, cols, 0)"),
                            example);
                } else {
                    String binding = Files.readString(out.resolve("kevo_log_softmax_torch.cpp"));
                    assertTrue(binding.contains("m.def(\"log_softmax\", &kevo_log_softmax_torch"), binding);
                    assertTrue(binding.contains("\"kevo log_softmax: \" + why()"), binding);
                    assertTrue(binding.contains("pybind11::arg(\"x\"), pybind11::arg(\"dim\") = -1"), binding);
                    String example = Files.readString(out.resolve("example.py"));
                    assertTrue(example.contains("ref = torch.log_softmax(*(t.double() for t in inputs.values()), "
                            + "dim=-1)") && example.contains("out = kevo_log_softmax.log_softmax(**inputs)"), example);
                    // log_softmax's tolerance: 1e-4 absolute, 1e-5 relative and in L2 (float32's, no widening)
                    assertTrue(example.contains("err <= 0.0001 + 0.00001 * ref.abs()") && example.contains(
                            "<= 0.00001\n"), example);
                    assertTrue(Files.readString(out.resolve("setup.py")).contains(
                            "CUDAExtension(\"kevo_log_softmax\", [\"kevo_log_softmax_torch.cpp\", \"kevo_log_softmax.cu\"]"));
                }
            }
        }
    }

    /**
     * An operator defined only in test code (y = x, tensors src and dst) exports to C++ under its own names, its
     * tensors its parameters; torch has no function for it to check a package against, so --to torch is refused in
     * one line and nothing is written.
     */
    @Test
    void anAddedOperatorExportsToCppUnderItsTensorsNamesAndTorchIsRefused(@TempDir Path tmp) throws Exception {
        Path copy = SanitizerRecords.cleanCopy(TestFiles.root().resolve("src/test/resources/operator/copy_rows.cu"), tmp);
        Path out = tmp.resolve("cpp");
        KevoCli.Outcome r = kevo("export", copy.toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(Files.readString(out.resolve("kevo_copy.h")).contains(
                "cudaError_t kevo_copy(const float* src, float* dst, int rows, int cols, cudaStream_t stream);"));
        assertTrue(Files.readString(out.resolve("kevo_copy_plan.h")).contains(
                "kevo_copy_slot_names[KEVO_COPY_SLOTS] = {\"src\", \"dst\", \"ws\"}"));
        assertTrue(Files.readString(out.resolve("example.cu")).contains("kv_expected(double v, double2) { return v; }"),
                "the copy's own reference");
        KevoCli.Outcome torch = kevo("export", copy.toString(), "--to", "torch", "--out", tmp.resolve("t").toString());
        assertEquals(2, torch.code(), torch.err());
        assertEquals("kevo: copy_rows.cu implements copy, for which kevo knows no torch function to check a torch "
                + "package against; --to cpp exports it, checked against kevo's own reference", torch.err().strip());
        assertFalse(Files.exists(tmp.resolve("t")), "nothing written");
    }

    @Test
    void kevoHIsInlinedAndTheKernelFileKeptAsJudged(@TempDir Path tmp) throws Exception {
        Path seed = seed("register_rows.cu", tmp);
        Path out = tmp.resolve("pkg");
        assertEquals(0, kevo("export", seed.toString(), "--out", out.toString()).code());
        String cu = Files.readString(out.resolve(SOFTMAX.kernels()));
        assertFalse(java.util.regex.Pattern.compile("(?m)^\\s*#\\s*include\\s*\"kevo\\.h\"").matcher(cu).find(),
                "the include is replaced");
        String prelude = Prelude.headers().get(Prelude.NAME);
        assertTrue(cu.contains(prelude.substring(prelude.indexOf("#define KEVO_INF"))), "kevo.h's text is inlined");
        String original = Files.readString(seed);
        String after = original.substring(original.indexOf("#include \"kevo.h\"") + "#include \"kevo.h\"".length());
        assertTrue(cu.contains(original.substring(0, original.indexOf("#include \"kevo.h\""))) && cu.contains(after),
                "every other line of the kernel file is kept as it was");
        assertTrue(Files.readString(out.resolve(SOFTMAX.planHeader())).contains("\"softmax_warp4\""),
                "the launcher names each kernel of the plan");
        String launcher = Files.readString(out.resolve(SOFTMAX.source()));
        assertFalse(launcher.contains("__global__"), "the package compiles no kernel: it loads the judged cubin");
        assertTrue(launcher.contains("cudaLibraryLoadData(&library, kevo_softmax_cubin"), launcher);
        String cubin = Files.readString(out.resolve(SOFTMAX.cubinHeader()));
        byte[] judged = Files.readAllBytes(dev.kevo.store.SanitizedRecords.cubinBeside(seed));
        assertTrue(cubin.contains("kevo_softmax_cubin[" + judged.length + "]") && cubin.contains(
                dev.kevo.cuda.CompileCache.sha256Hex(judged)), "the cubin beside the file, byte for byte");
    }

    @Test
    void deviceStateIsExplainedWhereTheKernelKeepsSome() {
        assertTrue(ExportPackage.deviceState("__device__ unsigned long long kevo_grid_arrivals = 0;\n"));
        assertTrue(ExportPackage.deviceState("static __device__ int counter;\n"));
        assertTrue(ExportPackage.deviceState("__device__ unsigned long long slots[4 * 132];\n"));
        assertFalse(ExportPackage.deviceState("__device__ __forceinline__ float f(float v) { return v; }\n"));
        assertFalse(ExportPackage.deviceState("// __device__ int commented;\n"));
        assertFalse(ExportPackage.deviceState("__device__ float warp_max(float v);\n"));
    }

    @Test
    void aRejectedMutantIsRefusedWithItsVerdict(@TempDir Path tmp) {
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", CAMPAIGN.resolve("g0003-i1-c2").toString(), "--out", out.toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("g0003-i1-c2") && r.err().contains("wrong-result"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void badInputIsOneLineAndExitTwo(@TempDir Path tmp) throws Exception {
        Path occupied = Files.createDirectories(tmp.resolve("occupied"));
        Files.writeString(occupied.resolve("mine.txt"), "keep me");
        Path broken = TestFiles.root().resolve("src/test/resources/broken/malformed_json.cu");
        String seed = seed("online.cu", tmp).toString();
        List<List<String>> cases = List.of(
                List.of("export", tmp.resolve("nothing-here.cu").toString()),
                List.of("export", CAMPAIGN.resolve("g9999-i0-c0").toString()),
                List.of("export", broken.toString(), "--out", tmp.resolve("b").toString()),
                List.of("export", seed, "--to", "rust"),
                List.of("export", seed, "--out", occupied.toString()),
                List.of("export", CAMPAIGN.resolve("g0011-i1-c0.json").getParent().getParent().toString()));
        List<String> expected = List.of("nothing-here.cu", "g9999-i0-c0", "malformed_json.cu", "--to rust",
                "occupied", "not a campaign folder");
        for (int i = 0; i < cases.size(); i++) {
            KevoCli.Outcome r = kevo(cases.get(i).toArray(String[]::new));
            assertEquals(2, r.code(), cases.get(i) + ": " + r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().startsWith("kevo: ") && r.err().contains(expected.get(i)), r.err());
            assertFalse(r.err().contains("Exception"), r.err());
        }
        assertEquals(List.of(occupied.resolve("mine.txt")), Toolchain.files(occupied, ""));
        assertEquals("keep me", Files.readString(occupied.resolve("mine.txt")));
    }

    @Test
    void anEarlierExportIsReplaced(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("pkg");
        String seed = seed("online.cu", tmp).toString();
        assertEquals(0, kevo("export", seed, "--out", out.toString()).code());
        assertEquals(0, kevo("export", seed, "--to", "torch", "--out", out.toString()).code());
        assertEquals("torch", JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile()).at("/target").asText());
    }

    @Test
    void aFileKevosSourceRulesRejectIsRefused(@TempDir Path tmp) throws Exception {
        String online = Files.readString(TestFiles.root().resolve("seeds/online.cu"));
        Path file = tmp.resolve("host.cu");
        Files.writeString(file, online.replace("#include \"kevo.h\"", "#include \"kevo.h\"\n#include <stdio.h>"));
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains("host.cu") && r.err().contains("source-rejected"), r.err());
        assertFalse(Files.exists(tmp.resolve("pkg")));
    }

    @Test
    void theReadmeExplainsDeviceStateOnlyWhereThereIsSome(@TempDir Path tmp) throws Exception {
        Path champion = tmp.resolve("champion");
        Path online = tmp.resolve("online");
        assertEquals(0, kevo("export", SanitizerRecords.cleanCopy(
                TestFiles.root().resolve("src/test/resources/champion/champion-default-h100.cu"), tmp).toString(),
                "--out", champion.toString()).code());
        assertEquals(0, kevo("export", seed("online.cu", tmp).toString(), "--out", online.toString()).code());
        assertTrue(Files.readString(champion.resolve("README.md")).contains("State in `__device__` variables"));
        assertFalse(Files.readString(online.resolve("README.md")).contains("State in `__device__` variables"));
    }

    @Test
    void aConstantSixtyFourBitsCannotHoldIsOneLineNamingFileAndPlace(@TempDir Path tmp) throws Exception {
        String online = Files.readString(TestFiles.root().resolve("seeds/online.cu"));
        Path file = tmp.resolve("half.cu");
        Files.writeString(file, online.replace("\"grid\": \"rows\", \"block\": \"SMALL_BLOCK\"", "\"grid\": \"rows * 1.5\", \"block\": \"SMALL_BLOCK\""));
        SanitizerRecords.clean(file);
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("half.cu: plan 1 launch 1 'grid'") && r.err().contains("1.5"), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    /**
     * A masked_softmax file exports to cpp under masked_softmax's names with everything its kernels read: the C API
     * takes lengths and mask, the scale and attention's layout and mask kind; the plan header resolves with the
     * attention variables; the example checks with the operator's own score (scale, mask kinds, exact zeros). To torch
     * it exports as kevo_masked_softmax.masked_softmax(x, scale, mask_kind, lengths, mask), refusing nothing.
     */
    @Test
    void aMaskedSoftmaxFileExportsItsScaleMaskAndLayoutToCppAndTorch(@TempDir Path tmp) throws Exception {
        Path file = SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/masked_softmax/online.cu"), tmp);
        Path out = tmp.resolve("cpp");
        KevoCli.Outcome r = kevo("export", file.toString(), "--to", "cpp", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals(List.of("kevo_masked_softmax.cu", "kevo_masked_softmax.h", "kevo_masked_softmax_plan.h",
                "kevo_masked_softmax_cubin.h", "kevo_masked_softmax_kernels.cu", "example.cu", "README.md",
                ExportPackage.PROVENANCE).stream().sorted().toList(), listing(out));
        assertEquals("masked_softmax", JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile()).at("/op").asText());
        String header = Files.readString(out.resolve("kevo_masked_softmax.h"));
        assertTrue(header.contains("cudaError_t kevo_masked_softmax(const float* x, const int* lengths, const float* "
                + "mask, float* y, float scale, int batch, int heads, int queries, int keys, int mask_kind, "
                + "cudaStream_t stream);"), header);
        String plan = Files.readString(out.resolve("kevo_masked_softmax_plan.h"));
        assertTrue(plan.contains("static const char* const kevo_masked_softmax_slot_names[KEVO_MASKED_SOFTMAX_SLOTS] "
                + "= {\"x\", \"lengths\", \"mask\", \"y\", \"scale\", \"ws\"};"), plan);
        // the plan passes heads, queries and mask_kind from the shape, not folded as a plain shape's 1, rows and 0
        assertTrue(plan.contains("c->heads") && plan.contains("c->queries") && plan.contains("c->mask_kind"), plan);
        assertTrue(plan.contains("kevo_masked_softmax_resolve_at("), plan);
        String example = Files.readString(out.resolve("example.cu"));
        assertTrue(example.contains("kevo_masked_softmax((const float*)t[0].device, (const int*)t[1].device, "
                + "(const float*)t[2].device, (float*)t[3].device, scale, batch, heads, queries, keys, kind, 0)"),
                example);
        assertTrue(example.contains("if (a.kind == KEVO_MASK_CAUSAL)") && example.contains("struct KvAttention {"),
                example);
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("kevo_masked_softmax(x, lengths, mask, y, scale, batch, heads, queries, keys, "
                + "mask_kind, stream)") && readme.contains("fully masked"), readme);
        for (String f : listing(out)) {
            String text = Files.readString(out.resolve(f));
            assertFalse(text.contains("kevo_softmax") || text.contains("KEVO_SOFTMAX"), f);
        }

        Path torch = tmp.resolve("torch");
        KevoCli.Outcome t = kevo("export", file.toString(), "--to", "torch", "--out", torch.toString());
        assertEquals(0, t.code(), t.err());
        assertTrue(t.out().contains("(masked_softmax torch,"), t.out());
        assertEquals(List.of("kevo_masked_softmax.cu", "kevo_masked_softmax.h", "kevo_masked_softmax_plan.h",
                "kevo_masked_softmax_cubin.h", "kevo_masked_softmax_kernels.cu", "kevo_masked_softmax_torch.cpp",
                "setup.py", "example.py", "README.md", ExportPackage.PROVENANCE).stream().sorted().toList(),
                listing(torch));
        assertEquals("torch", JSON.readTree(torch.resolve(ExportPackage.PROVENANCE).toFile()).at("/target").asText());
        String binding = Files.readString(torch.resolve("kevo_masked_softmax_torch.cpp"));
        assertTrue(binding.contains("m.def(\"masked_softmax\", &kevo_masked_softmax_torch"), binding);
        assertTrue(binding.contains("pybind11::arg(\"x\"), pybind11::arg(\"scale\"), pybind11::arg(\"mask_kind\") = "
                + "\"none\", pybind11::arg(\"lengths\") = pybind11::none(), pybind11::arg(\"mask\") = pybind11::none(), "
                + "pybind11::arg(\"dim\") = -1"), binding);
        // the C API gets the scale as a float and the attention layout and kind, as example.cu calls it
        assertTrue(binding.contains("e = kevo_masked_softmax_with_workspace(static_cast<const float*>(pointers[0]),\n"
                + "        static_cast<const int*>(pointers[1]),\n        static_cast<const float*>(pointers[2]),\n"
                + "        static_cast<float*>(pointers[3]),\n        static_cast<float>(scalars[0]),\n"
                + "        static_cast<int>(s.batch), static_cast<int>(s.heads), static_cast<int>(s.queries), "
                + "static_cast<int>(s.cols), s.mask_kind,"), binding);
        assertTrue(binding.contains("kevo_masked_softmax_workspace_size(static_cast<int>(s.batch), "
                + "static_cast<int>(s.heads), static_cast<int>(s.queries), static_cast<int>(s.cols), s.mask_kind, "
                + "&bytes)"), binding);
        assertTrue(binding.contains("\"kevo masked_softmax: \" + why()"), binding);
        String py = Files.readString(torch.resolve("example.py"));
        assertTrue(py.contains("out = kevo_masked_softmax.masked_softmax(**inputs)")
                && py.contains("ref = reference(**inputs)") && py.contains("def reference(x, scale, "
                + "mask_kind=\"none\", lengths=None, mask=None):"), py);
        assertTrue(py.contains("\"lengths\": batch_entries(batch, keys) if mask_kind in (\"padding\",) else None")
                && py.contains("\"mask\": batch_queries_keys(batch, queries, keys, torch.float32) if mask_kind in "
                + "(\"additive\",) else None"), py);
        String torchReadme = Files.readString(torch.resolve("README.md"));
        assertTrue(torchReadme.contains("`masked_softmax(x, scale, mask_kind=\"none\", lengths=None, mask=None, "
                + "dim=-1)` works over the last dimension (the keys) of `x`") && torchReadme.contains(
                "y = kevo_masked_softmax.masked_softmax(x, scale, mask_kind=\"padding\", lengths=lengths)"),
                torchReadme);
        for (String f : listing(torch)) {
            String text = Files.readString(torch.resolve(f));
            assertFalse(text.contains("kevo_softmax") || text.contains("KEVO_SOFTMAX"), f);
        }
    }

    private static List<String> listing(Path dir) throws java.io.IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * A gradient exports under its own names and takes its two row inputs (y, then dy); its examples make them as
     * training does (y the forward's output on spread x, through kevo's reference of the forward in C and torch's in
     * Python) and bound each element's error relative to dy's scale, as kevo does, not to dx, which cancels.
     */
    @Test
    void aGradientExportsItsTwoInputsAndChecksAgainstTheForwardsOutput(@TempDir Path tmp) throws Exception {
        for (String op : List.of("softmax_backward", "log_softmax_backward")) {
            Path dir = Files.createDirectories(tmp.resolve(op));
            Path file = SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/" + op + "/block_dot.cu"), dir);
            String forward = op.replace("_backward", "");
            for (String target : List.of("cpp", "torch")) {
                Path out = dir.resolve(target);
                KevoCli.Outcome r = kevo("export", file.toString(), "--to", target, "--out", out.toString());
                assertEquals(0, r.code(), op + " " + target + ": " + r.err());
                assertTrue(r.out().contains("(" + op + " " + target + ","), r.out());
                String header = Files.readString(out.resolve("kevo_" + op + ".h"));
                assertTrue(header.contains("cudaError_t kevo_" + op + "(const float* y, const float* dy, float* dx, "
                        + "int rows, int cols, cudaStream_t stream);"), header);
                if (target.equals("cpp")) {
                    String example = Files.readString(out.resolve("example.cu"));
                    // the forward's reference makes y; the gradient's reference and kevo's dy-scaled bound check dx
                    assertTrue(example.contains("kv_expected(kv_score(a, at, c, x[c]), row)")
                            && example.contains("kv_backward(yc, dyc, dot)")
                            && example.contains("0.0001 * scale + 0 * fabs(ref)"), example);
                    assertTrue(example.contains("kevo_" + op + "((const float*)t[0].device, (const float*)t[1].device, "
                            + "(float*)t[2].device, rows, cols, 0)"), example);
                } else {
                    String binding = Files.readString(out.resolve("kevo_" + op + "_torch.cpp"));
                    assertTrue(binding.contains("pybind11::arg(\"y\"), pybind11::arg(\"dy\"), pybind11::arg(\"dim\") = -1"),
                            binding);
                    String example = Files.readString(out.resolve("example.py"));
                    assertTrue(example.contains("return {\"y\": torch." + forward + "(x, dim=-1).to(dtype)"), example);
                    assertTrue(example.contains("inputs = gradient_inputs(rows, cols, torch.float32)"), example);
                    assertTrue(example.contains("ref = torch._" + forward + "_backward_data(inputs[\"dy\"].double(), "
                            + "inputs[\"y\"].double(), -1, torch.float64)"), example);
                    assertTrue(example.contains("scale = gradient_scale(**inputs)")
                            && example.contains("err <= 0.0001 * scale + 0 * ref.abs()")
                            && example.contains("(err.norm() / scale.norm())"), example);
                }
            }
        }
    }

    /**
     * --backward joins a forward and its gradient for training: one torch package with both extensions, each with its
     * own record, setup.py building both, the autograd module and train_check.py; a gradient of another operator,
     * another target, or a dtype autograd cannot pass (bf16 in, float32 out) is one line, exit 2, nothing written.
     */
    @Test
    void aForwardAndItsGradientExportAsOneTrainingPackage(@TempDir Path tmp) throws Exception {
        Path forward = SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/online.cu"),
                Files.createDirectories(tmp.resolve("f")));
        Path backward = SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/softmax_backward/block_dot.cu"),
                Files.createDirectories(tmp.resolve("b")));
        Path out = tmp.resolve("training");
        KevoCli.Outcome r = kevo("export", forward.toString(), "--to", "torch", "--backward", backward.toString(),
                "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("(softmax and its gradient torch,"), r.out());
        for (String file : List.of("kevo_softmax.cu", "kevo_softmax_torch.cpp", "kevo_softmax_cubin.h",
                "kevo_softmax_backward.cu", "kevo_softmax_backward_torch.cpp", "kevo_softmax_backward_cubin.h",
                "kevo_softmax_autograd.py", "train_check.py", "setup.py", "example.py", ExportPackage.PROVENANCE,
                TrainingPackage.BACKWARD_PROVENANCE)) {
            assertTrue(Files.isRegularFile(out.resolve(file)), file);
        }
        assertEquals("softmax_backward", JSON.readTree(out.resolve(TrainingPackage.BACKWARD_PROVENANCE).toFile())
                .at("/op").asText());
        String setup = Files.readString(out.resolve("setup.py"));
        assertTrue(setup.contains("CUDAExtension(\"kevo_softmax\", [\"kevo_softmax_torch.cpp\", \"kevo_softmax.cu\"]")
                && setup.contains("CUDAExtension(\"kevo_softmax_backward\", [\"kevo_softmax_backward_torch.cpp\", "
                + "\"kevo_softmax_backward.cu\"]") && setup.contains("py_modules=[\"kevo_softmax_autograd\"]"), setup);
        String autograd = Files.readString(out.resolve("kevo_softmax_autograd.py"));
        assertTrue(autograd.contains("class KevoSoftmaxFunction(torch.autograd.Function):")
                && autograd.contains("return _backward.softmax_backward(y, dy.contiguous(), dim=ctx.dim), None"), autograd);
        String check = Files.readString(out.resolve("train_check.py"));
        assertTrue(check.contains("def gradient_scale(y, dy):") && check.contains(".to(torch.float32)")
                && check.contains("rounding = ref.abs() * 0  #")
                && check.contains("bound = 0.0001 * scale + 2 * torch_err + rounding"), check);
        assertTrue(Files.readString(out.resolve("README.md")).contains("## Training: softmax with kevo's gradient"));

        Path logBackward = SanitizerRecords.cleanCopy(TestFiles.root().resolve("seeds/log_softmax_backward/block_dot.cu"),
                Files.createDirectories(tmp.resolve("lb")));
        List<List<String>> misuses = List.of(
                List.of(forward.toString(), "--to", "torch", "--backward", logBackward.toString()),
                List.of(forward.toString(), "--to", "cpp", "--backward", backward.toString()),
                List.of(backward.toString(), "--to", "torch", "--backward", backward.toString()));
        List<String> why = List.of("not of log_softmax_backward (the gradient of log_softmax)", "give --to torch",
                "takes a kernel of softmax_backward's gradient");
        for (int i = 0; i < misuses.size(); i++) {
            Path refusedOut = tmp.resolve("refused-" + i);
            List<String> args = new java.util.ArrayList<>(List.of("export"));
            args.addAll(misuses.get(i));
            args.addAll(List.of("--out", refusedOut.toString()));
            KevoCli.Outcome refused = kevo(args.toArray(String[]::new));
            assertEquals(2, refused.code(), refused.err());
            assertEquals(1, refused.err().strip().lines().count(), refused.err());
            assertTrue(refused.err().contains(why.get(i)), refused.err());
            assertFalse(Files.exists(refusedOut), refusedOut.toString());
        }
        assertTrue(TrainingPackage.mismatch(dev.kevo.task.op.Operators.SOFTMAX, dev.kevo.task.op.Operators.SOFTMAX_BACKWARD,
                dev.kevo.data.Precision.BF16_FP32).orElseThrow().contains("not bf16-fp32"));
        assertTrue(TrainingPackage.mismatch(dev.kevo.task.op.Operators.SOFTMAX, dev.kevo.task.op.Operators.SOFTMAX_BACKWARD,
                dev.kevo.data.Precision.BF16).isEmpty());
    }

    @Test
    void aKernelWithNoSanitizerRecordIsRefusedWithHowToGetOne(@TempDir Path tmp) throws Exception {
        Path file = Files.copy(TestFiles.root().resolve("seeds/online.cu"), tmp.resolve("online.cu"));
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", out.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("no compute-sanitizer record") && r.err().contains("kevo eval --sanitize " + file),
                r.err());
        assertFalse(Files.exists(out));
        // The recorded campaign's mutants have none until one is made on a GPU.
        KevoCli.Outcome mutant = kevo("export", CAMPAIGN.resolve("g0011-i1-c0").toString(), "--out", out.toString());
        assertEquals(2, mutant.code(), mutant.err());
        assertTrue(mutant.err().contains("kevo eval --sanitize " + CAMPAIGN.resolve("g0011-i1-c0.cu")), mutant.err());
        assertFalse(Files.exists(out));
    }

    @Test
    void aSanitizerFindingIsRefusedWithTheFinding(@TempDir Path tmp) throws Exception {
        Path file = Files.copy(TestFiles.root().resolve("seeds/online.cu"), tmp.resolve("online.cu"));
        SanitizerRecords.write(file, Verdict.DATA_RACE, "racecheck: 2 hazards in softmax_online (shared memory, a read "
                + "and a write no barrier orders)");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(1, r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("data-race") && r.err().contains("2 hazards in softmax_online"), r.err());
        assertFalse(Files.exists(tmp.resolve("pkg")));
    }

    @Test
    void aRecordOfAnotherSourceIsNoRecord(@TempDir Path tmp) throws Exception {
        Path file = seed("online.cu", tmp);
        Files.writeString(file, Files.readString(file) + "// edited after it was sanitized\n");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("no compute-sanitizer record for this source"), r.err());
    }

    @Test
    void aMutantSanitizedInItsEvaluationNeedsNoSeparateRecord(@TempDir Path tmp) throws Exception {
        Path campaign = TestFiles.rehashedCampaignCopy(tmp);
        Path json = campaign.resolve("g0011-i1-c0.json");
        ObjectNode record = (ObjectNode) JSON.readTree(json.toFile());
        String source = Files.readString(campaign.resolve("g0011-i1-c0.cu"));
        ((ObjectNode) record.get("result")).set("sanitized", JSON.valueToTree(SanitizerRecords.judged(
                campaign.resolve("g0011-i1-c0.cu"), Verdict.PASS, null, dev.kevo.data.Precision.FP32)));
        JSON.writeValue(json.toFile(), record);
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", campaign.resolve("g0011-i1-c0").toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode p = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
        assertEquals("pass", p.at("/sanitized/verdict").asText());
        assertEquals(SourceHash.of(source), p.at("/sanitized/sourceHash").asText());
    }
}
