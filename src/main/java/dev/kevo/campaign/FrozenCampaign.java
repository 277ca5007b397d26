package dev.kevo.campaign;

import dev.kevo.eval.EvalSettings;
import dev.kevo.campaign.CampaignConfig;
import java.util.List;

/**
 * campaign.yaml: everything needed to continue, inspect or re-evaluate a campaign on another machine, frozen
 * when it started: the config with defaults filled in, the evaluation settings (in config/eval.yaml's shape), the
 * suite's shapes and the baseline's name (its source is saved beside it as baseline.cu).
 */
public record FrozenCampaign(String kevoVersion, String createdAt, CampaignConfig config, EvalSettings.Yaml eval,
                             String suiteName, List<String> shapes, String baselineName) {
    public FrozenCampaign {
        shapes = List.copyOf(shapes);
    }

    public static FrozenCampaign of(String kevoVersion, String createdAt, CampaignConfig config, EvalSettings eval,
                                    String suiteName, List<String> shapes, String baselineName) {
        return new FrozenCampaign(kevoVersion, createdAt, config, EvalSettings.Yaml.of(eval), suiteName, shapes,
                baselineName);
    }

    /** The evaluation settings, keys absent from an older folder taking today's defaults. */
    public EvalSettings settings() {
        return eval.toSettings();
    }
}
