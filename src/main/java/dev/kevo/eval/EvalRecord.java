package dev.kevo.eval;

import dev.kevo.cuda.DeviceInfo;
import java.util.List;

/**
 * The JSON record of one {@code kevo eval} run: enough to trace every number to the device, driver,
 * compiler, kevo version, method and inputs that produced it.
 */
public record EvalRecord(String kevoVersion, String date, List<String> command, DeviceInfo device,
                         String nvrtcVersion, String nvrtcLibrary, String suite, List<String> shapes,
                         String baseline, EvalSettings settings, long inputSeed, List<CandidateResult> results) {
}
