package dev.kevo.evolve;

import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.Spend;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * What a campaign has spent (evaluations started, wall time, model cost) and the rule that ends it, in one place.
 * The rule is asked at two moments: between generations ({@link #stopReason}), where every condition counts, and
 * before each evaluation starts ({@link #claim}), where only the limits that a generation can run past count
 * (evaluations, wall time, cost), so a campaign stops mid-generation when those run out.
 *
 * <p>Thread-safe: the children of a generation claim evaluations and pay for model calls on several threads.
 * One lock guards the counters, so that a claim checks the limits and counts itself in one step (the evaluation
 * limit is never passed, however many children start at once) and a snapshot sees counters that belong together.
 */
final class Budget {
    private final CampaignConfig.Stop stop;
    private final LongSupplier clock;
    private long runStart;
    private long elapsedBefore;
    private int evaluated;
    private Spend spend = Spend.NONE;
    private long generationStart = -1;
    private long lastGenerationMillis;

    /** @param clock milliseconds; only differences are used */
    Budget(CampaignConfig.Stop stop, LongSupplier clock) {
        this.stop = stop;
        this.clock = clock;
    }

    /** This run's wall time counts from now. */
    synchronized void start() {
        runStart = clock.getAsLong();
    }

    /** Goes on from a saved state: its evaluations and earlier runs' time count. */
    synchronized void continueFrom(CampaignState state) {
        elapsedBefore = state.elapsedMillis();
        evaluated = state.evaluations();
    }

    /** Counts one evaluation about to start; false, counting nothing, when a limit is already reached. */
    synchronized boolean claim() {
        if (spent()) {
            return false;
        }
        evaluated++;
        return true;
    }

    /** Counts a child judged before a kill and read back on resume (state.json predates it). */
    synchronized void countRecovered() {
        evaluated++;
    }

    /** A generation starts now. */
    synchronized void generationStarted() {
        generationStart = clock.getAsLong();
    }

    /** The generation started last has ended: its length is what the next one is expected to take. */
    synchronized void generationEnded() {
        if (generationStart >= 0) {
            lastGenerationMillis = clock.getAsLong() - generationStart;
            generationStart = -1;
        }
    }

    /** Adds what a model call cost (nothing for no call). */
    synchronized void pay(ModelUsage usage) {
        spend = spend.plus(usage);
    }

    /** True once evaluations, wall time or cost reached their limit: no further evaluation starts. */
    synchronized boolean spent() {
        return exhausted().isPresent();
    }

    /** Why the campaign ends now, between generations; empty to go on. */
    synchronized Optional<String> stopReason(int generationsDone, int generationsStale) {
        return exhausted().or(() -> {
            // A generation's children claim their evaluations as it starts, so one begun near the wall limit runs its
            // whole length past it, before the champion is confirmed: on the attention suite, most of a minute.
            if (stop.wallMinutes() > 0 && lastGenerationMillis > 0
                    && elapsed() + lastGenerationMillis > stop.wallMinutes() * 60_000) {
                return Optional.of("wall time: " + stop.wallMinutes() + " min (the next generation would end past it)");
            }
            if (lastGeneration(generationsDone)) {
                return Optional.of("generations: " + stop.generations());
            }
            if (stop.noImprovement() > 0 && generationsStale >= stop.noImprovement()) {
                return Optional.of("no improvement for " + stop.noImprovement() + " generations");
            }
            return Optional.empty();
        });
    }

    /** Whether the campaign ends once {@code generation} is done, by its generations limit. */
    boolean lastGeneration(int generation) {
        return stop.generations() > 0 && generation >= stop.generations();
    }

    /** The campaign's state with these counters. */
    synchronized CampaignState state(int generation, List<List<String>> islands, String bestId, int stale) {
        return new CampaignState(generation, evaluated, islands, bestId, stale, elapsed(), spend);
    }

    synchronized int evaluated() {
        return evaluated;
    }

    /** The limits a generation can run past, in the order they are reported. */
    private Optional<String> exhausted() {
        if (stop.evaluations() > 0 && evaluated >= stop.evaluations()) {
            return Optional.of("evaluations: " + evaluated + " of " + stop.evaluations());
        }
        if (stop.wallMinutes() > 0 && elapsed() >= stop.wallMinutes() * 60_000) {
            return Optional.of("wall time: " + stop.wallMinutes() + " min");
        }
        if (stop.cost() > 0 && spend.cost() >= stop.cost()) {
            return Optional.of(String.format(Locale.ROOT, "cost: %.4f of %.4f", spend.cost(), stop.cost()));
        }
        return Optional.empty();
    }

    private long elapsed() {
        return elapsedBefore + (clock.getAsLong() - runStart);
    }
}
