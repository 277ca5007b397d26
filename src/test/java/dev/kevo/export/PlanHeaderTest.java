package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.MaskKind;
import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Sanitized;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanException;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generated kevo_<op>_plan.h against kevo's PlanResolver: for every seed (log_softmax's too), the recorded
 * champion, the test operator's file (its tensors src and dst) and a file built to fail in every way a plan can, the
 * chosen plan and every launch's grid, block, smem, cooperative flag and arguments (or kevo's error message, word for
 * word) on every suite shape and on random shapes, for several SM counts.
 */
class PlanHeaderTest {

    private static final int[] SMS = {132, 114, 108, 170, 80, 16, 2, 1};

    /** Plans that fail at some shapes in each way PlanResolver knows, and do not cover every shape. */
    static final String TRICKY = """
            /*@kevo
            {
              "workspace": "rows * cols * 4 * sms",
              "plans": [
                { "when": "rows / (cols - 7) > 1000", "launches": [
                  { "kernel": "a", "grid": "rows", "block": 32, "args": ["x", "y"] } ] },
                { "when": "cols == 3", "launches": [
                  { "kernel": "a", "grid": "rows * cols * 1000", "block": "cols * 400", "args": ["x"] } ] },
                { "when": "cols == 5", "launches": [
                  { "kernel": "b", "grid": 1, "block": 1, "smem": "0 - rows", "args": ["ws", "rows * 1000"] } ] },
                { "when": "cols % 11 == 0 && rows > 1", "launches": [
                  { "kernel": "a", "grid": "cdiv(rows, max(cols > 100, 2))", "block": "min(1024, cols)", "cooperative": true,
                    "args": ["y", "x", "ws", "min(true, rows)", "-(rows % 7)", "sms - rows"] },
                  { "kernel": "b", "grid": "cdiv(rows * cols, 256)", "block": 256, "smem": "(cols % 13) * 8192",
                    "args": ["rows / (sms - 2)"] } ] },
                { "when": "rows < 5 || cols > 5000 && !(sms == 1)", "launches": [
                  { "kernel": "b", "grid": "rows", "block": "cols", "args": ["x", "y", "cols"] } ] },
                { "when": "cols % 17 == 0", "launches": [
                  { "kernel": "b", "grid": "rows * 2", "block": 64, "cluster": "cdiv(cols, rows)", "args": ["x"] } ] },
                { "when": "cols % 19 == 0", "launches": [
                  { "kernel": "a", "grid": "rows", "block": 64, "cluster": "1 + rows % 2", "cooperative": true,
                    "args": ["x"] } ] },
                { "when": "cols + true > 2", "launches": [
                  { "kernel": "a", "grid": 1, "block": 1, "args": [] } ] }
              ]
            }
            */
            extern "C" __global__ void a() {}
            extern "C" __global__ void b() {}
            """;

