package dev.kevo.data;

/**
 * When a float32 softmax counts as right, judged against a float64 reference.
 *
 * @param relativeL2 bound on ||y - ref||_2 / ||ref||_2 over a whole case
 * @param absolute per element: |y - ref| must stay under {@code absolute + relative * |ref|}
 * @param relative see {@code absolute}
 */
public record Tolerance(double relativeL2, double absolute, double relative) {

    /** Calibrated on the seeds (README, "Tolerances"; bench/results/tolerance-calibration-h100.json). */
    public static final Tolerance DEFAULT = new Tolerance(1e-4, 1e-6, 1e-4);

    public Tolerance {
        if (!(relativeL2 > 0 && absolute >= 0 && relative >= 0)) {
            throw new IllegalArgumentException("tolerances must be positive");
        }
    }

    public boolean elementOk(double got, double ref) {
        return Math.abs(got - ref) <= absolute + relative * Math.abs(ref);
    }
}
