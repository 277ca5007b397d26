package dev.kevo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * JCuda lives in {@code dev.kevo.cuda} only: everything else speaks to the GPU through its types (DevicePointer,
 * Event, Kernel), so a change of binding touches one package. This reads every source, main and test, outside it.
 */
class JcudaContainedTest {
    private static final Path CUDA = Path.of("dev", "kevo", "cuda");
    /** JCuda's root package; spelled apart here so that this file passes its own check. */
    private static final String ROOT = "jcuda";
    /** An import of JCuda, or a fully qualified use of it such as a call of its Pointer.to. */
    private static final Pattern JCUDA = Pattern.compile("\\b" + ROOT + "\\.[A-Za-z]");

    static boolean usesJcuda(String source) {
        return JCUDA.matcher(source).find();
    }

    @Test
    void noClassOutsideCudaUsesJcuda() {
        List<String> offenders = new ArrayList<>();
        int read = 0;
        for (Path root : List.of(Path.of("src/main/java"), Path.of("src/test/java"))) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    if (root.relativize(f).startsWith(CUDA)) {
                        continue;
                    }
                    read++;
                    if (usesJcuda(Files.readString(f))) {
                        offenders.add(f.toString());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertTrue(read > 100, "read the sources (run from the checkout's root): " + read + " files");
        assertEquals(List.of(), offenders, "JCuda used outside dev.kevo.cuda: give cuda a type for it instead");
    }

    @Test
    void theCheckSeesImportsAndQualifiedUses() {
        assertTrue(usesJcuda("import " + ROOT + ".driver.CUdeviceptr;"));
        assertTrue(usesJcuda("import static " + ROOT + ".driver.JCudaDriver.cuMemFree;"));
        assertTrue(usesJcuda("gpu.download(p, " + ROOT + ".Pointer.to(words), 8);"));
        assertFalse(usesJcuda("JCuda's handles stay in dev.kevo.cuda; see my" + ROOT + ".Thing"));
    }
}