    @Test
    @HostCompilerTest
    void generatedPlansChooseAndEvaluateAsKevoDoes(@TempDir Path dir) throws Exception {
        List<KernelFile> files = new ArrayList<>();
        for (Path seed : TestFiles.seeds()) {
            files.add(ContractParser.read(seed));
        }
        files.add(ContractParser.read(TestFiles.root().resolve("src/test/resources/champion/champion-default-h100.cu")));
        files.add(ContractParser.read(TestFiles.root().resolve("seeds/log_softmax/online.cu")));
        files.add(ContractParser.read(TestFiles.root().resolve("src/test/resources/operator/copy_rows.cu")));
        files.add(ContractParser.parse("tricky.cu", null, TRICKY));
        List<long[]> cases = cases();
        StringBuilder input = new StringBuilder();
        for (long[] c : cases) {
            input.append(c[0]).append(' ').append(c[1]).append(' ').append(c[2]).append('\n');
        }
        Files.writeString(dir.resolve("shapes.txt"), input);
        int errors = 0;
        int launches = 0;
        for (KernelFile file : files) {
            OperatorApi api = OperatorApi.of(file.op());
            Path folder = Files.createDirectories(dir.resolve(file.op().id() + "-" + file.name().replace(".cu", "")));
            Files.writeString(folder.resolve(api.planHeader()), PlanHeader.render(file, "// test\n",
                    PlanEnvelope.of(file.plans().size(), List.of(), null)));
            Path main = folder.resolve("resolve.cpp");
            Files.writeString(main, named(api, DRIVER));
            Path exe = Toolchain.compileHost(Toolchain.hostCompiler().orElseThrow(), main);
            String[] generated = Toolchain.succeed(folder, 120, exe.toString(), dir.resolve("shapes.txt").toString())
                    .split("\n");
            assertEquals(cases.size(), generated.length, file.name() + ": lines printed");
            for (int i = 0; i < cases.size(); i++) {
                long[] c = cases.get(i);
                String kevo = kevo(file, new Shape((int) c[0], (int) c[1]), (int) c[2]);
                assertEquals(typeErrorsUnvalued(kevo), typeErrorsUnvalued(generated[i]),
                        file.name() + " at " + c[0] + "x" + c[1] + " sms=" + c[2]);
                if (kevo.contains("ERROR")) {
                    errors++;
                } else {
                    launches += kevo.split("\\|").length - 1;
                }
            }
        }
        System.out.printf("PlanHeaderTest: %d files x %d cases agree (%d errors, %d launches compared)%n",
                files.size(), cases.size(), errors, launches);
        // The tricky file must have reached its failures, or this test proves less than it says.
        assertTrue(errors > 100, "too few failures compared: " + errors);
    }

    /** Plans of attention shapes that read the layout and the mask kind, and fail on some, as PlanResolver fails. */
    static final String ATTENTION = """
            /*@kevo
            {
              "op": "masked_softmax",
              "plans": [
                { "when": "queries == 1 && mask_kind != 2", "launches": [
                  { "kernel": "a", "grid": "batch * heads", "block": "min(1024, cols)",
                    "args": ["x", "lengths", "mask", "y", "scale", "heads", "queries", "mask_kind"] } ] },
                { "when": "mask_kind == 3", "launches": [
                  { "kernel": "a", "grid": "rows / (heads - 3)", "block": 128, "args": ["mask", "batch * 1000000000"] } ] },
                { "when": "mask_kind == 1 && batch > 2", "launches": [
                  { "kernel": "a", "grid": "cdiv(rows, queries)", "block": 64, "smem": "queries * 4 - 8",
                    "args": ["y", "x", "rows / batch"] } ] },
                { "when": "heads % 3 == 0", "launches": [
                  { "kernel": "a", "grid": "rows", "block": 64, "args": ["x", "y", "scale"] } ] }
              ]
            }
            */
            extern "C" __global__ void a() {}
            """;

