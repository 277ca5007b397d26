package dev.kevo.task.op;

import java.util.Random;

/** Inputs for the operators' CPU reference tests: reproducible normal values, one seed per array. */
final class RandomRows {
    private RandomRows() {
    }

    /** {@code n} floats drawn from a normal distribution of standard deviation {@code scale}. */
    static float[] normal(int n, double scale, long seed) {
        Random random = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (random.nextGaussian() * scale);
        }
        return x;
    }
}
