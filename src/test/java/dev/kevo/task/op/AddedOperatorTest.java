package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test operator y = x, known to kevo only through META-INF/services: found, parsed and sized like softmax. */
class AddedOperatorTest {

    @Test
    void anOperatorNamedInAServicesFileIsKnownByItsId() {
        Operator copy = Operators.byId("copy");
        assertInstanceOf(CopyOperator.class, copy);
        assertTrue(Operators.ids().contains("copy") && Operators.ids().contains("softmax"), Operators.ids());
        Shape shape = new Shape(3, 5);
        assertEquals(15L * 2 + 15L * 4, new Task(copy, Precision.BF16_FP32).floorBytes(shape));
    }

    @Test
    void aKernelFilePassesTheAddedOperatorsTensorsByTheirNames() {
        KernelFile file = ContractParser.read(TestFiles.root().resolve("src/test/resources/operator/copy_rows.cu"));
        assertEquals("copy", file.op().id());
        assertEquals(List.of(new KernelFile.Arg.Buffer("src"), new KernelFile.Arg.Buffer("dst")),
                file.plans().getFirst().launches().getFirst().args().subList(0, 2));
        // softmax's names are not the copy's buffers: "x" is then an expression, and an unknown name
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.parse("k.cu", null,
                "/*@kevo { \"op\": \"copy\", \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", \"grid\": 1, "
                        + "\"block\": 32, \"args\": [\"x\", \"dst\"] } ] } ] } */"));
        assertTrue(e.getMessage().contains("'x'") || e.getMessage().contains(" x"), e.getMessage());
    }

    /** An evaluation checks the configured cases the operator takes; none of them is an input error. */
    @Test
    void anEvaluationChecksTheConfiguredCasesTheOperatorTakes() {
        Task copy = new Task(Operators.byId("copy"), Precision.FP32);
        List<InputCase> all = List.of(InputCase.values());
        EvalSettings settings = EvalSettings.builder().cases(all).build();
        assertEquals(all.subList(0, all.size() - 1), copy.cases(settings), "all but lowest-mask, in order");
        assertEquals(all, Task.softmax(Precision.FP32).cases(settings));
        KevoException e = assertThrows(KevoException.class,
                () -> copy.cases(EvalSettings.builder().cases(List.of(InputCase.LOWEST_MASK)).build()));
        assertTrue(e.getMessage().startsWith("cases: copy is checked on none of lowest-mask"), e.getMessage());
    }

    /** With no tolerance block in the config each operator is judged by its own; a block replaces it for any. */
    @Test
    void anOperatorIsJudgedByItsOwnToleranceUnlessTheConfigSaysOtherwise() {
        Task copy = new Task(Operators.byId("copy"), Precision.FP32);
        assertEquals(new Tolerance(1e-12, 0, 0), copy.tolerance(EvalSettings.defaults()));
        assertEquals(Tolerance.defaults(), Task.softmax(Precision.FP32).tolerance(EvalSettings.defaults()));
        Tolerance stated = new Tolerance(3e-5, 2e-7, 5e-5);
        assertEquals(stated, copy.tolerance(EvalSettings.builder().tolerance(stated).build()));
    }

    @Test
    void itsReferenceOnTheCpuIsItsDefinition() {
        float[] x = {1.5f, Float.NEGATIVE_INFINITY, -3f};
        double[] y = Operators.byId("copy").reference(x, 1, 3);
        assertEquals(List.of(1.5, Double.NEGATIVE_INFINITY, -3.0), List.of(y[0], y[1], y[2]));
    }
}
