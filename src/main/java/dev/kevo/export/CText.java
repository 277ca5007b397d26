package dev.kevo.export;

/** Text placed into generated C and C++ sources: string literals and one-line comments that cannot break out. */
final class CText {
    private CText() {
    }

    /** A C string literal holding {@code text}, every character outside printable ASCII escaped. */
    static String string(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (byte b : text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            int ch = b & 0xff;
            if (ch == '"' || ch == '\\') {
                out.append('\\').append((char) ch);
            } else if (ch >= 0x20 && ch < 0x7f && ch != '?') {
                out.append((char) ch);
            } else {
                // Octal escapes are at most three digits, so a following digit cannot be swallowed; '?' is escaped
                // so that no trigraph forms.
                out.append(String.format("\\%03o", ch));
            }
        }
        return out.append('"').toString();
    }

    /** Text for a {@code //} comment: one line, no way to continue it onto the next. */
    static String comment(String text) {
        return text.replaceAll("[\\r\\n]+", " ").replace("\\", "/");
    }
}
