package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.config.KevoHome;
import dev.kevo.cuda.CudnnLocator;
import dev.kevo.data.BaselineChoice;
import dev.kevo.task.KernelFile;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the baseline setting becomes a baseline, with cuDNN present, absent, named or broken; no cuDNN needed. */
class BaselineResolverTest {
    private static final KevoHome HOME = new KevoHome(TestFiles.root());
    private static final BaselineResolver.Library H100_CUDNN = new BaselineResolver.Library("9.14.0",
            "/usr/lib/x86_64-linux-gnu/libcudnn.so.9");

    private static BaselineResolver present(Map<String, String> env) {
        return new BaselineResolver(HOME::baseline, env, (e, library) -> H100_CUDNN);
    }

    private static BaselineResolver absent(Map<String, String> env) {
        return new BaselineResolver(HOME::baseline, env, (e, library) -> {
            throw KevoException.environment(CudnnLocator.NOT_FOUND + " (install cuDNN 9 or 8, or set KEVO_CUDNN); "
                    + "looked for: libcudnn.so.9, libcudnn.so.8");
        });
    }

    @Test
    void autoIsCudnnWhereItLoadsAndSaysWhy() {
        BaselineResolver.Resolved r = present(Map.of()).resolve("auto", "config/eval.yaml");
        assertTrue(r.choice().isCudnn());
        assertNull(r.file(), "cuDNN has no kernel file");
        assertEquals("cuDNN 9.14.0", r.choice().label());
        assertEquals("cudnn 9.14.0 (auto: libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu)", r.choice().describe());
        assertEquals("/usr/lib/x86_64-linux-gnu/libcudnn.so.9", r.choice().library(), "workers load exactly this");
        assertEquals(Optional.empty(), r.note());
    }

    @Test
    void autoFallsBackToBlockTwoPassWithoutCudnnAndSaysSo() {
        BaselineResolver.Resolved r = absent(Map.of()).resolve("auto", "config/eval.yaml");
        assertEquals("block_two_pass.cu", r.choice().name());
        assertEquals("block_two_pass", r.choice().label());
        assertEquals("auto: no cuDNN library found", r.choice().reason(), "recorded: why it is not cuDNN");
        assertEquals("block_two_pass.cu", r.file().name());
        assertTrue(r.note().orElseThrow().startsWith("baseline auto: using block_two_pass, not cuDNN: no cuDNN"),
                r.note().toString());
        assertTrue(r.note().orElseThrow().contains("libcudnn.so.8"), "the note lists where kevo looked");
    }

    /** A broken system library is not cuDNN either: auto falls back, naming what was wrong. */
    @Test
    void autoFallsBackFromABrokenSystemLibraryNamingTheProblem() {
        BaselineResolver broken = new BaselineResolver(HOME::baseline, Map.of(), (e, l) -> {
            throw KevoException.environment("cuDNN libcudnn.so.9: no symbol cudnnSoftmaxForward (not a cuDNN library?)");
        });
        BaselineResolver.Resolved r = broken.resolve("auto", "config/eval.yaml");
        assertEquals("block_two_pass", r.choice().label());
        assertTrue(r.choice().reason().contains("no symbol cudnnSoftmaxForward"), r.choice().reason());
    }

    /** $KEVO_CUDNN is a choice, even under auto: a missing one is an error (exit 3), never a fall-back. */
    @Test
    void autoNeverFallsBackFromALibraryTheUserNamed() {
        KevoException e = assertThrows(KevoException.class,
                () -> absent(Map.of("KEVO_CUDNN", "/opt/cudnn/libcudnn.so.9")).resolve("auto", "config/eval.yaml"));
        assertEquals(3, e.kind().exitCode().code());
    }

    @Test
    void cudnnAskedForOnAHostWithoutItIsAnError() {
        KevoException e = assertThrows(KevoException.class, () -> absent(Map.of()).resolve("cudnn", "--baseline"));
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertTrue(e.getMessage().contains("libcudnn.so.9") && e.getMessage().contains("libcudnn.so.8"),
                "one line naming the paths tried: " + e.getMessage());
    }

    @Test
    void cudnnAskedForSaysWhoAskedAndWhichLibrary() {
        BaselineChoice c = present(Map.of()).resolve("cudnn", "--baseline").choice();
        assertEquals("--baseline: libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu", c.reason());
        assertEquals("9.14.0", c.version());
    }

    @Test
    void aKernelFileBaselineByName() {
        BaselineResolver.Resolved r = present(Map.of()).resolve("block_two_pass", "--baseline");
        assertEquals(BaselineChoice.file("block_two_pass.cu", "--baseline"), r.choice());
        assertEquals("block_two_pass.cu", r.file().name());
        KevoException e = assertThrows(KevoException.class, () -> present(Map.of()).resolve("nosuch", "--baseline"));
        assertEquals(2, e.kind().exitCode().code());
    }

    /** reeval and --resume: an old folder's kernel file as saved; a cuDNN campaign's library, and a version change said. */
    @Test
    void aRecordedBaselineIsReusedAndAnotherCudnnVersionIsSaid() {
        KernelFile saved = dev.kevo.task.ContractParser.read(HOME.baseline("block_two_pass"));
        BaselineResolver.Resolved old = absent(Map.of()).recorded(BaselineChoice.file("block_two_pass.cu", null),
                () -> saved);
        assertSame(saved, old.file());

        List<Optional<String>> asked = new java.util.ArrayList<>();
        BaselineResolver spy = new BaselineResolver(HOME::baseline, Map.of(), (e, library) -> {
            asked.add(library);
            return new BaselineResolver.Library("9.19.0", library.orElseThrow());
        });
        BaselineChoice recorded = BaselineChoice.cudnn("9.14.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "auto: x");
        BaselineResolver.Resolved now = spy.recorded(recorded, () -> {
            throw new AssertionError("a cuDNN campaign has no kernel file to read");
        });
        assertEquals(List.of(Optional.of("/usr/lib/x86_64-linux-gnu/libcudnn.so.9")), asked);
        assertEquals("cuDNN 9.19.0", now.choice().label());
        assertTrue(now.note().orElseThrow().contains("recorded cuDNN 9.14.0"), now.note().toString());
        assertEquals(Optional.empty(), present(Map.of()).recorded(recorded, () -> null).note(), "same version: quiet");
    }

    @Test
    void cudnnMissingWhenACampaignRecordedItIsAnErrorNotAnotherBaseline() {
        BaselineChoice recorded = BaselineChoice.cudnn("9.14.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "auto");
        assertThrows(KevoException.class, () -> absent(Map.of()).recorded(recorded, () -> null));
    }
}
