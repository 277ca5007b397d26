package dev.kevo.agent;

import java.util.List;
import java.util.random.RandomGenerator;

/** A draw in proportion to weights: which agent answers, which prompt template, which regime to explore. */
public final class WeightedDraw {
    private WeightedDraw() {
    }

    /**
     * The index drawn, each with probability weight / sum; one {@code nextDouble} per draw.
     *
     * @param weights not negative, at least one positive
     */
    public static int index(List<Double> weights, RandomGenerator random) {
        double r = random.nextDouble() * weights.stream().mapToDouble(Double::doubleValue).sum();
        for (int i = 0; i < weights.size(); i++) {
            r -= weights.get(i);
            if (r < 0) {
                return i;
            }
        }
        return weights.size() - 1;  // rounding left r at 0
    }
}
