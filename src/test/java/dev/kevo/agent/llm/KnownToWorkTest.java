package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.agent.RepairRequest;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.data.Shape;
import dev.kevo.task.SourcePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The model is shown kernel files that KnownToWorkGpuTest compiles and runs: the system prompt carries each as it
 * is, each is a kernel file whose plan kevo accepts, and each compiles under kevo's NVRTC setup.
 */
class KnownToWorkTest {

    @Test
    void theSystemPromptCarriesEveryTestedFileVerbatimInABlockOfItsOwn() {
        String proposal = PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forProposal(Fixtures.request()).system();
        String repair = PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forRepair(new RepairRequest(Fixtures.CONTEXT,
                Fixtures.parent(), Fixtures.wrongResult(), 1, new SplittableRandom(1))).system();
        for (Map.Entry<String, String> e : KnownToWork.SOURCES.entrySet()) {
            String block = "```cuda\n" + e.getValue() + "\n```";
            assertTrue(proposal.contains(block), e.getKey() + " in the proposal's system prompt");
            assertTrue(repair.contains(block), e.getKey() + " in the repair's system prompt");
        }
        assertTrue(proposal.contains("no cooperative-groups headers"), "what NVRTC lacks is said");
    }

    @Test
    void everyKnownFileInTheResourcesIsShown() throws IOException {
        Path dir = TestFiles.root().resolve("src/main/resources/dev/kevo/agent/llm");
        try (Stream<Path> files = Files.list(dir)) {
            List<String> known = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("known-") && n.endsWith(".cu")).sorted().toList();
            assertEquals(known, KnownToWork.FILES.stream().sorted().toList(), "a file there but not in the prompt");
        }
    }

    /** The contract's cluster example says it is the tested file. */
    @Test
    void theContractShowsTheTestedClusterFile() throws IOException {
        String contract = Files.readString(TestFiles.root().resolve("docs/contract.md"));
        assertTrue(contract.contains("```cuda\n" + KnownToWork.SOURCES.get("known-cluster.cu") + "\n```"));
    }

    /** Shows a plan kevo accepts, for kernels the file defines, and says on its first line what it shows. */
    @Test
    void everyFileIsAKernelFileWhosePlanLaunchesItsOwnKernels() {
        KnownToWork.SOURCES.forEach((name, source) -> {
            assertTrue(source.startsWith("// Known to work: "), name);
            assertEquals(Optional.empty(), SourcePolicy.violation(source), name);
            KernelFile file = ContractParser.parse(name, null, source);
            assertEquals(1, PlanResolver.resolve(file, new Shape(3, 1001), 132).launches().size(), name);
            for (String kernel : file.kernelNames()) {
                assertTrue(Pattern.compile("extern \"C\" __global__ void (__launch_bounds__\\(\\d+\\) )?"
                        + kernel + "\\(").matcher(source).find(), name + " defines " + kernel);
            }
        });
    }

    @Test
    @NeedsNvrtc
    void everyFileCompilesForHopperAsKevoCompilesKernels() {
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        KnownToWork.SOURCES.forEach((name, source) -> {
            Compilation c = nvrtc.compile(name, source, Prelude.headers(), "sm_90");
            assertEquals(List.of(Nvrtc.STANDARD, "--gpu-architecture=sm_90"), c.options(), name);
            for (String kernel : ContractParser.parse(name, null, source).kernelNames()) {
                assertTrue(c.definesKernel(kernel), name + ": " + kernel + "\n" + c.log());
            }
        });
    }
}