    /**
     * With attention's variables, the generated header chooses and evaluates as kevo does on attention shapes in every
     * mask kind: masked_softmax's seeds and a file whose plans read batch, heads, queries and mask_kind and fail on
     * some, on the attention suites' shapes and random layouts, each with kevo's message word for word.
     */
    @Test
    @HostCompilerTest
    void generatedPlansReadTheAttentionVariablesAsKevoDoes(@TempDir Path dir) throws Exception {
        List<KernelFile> files = new ArrayList<>();
        try (var seeds = Files.list(TestFiles.root().resolve("seeds/masked_softmax"))) {
            for (Path seed : seeds.filter(p -> p.toString().endsWith(".cu")).sorted().toList()) {
                files.add(ContractParser.read(seed));
            }
        }
        files.add(ContractParser.parse("attention.cu", null, ATTENTION));
        Set<Shape> shapes = new LinkedHashSet<>();
        for (String suite : List.of("attention.yaml", "attention-quick.yaml")) {
            for (Shape s : SuiteFile.load(TestFiles.root().resolve("evaluator/suites/" + suite)).shapes()) {
                for (MaskKind kind : MaskKind.values()) {
                    shapes.add(s.withMask(kind));
                }
            }
        }
        Random random = new Random(7);
        while (shapes.size() < 600) {
            int batch = 1 + random.nextInt(8);
            int heads = 1 + random.nextInt(40);
            int queries = random.nextInt(4) == 0 ? 1 : 1 + random.nextInt(4096);
            int keys = 1 + random.nextInt(70000);
            if ((long) batch * heads * queries * keys <= Integer.MAX_VALUE) {
                shapes.add(Shape.attention(batch, heads, queries, keys,
                        MaskKind.values()[random.nextInt(MaskKind.values().length)]));
            }
        }
        StringBuilder input = new StringBuilder();
        List<Object[]> cases = new ArrayList<>();
        for (Shape s : shapes) {
            int sms = SMS[cases.size() % SMS.length];
            cases.add(new Object[] {s, sms});
            input.append(s.rows()).append(' ').append(s.cols()).append(' ').append(s.batch()).append(' ')
                    .append(s.heads()).append(' ').append(s.queries()).append(' ').append(s.mask().ordinal())
                    .append(' ').append(sms).append('\n');
        }
        Files.writeString(dir.resolve("shapes.txt"), input);
        int errors = 0;
        for (KernelFile file : files) {
            OperatorApi api = OperatorApi.of(file.op());
            Path folder = Files.createDirectories(dir.resolve(file.name().replace(".cu", "")));
            Files.writeString(folder.resolve(api.planHeader()), PlanHeader.render(file, "// test\n",
                    PlanEnvelope.of(file.plans().size(), List.of(), null)));
            Files.writeString(folder.resolve("resolve.cpp"), named(api, DRIVER
                    .replace("long long rows, cols, sms;", "long long rows, cols, batch, heads, queries, kind, sms;")
                    .replace("fscanf(in, \"%lld %lld %lld\", &rows, &cols, &sms) == 3",
                            "fscanf(in, \"%lld %lld %lld %lld %lld %lld %lld\", &rows, &cols, &batch, &heads, "
                                    + "&queries, &kind, &sms) == 7")
                    .replace("kevo_op_resolve(rows, cols, sms, &p)",
                            "kevo_op_resolve_at(rows, cols, batch, heads, queries, kind, sms, &p)")));
            Path exe = Toolchain.compileHost(Toolchain.hostCompiler().orElseThrow(), folder.resolve("resolve.cpp"));
            String[] generated = Toolchain.succeed(folder, 120, exe.toString(), dir.resolve("shapes.txt").toString())
                    .split("\n");
            assertEquals(cases.size(), generated.length, file.name() + ": lines printed");
            for (int i = 0; i < cases.size(); i++) {
                Shape shape = (Shape) cases.get(i)[0];
                String kevo = kevo(file, shape, (int) cases.get(i)[1]);
                assertEquals(kevo, generated[i], file.name() + " at " + shape);
                errors += kevo.contains("ERROR") ? 1 : 0;
            }
        }
        // The attention file must have failed in its ways (no plan, division by zero, bounds), or this proves less.
        assertTrue(errors > 50, "too few failures compared: " + errors);
    }

