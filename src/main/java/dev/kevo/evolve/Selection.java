package dev.kevo.evolve;

import dev.kevo.data.CampaignConfig;
import dev.kevo.data.MutantRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/** Tournament selection and elitist survival over fitness (the score: geometric-mean speedup). */
final class Selection {
    /** Best first; ties broken by id so that the order never depends on iteration order. */
    static final Comparator<MutantRecord> BEST_FIRST = Comparator.comparingDouble(MutantRecord::fitness).reversed()
            .thenComparing(MutantRecord::id);

    private Selection() {
    }

    /** The fittest of {@code size} members drawn at random (with replacement). */
    static MutantRecord tournament(List<MutantRecord> members, int size, RandomGenerator random) {
        MutantRecord best = null;
        for (int i = 0; i < size; i++) {
            MutantRecord pick = members.get(random.nextInt(members.size()));
            if (best == null || BEST_FIRST.compare(pick, best) < 0) {
                best = pick;
            }
        }
        return best;
    }

    /**
     * The next population of an island: the {@code elitism} best of the old one are kept, the rest of the places
     * go to the best of old and new together; identical kernels (same source hash) count once, and rejected
     * mutants survive only while nothing better fills the places.
     */
    static List<MutantRecord> survivors(List<MutantRecord> old, List<MutantRecord> children, int size, int elitism) {
        Map<String, MutantRecord> kept = new LinkedHashMap<>();
        old.stream().sorted(BEST_FIRST).limit(elitism).forEach(m -> kept.putIfAbsent(m.sourceHash(), m));
        List<MutantRecord> pool = new ArrayList<>(old);
        pool.addAll(children);
        pool.sort(BEST_FIRST);
        for (MutantRecord m : pool) {
            if (kept.size() >= size) {
                break;
            }
            kept.putIfAbsent(m.sourceHash(), m);
        }
        return List.copyOf(kept.values());
    }

    /**
     * Every island after generation {@code gen}: its {@link #survivors} of {@code offspring} (per island), then, in a
     * generation that migrates, {@link #migrate}d.
     */
    static List<List<MutantRecord>> nextGeneration(List<List<MutantRecord>> islands,
                                                   List<List<MutantRecord>> offspring, CampaignConfig config,
                                                   int gen) {
        List<List<MutantRecord>> next = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            next.add(survivors(islands.get(i), offspring.get(i), config.population(), config.selection().elitism()));
        }
        return migrates(config, gen, next.size()) ? migrate(next) : next;
    }

    /** Whether generation {@code gen} ends with a migration. */
    static boolean migrates(CampaignConfig config, int gen, int islands) {
        return gen % config.migrationInterval() == 0 && islands > 1;
    }

    /**
     * Ring migration: each island's best replaces the worst of the next island, unless already there. An agent
     * failure has no source hash and sits on an island when too few distinct kernels came to fill it: it is told
     * apart by its id.
     */
    static List<List<MutantRecord>> migrate(List<List<MutantRecord>> islands) {
        List<List<MutantRecord>> out = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            MutantRecord incoming = islands.get((i - 1 + islands.size()) % islands.size()).stream()
                    .min(BEST_FIRST).orElseThrow();
            List<MutantRecord> members = new ArrayList<>(islands.get(i));
            members.sort(BEST_FIRST);
            if (members.stream().noneMatch(m -> sameKernel(m, incoming))) {
                if (!members.isEmpty()) {
                    members.removeLast();
                }
                members.add(incoming);
                members.sort(BEST_FIRST);
            }
            out.add(List.copyOf(members));
        }
        return out;
    }

    private static boolean sameKernel(MutantRecord a, MutantRecord b) {
        return a.sourceHash() != null ? a.sourceHash().equals(b.sourceHash()) : a.id().equals(b.id());
    }
}
