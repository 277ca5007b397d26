package dev.kevo.eval;

import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What each plan of one file was judged on over one evaluation, as its checks pass: the per-plan record a result
 * carries ({@link PlanJudgement}), and what a check still owes a plan (every case on one shape, the repeat). Plans
 * are numbered from 0 here, as {@link dev.kevo.task.ResolvedPlan#planIndex} numbers them.
 */
final class PlanLedger {
    private final int deviceSms;
    private final Map<Integer, Entry> plans = new TreeMap<>();

    PlanLedger(int deviceSms) {
        this.deviceSms = deviceSms;
    }

    private static final class Entry {
        /** Shapes checked at the device's own multiprocessor count, in the order checked. */
        final Set<Shape> shapes = new LinkedHashSet<>();
        int others;
        Shape allCases;
        Boolean deterministic;
        Shape largest;
        final TreeSet<Integer> sms = new TreeSet<>();
        final Map<Integer, String> cannotLaunch = new LinkedHashMap<>();
        final List<String> atScale = new ArrayList<>();
        final List<String> notJudged = new ArrayList<>();
    }

    private Entry entry(int plan) {
        return plans.computeIfAbsent(plan, p -> new Entry());
    }

    /**
     * {@code plan} passed on {@code shape} with its expressions resolved for {@code sms} multiprocessors, on every case
     * ({@code allCases}) or some; {@code repeats}: whether a second launch wrote the same bits, null when not tried.
     */
    void passed(int plan, Shape shape, int sms, boolean allCases, Boolean repeats) {
        Entry e = entry(plan);
        e.sms.add(sms);
        if (e.largest == null || shape.elements() > e.largest.elements()) {
            e.largest = shape;
        }
        if (sms != deviceSms) {
            e.others++;
            return;
        }
        e.shapes.add(shape);
        if (allCases && e.allCases == null) {
            e.allCases = shape;
        }
        if (repeats != null) {
            e.deterministic = e.deterministic == null ? repeats : e.deterministic && repeats;
        }
        if (shape.elements() > Integer.MAX_VALUE) {
            e.atScale.add(shape.toString());
        }
    }

    /** True until {@code plan} has passed every case on one shape at the device's count. */
    boolean owesAllCases(int plan) {
        Entry e = plans.get(plan);
        return e == null || e.allCases == null;
    }

    /** True until {@code plan} has been launched twice on one input. */
    boolean owesRepeat(int plan) {
        Entry e = plans.get(plan);
        return e == null || e.deterministic == null;
    }

    /** {@code plan}, resolved for {@code sms} multiprocessors, cannot be launched on this device: {@code why}. */
    void cannotLaunch(int plan, int sms, String why) {
        entry(plan).cannotLaunch.putIfAbsent(sms, why);
    }

    /** A check {@code plan} should have had did not run: {@code why}, in one line. */
    void notJudged(int plan, String why) {
        entry(plan).notJudged.add(why);
    }

    /** The plans that passed a check at the device's count, with the shapes they passed on, in the order checked. */
    Map<Integer, List<Shape>> shapesByPlan() {
        Map<Integer, List<Shape>> out = new TreeMap<>();
        plans.forEach((p, e) -> {
            if (!e.shapes.isEmpty()) {
                out.put(p, List.copyOf(e.shapes));
            }
        });
        return out;
    }

    /** Every plan that passed a check, as a result records it. */
    List<PlanJudgement> judgements() {
        List<PlanJudgement> out = new ArrayList<>();
        plans.forEach((p, e) -> {
            if (e.largest == null) {
                return;  // only told it cannot launch somewhere: it passed nothing
            }
            List<Integer> sms = e.sms.stream().filter(c -> !e.cannotLaunch.containsKey(c)).toList();
            List<String> notJudged = new ArrayList<>(e.notJudged);
            e.cannotLaunch.forEach((count, why) -> notJudged.add(count + " SMs: " + why));
            out.add(new PlanJudgement(p + 1, e.shapes.size() + e.others, e.allCases == null ? null
                    : e.allCases.toString(), e.deterministic, e.largest.toString(), e.largest.elements(), sms,
                    e.atScale, notJudged));
        });
        return out;
    }
}
