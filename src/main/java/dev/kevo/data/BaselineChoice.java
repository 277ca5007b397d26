package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The baseline a run measured speedups against, as recorded (campaign.yaml, {@code kevo eval --json}): which one,
 * which library and version, and why it was the one.
 *
 * @param name {@value #CUDNN} or a kernel file's name ({@code block_two_pass.cu})
 * @param version cuDNN's version, e.g. {@code 9.14.0}; null for a kernel file
 * @param library the cuDNN library that was loaded; null for a kernel file
 * @param reason why this baseline, e.g. {@code auto: libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BaselineChoice(String name, String version, String library, String reason) {
    public static final String CUDNN = "cudnn";
    public static final String AUTO = "auto";

    public static BaselineChoice cudnn(String version, String library, String reason) {
        return new BaselineChoice(CUDNN, version, library, reason);
    }

    public static BaselineChoice file(String fileName, String reason) {
        return new BaselineChoice(fileName, null, null, reason);
    }

    @JsonIgnore
    public boolean isCudnn() {
        return CUDNN.equals(name);
    }

    /** How speedups are named: {@code 2.10x over cuDNN 9.14.0}, {@code 6.23x over block_two_pass}. */
    @JsonIgnore
    public String label() {
        return isCudnn() ? "cuDNN " + version : labelOf(name);
    }

    /** For a header: {@code cudnn 9.14.0 (auto: libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu)}. */
    @JsonIgnore
    public String describe() {
        String what = isCudnn() ? CUDNN + " " + version : labelOf(name);
        return reason == null || reason.isBlank() ? what : what + " (" + reason + ")";
    }

    /** A kernel file baseline's name without its extension, as old campaigns (which recorded only that) show it. */
    public static String labelOf(String baselineName) {
        return baselineName.endsWith(".cu") ? baselineName.substring(0, baselineName.length() - 3) : baselineName;
    }
}
