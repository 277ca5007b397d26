package dev.kevo.data;

import java.util.List;

/**
 * campaign.yaml: everything needed to continue, inspect or re-evaluate a campaign on another machine, frozen
 * when it started: the config with defaults filled in, the evaluation settings (in config/eval.yaml's shape), the
 * suite's shapes and the baseline: its name (a kernel file's source is saved beside it as baseline.cu) and, since
 * cuDNN can be the baseline, the baseline as resolved ({@code baseline_choice}: cuDNN's version and library, and
 * why). Folders from before that have no choice: their baseline is the kernel file.
 */
public record FrozenCampaign(String kevoVersion, String createdAt, CampaignConfig config, EvalSettings eval,
                             String suiteName, List<String> shapes, String baselineName,
                             BaselineChoice baselineChoice) {
    public FrozenCampaign {
        shapes = List.copyOf(shapes);
    }

    public static FrozenCampaign of(String kevoVersion, String createdAt, CampaignConfig config, EvalSettings eval,
                                    String suiteName, List<String> shapes, BaselineChoice baseline) {
        return new FrozenCampaign(kevoVersion, createdAt, config, eval, suiteName, shapes,
                baseline.name(), baseline);
    }

    /** A campaign judged against the kernel file {@code baselineName}. */
    public static FrozenCampaign of(String kevoVersion, String createdAt, CampaignConfig config, EvalSettings eval,
                                    String suiteName, List<String> shapes, String baselineName) {
        return of(kevoVersion, createdAt, config, eval, suiteName, shapes, BaselineChoice.file(baselineName, null));
    }

    /** The baseline the campaign ran against: as recorded, or (an older folder) its kernel file. */
    public BaselineChoice baseline() {
        return baselineChoice != null ? baselineChoice : BaselineChoice.file(baselineName, null);
    }

    /** The evaluation settings, keys absent from an older folder having taken today's defaults. */
    public EvalSettings settings() {
        return eval;
    }
}
