package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileException;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * harness.cu and each operator's reference against the Java side they are launched from: they compile with the
 * constants TrustedKernels writes, every kernel looked up by name is in them, and a Java input case the harness has no
 * generator for, or a case renamed, stops the compile rather than generating the wrong input.
 */
class TrustedKernelsTest {

    private static final String ARCH = "sm_90";
    private static final Pattern KERNEL = Pattern.compile(
            "extern \"C\" __global__ void (?:__launch_bounds__\\(\\d+\\) )?(\\w+)\\(");

    private static Compilation compile(String source) {
        return Nvrtc.load(Optional.empty()).compile(TrustedKernels.SOURCE_NAME, source, Prelude.headers(), ARCH);
    }

    @Test
    void everyInputCaseIsACaseLabelByName() {
        // Caught here on machines without NVRTC too; the compile tests below are the real guard.
        String kernel = Prelude.resource(TrustedKernels.class, TrustedKernels.SOURCE_NAME);
        for (InputCase c : InputCase.values()) {
            assertTrue(kernel.contains("case KEVO_CASE_" + c.name() + ":"), "no generator case for " + c);
        }
        assertFalse(Pattern.compile("case \\d+:").matcher(kernel).find(), "a case numbered by position");
    }

    @NeedsNvrtc
    @Test
    void compilesAndDefinesEveryKernelJavaLooksUp() throws IOException {
        String source = TrustedKernels.source();
        Compilation c = compile(source);
        assertArrayEquals(new byte[] {0x7f, 'E', 'L', 'F'}, Arrays.copyOf(c.cubin(), 4), "a cubin is an ELF file");
        List<String> declared = KERNEL.matcher(source).results().map(m -> m.group(1)).toList();
        assertTrue(declared.size() >= 4, declared::toString);
        for (String name : declared) {
            assertTrue(c.definesKernel(name), name);
        }
        List<String> used = Pattern.compile("module\\.kernel\\(\"(\\w+)\"\\)")
                .matcher(Files.readString(TestFiles.root().resolve("src/main/java/dev/kevo/eval/TrustedKernels.java")))
                .results().map(m -> m.group(1)).toList();
        assertTrue(used.contains("kevo_generate") && used.contains("kevo_compare"), used::toString);
        for (String name : used) {
            assertTrue(c.definesKernel(name), "TrustedKernels looks up " + name);
        }
        assertFalse(c.definesKernel("kevo_generat"));
        assertFalse(c.definesKernel("kv_mix"), "a __device__ function is not a kernel");
    }

    /**
     * An operator's reference is seven device functions the harness declares: one that leaves one out (here the
     * expected output) is a compile error, not a harness that silently computes something else.
     */
    @NeedsNvrtc
    @Test
    void anOperatorsReferenceMustDefineWhatTheHarnessDeclares() {
        Task copy = new Task(Operators.byId("copy"), Precision.FP32);
        assertTrue(compile(TrustedKernels.source(copy)).definesKernel("kevo_compare"), "the test operator y = x");
        String without = TrustedKernels.source(copy).replaceAll("(?m)^.*kv_expected\\(double v, double2\\) \\{.*$", "");
        assertTrue(without.length() < TrustedKernels.source(copy).length(), "the definition was taken out");
        assertThrows(CompileException.class, () -> compile(without));
    }

    static List<Precision> dtypes() {
        return Precision.SUPPORTED;
    }

    /** Every dtype kevo judges gets its own build of the trusted kernels, with y's own poison pattern. */
    @NeedsNvrtc
    @ParameterizedTest
    @MethodSource("dtypes")
    @Exhaustive
    void compilesForEveryDtypeWithThatDtypesTypesAndPoison(Precision dtype) {
        String source = TrustedKernels.source(Task.softmax(dtype));
        assertTrue(source.contains("#define KEVO_Y " + dtype.y().cudaType() + "\n"), source);
        assertTrue(source.contains(String.format("#define KEVO_POISON_Y 0x%08Xu", Workbench.poisonY(dtype.y()))));
        assertTrue(compile(source).definesKernel("kevo_compare"));
    }

    /**
     * log_softmax's reference is the shared (max, sum) statistic and its own two functions, each under its own file
     * name, and compiles in every dtype (the harness's overflow check included, which only fp16 y really needs). Each
     * compile of the harness takes NVRTC seconds on two cores: CI's second pass.
     */
    @NeedsNvrtc
    @Exhaustive
    @ParameterizedTest
    @MethodSource("dtypes")
    void logSoftmaxsReferenceSharesSoftmaxsStatisticAndCompilesForEveryDtype(Precision dtype) {
        String source = TrustedKernels.source(new Task(Operators.LOG_SOFTMAX, dtype));
        assertTrue(source.contains("#line 1 \"row_max_sum.cu\"\n") && source.contains("#line 1 \"log_softmax.cu\"\n"),
                source);
        String softmax = TrustedKernels.source(Task.softmax(dtype));
        String statistic = softmax.substring(softmax.indexOf("#line 1 \"row_max_sum.cu\""),
                softmax.lastIndexOf("#line 1 \"softmax.cu\""));
        assertTrue(source.contains(statistic), "one statistic, not a copy");
        assertTrue(compile(source).definesKernel("kevo_compare"));
    }

