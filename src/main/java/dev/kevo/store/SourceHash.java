package dev.kevo.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Identity of a kernel: {@code sha256:} and the SHA-256 of the exact bytes kevo compiles. The header is part of the
 * source, so the knob values (which become the defines) are too. Nothing is normalised away: the preprocessor is
 * line-sensitive, so two files that differ only in what looks like a comment or whitespace (a backslash that
 * splices the next line into a {@code //} comment, a joined {@code #define}, a {@code //} inside a header string)
 * can be different programs, and a campaign must never hand one's result to the other.
 *
 * <p>Campaigns recorded before this identity hold a bare hex digest of the source with comments removed and
 * whitespace collapsed. Such a hash is never a match: two programs can share it, so nothing recorded under it can be
 * said to be of the file at hand; {@link #rejudge} says so in one line.
 */
public final class SourceHash {
    private static final String PREFIX = "sha256:";

    private SourceHash() {
    }

    public static String of(String source) {
        return PREFIX + sha256(source);
    }

    /** Whether {@code source} is exactly the file a record's hash was taken of; a legacy hash never is. */
    public static boolean matches(String source, String recorded) {
        return recorded != null && recorded.equals(of(source));
    }

    /** Whether {@code recorded} is a hash of the form kevo recorded before its identity was the exact bytes. */
    public static boolean isLegacy(String recorded) {
        return recorded != null && !recorded.isEmpty() && !recorded.startsWith(PREFIX);
    }

    /**
     * One line for a record whose hash is a legacy one: {@code what} (for example "its sanitizer record") cannot be
     * tied to {@code file}'s bytes, and {@code how} re-judges it.
     */
    public static String rejudge(String file, String what, String how) {
        return file + ": " + what + " names the source by a legacy hash (comments stripped, which two different "
                + "programs can share), which kevo no longer counts as a match: re-judge this file (" + how + ")";
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                    text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
