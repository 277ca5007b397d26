package dev.kevo.data;


import java.util.List;

/**
 * The JSON record of one {@code kevo eval} run: enough to trace every number to the device, driver,
 * compiler, kevo version, method and inputs that produced it.
 *
 * @param wallSeconds the command's own wall time, from after JVM start to the record (device and NVRTC
 *     start-up, baseline check and every candidate included)
 * @param workerStartupMs of that, the worker's start until ready: its JVM, CUDA context, NVRTC, trusted kernels,
 *     buffers and the baseline's check
 * @param baseline the baseline's name ({@code cudnn} or a kernel file's); {@code baselineChoice} adds its version,
 *     library and why it was chosen
 */
public record EvalRecord(String kevoVersion, String date, List<String> command, DeviceInfo device,
                         String nvrtcVersion, String nvrtcLibrary, String suite, List<String> shapes,
                         String baseline, EvalSettings settings, long inputSeed, double wallSeconds, double workerStartupMs,
                         List<CandidateResult> results, BaselineChoice baselineChoice) {

    /** Every part absent until set by name. */
    public static Builder builder() {
        return new Builder();
    }

    /** Names every part, so that no caller passes a row of values in order. */
    public static final class Builder {
        private String kevoVersion;
        private String date;
        private List<String> command;
        private DeviceInfo device;
        private String nvrtcVersion;
        private String nvrtcLibrary;
        private String suite;
        private List<String> shapes;
        private String baseline;
        private EvalSettings settings;
        private long inputSeed;
        private double wallSeconds;
        private double workerStartupMs;
        private List<CandidateResult> results;
        private BaselineChoice baselineChoice;

        private Builder() {
        }

        public Builder kevoVersion(String value) {
            kevoVersion = value;
            return this;
        }

        public Builder date(String value) {
            date = value;
            return this;
        }

        public Builder command(List<String> value) {
            command = value;
            return this;
        }

        public Builder device(DeviceInfo value) {
            device = value;
            return this;
        }

        public Builder nvrtcVersion(String value) {
            nvrtcVersion = value;
            return this;
        }

        public Builder nvrtcLibrary(String value) {
            nvrtcLibrary = value;
            return this;
        }

        public Builder suite(String value) {
            suite = value;
            return this;
        }

        public Builder shapes(List<String> value) {
            shapes = value;
            return this;
        }

        public Builder baseline(String value) {
            baseline = value;
            return this;
        }

        public Builder settings(EvalSettings value) {
            settings = value;
            return this;
        }

        public Builder inputSeed(long value) {
            inputSeed = value;
            return this;
        }

        public Builder wallSeconds(double value) {
            wallSeconds = value;
            return this;
        }

        public Builder workerStartupMs(double value) {
            workerStartupMs = value;
            return this;
        }

        public Builder results(List<CandidateResult> value) {
            results = value;
            return this;
        }

        public Builder baselineChoice(BaselineChoice value) {
            baselineChoice = value;
            return this;
        }

        public EvalRecord build() {
            return new EvalRecord(kevoVersion, date, command, device, nvrtcVersion, nvrtcLibrary, suite, shapes,
                    baseline, settings, inputSeed, wallSeconds, workerStartupMs, results, baselineChoice);
        }
    }
}
