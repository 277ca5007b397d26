package dev.kevo.report;

import dev.kevo.report.ReportData.ChampionMoment;
import dev.kevo.report.ReportData.Summary;
import java.util.List;
import java.util.Map;

/**
 * What {@code kevo report --compare A B} shows, gathered by {@link CampaignCompare}: each side's campaign and the
 * mutant that stands for it (a campaign's champion, or the mutant named), their per-shape results side by side,
 * and the diff from A's source to B's.
 *
 * @param notes what a reader must know before trusting a difference (other suite, other baseline, same kernel)
 * @param repeatability the evaluator's measured repeatability, a fraction: smaller differences between runs are noise
 */
public record CompareData(String kind, Side a, Side b, List<ShapeCompare> shapes, SourceDiff diff,
                         List<String> notes, double repeatability) {

    /**
     * @param campaign true when the side names a whole campaign (then its progress is drawn too)
     * @param progress the side's champion moments, then one last point at its final evaluation
     * @param groups mutants per verdict group over the whole campaign
     * @param mutant the side's champion, or the mutant named; null for a campaign without one
     */
    public record Side(String label, boolean campaign, Summary summary, List<ChampionMoment> progress,
                       Map<String, Integer> groups, MutantView mutant) {
    }

    /**
     * One shape; times in microseconds.
     *
     * @param ratio A's time over B's: above 1, B is faster on this shape
     */
    public record ShapeCompare(String shape, Double aUs, Double bUs, Double ratio, Double aFloor, Double bFloor,
                               Double aSpeedup, Double bSpeedup, Double copyUs) {
    }
}