    /**
     * masked_softmax's reference is softmax's statistic over its own scores, and compiles in every dtype with the
     * kernels that generate the mask's tensors (the mask in x's type, whose lowest value it takes as masked). CI's
     * second pass (NVRTC seconds a dtype on two cores).
     */
    @NeedsNvrtc
    @Exhaustive
    @ParameterizedTest
    @MethodSource("dtypes")
    void maskedSoftmaxsReferenceSharesTheStatisticAndCompilesForEveryDtype(Precision dtype) {
        String source = TrustedKernels.source(new Task(Operators.MASKED_SOFTMAX, dtype));
        assertTrue(source.contains("#line 1 \"row_max_sum.cu\"\n") && source.contains("#line 1 \"masked_softmax.cu\"\n"),
                source);
        assertFalse(source.contains("#line 1 \"unmasked.cu\""), "its own scores, not the element itself");
        assertTrue(source.contains("#line 1 \"masked_softmax_scores.cu\"\n"), source);
        Compilation c = compile(source);
        for (String kernel : List.of("kevo_compare", "kevo_reference_chunks", "kevo_generate_lengths",
                "kevo_generate_mask")) {
            assertTrue(c.definesKernel(kernel), kernel);
        }
    }

    /**
     * An operator's score (the harness's types) is compiled apart from its reference, which stays plain arithmetic on
     * doubles that kevo export compiles for the host: softmax's reference is what it was, and its score the default.
     */
    @Test
    void theScoreIsCompiledBesideTheReferenceNotInIt() {
        for (var op : List.of(Operators.SOFTMAX, Operators.LOG_SOFTMAX, Operators.MASKED_SOFTMAX)) {
            assertFalse(op.referenceSource().contains("kv_score") || op.referenceSource().contains("KvAttention"),
                    op.id());
            assertTrue(op.scoreSource().contains("kv_score") && op.scoreSource().contains("kv_exact"), op.id());
            String source = TrustedKernels.source(new Task(op, Precision.FP32));
            assertTrue(source.indexOf(op.scoreSource()) < source.indexOf(op.referenceSource()), op.id());
        }
        assertTrue(Operators.SOFTMAX.scoreSource().contains("#line 1 \"unmasked.cu\""));
        assertTrue(Operators.byId("copy").scoreSource().contains("#line 1 \"unmasked.cu\""),
                "an operator added by adding files needs no score of its own");
    }

    /** The mask kinds' numbers come from Java as the cases' do; a kind the harness does not know stops the compile. */
    @NeedsNvrtc
    @Test
    void aJavaMaskKindTheHarnessDoesNotKnowDoesNotCompile() {
        String count = "#define KEVO_MASK_COUNT " + dev.kevo.data.MaskKind.values().length + "\n";
        String source = TrustedKernels.source(new Task(Operators.MASKED_SOFTMAX, Precision.FP32));
        assertTrue(source.contains(count) && source.contains("#define KEVO_MASK_CAUSAL 1\n"), source);
        CompileException e = assertThrows(CompileException.class, () -> compile(source.replace(count,
                "#define KEVO_MASK_COUNT " + (dev.kevo.data.MaskKind.values().length + 1) + "\n")));
        assertTrue(e.log().contains("a MaskKind the harness does not know"), e.log());
    }

    @NeedsNvrtc
    @Test
    void aJavaCaseWithoutAGeneratorDoesNotCompile() {
        String count = "#define KEVO_CASE_COUNT " + InputCase.values().length + "\n";
        String source = TrustedKernels.source();
        assertTrue(source.contains(count), source);
        String oneMore = source.replace(count, "#define KEVO_CASE_COUNT " + (InputCase.values().length + 1) + "\n");
        CompileException e = assertThrows(CompileException.class, () -> compile(oneMore));
        assertTrue(e.log().contains("without a generator case"), e.log());
    }

    @NeedsNvrtc
    @Test
    void aRenamedCaseDoesNotCompile() {
        String masked = "#define KEVO_CASE_MASKED " + InputCase.MASKED.ordinal() + "\n";
        String source = TrustedKernels.source();
        assertTrue(source.contains(masked), source);
        CompileException e = assertThrows(CompileException.class,
                () -> compile(source.replace(masked, "#define KEVO_CASE_MASKED_RENAMED 5\n")));
        assertTrue(e.log().contains("KEVO_CASE_MASKED"), e.log());
    }
}
