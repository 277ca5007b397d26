package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A campaign's settings (config/default.yaml and friends). Every key is optional and takes its {@link Defaults}
 * value when left out; every error names the key.
 *
 * @param evalConfig how candidates are judged (tolerances, measurement method, phase limits)
 * @param seeds folder of starting kernels
 * @param device the GPU of a one-device campaign
 * @param devices several GPUs, {@code 0,1} or {@code all}: one worker each (overrides {@code device})
 * @param population mutants kept per island
 * @param childrenPerGeneration mutants proposed per island per generation
 * @param migrationInterval every this many generations, each island's best joins the next island
 * @param freshGenomes false: the built-in agent never starts a genome of its own, it only tunes knobs (and
 *     evolves genomes it is given)
 */
@JsonDeserialize(builder = CampaignConfig.Builder.class)
public record CampaignConfig(String name, String suite, String baseline, Precision dtype, String evalConfig,
                             String seeds,
                             Integer device, String devices, Long randomSeed, Integer islands, Integer population,
                             Integer childrenPerGeneration, Integer migrationInterval, Selection selection,
                             List<AgentWeight> agents, Stop stop, String output, Boolean freshGenomes,
                             Cascade cascade) {

    /** Tournament selection with elitism; {@code crossoverRate} is the chance a child gets a second parent. */
    public record Selection(Integer tournamentSize, Integer elitism, Double crossoverRate) {
        /** A key left out takes its default, one by one. */
        public Selection {
            tournamentSize = or(tournamentSize, Defaults.TOURNAMENT_SIZE);
            elitism = or(elitism, Defaults.ELITISM);
            crossoverRate = or(crossoverRate, Defaults.CROSSOVER_RATE);
        }
    }

    /**
     * Timing in two steps: a child that passed every check is timed first on {@code shapes} of the suite's shapes
     * (spread over its row lengths: the middle one of each of that many equal runs by columns), and on the rest only
     * when its memory-floor geometric mean there is within {@code margin} of its island's best on the same shapes;
     * otherwise it is {@code screened}.
     * {@code shapes: 0} times every child on every shape.
     */
    public record Cascade(Integer shapes, Double margin) {
        /** A key left out takes its default, one by one. */
        public Cascade {
            shapes = or(shapes, Defaults.CASCADE_SHAPES);
            margin = or(margin, Defaults.CASCADE_MARGIN);
        }

        public boolean on() {
            return shapes > 0;
        }
    }

    /** An agent and its share of the proposals; {@code model} is set for a language model, absent for builtin. */
    public record AgentWeight(String name, Double weight, ModelSpec model) {
    }

    /**
     * Stop conditions; whichever is reached first ends the campaign. Absent or 0 means no limit: a stop block
     * replaces the default conditions as a whole, so {@code stop: {evaluations: 50}} means "stop at 50
     * evaluations", not "at 50 evaluations or after the default wall time".
     */
    public record Stop(Integer evaluations, Double wallMinutes, Integer generations, Integer noImprovement,
                       Double cost) {
        public Stop {
            evaluations = or(evaluations, 0);
            wallMinutes = or(wallMinutes, 0.0);
            generations = or(generations, 0);
            noImprovement = or(noImprovement, 0);
            cost = or(cost, 0.0);
        }

        /** What a config without a stop block stops at. */
        public static Stop defaults() {
            return new Stop(Defaults.STOP_EVALUATIONS, Defaults.STOP_WALL_MINUTES, 0, 0, 0.0);
        }
    }

    /** What {@code devices} and {@code --devices} accept: {@code all}, or GPU ordinals separated by commas. */
    public static final Pattern DEVICE_SELECTION = Pattern.compile("all|\\d+(,\\d+)*");

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    public static CampaignConfig defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        return builder().name(name).suite(suite).baseline(baseline).dtype(dtype).evalConfig(evalConfig).seeds(seeds)
                .device(device).devices(devices).randomSeed(randomSeed).islands(islands).population(population)
                .childrenPerGeneration(childrenPerGeneration).migrationInterval(migrationInterval)
                .selection(selection).agents(agents).stop(stop).output(output).freshGenomes(freshGenomes)
                .cascade(cascade);
    }

    public static CampaignConfig load(Path file) {
        CampaignConfig raw = ConfigFiles.read(file, CampaignConfig.class);
        try {
            return raw.validated();
        } catch (IllegalArgumentException e) {
            throw KevoException.input(file + ": " + e.getMessage());
        }
    }

    /** The devices to run on, as {@code --devices} takes them: {@code 0}, {@code 0,1} or {@code all}. */
    public String deviceSelection() {
        return devices != null ? devices : Integer.toString(device);
    }

    private static <T> T or(T value, T fallback) {
        return Objects.requireNonNullElse(value, fallback);
    }

    public CampaignConfig validated() {
        require(name.matches("[A-Za-z0-9_.-]+"), "name: letters, digits, '.', '_' and '-' only");
        require(devices == null || DEVICE_SELECTION.matcher(devices).matches(),
                "devices: 'all' or GPU ordinals separated by commas, e.g. 0,1");
        require(islands >= 1 && islands <= 64, "islands: between 1 and 64");
        require(population >= 1, "population: at least 1");
        require(childrenPerGeneration >= 1, "children_per_generation: at least 1");
        require(migrationInterval >= 1, "migration_interval: at least 1");
        require(selection.tournamentSize() >= 1, "selection.tournament_size: at least 1");
        require(selection.elitism() >= 0 && selection.elitism() <= population,
                "selection.elitism: between 0 and population");
        require(selection.crossoverRate() >= 0 && selection.crossoverRate() <= 1,
                "selection.crossover_rate: a probability in [0, 1]");
        require(cascade.shapes() >= 0, "cascade.shapes: 0 (off) or how many shapes to time first");
        require(cascade.margin() >= 0 && cascade.margin() < 1, "cascade.margin: a fraction in [0, 1)");
        require(!agents.isEmpty(), "agents: list at least one agent");
        for (int i = 0; i < agents.size(); i++) {
            AgentWeight a = agents.get(i);
            String at = agentKey(i);
            require(a.name() != null && !a.name().isBlank(), at + ".name: missing");
            require(a.weight() == null || a.weight() > 0, at + ".weight: must be positive");
            for (int j = 0; j < i; j++) {
                require(!agents.get(j).name().equals(a.name()), at + ".name: '" + a.name()
                        + "' is also " + agentKey(j) + "'s name; every mutant records its agent by name");
            }
            if (a.model() != null) {
                require(!a.name().equals(Defaults.BUILTIN_AGENT), at + ".name: '" + Defaults.BUILTIN_AGENT
                        + "' is the built-in agent; give the model another name");
                a.model().validated(at + ".model");
            }
        }
        require(stop.evaluations() >= 0 && stop.wallMinutes() >= 0 && stop.generations() >= 0
                && stop.noImprovement() >= 0 && stop.cost() >= 0, "stop: limits must not be negative");
        require(stop.evaluations() > 0 || stop.wallMinutes() > 0 || stop.generations() > 0 || stop.cost() > 0,
                "stop: set at least one of evaluations, wall_minutes, generations, cost (a stop block replaces "
                        + "the default limits)");
        return this;
    }

    /**
     * How an error names the agent at list index {@code i}: counted from 1, as a reader counts the entries of
     * the file.
     */
    public static String agentKey(int i) {
        return "agents[" + (i + 1) + "]";
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private String name = Defaults.CAMPAIGN_NAME;
        private String suite = Defaults.SUITE;
        private String baseline = Defaults.BASELINE;
        private Precision dtype = Defaults.DTYPE;
        private String evalConfig = Defaults.EVAL_CONFIG;
        private String seeds = Defaults.SEEDS;
        private Integer device = Defaults.DEVICE;
        private String devices;
        private Long randomSeed = Defaults.RANDOM_SEED;
        private Integer islands = Defaults.ISLANDS;
        private Integer population = Defaults.POPULATION;
        private Integer childrenPerGeneration = Defaults.CHILDREN_PER_GENERATION;
        private Integer migrationInterval = Defaults.MIGRATION_INTERVAL;
        private Selection selection = new Selection(null, null, null);
        private List<AgentWeight> agents = List.of(new AgentWeight(Defaults.BUILTIN_AGENT, Defaults.AGENT_WEIGHT,
                null));
        private Stop stop = Stop.defaults();
        private String output = Defaults.OUTPUT;
        private Boolean freshGenomes = Defaults.FRESH_GENOMES;
        private Cascade cascade = new Cascade(null, null);

        private Builder() {
        }

        public Builder name(String value) {
            name = value;
            return this;
        }

        public Builder suite(String value) {
            suite = value;
            return this;
        }

        public Builder baseline(String value) {
            baseline = value;
            return this;
        }

        public Builder dtype(Precision value) {
            dtype = value;
            return this;
        }

        public Builder evalConfig(String value) {
            evalConfig = value;
            return this;
        }

        public Builder seeds(String value) {
            seeds = value;
            return this;
        }

        public Builder device(Integer value) {
            device = value;
            return this;
        }

        /** Several GPUs, {@code 0,1} or {@code all}; null: the one {@code device}. */
        public Builder devices(String value) {
            devices = value;
            return this;
        }

        public Builder randomSeed(Long value) {
            randomSeed = value;
            return this;
        }

        public Builder islands(Integer value) {
            islands = value;
            return this;
        }

        public Builder population(Integer value) {
            population = value;
            return this;
        }

        public Builder childrenPerGeneration(Integer value) {
            childrenPerGeneration = value;
            return this;
        }

        public Builder migrationInterval(Integer value) {
            migrationInterval = value;
            return this;
        }

        public Builder selection(Selection value) {
            selection = value;
            return this;
        }

        public Builder agents(List<AgentWeight> value) {
            agents = value;
            return this;
        }

        /** Replaces the default stop conditions whole (see {@link Stop}). */
        public Builder stop(Stop value) {
            stop = value;
            return this;
        }

        public Builder output(String value) {
            output = value;
            return this;
        }

        public Builder freshGenomes(Boolean value) {
            freshGenomes = value;
            return this;
        }

        public Builder cascade(Cascade value) {
            cascade = value;
            return this;
        }

        public CampaignConfig build() {
            return new CampaignConfig(name, suite, baseline, dtype, evalConfig, seeds, device, devices, randomSeed, islands,
                    population, childrenPerGeneration, migrationInterval, selection, List.copyOf(agents), stop,
                    output, freshGenomes, cascade == null ? new Cascade(null, null) : cascade);
        }
    }
}
