package dev.kevo.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.kevo.data.Defaults;
import dev.kevo.data.Score;
import java.util.List;
import java.util.Map;

/**
 * Everything the campaign page shows, gathered from a campaign folder by {@link CampaignReport}. The page gets
 * it as one JSON object and draws from it alone, so what a test checks here is what a reader sees.
 *
 * @param evaluations every mutant in the order it was judged
 * @param champions the moments the campaign's best changed, in order
 * @param usage LLM tokens and cost by model; empty when no record carries any
 * @param mutants the mutants the page can open (lineage, top, seeds): source, diffs, per-shape results
 */
public record ReportData(String kind, Summary summary, List<ScorePoint> evaluations, List<IslandSeries> islands,
                         List<ChampionMoment> champions, ShapeBars shapes, LineageGraph lineage,
                         List<VerdictBin> verdicts, List<UsageSeries> usage, List<TopRow> top,
                         Map<String, MutantView> mutants) {

    /**
     * @param evaluations candidates judged, kevo's count: cache hits and agent failures are not judged
     * @param generation generations completed (state.json); null before the seeds were all judged
     * @param minutes campaign wall time, summed over runs
     * @param championScoreCi the champion score's interval, low and high; null when its result has none (saved
     *     before scores had one)
     * @param championSanitized what compute-sanitizer found in the champion ({@code Sanitized.line()}); null when it
     *     did not run on the champion's source
     * @param championConfirmed the champion's score and floor as the confirmation measured them, side by side with
     *     the other contenders, in one line; null when the campaign has not confirmed it
     * @param championStanding what speaks against the champion now ({@link ChampionStanding}): a later judgement
     *     rejected it, or it was never checked on input cases kevo checks now; null when nothing does
     */
    public record Summary(String campaign, String kevoVersion, String createdAt, String suite, String op, String dtype,
                          String baseline,
                          List<String> shapes, int islands, int population, List<String> agents, Integer generation,
                          int evaluations, int mutants, int cacheHits, int rejected, double minutes,
                          String championId, Double championScore, List<Double> championScoreCi, Double championFloor,
                          String championSanitized, String championConfirmed, String championStanding,
                          Map<String, Integer> verdicts) {

        /** A summary of the campaign {@code campaign} with nothing else known yet: set what is. */
        public static Builder builder(String campaign) {
            return new Builder(campaign);
        }

        /** Names every part, so that no caller passes twenty-three values in order. */
        public static final class Builder {
            private final String campaign;
            private String kevoVersion;
            private String createdAt;
            private String suite;
            private String op = Defaults.OP;
            private String dtype;
            private String baseline;
            private List<String> shapes = List.of();
            private int islands;
            private int population;
            private List<String> agents = List.of();
            private Integer generation;
            private int evaluations;
            private int mutants;
            private int cacheHits;
            private int rejected;
            private double minutes;
            private String championId;
            private Double championScore;
            private List<Double> championScoreCi;
            private Double championFloor;
            private String championSanitized;
            private String championConfirmed;
            private String championStanding;
            private Map<String, Integer> verdicts = Map.of();

            private Builder(String campaign) {
                this.campaign = campaign;
            }

            /** Which kevo recorded it, and when it started. */
            public Builder recorded(String version, String at) {
                kevoVersion = version;
                createdAt = at;
                return this;
            }

            public Builder suite(String name, List<String> suiteShapes) {
                suite = name;
                shapes = suiteShapes;
                return this;
            }

            /** The operator judged (softmax where not set: every campaign before the key). */
            public Builder op(String value) {
                op = value;
                return this;
            }

            public Builder dtype(String value) {
                dtype = value;
                return this;
            }

            public Builder baseline(String label) {
                baseline = label;
                return this;
            }

            /** How many islands, each with {@code size} members, and the agents that proposed. */
            public Builder islands(int count, int size, List<String> agentNames) {
                islands = count;
                population = size;
                agents = agentNames;
                return this;
            }

            public Builder generation(Integer value) {
                generation = value;
                return this;
            }

            public Builder evaluations(int value) {
                evaluations = value;
                return this;
            }

            public Builder mutants(int value) {
                mutants = value;
                return this;
            }

            public Builder cacheHits(int value) {
                cacheHits = value;
                return this;
            }

            public Builder rejected(int value) {
                rejected = value;
                return this;
            }

            public Builder minutes(double value) {
                minutes = value;
                return this;
            }

            /**
             * The champion: its id, the score it is ranked by, and its result's score, whose interval (where the
             * result has one) and floor the page shows.
             */
            public Builder champion(String id, double fitness, Score score) {
                championId = id;
                championScore = fitness;
                championScoreCi = score == null || !score.hasInterval() ? null : List.of(score.ciLow(), score.ciHigh());
                championFloor = score == null ? null : score.floorFraction();
                return this;
            }

            /**
             * What compute-sanitizer found in the champion, its confirmation, and what newer checks say of it
             * ({@link ChampionStanding}), each in one line (or null).
             */
            public Builder championChecks(String sanitized, String confirmed, String standing) {
                championSanitized = sanitized;
                championConfirmed = confirmed;
                championStanding = standing;
                return this;
            }

            public Builder verdicts(Map<String, Integer> value) {
                verdicts = value;
                return this;
            }

            public Summary build() {
                return new Summary(campaign, kevoVersion, createdAt, suite, op, dtype, baseline, shapes, islands,
                        population, agents, generation, evaluations, mutants, cacheHits, rejected, minutes, championId,
                        championScore, championScoreCi, championFloor, championSanitized, championConfirmed,
                        championStanding, verdicts);
            }
        }
    }

    /**
     * One mutant as it was judged.
     *
     * @param evaluation kevo's evaluation count once this one was judged (a cache hit repeats the previous one)
     * @param minutes since the campaign started
     * @param score null unless it passed
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record ScorePoint(String id, int evaluation, double minutes, int island, int generation, String agent,
                             String operator, String verdict, String group, Double score, String cachedFrom,
                             List<LlmUsage> usage) {
    }

    public record IslandSeries(int island, List<IslandPoint> points) {
    }

    /**
     * An island after one generation (generation 0: the seeds, which every island starts from).
     *
     * @param best best score among the seeds and the island's own children so far
     * @param median median score of the children that passed in this generation
     */
    public record IslandPoint(int generation, int evaluation, double minutes, Double best, Double median,
                              int children, int passed) {
    }

    public record ChampionMoment(String id, int evaluation, double minutes, double score, int island,
                                 int generation) {
    }

    /**
     * Per-shape times (microseconds) and memory-floor fractions of the champion, the seeds, the baseline and
     * the copy that defines the floor; a list per series, in the suite's shape order, null where not timed.
     */
    public record ShapeBars(List<String> shapes, List<ShapeSeries> series) {
    }

    /** @param role champion, seed, baseline or floor (the plain copy) */
    public record ShapeSeries(String name, String role, List<Double> timeUs, List<Double> floor) {
    }

    public record LineageGraph(String target, List<LineageNode> nodes, List<LineageEdge> edges) {
    }

    /** @param role seed, champion or mutant */
    public record LineageNode(String id, int generation, int island, String agent, String operator, String summary,
                              String verdict, Double score, String role) {
    }

    /** @param kind mutation, crossover or repair */
    public record LineageEdge(String source, String target, String kind) {
    }

    /** Verdicts of one generation's mutants: by group (the chart) and exactly (the tooltip and table). */
    public record VerdictBin(int generation, Map<String, Integer> groups, Map<String, Integer> verdicts) {
    }

    public record UsageSeries(String model, List<UsagePoint> points) {
    }

    /** One mutant's use of a model, and the model's running totals up to it. */
    public record UsagePoint(String id, int evaluation, double minutes, long tokens, double costUsd,
                             long totalTokens, double totalCostUsd) {
    }

    public record TopRow(int rank, String id, double score, Double floor, int generation, int island, String agent,
                         String operator, String summary, String worstShape, Double worstFloor, String sourceHref,
                         String jsonHref) {
    }
}