    /**
     * The package runs a plan only within what kevo judged it on: a plan with no judgement, past its judged elements,
     * or at an SM count it was not judged at is refused with the reason; within all three it runs.
     */
    @Test
    @HostCompilerTest
    void thePackageRunsEachPlanOnlyWhereKevoJudgedIt(@TempDir Path dir) throws Exception {
        KernelFile file = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        assertTrue(file.plans().size() >= 2, "a file of several plans: " + file.plans().size());
        // Plan 1 judged up to 1000 elements at 132 and 148 SMs, sanitized; the others not judged.
        Sanitized pass = Sanitized.builder(dev.kevo.data.Verdict.PASS).plans(List.of(1)).build();
        PlanEnvelope envelope = PlanEnvelope.of(file.plans().size(), List.of(new PlanJudgement(1, 3, "32x31", true,
                "40x25", 1000, List.of(132, 148), List.of(), List.of())), pass);
        OperatorApi api = OperatorApi.of(file.op());
        Files.writeString(dir.resolve(api.planHeader()), PlanHeader.render(file, "// test\n", envelope));
        Shape first = firstShapeOf(file, 0);
        Shape other = java.util.stream.IntStream.range(1, file.plans().size()).mapToObj(p -> firstShapeOf(file, p))
                .filter(java.util.Objects::nonNull).findFirst().orElseThrow();
        Shape tooLarge = new Shape(first.rows() * 1000, first.cols());
        assertEquals(0, PlanResolver.resolve(file, tooLarge, 132).planIndex(), "still plan 1: " + tooLarge);
        Files.writeString(dir.resolve("shapes.txt"), String.join("\n", first.rows() + " " + first.cols() + " 132",
                first.rows() + " " + first.cols() + " 114", tooLarge.rows() + " " + tooLarge.cols() + " 132",
                other.rows() + " " + other.cols() + " 132") + "\n");
        Files.writeString(dir.resolve("judged.cpp"), named(api, JUDGED_DRIVER));
        Path exe = Toolchain.compileHost(Toolchain.hostCompiler().orElseThrow(), dir.resolve("judged.cpp"));
        String[] lines = Toolchain.succeed(dir, 120, exe.toString(), dir.resolve("shapes.txt").toString()).split("\n");
        assertEquals("RUNS plan 1", lines[0], "judged: " + first);
        assertTrue(lines[1].contains("judged at 132, 148 multiprocessors, not at this device's 114"), lines[1]);
        assertTrue(lines[2].contains("which kevo judged on shapes of at most 1000 elements"), lines[2]);
        assertTrue(lines[3].contains("which this package does not run: no shape kevo checked reaches it"), lines[3]);
    }

    /** A driver written for the placeholder names {@code kevo_op} and {@code KEVO_OP}, for {@code api}'s operator. */
    private static String named(OperatorApi api, String driver) {
        return driver.replace("KEVO_OP", api.macro()).replace("kevo_op", api.prefix());
    }

    /** A shape of at most 1000 elements that {@code file} takes plan {@code plan} (from 0) for at 132 SMs. */
    private static Shape firstShapeOf(KernelFile file, int plan) {
        for (int cols : new int[] {25, 128, 1000, 4096, 32000, 262144, 1000000}) {
            Shape s = new Shape(Math.max(1, 1000 / cols), cols);
            try {
                if (PlanResolver.resolve(file, s, 132).planIndex() == plan) {
                    return s;
                }
            } catch (PlanException e) {
                // no plan there
            }
        }
        return null;
    }

    private static final String JUDGED_DRIVER = """
            #include <stdio.h>
            #include "kevo_op_plan.h"
            int main(int argc, char** argv) {
                FILE* in = fopen(argv[1], "r");
                long long rows, cols, sms;
                while (in && fscanf(in, "%lld %lld %lld", &rows, &cols, &sms) == 3) {
                    kevo_op_plan p;
                    if (!kevo_op_resolve(rows, cols, sms, &p) || !kevo_op_judged_for(&p, rows, cols, sms)) {
                        printf("REFUSED %s\\n", p.error);
                    } else {
                        printf("RUNS plan %d\\n", p.plan + 1);
                    }
                }
                return in ? 0 : 2;
            }
            """;

