package dev.kevo.data;

import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A campaign's settings (config/default.yaml and friends). Every key is optional and has the default shown in
 * the README; every error names the key.
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
public record CampaignConfig(String name, String suite, String baseline, String evalConfig, String seeds,
                             Integer device, String devices, Long randomSeed, Integer islands, Integer population,
                             Integer childrenPerGeneration, Integer migrationInterval, Selection selection,
                             List<AgentWeight> agents, Stop stop, String output, Boolean freshGenomes) {

    /** A config without {@code fresh_genomes} (the default, on). */
    public CampaignConfig(String name, String suite, String baseline, String evalConfig, String seeds,
                          Integer device, String devices, Long randomSeed, Integer islands, Integer population,
                          Integer childrenPerGeneration, Integer migrationInterval, Selection selection,
                          List<AgentWeight> agents, Stop stop, String output) {
        this(name, suite, baseline, evalConfig, seeds, device, devices, randomSeed, islands, population,
                childrenPerGeneration, migrationInterval, selection, agents, stop, output, null);
    }

    /** Tournament selection with elitism; {@code crossoverRate} is the chance a child gets a second parent. */
    public record Selection(Integer tournamentSize, Integer elitism, Double crossoverRate) {
    }

    /** An agent and its share of the proposals; {@code model} is set for a language model, absent for builtin. */
    public record AgentWeight(String name, Double weight, ModelSpec model) {
    }

    /** Stop conditions; whichever is reached first ends the campaign. Absent or 0 means no limit. */
    public record Stop(Integer evaluations, Double wallMinutes, Integer generations, Integer noImprovement,
                       Double cost) {
    }

    /** What {@code devices} and {@code --devices} accept: {@code all}, or GPU ordinals separated by commas. */
    public static final Pattern DEVICE_SELECTION = Pattern.compile("all|\\d+(,\\d+)*");

    /**
     * The one home of the defaults: what a key left out of a campaign YAML takes. config/default.yaml and the
     * README's "Campaign config" table show these same values, and CampaignConfigDefaultsTest fails when either
     * drifts from them. (Code rather than the shipped YAML as the base: a config built in code, a test, or a
     * kevo run where no installation file is found gets the same defaults, and editing an installed file cannot
     * silently change what every other config means.)
     */
    public static final CampaignConfig DEFAULT = new CampaignConfig("default", "standard", "auto",
            "config/eval.yaml", "seeds", 0, null, 1L, 4, 8, 3, 3, new Selection(3, 2, 0.25),
            List.of(new AgentWeight("builtin", 1.0, null)), new Stop(400, 8.5, 0, 0, 0.0), "mutations", true);

    public static CampaignConfig load(Path file) {
        CampaignConfig raw = ConfigFiles.read(file, CampaignConfig.class);
        try {
            return raw.withDefaults().validated();
        } catch (IllegalArgumentException e) {
            throw KevoException.input(file + ": " + e.getMessage());
        }
    }

    /**
     * Absent keys take the defaults, key by key, with one exception: a {@code stop} block replaces the default
     * stop conditions as a whole, and the conditions it leaves out are no limit. {@code stop: {evaluations: 50}}
     * means "stop at 50 evaluations", not "at 50 evaluations or after the default 8.5 minutes".
     */
    public CampaignConfig withDefaults() {
        CampaignConfig d = DEFAULT;
        Selection s = selection == null ? d.selection : selection;
        Stop t = stop == null ? d.stop : stop;
        return new CampaignConfig(or(name, d.name), or(suite, d.suite), or(baseline, d.baseline),
                or(evalConfig, d.evalConfig), or(seeds, d.seeds), or(device, d.device), devices, or(randomSeed, d.randomSeed),
                or(islands, d.islands), or(population, d.population),
                or(childrenPerGeneration, d.childrenPerGeneration), or(migrationInterval, d.migrationInterval),
                new Selection(or(s.tournamentSize, d.selection.tournamentSize), or(s.elitism, d.selection.elitism),
                        or(s.crossoverRate, d.selection.crossoverRate)),
                agents == null ? d.agents : agents.stream().map(a -> a.model() == null ? a
                        : new AgentWeight(a.name(), a.weight(), a.model().withDefaults())).toList(),
                new Stop(or(t.evaluations, 0), or(t.wallMinutes, 0.0), or(t.generations, 0),
                        or(t.noImprovement, 0), or(t.cost, 0.0)),
                or(output, d.output), or(freshGenomes, d.freshGenomes));
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
        require(!agents.isEmpty(), "agents: list at least one agent");
        for (int i = 0; i < agents.size(); i++) {
            AgentWeight a = agents.get(i);
            require(a.name() != null && !a.name().isBlank(), "agents[" + i + "].name: missing");
            require(a.weight() == null || a.weight() > 0, "agents[" + i + "].weight: must be positive");
            for (int j = 0; j < i; j++) {
                require(!agents.get(j).name().equals(a.name()), "agents[" + i + "].name: '" + a.name()
                        + "' is also agents[" + j + "]'s name; every mutant records its agent by name");
            }
            if (a.model() != null) {
                require(!a.name().equals(Defaults.BUILTIN_AGENT), "agents[" + i + "].name: '" + Defaults.BUILTIN_AGENT
                        + "' is the built-in agent; give the model another name");
                a.model().validated("agents[" + i + "].model");
            }
        }
        require(stop.evaluations() >= 0 && stop.wallMinutes() >= 0 && stop.generations() >= 0
                && stop.noImprovement() >= 0 && stop.cost() >= 0, "stop: limits must not be negative");
        require(stop.evaluations() > 0 || stop.wallMinutes() > 0 || stop.generations() > 0 || stop.cost() > 0,
                "stop: set at least one of evaluations, wall_minutes, generations, cost (a stop block replaces "
                        + "the default limits)");
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
