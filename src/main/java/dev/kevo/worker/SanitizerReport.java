package dev.kevo.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one compute-sanitizer tool wrote about a run: its summary count, each finding it printed (what, and in which
 * function), and whether it saw the worker fail. Read from the text of its log, whose every line starts with
 * {@code =========}; findings in the formats its manual and real reports show (a finding's header, then indented
 * lines: {@code at FUNCTION+0xOFFSET}, the thread and block, the address).
 *
 * @param summarized whether the tool's summary line was there: a log without one is of a run that did not finish
 * @param count the summary's count: errors (memcheck, initcheck, synccheck) or hazards displayed (racecheck)
 * @param findings the findings printed, in order (at most the print limit of them)
 * @param targetFailed whether the sanitizer said the worker ended with an error
 */
record SanitizerReport(SanitizerTool tool, boolean summarized, long count, List<Finding> findings,
                       boolean targetFailed) {

    /**
     * One finding.
     *
     * @param what what happened, in a few words ("invalid __global__ read of size 4 bytes, 64 bytes after an
     *     allocation of 16384 bytes")
     * @param function the kernel or device function it happened in, when the report names one
     * @param hazards for a racecheck analysis line, the hazards it stands for; 1 otherwise
     */
    record Finding(String what, Optional<String> function, long hazards) {
    }

    private static final Pattern PREFIX = Pattern.compile("^=========( ?)");
    private static final Pattern ERROR_SUMMARY = Pattern.compile("ERROR SUMMARY: ([\\d,]+) errors?");
    private static final Pattern RACE_SUMMARY = Pattern.compile("RACECHECK SUMMARY: ([\\d,]+) hazards? displayed");
    private static final Pattern INVALID = Pattern.compile("^(Potential )?[Ii]nvalid (__\\w+__ )?\\w+ of size .*");
    private static final Pattern UNINITIALIZED = Pattern.compile("^Uninitialized __\\w+__ memory .*");
    private static final Pattern BARRIER = Pattern.compile("^(Barrier error detected|Warpgroup MMA sequence error"
            + " detected)\\.?\\s*(.*)$");
    private static final Pattern RACE = Pattern.compile("^(?i:error|warning): Race reported between (\\w+) access at "
            + "(.+?)(?:\\s+\\[([\\d,]+) hazards?])?$");
    private static final Pattern RACE_MORE = Pattern.compile("^and (\\w+) access at (.+?)(?:\\s+\\[([\\d,]+) hazards?])?$");
    private static final Pattern HAZARD = Pattern.compile("^(?i:error|warning): Potential (WAW|WAR|RAW) hazard "
            + "detected at __shared__.*");
    /** memcheck's hardware exceptions have no one format; these words start the ones it reports. */
    private static final Pattern EXCEPTION = Pattern.compile("^(?i:.*\\b(illegal|misaligned|out-of-range|exception"
            + "|malloc/free error)\\b.*)");
    private static final Pattern AT = Pattern.compile("(?:^|\\s)at (.+)$");
    private static final Pattern OLD_AT = Pattern.compile("^0x[0-9a-fA-F]+ in .*?:\\d+:(.+)$");
    private static final Pattern AFTER = Pattern.compile("^and is ([\\d,]+) bytes (after|before) the nearest "
            + "allocation at \\S+ of size ([\\d,]+) bytes");
    /** Lines the tools print that are no finding. */
    private static final Pattern NOT_A_FINDING = Pattern.compile("^(COMPUTE-SANITIZER|Program hit|Process ID|"
            + "Target application|Saved host backtrace|Host Frame|Device Frame|LEAK SUMMARY|Leaked|Note|Warning: "
            + "Detected overflow|.*SUMMARY:).*");

    static SanitizerReport parse(SanitizerTool tool, String log) {
        boolean summarized = false;
        long count = 0;
        boolean targetFailed = false;
        List<Finding> findings = new ArrayList<>();
        Draft open = null;
        for (String raw : log.split("\\R")) {
            Matcher prefixed = PREFIX.matcher(raw);
            if (!prefixed.find()) {
                continue;  // the worker's own output, where the log has any
            }
            String rest = raw.substring(prefixed.end());
            boolean continued = rest.startsWith(" ") || rest.startsWith("\t");
            String line = rest.strip();
            Matcher summary = (tool == SanitizerTool.RACECHECK ? RACE_SUMMARY : ERROR_SUMMARY).matcher(line);
            if (summary.find()) {
                summarized = true;
                count += number(summary.group(1));
                continue;
            }
            if (line.startsWith("Target application returned an error")) {
                targetFailed = true;
                continue;
            }
            if (line.isEmpty()) {
                continue;
            }
            if (continued && open != null) {
                open.more(line);
                continue;
            }
            Draft next = header(tool, line);
            if (next != null) {
                if (open != null) {
                    findings.add(open.finding());
                }
                open = next;
            }
        }
        if (open != null) {
            findings.add(open.finding());
        }
        return new SanitizerReport(tool, summarized, count, List.copyOf(findings), targetFailed);
    }

    /** A finding's first line, or null for a line that starts none. */
    private static Draft header(SanitizerTool tool, String line) {
        if (NOT_A_FINDING.matcher(line).matches()) {
            return null;
        }
        Matcher m;
        if ((m = RACE.matcher(line)).matches()) {
            Draft d = new Draft("shared memory");
            d.function = function(m.group(2));
            d.accesses.add(m.group(1).toLowerCase(Locale.ROOT));
            d.hazards = m.group(3) == null ? 0 : number(m.group(3));
            d.race = true;
            return d;
        }
        if ((m = HAZARD.matcher(line)).matches()) {
            return new Draft("shared memory, " + switch (m.group(1)) {
                case "WAR" -> "write-after-read";
                case "RAW" -> "read-after-write";
                default -> "write-after-write";
            });
        }
        if ((m = BARRIER.matcher(line)).matches()) {
            return new Draft(m.group(2).isBlank() ? "barrier error" : "barrier error: " + lowerFirst(m.group(2)));
        }
        if (INVALID.matcher(line).matches() || UNINITIALIZED.matcher(line).matches()
                || (tool == SanitizerTool.MEMCHECK && EXCEPTION.matcher(line).matches())) {
            return new Draft(lowerFirst(line));
        }
        return null;
    }

    /** The function an {@code at} clause names: "softmax_online+0x1a0 in k.cu:12" gives softmax_online. */
    static Optional<String> function(String at) {
        String s = at.strip();
        Matcher old = OLD_AT.matcher(s);
        if (old.matches()) {
            s = old.group(1).strip();  // older reports: "0xd80 in file.cu:162:void name<...>(...)"
        }
        s = s.replaceFirst("^(void|__global__)\\s+", "");
        int end = s.length();
        for (String stop : List.of("(", "<", "+0x", ":0x", " ", "[")) {
            int i = s.indexOf(stop);
            if (i >= 0) {
                end = Math.min(end, i);
            }
        }
        String name = s.substring(0, end);
        return name.isEmpty() || name.startsWith("0x") ? Optional.empty() : Optional.of(name);
    }

    private static long number(String digits) {
        return Long.parseLong(digits.replace(",", ""));
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    /** A finding being read: its header, then what its indented lines add. */
    private static final class Draft {
        private final String what;
        private Optional<String> function = Optional.empty();
        private String where = "";
        private final List<String> accesses = new ArrayList<>();
        private long hazards;
        private boolean race;

        Draft(String what) {
            this.what = what;
        }

        void more(String line) {
            Matcher m;
            if (race && (m = RACE_MORE.matcher(line)).matches()) {
                accesses.add(m.group(1).toLowerCase(Locale.ROOT));
                if (function.isEmpty()) {
                    function = function(m.group(2));
                }
                if (m.group(3) != null) {
                    hazards += number(m.group(3));
                }
            } else if (line.endsWith("is misaligned")) {
                where = ", misaligned";
            } else if ((m = AFTER.matcher(line)).find()) {
                where = ", " + m.group(1) + " bytes " + m.group(2) + " an allocation of " + m.group(3) + " bytes";
            } else if (function.isEmpty() && (m = AT.matcher(line)).find()) {
                function = function(m.group(1));
            }
        }

        Finding finding() {
            if (race) {
                List<String> kinds = accesses.stream().distinct().sorted().toList();
                String between = kinds.size() == 1 ? "two " + kinds.getFirst() + "s" : String.join(" and a ", kinds);
                return new Finding("shared memory, " + (kinds.size() == 1 ? between : "a " + between)
                        + " no barrier orders", function, Math.max(1, hazards));
            }
            return new Finding(what + where, function, 1);
        }
    }

    /** Whether the run was clean: the summary there and zero, nothing printed, the worker ended well. */
    boolean clean() {
        return summarized && count == 0 && findings.isEmpty() && !targetFailed;
    }

    /**
     * The one line a verdict gives: "racecheck: 2 hazards in smem_race (shared memory, a read and a write no barrier
     * orders)"; null for a clean run.
     */
    String detail() {
        if (clean()) {
            return null;
        }
        boolean races = tool == SanitizerTool.RACECHECK;
        long analysed = findings.stream().mapToLong(Finding::hazards).sum();
        long n = races && analysed > 0 ? Math.max(analysed, count) : Math.max(count, findings.size());
        String unit = races ? (n == 1 ? "hazard" : "hazards") : (n == 1 ? "error" : "errors");
        if (findings.isEmpty()) {
            return tool.id() + ": " + (n > 0 ? n + " " + unit + ", none printed in a form kevo reads"
                    : targetFailed ? "the worker ended with an error under it" : "no summary in its report");
        }
        Finding first = findings.getFirst();
        return tool.id() + ": " + n + " " + unit + first.function().map(f -> " in " + f).orElse("") + " ("
                + first.what() + ")";
    }
}
