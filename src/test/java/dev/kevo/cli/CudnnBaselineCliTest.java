package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Cudnn;
import org.junit.jupiter.api.Test;

/** kevo eval --baseline cudnn on a host without cuDNN: one line naming where it looked, exit 3, before any GPU work. */
class CudnnBaselineCliTest {

    private static boolean cudnnAbsent() {
        try {
            Cudnn.load(System.getenv());
            return false;
        } catch (KevoException e) {
            return true;
        }
    }

    @Test
    void cudnnAskedForWithoutItIsOneLineAndExitThree() {
        assumeTrue(cudnnAbsent(), "cuDNN is installed here: this test is about hosts without it");
        assumeTrue(System.getenv("KEVO_CUDNN") == null, "KEVO_CUDNN is set");
        Outcome o = kevo("eval", "--baseline", "cudnn", TestFiles.root().resolve("seeds/online.cu").toString());
        assertEquals(3, o.code(), o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
        assertTrue(o.err().startsWith("kevo: no cuDNN library found") && o.err().contains("libcudnn.so.9")
                && o.err().contains("libcudnn.so.8"), o.err());
    }
}
