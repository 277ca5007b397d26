package dev.kevo.report;

import com.github.difflib.DiffUtils;
import com.github.difflib.UnifiedDiffUtils;
import com.github.difflib.patch.AbstractDelta;
import com.github.difflib.patch.Patch;
import java.util.List;

/**
 * A unified diff between two kernel sources, as {@code diff -u} would print it, with counts of added and
 * removed lines. Computed here (java-diff-utils, Myers) so the page only has to colour lines.
 *
 * @param against the id the diff is taken from (the parent, or the other side of a comparison)
 */
public record SourceDiff(String against, String unified, int added, int removed) {

    private static final int CONTEXT = 3;

    public static SourceDiff of(String against, String fromName, String from, String toName, String to) {
        List<String> a = from.lines().toList();
        List<String> b = to.lines().toList();
        Patch<String> patch = DiffUtils.diff(a, b);
        int added = 0;
        int removed = 0;
        for (AbstractDelta<String> delta : patch.getDeltas()) {
            added += delta.getTarget().size();
            removed += delta.getSource().size();
        }
        List<String> lines = UnifiedDiffUtils.generateUnifiedDiff(fromName, toName, a, patch, CONTEXT);
        return new SourceDiff(against, String.join("\n", lines), added, removed);
    }
}