    /** Every suite's shapes and edge shapes for each SM count, then random shapes with random SM counts. */
    private static List<long[]> cases() throws Exception {
        Set<String> shapes = new LinkedHashSet<>();
        try (var suites = Files.list(TestFiles.root().resolve("evaluator/suites"))) {
            for (Path suite : suites.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()) {
                SuiteFile.load(suite).shapes().forEach(s -> shapes.add(s.rows() + " " + s.cols()));
            }
        }
        assertTrue(shapes.size() >= 14, "suite shapes: " + shapes.size());
        for (String edge : List.of("1 1", "1 2147483647", "2147483647 1", "46341 46340", "7 7", "3 3", "5 5",
                "2 11", "1 11", "131 8192", "132 8192", "133 8192", "264 9000", "1 2097153", "1 16384", "4 33")) {
            shapes.add(edge);
        }
        List<long[]> cases = new ArrayList<>();
        for (String s : shapes) {
            String[] rc = s.split(" ");
            for (int sms : SMS) {
                cases.add(new long[] {Long.parseLong(rc[0]), Long.parseLong(rc[1]), sms});
            }
        }
        Random random = new Random(18);
        while (cases.size() < 3000) {
            // rows 1..65536 and cols 1..10^7, log-uniform so that short and long rows are both common
            long rows = Math.round(Math.exp(random.nextDouble() * Math.log(65536)));
            long cols = Math.round(Math.exp(random.nextDouble() * Math.log(10_000_000)));
            if (rows * cols <= Integer.MAX_VALUE) {
                cases.add(new long[] {rows, cols, SMS[random.nextInt(SMS.length)]});
            }
        }
        return cases;
    }

    /**
     * kevo names the offending operand's value in a type error ("'+' needs numbers, got a condition (true)"); the
     * generated code knows the type before it runs, not the value, so only that tail may differ.
     */
    private static String typeErrorsUnvalued(String line) {
        return line.replaceAll("(needs (numbers|conditions)), got .*$", "$1");
    }

    /** The resolution as the generated driver prints it. */
    private static String kevo(KernelFile file, Shape shape, int sms) {
        String head = shape.rows() + " " + shape.cols() + " " + sms + ": ";
        ResolvedPlan plan;
        try {
            plan = PlanResolver.resolve(file, shape, sms);
        } catch (PlanException e) {
            return head + "ERROR " + e.getMessage();
        }
        StringBuilder out = new StringBuilder(head + "plan " + plan.planIndex() + " ws " + plan.workspaceBytes());
        for (ResolvedPlan.Launch l : plan.launches()) {
            out.append(" | ").append(l.kernel()).append(" grid ").append(l.grid()).append(" block ").append(l.block())
                    .append(" smem ").append(l.smem()).append(" coop ").append(l.cooperative() ? 1 : 0)
                    .append(" cluster ").append(l.cluster()).append(" args ")
                    .append(l.args().stream().map(a -> a instanceof Integer ? a.toString()
                            : ((KernelFile.Arg.Buffer) a).name()).collect(Collectors.joining(",")));
        }
        return out.toString();
    }

    /** Prints each buffer argument by its slot's name, which the header takes from the operator's tensors. */
    private static final String DRIVER = """
            #include <stdio.h>
            #include "kevo_op_plan.h"
            int main(int argc, char** argv) {
                FILE* in = fopen(argv[1], "r");
                long long rows, cols, sms;
                while (in && fscanf(in, "%lld %lld %lld", &rows, &cols, &sms) == 3) {
                    kevo_op_plan p;
                    printf("%lld %lld %lld: ", rows, cols, sms);
                    if (!kevo_op_resolve(rows, cols, sms, &p)) {
                        printf("ERROR %s\\n", p.error);
                        continue;
                    }
                    printf("plan %d ws %lld", p.plan, (long long)p.workspace);
                    for (int l = 0; l < p.nlaunches; l++) {
                        const kevo_op_launch* k = &p.launch[l];
                        printf(" | %s grid %d block %d smem %d coop %d cluster %d args ",
                               kevo_op_kernel_names[k->kernel], k->grid, k->block, k->smem, k->cooperative ? 1 : 0,
                               k->cluster);
                        for (int a = 0; a < k->nargs; a++) {
                            if (a) printf(",");
                            if (k->arg_kind[a] == KEVO_OP_ARG_INT) printf("%d", k->arg_value[a]);
                            else printf("%s", kevo_op_slot_names[k->arg_kind[a]]);
                        }
                    }
                    printf("\\n");
                }
                return in ? 0 : 2;
            }
            """;
}
