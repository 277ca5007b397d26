package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * What one of a kernel file's plans was judged on in one evaluation: kevo's claims about a file are made per plan
 * (an exported package runs a plan only within what it was judged on), so its checks are counted per plan.
 *
 * @param plan the plan's number in the file's header, from 1
 * @param shapes how many shapes it was checked on (suite, fresh, held-out and at-scale ones)
 * @param allCases a shape it was checked on with every input case; null when none was
 * @param deterministic whether a second launch on one input wrote the same bits; null when it was never repeated
 * @param largest its checked shape with the most elements
 * @param largestElements that shape's elements: the most an export runs this plan on
 * @param sms the multiprocessor counts it was checked at (the device's own, and the others champion confirmation and
 *     {@code kevo eval --at-scale} resolve its expressions for), in increasing order
 * @param atScale its checked shapes past 2^31 elements
 * @param notJudged why a check the plan should have had did not run here (an SM count it cannot launch at on this
 *     device, no shape of it past 2^31 elements), one line each
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record PlanJudgement(int plan, int shapes, String allCases, Boolean deterministic, String largest,
                            long largestElements, List<Integer> sms, List<String> atScale, List<String> notJudged) {

    public PlanJudgement {
        sms = sms == null ? List.of() : List.copyOf(sms);
        atScale = atScale == null ? List.of() : List.copyOf(atScale);
        notJudged = notJudged == null ? List.of() : List.copyOf(notJudged);
    }

    /**
     * True when the plan had every per-plan check: every case on one shape, the repeat. An export runs only such
     * plans.
     */
    public boolean complete() {
        return allCases != null && deterministic != null;
    }

    /** Whether it was checked with its expressions resolved for {@code count} multiprocessors. */
    public boolean judgedAt(int count) {
        return sms.contains(count);
    }
}
