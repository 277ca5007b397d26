package dev.kevo.data;


/** What a campaign's models have cost so far: tokens in and out, and money at the configured prices. */
public record Spend(long inputTokens, long outputTokens, double cost) {
    public static final Spend NONE = new Spend(0, 0, 0);

    public Spend plus(ModelUsage usage) {
        return usage == null ? this : new Spend(inputTokens + usage.inputTokens(), outputTokens + usage.outputTokens(),
                cost + usage.cost());
    }
}
