package dev.kevo.data;

/**
 * What a result must say about the GPU it was measured on.
 *
 * @param clockMHz SM clock the driver reports (the rated boost clock, not a live reading), 0 if not reported
 * @param memoryClockMHz likewise for memory
 */
public record DeviceInfo(int ordinal, String name, String pciBusId, int ccMajor, int ccMinor, int sms,
                         long l2Bytes, long memoryBytes, int maxThreadsPerBlock, int maxSharedPerBlockOptin,
                         int clockMHz, int memoryClockMHz, int memoryBusBits, String driverVersion) {

    /** Every part absent (zero) until set by name. */
    public static Builder builder() {
        return new Builder();
    }

    /** NVRTC's name for the device's own architecture, e.g. sm_90. */
    public String arch() {
        return "sm_" + ccMajor + ccMinor;
    }

    /** Names every part, so that no caller passes a row of values in order. */
    public static final class Builder {
        private int ordinal;
        private String name;
        private String pciBusId;
        private int ccMajor;
        private int ccMinor;
        private int sms;
        private long l2Bytes;
        private long memoryBytes;
        private int maxThreadsPerBlock;
        private int maxSharedPerBlockOptin;
        private int clockMHz;
        private int memoryClockMHz;
        private int memoryBusBits;
        private String driverVersion;

        private Builder() {
        }

        public Builder ordinal(int value) {
            ordinal = value;
            return this;
        }

        public Builder name(String value) {
            name = value;
            return this;
        }

        public Builder pciBusId(String value) {
            pciBusId = value;
            return this;
        }

        public Builder ccMajor(int value) {
            ccMajor = value;
            return this;
        }

        public Builder ccMinor(int value) {
            ccMinor = value;
            return this;
        }

        public Builder sms(int value) {
            sms = value;
            return this;
        }

        public Builder l2Bytes(long value) {
            l2Bytes = value;
            return this;
        }

        public Builder memoryBytes(long value) {
            memoryBytes = value;
            return this;
        }

        public Builder maxThreadsPerBlock(int value) {
            maxThreadsPerBlock = value;
            return this;
        }

        public Builder maxSharedPerBlockOptin(int value) {
            maxSharedPerBlockOptin = value;
            return this;
        }

        public Builder clockMHz(int value) {
            clockMHz = value;
            return this;
        }

        public Builder memoryClockMHz(int value) {
            memoryClockMHz = value;
            return this;
        }

        public Builder memoryBusBits(int value) {
            memoryBusBits = value;
            return this;
        }

        public Builder driverVersion(String value) {
            driverVersion = value;
            return this;
        }

        public DeviceInfo build() {
            return new DeviceInfo(ordinal, name, pciBusId, ccMajor, ccMinor, sms, l2Bytes, memoryBytes,
                    maxThreadsPerBlock, maxSharedPerBlockOptin, clockMHz, memoryClockMHz, memoryBusBits,
                    driverVersion);
        }
    }
}
