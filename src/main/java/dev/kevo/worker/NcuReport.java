package dev.kevo.worker;

import dev.kevo.data.Profile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what {@code ncu --csv --page raw} wrote: a header row naming the columns ("ID", ..., "Kernel Name", ...,
 * then one column per metric), a row of units, and one row per profiled launch. Lines ncu prints besides (its
 * {@code ==PROF==} notes) are skipped.
 */
final class NcuReport {
    /** Stall reasons a profile keeps per launch: the few a model can act on. */
    static final int TOP_STALLS = 3;

    private NcuReport() {
    }

    /** One map per profiled launch, column name to its text, in launch order; empty when no header was found. */
    static List<Map<String, String>> rows(String text) {
        List<String> header = null;
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : text.lines().toList()) {
            if (!line.startsWith("\"")) {
                continue;
            }
            List<String> cells = cells(line);
            if (header == null) {
                if (cells.contains("Kernel Name")) {
                    header = cells;
                }
                continue;
            }
            if (cells.isEmpty() || cells.getFirst().isEmpty()) {
                continue;  // the units row
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < Math.min(header.size(), cells.size()); i++) {
                row.put(header.get(i), cells.get(i));
            }
            rows.add(row);
        }
        return rows;
    }

    /** The launches of {@code text}, each given its shape from {@code shapes} (one entry per launch, in order). */
    static List<Profile.Launch> launches(String text, List<String> shapes) {
        List<Map<String, String>> rows = rows(text);
        List<Profile.Launch> launches = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            Map<String, String> row = rows.get(i);
            List<Profile.Stall> stalls = new ArrayList<>();
            for (String reason : NsightCompute.STALLS) {
                Double v = number(row.get(NsightCompute.stallMetric(reason)));
                if (v != null && v > 0) {
                    stalls.add(new Profile.Stall(reason, v));
                }
            }
            stalls.sort(Comparator.comparingDouble(Profile.Stall::cyclesPerIssue).reversed());
            Double ns = number(row.get(NsightCompute.DURATION));
            launches.add(new Profile.Launch(i < shapes.size() ? shapes.get(i) : null, row.get("Kernel Name"),
                    number(row.get(NsightCompute.DRAM)), number(row.get(NsightCompute.OCCUPANCY)),
                    ns == null ? null : ns / 1000, stalls.subList(0, Math.min(TOP_STALLS, stalls.size()))));
        }
        return launches;
    }

    /** A metric's value; ncu may group thousands with commas. Null when absent or not a number ("n/a"). */
    static Double number(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Double.parseDouble(text.replace(",", "").strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The cells of one CSV line, every cell in double quotes, a quote inside doubled. */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
