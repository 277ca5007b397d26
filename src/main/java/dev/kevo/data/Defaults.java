package dev.kevo.data;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every default of what is configured, in one place: what a key left out of a campaign YAML, config/eval.yaml or
 * a model block takes. The shipped YAML and the docs' tables show these same values, and tests fail when either
 * drifts from them. (Code rather than the shipped YAML as the base: a config built in code, a test, or a kevo run
 * where no installation file is found gets the same defaults, and editing an installed file cannot silently change
 * what every other config means.) The records' builders start from these; nothing else repeats them.
 */
public final class Defaults {

    /** The agent that needs no model: knob tuning and genomes, in-process. */
    public static final String BUILTIN_AGENT = "builtin";

    // A campaign (config/default.yaml)
    public static final String CAMPAIGN_NAME = "default";
    public static final String SUITE = "standard";
    public static final String BASELINE = BaselineChoice.AUTO;
    public static final Precision DTYPE = Precision.FP32;
    /** The operator judged when a config (or a campaign folder written before the key) names none. */
    public static final String OP = "softmax";
    public static final String EVAL_CONFIG = "config/eval.yaml";
    public static final String SEEDS = "seeds";
    public static final int DEVICE = 0;
    public static final long RANDOM_SEED = 1;
    public static final int ISLANDS = 4;
    public static final int POPULATION = 8;
    public static final int CHILDREN_PER_GENERATION = 3;
    public static final int MIGRATION_INTERVAL = 3;
    public static final int TOURNAMENT_SIZE = 3;
    public static final int ELITISM = 2;
    public static final double CROSSOVER_RATE = 0.25;
    public static final double AGENT_WEIGHT = 1.0;
    /** A campaign without a stop block stops at whichever of these comes first; a stop block replaces both. */
    /**
     * The cascade (docs/campaigns.md#the-cascade): on the standard suite four shapes spread over row lengths land in
     * four different regimes of the genome (short, medium, cluster and split rows).
     */
    public static final int CASCADE_SHAPES = 4;
    public static final double CASCADE_MARGIN = 0.10;
    public static final int STOP_EVALUATIONS = 800;
    /** Shapes a model's profiler evidence covers: the parent's furthest from the memory floor. */
    public static final int PROFILE_SHAPES = 2;
    public static final double STOP_WALL_MINUTES = 8.5;
    public static final String OUTPUT = "mutations";
    public static final boolean FRESH_GENOMES = true;

    // How candidates are judged (config/eval.yaml); the suite and baseline are the campaign's above
    public static final List<InputCase> CASES = List.of(InputCase.values());
    /** Calibrated on the seeds (docs, "Tolerances"; bench/results/tolerance-calibration-h100.json). */
    public static final double TOLERANCE_RELATIVE_L2 = 1e-4;
    public static final double TOLERANCE_ABSOLUTE = 1e-6;
    public static final double TOLERANCE_RELATIVE = 1e-4;

    public static final double SETTLE_MS = 100;
    public static final double WARMUP_MS = 5;
    public static final int MIN_REPETITIONS = 5;
    public static final int MAX_REPETITIONS = 200;
    public static final double TARGET_CI = 0.01;
    public static final double CI_ENOUGH_US = 0.05;
    public static final double MAX_SECONDS_PER_SHAPE = 3;
    public static final boolean FLUSH_L2 = true;
    public static final int INPUT_SETS = 3;
    /** One shape of each regime a suite misses, drawn for every evaluation (docs/measurement.md says why these). */
    public static final List<ShapeRegime> FRESH_SHAPES = List.of(ShapeRegime.NARROW, ShapeRegime.UNALIGNED,
            ShapeRegime.ONE_ROW, ShapeRegime.LARGE_ODD);
    /**
     * The regimes held-out shapes always cycle through besides the fresh ones: past the suite's row count, each in
     * buffers of its own, too costly for every evaluation.
     */
    public static final List<ShapeRegime> HELD_OUT_ONLY = List.of(ShapeRegime.MANY_ROWS, ShapeRegime.LM_HEAD);
    public static final int HELD_OUT_SHAPES = 16;
    /**
     * One row and one column past 16K tokens x a 128K vocabulary (2^31 elements): at exactly 2^31 the last index,
     * 2^31-1, still fits a 32-bit int, so a kernel with 32-bit offsets would pass there.
     */
    public static final String AT_SCALE_SHAPE = "16385x131073";
    /**
     * The multiprocessor counts every plan is judged at besides the device's own: A100's, H100 PCIe's, H100 SXM's,
     * B200's and RTX PRO 6000's, so that a plan sized for one count is tried at the counts users' GPUs have.
     */
    public static final List<Integer> JUDGED_SM_COUNTS = List.of(108, 114, 132, 148, 188);

    /** A checked launch may take this many times the timed median, plus the slack (docs, "Evaluation settings"). */
    public static final double SLOW_FACTOR = 10;
    public static final double SLOW_SLACK_MS = 2;
    public static final boolean REQUIRE_DETERMINISTIC = false;

    /**
     * Check-only workers compiling candidates ahead, per GPU worker (at most the host's cores less one): NVRTC takes
     * a genome candidate about as long as a GPU takes to judge one, so one compiler left the GPU waiting
     * (bench/results/campaign-throughput-h100/).
     */
    public static final int COMPILERS_PER_GPU = 3;

    public static final double STARTUP_S = 120;
    public static final double COMPILE_S = 20;
    public static final double CHECK_S = 120;
    public static final double TIMING_S = 240;
    public static final double WORKER_MEMORY_GB = 16;
    public static final double LAUNCH_MINIMUM_S = 1;
    public static final double LAUNCH_FACTOR = 100;
    /** What kevo hands out is sanitized; a pass over every candidate costs more than its evaluation. */
    public static final SanitizeWhen SANITIZE = SanitizeWhen.CHAMPION;

    // A language model's block (agents[].model)
    public static final int MAX_OUTPUT_TOKENS = 8192;
    public static final double TIMEOUT_SECONDS = 300;
    public static final int RETRIES = 3;
    public static final int CONCURRENCY = 2;
    public static final double PRICE_INPUT = 0;
    public static final double PRICE_OUTPUT = 0;
    public static final int REPAIR_ROUNDS = 2;
    public static final String PROMPTS = "config/prompts";
    /** improve the parent, cross two parents, fix a recent failure, explore a new design for one regime. */
    public static final Map<String, Double> TEMPLATES = templates();

    private Defaults() {
    }

    private static Map<String, Double> templates() {
        Map<String, Double> t = new LinkedHashMap<>();
        t.put("improve", 0.5);
        t.put("crossover", 0.2);
        t.put("fix", 0.15);
        t.put("explore", 0.15);
        return Collections.unmodifiableMap(t);
    }
}
