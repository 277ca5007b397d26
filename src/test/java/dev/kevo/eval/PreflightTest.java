package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.CandidateResult;
import dev.kevo.TestFiles;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import dev.kevo.data.Precision;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checks before a compile that need neither NVRTC nor a GPU. */
class PreflightTest {
    private static final String FILE = "/*@kevo\n{ \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", \"grid\": \"rows\","
            + " \"block\": 256, \"args\": [\"x\", \"y\", \"cols\"] } ] } ] }\n*/\n";

    @Test
    void aFileOfAnotherDtypeIsAContractErrorNamingBothBeforeAnyCompile() {
        KernelFile fp32 = ContractParser.parse("k.cu", null, FILE);
        Suite suite = new Suite("s", "", List.of(new Shape(4, 128)));
        CandidateResult r = Preflight.rejectedBeforeCompiling(fp32, suite, Task.softmax(Precision.BF16), 132, "sm_90").orElseThrow();
        assertEquals(Verdict.CONTRACT_ERROR, r.verdict());
        assertContains(r.detail(), "k.cu implements dtype fp32", "none, so fp32", "bf16 is being judged", "--dtype");
        assertTrue(Preflight.rejectedBeforeCompiling(fp32, suite, Task.softmax(Precision.FP32), 132, "sm_90").isEmpty());
    }

    /** The two operators' seeds, each judged as the other: a contract error in one line naming both, before a compile. */
    @Test
    void aFileOfAnotherOperatorIsAOneLineContractErrorEitherWay() {
        Suite suite = new Suite("s", "", List.of(new Shape(4, 128)));
        Task softmax = Task.softmax(Precision.FP32);
        Task logSoftmax = new Task(Operators.LOG_SOFTMAX, Precision.FP32);
        KernelFile soft = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        KernelFile log = ContractParser.read(TestFiles.root().resolve("seeds/log_softmax/online.cu"));

        CandidateResult asSoftmax = Preflight.rejectedBeforeCompiling(log, suite, softmax, 132, "sm_90").orElseThrow();
        assertEquals(Verdict.CONTRACT_ERROR, asSoftmax.verdict());
        assertContains(asSoftmax.detail(), "online.cu implements log_softmax", "softmax is being judged", "--op");
        assertFalse(asSoftmax.detail().contains("\n"), asSoftmax.detail());

        CandidateResult asLog = Preflight.rejectedBeforeCompiling(soft, suite, logSoftmax, 132, "sm_90").orElseThrow();
        assertEquals(Verdict.CONTRACT_ERROR, asLog.verdict());
        assertContains(asLog.detail(), "online.cu implements softmax", "none, so softmax", "log_softmax is being judged");
        assertFalse(asLog.detail().contains("\n"), asLog.detail());

        assertTrue(Preflight.rejectedBeforeCompiling(log, suite, logSoftmax, 132, "sm_90").isEmpty());
        assertTrue(Preflight.rejectedBeforeCompiling(soft, suite, softmax, 132, "sm_90").isEmpty());
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }
}
