package dev.kevo.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Identity of a kernel for the evaluation cache: SHA-256 of its source with comments (other than the launch
 * plan header, which changes what runs) removed and whitespace collapsed.
 */
public final class SourceHash {
    private static final Pattern COMMENT = Pattern.compile("(?s)/\\*(?!@kevo).*?\\*/|//[^\\n]*");

    private SourceHash() {
    }

    public static String of(String source) {
        Matcher m = COMMENT.matcher(source);
        String normalised = m.replaceAll(" ").replaceAll("\\s+", " ").strip();
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(normalised.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
