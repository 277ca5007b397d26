package dev.kevo.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Identity of a kernel: {@code sha256:} and the SHA-256 of the exact bytes kevo compiles. The header is part of the
 * source, so the knob values (which become the defines) are too. Nothing is normalised away: the preprocessor is
 * line-sensitive, so two files that differ only in what looks like a comment or whitespace (a backslash that
 * splices the next line into a {@code //} comment, a joined {@code #define}, a {@code //} inside a header string)
 * can be different programs, and a campaign must never hand one's result to the other.
 *
 * <p>Campaigns recorded before this identity hold a bare hex digest of the source with comments removed and
 * whitespace collapsed; {@link #matches} still reads those, for the records they are.
 */
public final class SourceHash {
    private static final String PREFIX = "sha256:";
    private static final Pattern LEGACY_COMMENT = Pattern.compile("(?s)/\\*(?!@kevo).*?\\*/|//[^\\n]*");

    private SourceHash() {
    }

    public static String of(String source) {
        return PREFIX + sha256(source);
    }

    /** Whether {@code source} is the file a record's hash was taken of, whichever identity the record used. */
    public static boolean matches(String source, String recorded) {
        if (recorded == null) {
            return false;
        }
        if (recorded.startsWith(PREFIX)) {
            return recorded.equals(of(source));
        }
        String legacy = LEGACY_COMMENT.matcher(source).replaceAll(" ").replaceAll("\\s+", " ").strip();
        return recorded.equals(sha256(legacy));
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
