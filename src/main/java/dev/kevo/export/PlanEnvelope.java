package dev.kevo.export;

import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Sanitized;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where an exported package runs each of a kernel file's plans: only a plan kevo judged in full (every case on one
 * shape, the repeat) and compute-sanitizer ran, on shapes of at most as many elements as it was judged on, at the
 * multiprocessor counts it was judged at. The package refuses the rest, naming the plan and what it lacks.
 *
 * @param plans one entry per plan of the file, in its order
 */
record PlanEnvelope(List<Entry> plans) {

    /**
     * @param plan its number in the header, from 1
     * @param runs whether the package runs it at all
     * @param why when it does not, why, in a phrase
     * @param maxElements the most elements it runs on
     * @param sms the multiprocessor counts it runs at
     */
    record Entry(int plan, boolean runs, String why, long maxElements, List<Integer> sms) {
        Entry {
            sms = List.copyOf(sms);
        }
    }

    /** The envelope of a file of {@code planCount} plans judged as {@code judged} says and sanitized by {@code pass}. */
    static PlanEnvelope of(int planCount, List<PlanJudgement> judged, Sanitized pass) {
        List<Entry> out = new ArrayList<>();
        for (int p = 1; p <= planCount; p++) {
            int plan = p;
            Optional<PlanJudgement> j = judged.stream().filter(x -> x.plan() == plan).findFirst();
            String why = j.isEmpty() ? "no shape kevo checked reaches it"
                    : !j.get().complete() ? "it never had every input case on one shape and a repeated launch"
                    : pass == null || !pass.covers(plan) ? "compute-sanitizer never ran it"
                    : null;
            out.add(why == null
                    ? new Entry(plan, true, null, j.get().largestElements(), j.get().sms())
                    : new Entry(plan, false, why, 0, List.of()));
        }
        return new PlanEnvelope(out);
    }

    /** The most elements any plan runs on: what the package accepts at all. */
    long maxElements() {
        return plans.stream().mapToLong(Entry::maxElements).max().orElse(0);
    }

    /** In a phrase: how many plans run, how many only at some SM counts, how many not at all. */
    String summary() {
        java.util.Set<Integer> counts = new java.util.TreeSet<>();
        plans.stream().filter(Entry::runs).forEach(e -> counts.addAll(e.sms()));
        long runs = plans.stream().filter(Entry::runs).count();
        long partly = plans.stream().filter(e -> e.runs() && !e.sms().containsAll(counts)).count();
        return runs + " of " + plans.size() + " plans run" + (partly == 0 ? "" : ", " + partly + " of them at fewer "
                + "SM counts than " + counts);
    }

    boolean runsAny() {
        return plans.stream().anyMatch(Entry::runs);
    }
}
