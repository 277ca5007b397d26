package dev.kevo.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Spend;
import dev.kevo.evolve.CampaignListener;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What a running campaign shows: generation, evaluations against the budget, rate, the champion's score and
 * memory-floor fractions (overall and its worst shape), failures by verdict, and an ETA. Live (one line
 * redrawn, for a terminal), lines (one per evaluation, for logs), JSON lines (for scripts) or quiet.
 */
public final class CampaignProgress implements CampaignListener {

    public enum Mode { LIVE, LINES, JSONL, QUIET }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Mode mode;
    private final PrintWriter out;
    private final CampaignConfig.Stop stop;
    private final long startNanos = System.nanoTime();
    private final Map<String, Integer> failures = new TreeMap<>();
    /** Children the cascade timed on its shapes only: not failures, but not timed on the whole suite either. */
    private int screened;
    private int seen;

    public CampaignProgress(Mode mode, PrintWriter out, CampaignConfig.Stop stop) {
        this.mode = mode;
        this.out = out;
        this.stop = stop;
    }

    @Override
    public void evaluated(MutantRecord mutant, CampaignState state, MutantRecord champion) {
        seen++;
        if (mutant.result().verdict().rejected()) {
            failures.merge(mutant.result().verdict().id(), 1, Integer::sum);
        } else if (!mutant.passed()) {
            screened++;
        }
        switch (mode) {
            case QUIET -> { }
            case JSONL -> json(mutant, state, champion);
            case LINES -> out.println(line(mutant, state, champion));
            case LIVE -> out.print("\r\033[2K" + line(mutant, state, champion));
        }
        out.flush();
    }

    @Override
    public void agentFailed(String agent, String message) {
        failures.merge("agent-failure", 1, Integer::sum);
    }

    @Override
    public void finished(CampaignState state, MutantRecord champion, String reason) {
        if (mode == Mode.LIVE) {
            out.println();
        }
        if (mode == Mode.JSONL) {
            Map<String, Object> end = new LinkedHashMap<>();
            end.put("event", "finished");
            end.put("reason", reason);
            end.put("generation", state.generation());
            end.put("evaluations", state.evaluations());
            end.put("champion", champion == null ? null : champion.id());
            end.put("score", champion == null ? null : champion.fitness());
            end.put("cost", state.spend().cost());
            writeJson(end);
        }
        out.flush();
    }

    private String line(MutantRecord mutant, CampaignState state, MutantRecord champion) {
        double minutes = (System.nanoTime() - startNanos) / 60e9;
        double rate = minutes > 0 ? seen / minutes : 0;
        String best = champion == null ? "best -" : String.format(Locale.ROOT, "best %.3fx %s (floor %.2f; worst %s)",
                champion.fitness(), champion.id(), champion.result().score().floorFraction(), worstShape(champion));
        String fails = (failures.isEmpty() ? "no failures" : "fail " + failures.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", ")))
                + (screened > 0 ? ", screened " + screened : "");
        return String.format(Locale.ROOT, "gen %d | %d%s evals | %.1f/min | %s | %s | %s%s | last %s %s",
                state.generation(), state.evaluations(), stop.evaluations() > 0 ? "/" + stop.evaluations() : "", rate,
                best, fails, spend(state.spend()), eta(state, rate), mutant.id(), mutant.passed()
                        ? String.format(Locale.ROOT, "%.3fx", mutant.fitness()) : mutant.result().verdict().id());
    }

    /** Model tokens and cost so far (against the cost budget, when one is set); nothing when no model was asked. */
    private String spend(Spend spend) {
        if (spend.inputTokens() + spend.outputTokens() == 0) {
            return "";
        }
        return String.format(Locale.ROOT, "%d+%d tokens, cost %.4f%s | ", spend.inputTokens(), spend.outputTokens(),
                spend.cost(), stop.cost() > 0 ? String.format(Locale.ROOT, "/%.4f", stop.cost()) : "");
    }

    private String eta(CampaignState state, double ratePerMinute) {
        double byEvals = stop.evaluations() > 0 && ratePerMinute > 0
                ? (stop.evaluations() - state.evaluations()) / ratePerMinute : Double.POSITIVE_INFINITY;
        double byWall = stop.wallMinutes() > 0 ? stop.wallMinutes() - state.elapsedMillis() / 60_000.0
                : Double.POSITIVE_INFINITY;
        double eta = Math.min(byEvals, byWall);
        if (Double.isInfinite(eta)) {
            return "ETA -";
        }
        if (eta <= 0) {
            return "finishing";  // past a limit: the evaluations already started end, then the champion is confirmed
        }
        long seconds = Math.round(eta * 60);
        return String.format(Locale.ROOT, "ETA %dm%02ds", seconds / 60, seconds % 60);
    }

    static String worstShape(MutantRecord mutant) {
        return mutant.result().shapes().stream().filter(s -> s.floorFraction() != null)
                .min((a, b) -> Double.compare(a.floorFraction(), b.floorFraction()))
                .map(s -> String.format(Locale.ROOT, "%s %.2f", s.shape(), s.floorFraction())).orElse("-");
    }

    private void json(MutantRecord mutant, CampaignState state, MutantRecord champion) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("event", "evaluated");
        line.put("id", mutant.id());
        line.put("generation", mutant.generation());
        line.put("island", mutant.island());
        line.put("agent", mutant.agent());
        line.put("verdict", mutant.result().verdict().id());
        line.put("score", mutant.passed() ? mutant.fitness() : null);
        line.put("cached", mutant.cachedFrom() != null);
        line.put("evaluations", state.evaluations());
        line.put("device", mutant.result().device());
        line.put("inputTokens", state.spend().inputTokens());
        line.put("outputTokens", state.spend().outputTokens());
        line.put("cost", state.spend().cost());
        line.put("champion", champion == null ? null : champion.id());
        line.put("championScore", champion == null ? null : champion.fitness());
        line.put("championFloor", champion == null ? null : champion.result().score().floorFraction());
        line.put("championShapeFloors", champion == null ? null : champion.result().shapes().stream()
                .collect(Collectors.toMap(ShapeResult::shape, s -> s.floorFraction() == null ? 0 : s.floorFraction(),
                        (a, b) -> a, LinkedHashMap::new)));
        writeJson(line);
    }

    private void writeJson(Map<String, Object> line) {
        try {
            out.println(JSON.writeValueAsString(line));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
