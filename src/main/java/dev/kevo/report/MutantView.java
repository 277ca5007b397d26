package dev.kevo.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.ShapeResult;
import dev.kevo.store.CampaignStore;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * One mutant as the page opens it: what it is, its source, its diff against each parent and its per-shape
 * results. Sources travel inside the page, so it shows them without the campaign folder beside it.
 *
 * @param score null unless it passed
 * @param deterministic whether a repeated launch wrote the same bits on every shape; null where not checked
 * @param diffs one per parent whose source is in the folder (none for a seed)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MutantView(String id, List<String> parents, int generation, int island, String agent,
                         String operator, String summary, String verdict, String group, String detail, Double score,
                         Double floor, Boolean deterministic, String cachedFrom, String description, List<String> kernels,
                         String sourceHref, String jsonHref, String source, List<SourceDiff> diffs,
                         List<ShapeRow> shapes) {

    /** Times in microseconds; ci is the half-width of the median's 95% interval, relative to it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ShapeRow(String shape, String verdict, Integer plan, Double timeUs, Double ci, Double baselineUs,
                           Double copyUs, Double speedup, Double floor, Double relativeL2, String detail) {

        static ShapeRow of(ShapeResult s) {
            return new ShapeRow(s.shape(), s.verdict().id(), s.plan(),
                    s.candidate() == null ? null : s.candidate().medianMs() * 1000,
                    s.candidate() == null ? null : s.candidate().relativeCi(),
                    s.baseline() == null ? null : s.baseline().medianMs() * 1000,
                    s.copy() == null ? null : s.copy().medianMs() * 1000, s.speedup(), s.floorFraction(),
                    s.relativeL2(), s.detail());
        }
    }

    static MutantView of(CampaignStore store, MutantRecord m, FileLinks links) {
        String source = store.source(m.id());
        List<SourceDiff> diffs = new ArrayList<>();
        for (String parent : m.parents()) {
            if (Files.isRegularFile(store.sourcePath(parent))) {
                diffs.add(SourceDiff.of(parent, parent + ".cu", store.source(parent), m.id() + ".cu", source));
            }
        }
        CandidateResult r = m.result();
        return new MutantView(m.id(), m.parents(), m.generation(), m.island(), m.agent(), m.operator(), m.summary(),
                r.verdict().id(), VerdictGroup.of(r.verdict()).label(), r.detail(), m.passed() ? m.fitness() : null,
                r.score() == null ? null : r.score().floorFraction(), r.deterministic(), m.cachedFrom(),
                r.description(),
                r.kernels().stream().map(EvalTable::resources).toList(), links.file(m.id() + ".cu"),
                links.file(m.id() + ".json"), source, diffs, r.shapes().stream().map(ShapeRow::of).toList());
    }
}
