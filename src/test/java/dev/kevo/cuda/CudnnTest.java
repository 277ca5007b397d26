package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The binding's CPU side: versions, error lines, and a library that is not cuDNN. */
class CudnnTest {

    @Test
    void versionNumbersOfCudnn9And8() {
        assertEquals("9.14.0", Cudnn.versionOf(91400));
        assertEquals("9.19.1", Cudnn.versionOf(91901));
        assertEquals("8.9.7", Cudnn.versionOf(8907));
        assertEquals("8.0.5", Cudnn.versionOf(8005));
    }

    @Test
    void aFailedCallIsOneLineWithTheLibraryTheCallTheShapeAndCudnnsStatus() {
        String line = Cudnn.failure("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "cudnnSoftmaxForward", "1x10000000",
                3000, "CUDNN_STATUS_NOT_SUPPORTED");
        assertEquals("cuDNN /usr/lib/x86_64-linux-gnu/libcudnn.so.9: cudnnSoftmaxForward (1x10000000) failed: "
                + "CUDNN_STATUS_NOT_SUPPORTED (status 3000)", line);
        assertEquals("cuDNN libcudnn.so.9: cudnnCreate failed: CUDNN_STATUS_NOT_INITIALIZED (status 1001)",
                Cudnn.failure("libcudnn.so.9", "cudnnCreate", "", 1001, "CUDNN_STATUS_NOT_INITIALIZED"));
    }

    /** A real shared library without cuDNN's symbols (the JVM's own) is refused with one line naming it: exit 3. */
    @Test
    void aLibraryWithoutCudnnsSymbolsIsABrokenLibrary() {
        Path notCudnn = Path.of(System.getProperty("java.home"), "lib", "libjava.so");
        KevoException e = assertThrows(KevoException.class,
                () -> Cudnn.load(Map.of("KEVO_CUDNN", notCudnn.toString())));
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertEquals("cuDNN " + notCudnn + ": no symbol cudnnGetVersion (not a cuDNN library?)", e.getMessage());
    }
}
