package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.cuda.Compilation;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Screen;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A request and its answer cross the seam whole: what the worker reads is what the supervisor sent. */
class FramesTest {

    private static final Compilation CUBIN = new Compilation("online.cu", "sm_90",
            "\0fake cubin\1".getBytes(StandardCharsets.ISO_8859_1), "online.cu(3): warning: unused",
            Duration.ofNanos(12_345_678), List.of("--gpu-architecture=sm_90", "-DKEVO_X=float"));

    private static Message roundTrip(Message sent) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Frames.write(bytes, sent);
        return Frames.read(new ByteArrayInputStream(bytes.toByteArray())).orElseThrow();
    }

    @Test
    void everyPartOfARunArrivesAsSent() throws IOException {
        KernelFile file = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        Evaluator.Run run = Evaluator.Run.plain().withTimingSecret(-42L).withCold(true).withCompiledAhead(CUBIN)
                .withAtScale(true).withScreen(new Screen(List.of("4x100", "8x128256"), 0.71, "g0003-i1-c2"));
        Message.Evaluate received = (Message.Evaluate) roundTrip(
                new Message.Evaluate(7, Message.FileText.of(file), 99, run));

        assertEquals(7, received.id());
        assertEquals(99, received.inputSeed());
        assertEquals(run, received.run());
        Compilation ahead = received.run().compiledAhead().orElseThrow();
        assertEquals(CUBIN.log(), ahead.log());
        assertEquals(CUBIN.time(), ahead.time());
        assertEquals(CUBIN.options(), ahead.options());
        KernelFile parsed = received.file().parse();
        assertEquals(file.name(), parsed.name());
        assertEquals(file.path(), parsed.path());
        assertEquals(file.source(), parsed.source());
        assertEquals(file.plans().size(), parsed.plans().size());
    }

    @Test
    void aPlainRunArrivesPlainAndAFileWithoutAPathHasNone() throws IOException {
        KernelFile read = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        KernelFile file = read.withSource("k.cu", read.source());
        Message.Evaluate received = (Message.Evaluate) roundTrip(
                new Message.Evaluate(1, Message.FileText.of(file), 0, Evaluator.Run.plain()));
        assertEquals(Evaluator.Run.plain(), received.run());
        assertNull(received.file().path());
        assertNull(received.file().parse().path());
    }

    @Test
    void aCheckOnlyWorkersCubinComesBackWhole() throws IOException {
        CandidateResult passed = CandidateResult.builder("online.cu", Verdict.PASS, 3).build();
        Message.Result received = (Message.Result) roundTrip(new Message.Result(5, passed, false, CUBIN));
        assertEquals(CUBIN, received.compiled());
        assertEquals(CUBIN.time(), received.compiled().time());
        assertTrue(received.result().passed());
        assertNull(((Message.Result) roundTrip(Message.Result.of(6, passed, false))).compiled());
    }
}
