package dev.kevo.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kevo.cuda.CompileCache;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cubin a sanitizer's pass ran goes beside the kernel file its record covers, and only that cubin. */
class JudgedCubinTest {

    @Test
    void thePassesCubinGoesBesideTheFileAndAnotherIsNotTaken(@TempDir Path dir) throws Exception {
        CompileCache cache = CompileCache.fromEnvironment(System.getenv());
        assumeTrue(cache.dir().isPresent(), "kevo's cache is off here");
        byte[] cubin = ("judged " + dir).getBytes(StandardCharsets.UTF_8);
        String hash = cache.keepJudged(cubin);
        Sanitized pass = Sanitized.builder(Verdict.PASS).build(new JudgedBuild("sm_90", "NVRTC 13.0", List.of(), hash))
                .build();
        Path kernel = Files.writeString(dir.resolve("k.cu"), "// a kernel\n");
        SanitizedRecords.keepCubin(kernel, pass);
        assertArrayEquals(cubin, Files.readAllBytes(SanitizedRecords.cubinBeside(kernel)));
        SanitizedRecords.Judged judged = SanitizedRecords.judgedCubin(kernel, pass.build());
        assertArrayEquals(cubin, judged.cubin());
        assertNull(judged.missing());

        Files.write(SanitizedRecords.cubinBeside(kernel), "another build".getBytes(StandardCharsets.UTF_8));
        SanitizedRecords.Judged other = SanitizedRecords.judgedCubin(kernel, pass.build());
        assertNull(other.cubin(), "a cubin of other bytes is not the judged build");
        assertEquals(true, other.missing().contains("is not the build kevo judged"), other.missing());
    }
}
