package dev.kevo.export;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.ExitCode;
import dev.kevo.KevoCli;
import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sanitizer records are JSON beside the source, so kevo seals what it writes and exports only what its seal
 * verifies on this host (issue 41: a hand-written record once made kevo export package a kernel no sanitizer ran on,
 * and copy the forgery into the package's provenance).
 */
class SanitizerSealTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path online(Path tmp) throws Exception {
        return Files.copy(TestFiles.root().resolve("seeds/online.cu"), tmp.resolve("online.cu"));
    }

    /** Exports {@code file}, expecting a refusal: exit 5, one line saying why and to re-judge, and no package. */
    private static String refused(Path file, Path tmp) {
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", out.toString());
        assertEquals(ExitCode.UNVERIFIED.code(), r.code(), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        assertTrue(r.err().contains("re-judge with 'kevo eval --sanitize " + file + "' on this host"), r.err());
        assertFalse(Files.exists(out), "nothing packaged, no forgery copied into a provenance");
        return r.err();
    }

    @Test
    void aRecordWrittenByKevosOwnCodeIsExportedWithWhoWroteIt(@TempDir Path tmp) throws Exception {
        Path file = online(tmp);
        SanitizerRecords.clean(file);
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        JsonNode sanitized = JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile()).get("sanitized");
        assertEquals("pass", sanitized.get("verdict").asText());
        assertTrue(sanitized.get("seal").asText().startsWith("hmac-sha256:"), sanitized.toString());
        assertEquals(RecordSeal.version(), sanitized.get("kevoVersion").asText());
        assertFalse(sanitized.get("host").asText().isBlank());
    }

    /** A record kevo wrote, then edited by hand: a finding turned into a pass. */
    @Test
    void anEditedRecordIsRefused(@TempDir Path tmp) throws Exception {
        Path file = online(tmp);
        Path record = SanitizerRecords.write(file, Verdict.MEMORY_ERROR, "memcheck: invalid read of size 4");
        ObjectNode edited = (ObjectNode) JSON.readTree(record.toFile());
        edited.put("verdict", "pass").remove("detail");
        JSON.writeValue(record.toFile(), edited);
        assertTrue(refused(file, tmp).contains("its seal does not verify with this host's key"));
    }

    /** A record written by hand, or by a kevo from before seals: a pass nobody can tie to a sanitizer's run. */
    @Test
    void aHandWrittenRecordIsRefused(@TempDir Path tmp) throws Exception {
        Path file = online(tmp);
        JSON.writeValue(SanitizedRecords.beside(file).toFile(),
                SanitizerRecords.unsealed(Files.readString(file), Verdict.PASS, null));
        assertTrue(refused(file, tmp).contains("it carries no seal"));
    }

    /** Sealed by another host's kevo (another key): genuine there, not verifiable here. */
    @Test
    void aRecordSealedOnAnotherHostIsRefused(@TempDir Path tmp) throws Exception {
        Path file = online(tmp);
        Sanitized elsewhere = RecordSeal.fromEnvironment(Map.of("KEVO_CACHE", tmp.resolve("other-cache").toString()))
                .seal(SanitizerRecords.unsealed(Files.readString(file), Verdict.PASS, null));
        JSON.writeValue(SanitizedRecords.beside(file).toFile(), elsewhere);
        assertTrue(elsewhere.seal().startsWith("hmac-sha256:"));
        assertTrue(refused(file, tmp).contains("its seal does not verify with this host's key"));
    }

    /** A legacy hash (comments stripped) is never a match, even under a seal: one line says to re-judge. */
    @Test
    void aRecordUnderALegacyHashIsRefusedWithTheRejudgeLine(@TempDir Path tmp) throws Exception {
        Path file = online(tmp);
        String legacy = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(Files.readString(file).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        JSON.writeValue(SanitizedRecords.beside(file).toFile(), RecordSeal.local().seal(
                SanitizerRecords.unsealed(Files.readString(file), Verdict.PASS, null).withSourceHash(legacy)));
        assertTrue(refused(file, tmp).contains("it names the source by a legacy hash"));
    }
}
