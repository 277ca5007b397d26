package dev.kevo.agent.llm;

import dev.kevo.agent.Candidate;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.agent.TaskContext;
import dev.kevo.agent.WeightedDraw;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.PromptChoice;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Turns a request into the messages a model sees: picks a template by the config's weights (among those the
 * request has material for), and fills its placeholders with the evidence: device, suite, the parent's
 * per-shape results and source, other islands' best, recent failures.
 */
final class PromptBuilder {
    static final String IMPROVE = "improve";
    static final String CROSSOVER = "crossover";
    static final String FIX = "fix";
    static final String EXPLORE = "explore";

    /** Inspirations shown with their source; more would crowd the parent out of a small model's context. */
    static final int MAX_INSPIRATIONS = 2;

    /**
     * What is sent and how to read the answer.
     *
     * @param template the template's name, which becomes the mutant's operator
     * @param base the file SEARCH/REPLACE blocks apply to
     * @param subject what the summary line says the child came from
     * @param choice how the prompt was put together, recorded with the mutant; null for repairs
     */
    record Prompt(String template, String system, String user, String base, String subject, PromptChoice choice) {
        /** Every message as text, as it is saved beside the mutant. */
        String transcript() {
            return "## system\n\n" + system + "\n## user\n\n" + user;
        }
    }

    /**
     * {@code prompt} asked for the {@code repeat}-th time in its generation (1: the first repeat): the same evidence,
     * with a closing line that says so and asks for a change other than the first that comes to mind, so that the
     * model has a reason to answer differently and no two requests of a generation are the same.
     */
    static Prompt repeated(Prompt prompt, int repeat) {
        String note = "\n\nThis question was already asked " + (repeat == 1 ? "once" : repeat + " times")
                + " in this generation, about the same parent with the same evidence. Propose a change other than the"
                + " first one that comes to mind" + (repeat == 1 ? "" : ", and other than the " + repeat
                + " most obvious ones") + ".\n";
        return new Prompt(prompt.template(), prompt.system(), prompt.user().stripTrailing() + note, prompt.base(),
                prompt.subject(), prompt.choice());
    }

    /** How far apart the temperatures of one generation's requests are: enough to sample differently, no more. */
    static final double TEMPERATURE_STEP = 0.2;

    private final PromptTemplates templates;
    private final Map<String, Double> weights;
    private final int repairRounds;
    private final Double temperature;

    /** @param temperature the config's, or null where the provider's own default applies (and is left alone) */
    PromptBuilder(PromptTemplates templates, Map<String, Double> weights, int repairRounds, Double temperature) {
        this.templates = templates;
        this.weights = new LinkedHashMap<>(weights);
        this.repairRounds = repairRounds;
        this.temperature = temperature;
    }

    /** Temperatures cycle through this many values, so that a large generation does not drift into noise. */
    static final int TEMPERATURES = 5;

    /**
     * The temperature of a generation's {@code variant}-th request: the config's first, then alternately above and
     * below it, within the providers' range. Null stays null: a model that takes no temperature is sent none.
     */
    static Double temperature(Double base, int variant) {
        if (base == null) {
            return null;
        }
        int k = variant % TEMPERATURES;
        int steps = (k + 1) / 2;
        double t = base + (k % 2 == 1 ? steps : -steps) * TEMPERATURE_STEP;
        return Math.round(Math.clamp(t, 0.0, 2.0) * 100) / 100.0;
    }

