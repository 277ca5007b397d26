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
}
