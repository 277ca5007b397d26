package dev.kevo.report;

import dev.kevo.KevoException;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.MutantRecord;
import dev.kevo.report.CompareData.ShapeCompare;
import dev.kevo.report.CompareData.Side;
import dev.kevo.report.MutantView.ShapeRow;
import dev.kevo.report.ReportData.ChampionMoment;
import dev.kevo.report.ReportData.ScorePoint;
import dev.kevo.store.CampaignStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Compares two campaigns (their progress, verdicts and champions) or two mutants (per shape, and their diff).
 * A side is a campaign folder, or a mutant as {@code FOLDER/ID}, {@code FOLDER/ID.json} or {@code FOLDER/ID.cu};
 * a campaign stands for its champion wherever mutants are compared.
 */
public final class CampaignCompare {

    /** What a command-line argument names: a campaign, and in it a mutant or (null) the whole campaign. */
    record Target(CampaignStore store, String mutantId) {
    }

    private CampaignCompare() {
    }

    public static CompareData compare(Path a, Path b, Path pageDir) {
        Side sideA = side("A", resolve(a), pageDir);
        Side sideB = side("B", resolve(b), pageDir);
        List<ShapeCompare> shapes = shapes(sideA.mutant(), sideB.mutant());
        SourceDiff diff = sideA.mutant() == null || sideB.mutant() == null ? null
                : SourceDiff.of(sideA.mutant().id(), "A/" + sideA.mutant().id() + ".cu", sideA.mutant().source(),
                "B/" + sideB.mutant().id() + ".cu", sideB.mutant().source());
        return new CompareData("compare", sideA, sideB, shapes, diff, notes(sideA, sideB),
                MeasurementMethod.NOISE_BOUND);
    }

    static Target resolve(Path path) {
        if (Files.isDirectory(path)) {
            return new Target(CampaignStore.open(path), null);
        }
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        String id = name.replaceFirst("\\.(json|cu)$", "");
        Path folder = path.toAbsolutePath().getParent();
        if (folder != null && Files.isRegularFile(folder.resolve(CampaignStore.CONFIG))
                && Files.isRegularFile(folder.resolve(id + ".json"))) {
            return new Target(CampaignStore.open(folder), id);
        }
        throw KevoException.input(path + ": neither a campaign folder nor a mutant in one (FOLDER/ID or FOLDER/ID.json)");
    }

    private static Side side(String letter, Target target, Path pageDir) {
        ReportData campaign = CampaignReport.gather(target.store(), 0, pageDir);
        MutantView mutant;
        if (target.mutantId() == null) {
            String champion = campaign.summary().championId();
            mutant = champion == null ? null : view(target.store(), champion, pageDir);
        } else {
            mutant = view(target.store(), target.mutantId(), pageDir);
        }
        String label = letter + ": " + campaign.summary().campaign()
                + (target.mutantId() == null ? "" : "/" + mutant.id());
        return new Side(label, target.mutantId() == null, campaign.summary(), progress(campaign),
                groups(campaign.evaluations()), mutant);
    }

    private static MutantView view(CampaignStore store, String id, Path pageDir) {
        // champion.json is a copy of the champion's record: read it, then open the mutant under its own id.
        MutantRecord record = store.mutant(id)
                .orElseThrow(() -> KevoException.input(store.dir() + ": no mutant '" + id + "'"));
        return MutantView.of(store, record, new FileLinks(pageDir, store.dir()));
    }

    /** Champion moments, then the best held to the last evaluation, so a step line reaches the campaign's end. */
    static List<ChampionMoment> progress(ReportData campaign) {
        List<ChampionMoment> out = new ArrayList<>(campaign.champions());
        if (!out.isEmpty() && !campaign.evaluations().isEmpty()) {
            ChampionMoment best = out.getLast();
            ScorePoint last = campaign.evaluations().getLast();
            out.add(new ChampionMoment(best.id(), last.evaluation(), last.minutes(), best.score(), best.island(),
                    best.generation()));
        }
        return out;
    }

    static Map<String, Integer> groups(List<ScorePoint> evaluations) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (VerdictGroup g : VerdictGroup.values()) {
            int n = (int) evaluations.stream().filter(e -> e.group().equals(g.label())).count();
            if (n > 0) {
                out.put(g.label(), n);
            }
        }
        return out;
    }

    /** Shapes in A's order, then any only B has; a shape one side lacks (or did not time) has nulls there. */
    static List<ShapeCompare> shapes(MutantView a, MutantView b) {
        Map<String, ShapeRow> left = byShape(a);
        Map<String, ShapeRow> right = byShape(b);
        Set<String> names = new LinkedHashSet<>(left.keySet());
        names.addAll(right.keySet());
        List<ShapeCompare> out = new ArrayList<>();
        for (String shape : names) {
            ShapeRow x = left.get(shape);
            ShapeRow y = right.get(shape);
            Double aUs = x == null ? null : x.timeUs();
            Double bUs = y == null ? null : y.timeUs();
            out.add(new ShapeCompare(shape, aUs, bUs, aUs == null || bUs == null ? null : aUs / bUs,
                    x == null ? null : x.floor(), y == null ? null : y.floor(), x == null ? null : x.speedup(),
                    y == null ? null : y.speedup(), x != null && x.copyUs() != null ? x.copyUs()
                            : y == null ? null : y.copyUs()));
        }
        return out;
    }

    private static Map<String, ShapeRow> byShape(MutantView m) {
        Map<String, ShapeRow> out = new LinkedHashMap<>();
        if (m != null) {
            m.shapes().forEach(s -> out.put(s.shape(), s));
        }
        return out;
    }

    static List<String> notes(Side a, Side b) {
        List<String> notes = new ArrayList<>();
        if (!Objects.equals(a.summary().suite(), b.summary().suite())
                || !a.summary().shapes().equals(b.summary().shapes())) {
            notes.add("A and B were judged on different suites (" + a.summary().suite() + ", " + b.summary().suite()
                    + "): scores are geometric means over different shapes; compare shape by shape.");
        }
        if (!Objects.equals(a.summary().baseline(), b.summary().baseline())) {
            notes.add("A and B are scored against different baselines (" + a.summary().baseline() + ", "
                    + b.summary().baseline() + "): scores and speedups are not comparable; times are.");
        }
        if (a.mutant() != null && b.mutant() != null && a.mutant().source().equals(b.mutant().source())) {
            notes.add("A and B are the same kernel (identical sources): differences in time are measurement noise.");
        }
        if (a.mutant() == null || b.mutant() == null) {
            notes.add("A side without a champion has no kernel to compare shape by shape.");
        }
        return notes;
    }
}