    Prompt forProposal(ProposalRequest request) {
        Candidate parent = request.parent();
        RandomGenerator random = request.random();
        Optional<Candidate> mate = request.mate().or(() -> request.inspirations().stream()
                .filter(c -> !c.id().equals(parent.id()) && c.result() != null && c.result().passed())
                .max(Comparator.comparingDouble(c -> c.result().score().speedup())));
        Optional<Candidate> failure = request.recentFailures().isEmpty() ? Optional.empty()
                : Optional.of(request.recentFailures().getLast());
        String template = choose(request.mate().isPresent(), mate.isPresent(), failure.isPresent(), random);
        List<Candidate> inspirations = request.inspirations().stream()
                .filter(c -> !c.id().equals(parent.id()) && !(template.equals(CROSSOVER)
                        && mate.map(m -> m.id().equals(c.id())).orElse(false)))
                .limit(MAX_INSPIRATIONS).toList();
        TaskContext context = request.context();
        List<Candidate> measured = Stream.concat(Stream.concat(Stream.of(parent), mate.stream()),
                request.inspirations().stream()).toList();
        int variant = request.slot().variant();
        String regime = regime(context, parent, variant);
        Function<String, String> values = key -> switch (key) {
            case "parent" -> withKnobs(Evidence.kernel("Parent", parent), parent, request.relatives())
                    + request.parentProfile().map(Evidence::profile).orElse("");
            case "mate" -> mate.map(m -> withKnobs(Evidence.kernel("Second parent", m), m, request.relatives()))
                    .orElse("(none)");
            case "inspirations" -> inspirations.isEmpty() ? "(none yet)" : inspirations.stream()
                    .map(c -> Evidence.kernel("Best of another island", c)).collect(Collectors.joining("\n"));
            case "failures" -> Evidence.failures(request.recentFailures());
            case "failure" -> failure.map(f -> Evidence.kernel("Failing kernel", f)).orElse("(none)");
            case "regime" -> regime;
            case "round" -> "0";
            case "rounds" -> Integer.toString(repairRounds);
            case "template" -> template;
            default -> shared(key, context, parent, measured);
        };
        String base = template.equals(FIX) && failure.isPresent() ? failure.get().source() : parent.source();
        String subject = switch (template) {
            case CROSSOVER -> mate.map(m -> "crossover with " + m.id()).orElse(template);
            case FIX -> failure.map(f -> "fix of " + f.id() + " (" + f.result().verdict().id() + ")").orElse(template);
            case EXPLORE -> "explore " + regime.lines().findFirst().orElse("");
            default -> template;
        };
        String focus = templates.uses(template, "regime") && !regime.equals(NO_REGIME) ? regime.replace("\nshapes: ", ": ")
                : null;
        return new Prompt(template, templates.render(PromptTemplates.SYSTEM, values),
                templates.render(template, values), base, subject, new PromptChoice(template, parent.id(),
                inspirations.stream().map(Candidate::id).toList(), focus, temperature(temperature, variant)));
    }

    /**
     * The placeholders that are the same in every request of a campaign, proposal or repair: the task, the device,
     * the suite, kevo.h, what is known to work and the rules every file is judged by.
     */
    private static String shared(String key, TaskContext context, Candidate parent, List<Candidate> measured) {
        return switch (key) {
            case "device" -> Evidence.device(context, measured);
            case "suite" -> Evidence.suite(context, parent);
            case "task" -> Evidence.task(context);
            case "dtype" -> Evidence.dtype(context);
            case "kevo_h" -> Prelude.resource(Prelude.class, Prelude.NAME).strip();
            case "known_to_work" -> KnownToWork.PROMPT;
            case "plan_rules" -> ContractRules.of(context).plans();
            case "knob_rules" -> ContractRules.of(context).knobs();
            case "source_rules" -> ContractRules.of(context).source();
            case "judging_rules" -> ContractRules.of(context).judging();
            default -> throw new IllegalStateException("placeholder " + key);
        };
    }

    private static String withKnobs(String kernel, Candidate c, List<Candidate> relatives) {
        String knobs = Evidence.knobs(c, relatives);
        return knobs.isEmpty() ? kernel : kernel + "\n" + knobs + "\n";
    }

    Prompt forRepair(RepairRequest request) {
        Candidate failed = request.failed();
        TaskContext context = request.context();
        List<Candidate> measured = List.of(request.parent());
        Function<String, String> values = key -> switch (key) {
            case "parent" -> Evidence.heading("Parent", request.parent()) + "\n"
                    + Evidence.results(request.parent().result());
            case "failure" -> Evidence.kernel("Your candidate", failed);
            case "round" -> Integer.toString(request.round());
            case "rounds" -> Integer.toString(repairRounds);
            case "template" -> PromptTemplates.REPAIR;
            case "mate", "inspirations", "regime" -> "(none)";
            case "failures" -> Evidence.failures(List.of(failed));
            default -> shared(key, context, request.parent(), measured);
        };
        return new Prompt(PromptTemplates.REPAIR, templates.render(PromptTemplates.SYSTEM, values),
                templates.render(PromptTemplates.REPAIR, values), failed.source(),
                "repair " + request.round() + " of " + failed.id() + " (" + failed.result().verdict().id() + ")",
                null);
    }

    /**
     * The one follow-up to SEARCH/REPLACE blocks that matched nowhere. Fixed text rather than a template: it only
     * restates the answer format, and a prompt folder written before it existed keeps working.
     */
    static String wholeFileFollowUp(String problem) {
        return "Your edit could not be applied: " + problem + ". SEARCH blocks must quote lines of the file as it "
                + "is. Answer again with the whole kernel file, header included, in one ```cuda block, making the "
                + "change you intended.\n";
    }

