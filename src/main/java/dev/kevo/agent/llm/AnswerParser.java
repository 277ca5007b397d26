package dev.kevo.agent.llm;

import dev.kevo.task.ContractParser;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a kernel file out of a model's answer: either a whole file in one fenced code block ({@code ```cuda},
 * {@code ```cpp}, {@code ```c} or unlabelled), or aider-style SEARCH/REPLACE blocks applied to the file the
 * prompt showed. Anything else (no code, two different files, a SEARCH that is not in the file, a block cut
 * off) is one line saying what and where, so the failure record explains itself.
 */
final class AnswerParser {

    /** Longer answers are not parsed: a kernel file is at most 256 KB, its explanation needs no more than that. */
    static final int MAX_ANSWER_CHARS = 2 * ContractParser.MAX_SOURCE_BYTES;

    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(`{3,}|~{3,})\\s*([^`\\s]*)[^`]*$");
    private static final Pattern SEARCH = Pattern.compile("^\\s*<{5,9}\\s*SEARCH\\s*$");
    private static final Pattern DIVIDER = Pattern.compile("^\\s*={5,9}\\s*$");
    private static final Pattern REPLACE = Pattern.compile("^\\s*>{5,9}\\s*REPLACE\\s*$");
    private static final Pattern SUMMARY = Pattern.compile(
            "^[\\s*#_>-]*(?:change|summary|what changed)[*_]*\\s*:[*_]*\\s*(.+)$", Pattern.CASE_INSENSITIVE);
    private static final Set<String> C_LANGUAGES = Set.of("", "cuda", "cu", "cuh", "c", "cpp", "c++", "cxx", "cc",
            "h", "hpp");
    private static final int SUMMARY_CHARS = 160;

    /** How SEARCH/REPLACE blocks went, as the mutant's record says it; a whole-file answer has none. */
    static final String APPLIED = "applied";
    static final String APPLIED_IGNORING_WHITESPACE = "applied-ignoring-whitespace";
    static final String UNMATCHED = "unmatched";
    static final String AMBIGUOUS = "ambiguous";
    static final String MALFORMED = "malformed";

    /**
     * A rejected answer: the message says what was wrong and where.
     *
     * @param patch for an answer of SEARCH/REPLACE blocks, how applying them failed ({@link #UNMATCHED}: a block
     *     quotes lines the file does not have, even ignoring whitespace); null for any other answer
     */
    static final class Unusable extends RuntimeException {
        private final String patch;

        Unusable(String message) {
            this(message, null);
        }

        Unusable(String message, String patch) {
            super(message);
            this.patch = patch;
        }

        String patch() {
            return patch;
        }
    }

    /**
     * @param source the complete kernel file
     * @param form {@code file} or {@code search/replace}
     * @param summary the model's own one-line account of the change, or empty
     * @param patch {@link #APPLIED} or {@link #APPLIED_IGNORING_WHITESPACE} for blocks, null for a whole file
     */
    record Parsed(String source, String form, String summary, String patch) {
    }

    /** The file as edited so far, and whether any block needed whitespace ignored to find its place. */
    private record Edited(String text, boolean loose) {
    }

    private record Block(int line, String language, String body) {
    }

    private AnswerParser() {
    }

    /**
     * @param answer the model's raw text
     * @param base the file SEARCH blocks apply to (the one the prompt showed as the starting point)
     */
    static Parsed parse(String answer, String base) {
        if (answer == null || answer.isBlank()) {
            throw new Unusable("empty answer");
        }
        if (answer.length() > MAX_ANSWER_CHARS) {
            throw new Unusable("answer of " + answer.length() + " characters, over the " + MAX_ANSWER_CHARS
                    + "-character limit (a kernel file is at most " + ContractParser.MAX_SOURCE_BYTES + " bytes)");
        }
        List<String> lines = answer.replace("\r\n", "\n").lines().toList();
        boolean diff = lines.stream().anyMatch(l -> SEARCH.matcher(l).matches());
        Edited edited = diff ? applyEdits(lines, base) : new Edited(wholeFile(lines), false);
        String source = edited.text();
        int bytes = source.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > ContractParser.MAX_SOURCE_BYTES) {
            throw new Unusable(ContractParser.oversized("the kernel file in the answer", bytes));
        }
        String patch = !diff ? null : edited.loose() ? APPLIED_IGNORING_WHITESPACE : APPLIED;
        return new Parsed(source, diff ? "search/replace" : "file", summary(lines), patch);
    }

    private static String wholeFile(List<String> lines) {
        List<Block> blocks = blocks(lines);
        if (blocks.isEmpty()) {
            String text = String.join("\n", lines).strip();
            if (text.startsWith(ContractParser.HEADER_START)) {
                return text + "\n";  // a bare file with no fence around it
            }
            throw new Unusable("no code block: expected the whole kernel file in one ```cuda block, or "
                    + "SEARCH/REPLACE blocks");
        }
        List<Block> code = blocks.stream().filter(b -> C_LANGUAGES.contains(b.language())).toList();
        List<Block> files = code.stream().filter(b -> b.body().contains(ContractParser.HEADER_START)).toList();
        if (files.isEmpty()) {
            if (code.isEmpty()) {
                throw new Unusable("no cuda code block (found " + blocks.size() + " block(s) labelled "
                        + blocks.stream().map(b -> "'" + b.language() + "'").distinct().toList() + ")");
            }
            throw new Unusable("the code block at line " + code.getFirst().line() + " has no "
                    + ContractParser.HEADER_START + " header: answer with the whole file, header included, or "
                    + "with SEARCH/REPLACE blocks");
        }
        Block first = files.getFirst();
        for (Block other : files.subList(1, files.size())) {
            if (!normalized(other.body()).equals(normalized(first.body()))) {
                throw new Unusable(files.size() + " code blocks hold different kernel files (lines " + first.line()
                        + " and " + other.line() + "): answer with one");
            }
        }
        return first.body();
    }

    /** Fenced blocks; a fence closes only with the same character, at least as long, and nothing after it. */
    private static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = FENCE.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String fence = open.group(1);
            String language = open.group(2).toLowerCase(Locale.ROOT);
            StringBuilder body = new StringBuilder();
            int j = i + 1;
            for (; j < lines.size(); j++) {
                String t = lines.get(j).strip();
                if (t.length() >= fence.length() && t.chars().allMatch(c -> c == fence.charAt(0))) {
                    break;
                }
                body.append(lines.get(j)).append('\n');
            }
            if (j == lines.size()) {
                throw new Unusable("the code block opened at line " + (i + 1) + " is never closed (answer cut short?)");
            }
            blocks.add(new Block(i + 1, language, body.toString()));
            i = j;
        }
        return blocks;
    }

    private static Edited applyEdits(List<String> lines, String base) {
        if (base == null) {
            throw new Unusable("SEARCH/REPLACE blocks but no file to apply them to", MALFORMED);
        }
        Edited text = new Edited(base.replace("\r\n", "\n"), false);
        int index = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (!SEARCH.matcher(lines.get(i)).matches()) {
                continue;
            }
            index++;
            int start = i + 1;
            int divider = find(lines, start, DIVIDER);
            int end = divider < 0 ? -1 : find(lines, divider + 1, REPLACE);
            if (divider < 0 || end < 0 || (find(lines, start, SEARCH) >= 0 && find(lines, start, SEARCH) < end)) {
                throw new Unusable("SEARCH/REPLACE block " + index + " (line " + (i + 1) + ") is never closed with "
                        + (divider < 0 ? "=======" : ">>>>>>> REPLACE") + " (answer cut short?)", MALFORMED);
            }
            List<String> search = lines.subList(start, divider);
            List<String> replace = lines.subList(divider + 1, end);
            if (search.stream().allMatch(String::isBlank)) {
                throw new Unusable("SEARCH block " + index + " (line " + (i + 1) + ") is empty: it must quote lines "
                        + "of the file", MALFORMED);
            }
            text = replaceOnce(text, search, replace, index, i + 1);
            i = end;
        }
        return text;
    }

    private static int find(List<String> lines, int from, Pattern p) {
        for (int i = from; i < lines.size(); i++) {
            if (p.matcher(lines.get(i)).matches()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Replaces the one place the SEARCH lines occur: exactly, or else line by line ignoring indentation, trailing
     * spaces and runs of spaces (models re-indent and re-space what they quote). None or several places is an
     * error: a guess between places could edit the wrong one.
     */
    private static Edited replaceOnce(Edited edited, List<String> search, List<String> replace, int index, int line) {
        String text = edited.text();
        String needle = String.join("\n", search);
        List<Integer> exact = new ArrayList<>();
        for (int at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
            int end = at + needle.length();
            if ((at == 0 || text.charAt(at - 1) == '\n') && (end == text.length() || text.charAt(end) == '\n')) {
                exact.add(at);  // whole lines only: a SEARCH quoting part of a line must not splice into it
            }
        }
        if (exact.size() > 1) {
            throw new Unusable("SEARCH block " + index + " (line " + line + ") matches several places in the "
                    + "file; quote enough lines to make it unique", AMBIGUOUS);
        }
        if (exact.size() == 1) {
            int at = exact.getFirst();
            return new Edited(text.substring(0, at) + String.join("\n", replace) + text.substring(at + needle.length()),
                    edited.loose());
        }
        List<String> file = new ArrayList<>(List.of(text.split("\n", -1)));
        List<Integer> matches = new ArrayList<>();
        for (int s = 0; s + search.size() <= file.size(); s++) {
            boolean same = true;
            for (int k = 0; k < search.size() && same; k++) {
                same = loose(file.get(s + k)).equals(loose(search.get(k)));
            }
            if (same) {
                matches.add(s);
            }
        }
        if (matches.size() != 1) {
            String first = search.stream().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
            throw matches.isEmpty()
                    ? new Unusable("SEARCH block " + index + " (line " + line + ") does not match the file (its first "
                    + "line: '" + RetryPolicy.oneLine(first, 80) + "')", UNMATCHED)
                    : new Unusable("SEARCH block " + index + " (line " + line + ") matches " + matches.size()
                    + " places in the file; quote enough lines to make it unique", AMBIGUOUS);
        }
        int s = matches.getFirst();
        List<String> out = new ArrayList<>(file.subList(0, s));
        out.addAll(reindented(replace, search, file.subList(s, s + search.size())));
        out.addAll(file.subList(s + search.size(), file.size()));
        return new Edited(String.join("\n", out), true);
    }

    private static String loose(String line) {
        return line.strip().replaceAll("\\s+", " ");
    }

    /**
     * The replacement moved to the file's indentation: a model that quoted a block at column 0 usually writes its
     * replacement at column 0 too, and the kernel should not end up with a ragged block nobody can review. A
     * replacement that does not start at the quote's indentation was indented by the model itself and is kept.
     */
    private static List<String> reindented(List<String> replace, List<String> search, List<String> found) {
        int k = 0;
        while (k < search.size() && search.get(k).isBlank()) {
            k++;
        }
        if (k == search.size()) {
            return replace;
        }
        String quoted = indent(search.get(k));
        String actual = indent(found.get(k));
        String written = replace.stream().filter(r -> !r.isBlank()).findFirst().map(AnswerParser::indent).orElse("");
        if (quoted.equals(actual) || !written.equals(quoted)) {
            return replace;
        }
        return replace.stream().map(r -> r.isBlank() || !r.startsWith(quoted) ? r
                : actual + r.substring(quoted.length())).toList();
    }

    private static String indent(String line) {
        return line.substring(0, line.length() - line.stripLeading().length());
    }

    /** The model's "Change: ..." line, or its first line of prose. */
    private static String summary(List<String> lines) {
        List<String> prose = new ArrayList<>();
        boolean inFence = false;
        boolean inEdit = false;
        for (String l : lines) {
            if (SEARCH.matcher(l).matches() || REPLACE.matcher(l).matches()) {
                inEdit = SEARCH.matcher(l).matches();
            } else if (FENCE.matcher(l).matches()) {
                inFence = !inFence;
            } else if (!inFence && !inEdit && !l.isBlank()) {
                prose.add(l);
            }
        }
        for (String l : prose) {
            Matcher m = SUMMARY.matcher(l);
            if (m.matches()) {
                return clean(m.group(1));
            }
        }
        return prose.isEmpty() ? "" : clean(prose.getFirst());
    }

    private static String clean(String line) {
        return RetryPolicy.oneLine(line.replaceAll("[*`#]", "").replaceFirst("^[\\s>-]+", ""), SUMMARY_CHARS);
    }

    private static String normalized(String body) {
        return body.lines().map(String::stripTrailing).reduce("", (a, b) -> a + b + "\n").strip();
    }
}
