package dev.kevo.data;

import java.util.List;

/**
 * The first step of a cascade, sent with a candidate: time it on {@code shapes} (suite shapes) first, and on the
 * rest of the suite only when its memory-floor geometric mean over them reaches {@code floorBar}; else its verdict is
 * {@code screened}. Checks are never cut short: a screened candidate passed every check of every shape. {@code
 * against} names the kernel whose floor on the same shapes, less the cascade's margin, set the bar.
 */
public record Screen(List<String> shapes, double floorBar, String against) {
    public Screen {
        shapes = List.copyOf(shapes);
    }

    /**
     * The screen for a child of an island whose best is {@code best}: the bar is {@code best}'s memory-floor geometric
     * mean over {@code shapes}, less {@code margin} of it. Null when {@code best} has no timing on one of them (a
     * record judged before the suite changed): the child is then timed on every shape.
     */
    public static Screen against(CandidateResult best, String bestId, List<String> shapes, double margin) {
        Double floor = floor(best.shapes(), shapes);
        return floor == null ? null : new Screen(shapes, floor * (1 - margin), bestId);
    }

    /** The memory-floor geometric mean of {@code timed} over this screen's shapes; null when one is not timed. */
    public Double floorOver(List<ShapeResult> timed) {
        return floor(timed, shapes);
    }

    private static Double floor(List<ShapeResult> timed, List<String> shapes) {
        double[] floors = new double[shapes.size()];
        for (int i = 0; i < floors.length; i++) {
            String shape = shapes.get(i);
            ShapeResult r = timed.stream().filter(s -> s.shape().equals(shape)).findFirst().orElse(null);
            if (r == null || r.floorFraction() == null || r.floorFraction() <= 0) {
                return null;
            }
            floors[i] = r.floorFraction();
        }
        return Score.geometricMean(java.util.Arrays.stream(floors));
    }
}
