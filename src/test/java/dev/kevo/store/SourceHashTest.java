package dev.kevo.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A kernel's identity is the exact bytes compiled: twins that a comment- or whitespace-blind hash confused differ. */
class SourceHashTest {
    private static final String HEADER = "/*@kevo\n{ \"description\": \"see https://example.org/a\", \"plans\": "
            + "[ { \"launches\": [ { \"kernel\": \"k\", \"grid\": \"rows\", \"block\": 32, \"args\": [\"x\", \"y\"] } ] } ] }\n*/\n";

    /** Pairs that differ by one character, each a different program to the preprocessor or to kevo. */
    static final List<List<String>> TWINS = List.of(
            // a backslash at the end of a // comment splices the next line into the comment
            List.of(HEADER + "// note\nfloat m = 0.0f;\n", HEADER + "// note\\\nfloat m = 0.0f;\n"),
            // a joined #define takes the next line into the macro
            List.of(HEADER + "#define SCALE 2.0f\nfloat s = SCALE;\n", HEADER + "#define SCALE 2.0f\\\nfloat s = SCALE;\n"),
            // a // inside a header string is no comment: what follows on that line is part of the plan
            List.of(HEADER, HEADER.replace("\"block\": 32", "\"block\": 64")),
            // whitespace inside a string literal or between tokens the preprocessor pastes
            List.of(HEADER + "#define J(a, b) a##b\n", HEADER + "#define J(a, b) a ## b\n"));

    @Test
    void twinsThatDifferByOneCharacterHaveDifferentIdentities() {
        for (List<String> twin : TWINS) {
            assertNotEquals(SourceHash.of(twin.get(0)), SourceHash.of(twin.get(1)), twin.get(1));
            assertFalse(SourceHash.matches(twin.get(1), SourceHash.of(twin.get(0))), twin.get(1));
        }
    }

    @Test
    void aSourceMatchesItsOwnHash() {
        String source = HEADER + "extern \"C\" __global__ void k(const float* x, float* y) {}\n";
        assertTrue(SourceHash.of(source).startsWith("sha256:"));
        assertTrue(SourceHash.matches(source, SourceHash.of(source)));
        assertFalse(SourceHash.matches(source, null));
    }

    /**
     * A legacy hash (the comment-blind digest campaigns recorded before) is never a match, not even for the source
     * it was taken of: two programs can share it (issue 41). It is recognised, to say "re-judge this".
     */
    @Test
    void aLegacyHashIsNeverAMatchButIsKnownForWhatItIs() throws Exception {
        String legacy = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest("float a; float b;".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertFalse(SourceHash.matches("float a;  // first\n/* two */ float b;\n", legacy));
        assertFalse(SourceHash.matches("float a; float b;", legacy));
        assertTrue(SourceHash.isLegacy(legacy));
        assertFalse(SourceHash.isLegacy(SourceHash.of("float a;")));
        assertFalse(SourceHash.isLegacy(null));
    }
}
