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

    /** NVRTC's name for the device's own architecture, e.g. sm_90. */
    public String arch() {
        return "sm_" + ccMajor + ccMinor;
    }
}