    /**
     * A crossover when the campaign paired two parents; otherwise a weighted draw among the templates the
     * request has material for (a crossover needs a second kernel, a fix a recent failure).
     */
    private String choose(boolean paired, boolean hasMate, boolean hasFailure, RandomGenerator random) {
        if (paired && weights.getOrDefault(CROSSOVER, 0.0) > 0) {
            return CROSSOVER;
        }
        List<String> names = new ArrayList<>();
        List<Double> w = new ArrayList<>();
        weights.forEach((name, weight) -> {
            boolean usable = switch (name) {
                case CROSSOVER -> hasMate;
                case FIX -> hasFailure;
                default -> true;
            };
            if (usable && weight > 0) {
                names.add(name);
                w.add(weight);
            }
        });
        if (names.isEmpty()) {
            // Nothing the config allows fits: its heaviest template, with "(none)" where material is missing.
            return weights.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        }
        return names.get(WeightedDraw.index(w, random));
    }

    /** @param cost what the parent's distance from the floor on these shapes costs the score, in log time */
    private record Regime(String name, List<String> shapes, double cost) {
    }

    static final String NO_REGIME = "(none)";

    /**
     * How much of the costliest regime's cost a regime must have to be a request's focus. A score is a geometric
     * mean, so a regime costs the sum over its shapes of -log(floor fraction): a parent at 0.01 of the floor on one
     * shape loses more there than at 0.95 on eighty. Below this share a regime has little to win beside the costliest,
     * and a request pointed at it is spent where the gain is not.
     */
    static final double FOCUS_SHARE = 0.25;

    /**
     * The shape regime a request focuses on, its shapes worst first. Regimes are ranked by what the parent's distance
     * from the memory floor costs the score there; those that cost at least {@link #FOCUS_SHARE} of the costliest are
     * eligible, and a generation's requests to an agent take them in turn (variant 0 the costliest, variant 1 the
     * next eligible, ...), so that requests about one parent still ask about different shapes where several are
     * worth it, and never about shapes near the floor while others sit far below it.
     */
    static String regime(TaskContext context, Candidate parent, int variant) {
        Map<String, ShapeResult> byShape = parent.result() == null ? Map.of() : parent.result().shapes().stream()
                .collect(Collectors.toMap(ShapeResult::shape, s -> s, (a, b) -> a));
        List<Shape> shapes = context != null ? context.shapes()
                : byShape.keySet().stream().map(Shape::parse).toList();
        List<Regime> regimes = new ArrayList<>();
        String[] names = {"short rows (cols <= 1024)", "medium rows (1024 < cols <= 16384)", "long rows (cols > 16384)"};
        for (int k = 0; k < names.length; k++) {
            final int band = k;
            List<Shape> in = shapes.stream().filter(s -> band(s) == band)
                    .sorted(Comparator.comparingDouble(s -> floor(byShape, s))).toList();
            if (in.isEmpty()) {
                continue;
            }
            double cost = in.stream().mapToDouble(s -> cost(floor(byShape, s))).sum();
            List<String> described = in.stream().map(s -> Optional.ofNullable(byShape.get(s.toString()))
                    .filter(r -> r.floorFraction() != null)
                    .map(r -> String.format(Locale.ROOT, "%s (parent at floor %.2f)", s, r.floorFraction()))
                    .orElse(s.toString())).toList();
            regimes.add(new Regime(names[k], described, cost));
        }
        if (regimes.isEmpty()) {
            return NO_REGIME;
        }
        double costliest = regimes.stream().mapToDouble(Regime::cost).max().orElseThrow();
        List<Regime> eligible = regimes.stream().filter(r -> r.cost() >= FOCUS_SHARE * costliest)
                .sorted(Comparator.comparingDouble(Regime::cost).reversed()).toList();
        Regime chosen = eligible.get(variant % eligible.size());
        return chosen.name() + "\nshapes: " + String.join(", ", chosen.shapes());
    }

    /** Where a shape was not measured, it counts as halfway: neither the first nor the last place to look. */
    private static final double UNKNOWN_FLOOR = 0.5;
    /** A floor fraction is taken as at least this, so that a shape at 0.00 costs much, not infinitely much. */
    private static final double LEAST_FLOOR = 1e-4;

    private static double floor(Map<String, ShapeResult> byShape, Shape s) {
        ShapeResult r = byShape.get(s.toString());
        return r == null || r.floorFraction() == null ? UNKNOWN_FLOOR : r.floorFraction();
    }

    /** What a shape at {@code floor} of the memory floor costs a geometric-mean score; nothing at or past the floor. */
    static double cost(double floor) {
        return Math.log(1 / Math.clamp(floor, LEAST_FLOOR, 1.0));
    }

    private static int band(Shape s) {
        return s.cols() <= 1024 ? 0 : s.cols() <= 16384 ? 1 : 2;
    }
}
