package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.Defaults;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import org.junit.jupiter.api.Test;

class OperatorsTest {

    @Test
    void softmaxIsKnownByIdAndIsWhatAnUnsaidOpMeans() {
        assertSame(Operators.SOFTMAX, Operators.byId("softmax"));
        assertSame(Operators.SOFTMAX, Operators.byId(Defaults.OP));
        assertSame(Operators.SOFTMAX, Operators.DEFAULT);
        assertSame(Operators.SOFTMAX, Task.of(EvalSettings.defaults()).op());
    }

    @Test
    void anUnknownOperatorIsAnInputErrorNamingTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Operators.byId("softmx"));
        assertTrue(e.getMessage().contains("softmx") && e.getMessage().contains("softmax"), e.getMessage());
        KevoException k = assertThrows(KevoException.class,
                () -> Task.of(EvalSettings.builder().op("gelu").build()));
        assertTrue(k.getMessage().startsWith("op: unknown operator 'gelu'"), k.getMessage());
    }

    /** The floor's bytes follow each tensor's own type: a bf16 softmax moves half a float32 one's. */
    @Test
    void floorBytesAreEachTensorsBytesInItsOwnType() {
        Shape shape = new Shape(4096, 12288);
        long n = shape.elements();
        assertEquals(2 * n * 4, Task.softmax(Precision.FP32).floorBytes(shape));
        assertEquals(2 * n * 2, Task.softmax(Precision.BF16).floorBytes(shape));
        assertEquals(n * 2 + n * 4, Task.softmax(Precision.BF16_FP32).floorBytes(shape));
        assertEquals(n * 2, Operators.SOFTMAX.inputBytes(shape, Precision.BF16_FP32), "only x is read");
    }

    @Test
    void softmaxHasOneInputAndOneOutputNamedAsTheContractPassesThem() {
        assertEquals("x", Operators.SOFTMAX.input().name());
        assertEquals("y", Operators.SOFTMAX.output().name());
        assertTrue(Operators.SOFTMAX.vendor().isPresent(), "cuDNN serves softmax");
    }
}
