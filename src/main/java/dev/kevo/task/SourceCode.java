package dev.kevo.task;

/**
 * A kernel file's text as the compiler's tokenizer sees it, for the rules that read code: comments blanked and
 * spliced lines joined, in one pass over the text. It knows what can hide a comment marker: string literals (raw ones
 * too), character literals (and C++14's digit separator, which is no literal), line comments continued by a
 * backslash, block comments, and backslash-newline splices anywhere outside a raw string. Every place in kevo that
 * ignores comments reads this; a regular expression over the text cannot know whether a {@code /*} is inside a
 * string, and the one kevo used took quadratic time on a file of {@code "/* /* ..."} (20 s for 48 KB).
 *
 * <p>The result keeps the line count: each comment character becomes a space and each line break stays; a splice
 * (a backslash ending a line) is removed and its line break moved to the end of the joined line, so that
 * {@code __NV\}, newline, {@code CC__} reads as the {@code __NVCC__} the compiler sees, and every later line keeps
 * its number.
 */
public final class SourceCode {

    private final String text;
    private final StringBuilder out;
    /** Where the scan is: always moves forward, so the whole scan is linear in the text's length. */
    private int at;
    /** Line breaks of splices on the current line, written out at its end. */
    private int spliced;

    private SourceCode(String text) {
        this.text = text;
        this.out = new StringBuilder(text.length());
    }

    /** {@code source} with comments as spaces and splices joined, line breaks kept (see the class comment). */
    public static String withoutComments(String source) {
        SourceCode scan = new SourceCode(source);
        scan.run();
        return scan.out.toString();
    }

    private void run() {
        while (skipSplices() < text.length()) {
            char c = text.charAt(at);
            if (c == '/' && peek(1) == '/') {
                lineComment();
            } else if (c == '/' && peek(1) == '*') {
                blockComment();
            } else if (c == '"' && rawStringPrefix()) {
                rawString();
            } else if (c == '"' || (c == '\'' && !digitSeparator())) {
                literal(c);
            } else {
                code(c);
            }
        }
        newlines(0);
    }

    /** Skips backslash-newline pairs at {@code at}, counting their line breaks; returns the new position. */
    private int skipSplices() {
        while (at < text.length() && text.charAt(at) == '\\') {
            int after = lineBreakAfter(at + 1);
            if (after < 0) {
                break;
            }
            at = after;
            spliced++;
        }
        return at;
    }

    /** The end of a line break starting at {@code i} ({@code \n} or {@code \r\n}), or -1 where none starts. */
    private int lineBreakAfter(int i) {
        if (i < text.length() && text.charAt(i) == '\n') {
            return i + 1;
        }
        return i + 1 < text.length() && text.charAt(i) == '\r' && text.charAt(i + 1) == '\n' ? i + 2 : -1;
    }

    /** The character {@code n} logical characters ahead of {@code at} (splices skipped), or 0 past the end. */
    private char peek(int n) {
        int i = at;
        for (int k = 0; k <= n; k++) {
            if (k > 0) {
                i++;
            }
            while (i < text.length() && text.charAt(i) == '\\' && lineBreakAfter(i + 1) >= 0) {
                i = lineBreakAfter(i + 1);
            }
        }
        return i < text.length() ? text.charAt(i) : 0;
    }

    /** Copies one character of code; a line break also writes the line breaks of the splices before it. */
    private void code(char c) {
        at++;
        if (c == '\n') {
            newlines(1);
        } else {
            out.append(c);
        }
    }

    private void newlines(int own) {
        for (int k = 0; k < own + spliced; k++) {
            out.append('\n');
        }
        spliced = 0;
    }

    /** {@code //} to the end of the line (a splice continues it), as spaces; the line break is code's. */
    private void lineComment() {
        while (skipSplices() < text.length() && text.charAt(at) != '\n') {
            blank();
        }
    }

    /** Through the closing star-slash (or to the end of an unclosed one), as spaces, line breaks kept. */
    private void blockComment() {
        blank();
        skipSplices();
        blank();
        while (skipSplices() < text.length()) {
            if (text.charAt(at) == '*' && peek(1) == '/') {
                blank();
                skipSplices();
                blank();
                return;
            }
            if (text.charAt(at) == '\n') {
                code('\n');
            } else {
                blank();
            }
        }
    }

    private void blank() {
        at++;
        out.append(' ');
    }

    /**
     * A string or character literal, copied as it is: it ends at its unescaped quote, or at the end of the line
     * (an unterminated literal is the compiler's error to report, and must not swallow the rest of the file).
     */
    private void literal(char quote) {
        code(quote);
        while (skipSplices() < text.length()) {
            char c = text.charAt(at);
            if (c == '\n' || c == '\r') {
                return;
            }
            code(c);
            if (c == quote) {
                return;
            }
            if (c == '\\' && skipSplices() < text.length() && text.charAt(at) != '\n') {
                code(text.charAt(at));
            }
        }
    }

    /**
     * Whether the {@code '} at {@code at} separates digits ({@code 1'000'000}) rather than opening a character
     * literal: it follows an identifier or number character, and that token is no literal prefix ({@code u8},
     * {@code u}, {@code U}, {@code L}).
     */
    private boolean digitSeparator() {
        String token = tokenBefore();
        return !token.isEmpty() && !token.equals("u8") && !token.equals("u") && !token.equals("U")
                && !token.equals("L");
    }

    /** Whether the {@code "} at {@code at} opens a raw string: {@code R"}, {@code u8R"}, {@code uR"}, {@code UR"}, {@code LR"}. */
    private boolean rawStringPrefix() {
        String token = tokenBefore();
        return token.equals("R") || token.equals("u8R") || token.equals("uR") || token.equals("UR")
                || token.equals("LR");
    }

    /** The identifier or number characters written just before {@code at}; at most 4 are looked at. */
    private String tokenBefore() {
        int start = out.length();
        while (start > 0 && out.length() - start < 4 && identifierPart(out.charAt(start - 1))) {
            start--;
        }
        return out.substring(start);
    }

    private static boolean identifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_';
    }

    /**
     * {@code R"delim( ... )delim"}, copied as it is: nothing inside is a comment, an escape or a splice. An unclosed
     * one, or a delimiter the compiler would refuse, runs to the end of the file, which does not compile.
     */
    private void rawString() {
        int open = text.indexOf('(', at + 1);
        int end = open < 0 || open - at - 1 > 16 ? -1
                : text.indexOf(")" + text.substring(at + 1, open) + "\"", open + 1);
        int stop = end < 0 ? text.length() : end + (open - at) + 1;
        while (at < stop) {
            code(text.charAt(at));
        }
    }
}
