package dev.kevo.agent;

import dev.kevo.data.Precision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * 200 genomes the agent can reach in a dtype, for the renderer tests: 70 drawn at random from the whole space, 130
 * bred by the agent itself, asked as a campaign in that dtype asks, from a hand-written seed and the named genomes
 * (fresh, mutate and crossover children, grandchildren and so on). Fixed seed, so every run checks the same genomes.
 */
final class AgentPopulation {

    private static final Map<Precision, List<Genome>> GENOMES = new HashMap<>();

    private AgentPopulation() {
    }

    /** The float32 population. */
    static List<Genome> genomes() {
        return genomes(Precision.FP32);
    }

    static synchronized List<Genome> genomes(Precision dtype) {
        return GENOMES.computeIfAbsent(dtype, d -> List.copyOf(breed(new SplittableRandom(20251123L), d)));
    }

    static Candidate seed(String id) {
        return new Candidate(id, "/*@kevo {} */", Optional.empty(), null);
    }

    /** What a campaign in {@code dtype} tells its agents; nothing else of it matters to the built-in agent. */
    static TaskContext context(Precision dtype) {
        return new TaskContext(null, "standard", List.of(), dtype, "block_two_pass");
    }

    private static List<Genome> breed(SplittableRandom random, Precision dtype) {
        List<Genome> out = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            out.add(GenomeSpace.random(random, DefaultGenomes.float32(), dtype));
        }
        BuiltinAgent agent = new BuiltinAgent();
        List<Candidate> population = new ArrayList<>(List.of(seed("register_rows.cu")));
        DefaultGenomes.named(dtype).forEach((name, g) ->
                population.add(new Candidate(name, KernelRenderer.render(g, dtype), Optional.of(g.toJson()), null)));
        for (int n = 0; out.size() < 200; n++) {
            Candidate parent = population.get(random.nextInt(population.size()));
            Optional<Candidate> mate = random.nextInt(3) == 0
                    ? Optional.of(population.get(random.nextInt(population.size()))) : Optional.empty();
            Proposal p = agent.propose(ProposalRequest.builder(parent, random.split()).context(context(dtype))
                    .mate(mate).inspirations(population.subList(0, 3)).build());
            population.add(new Candidate("child-" + n, p.source(), p.genome(), null));
            out.add(Genome.fromJson(p.genome().orElseThrow(), DefaultGenomes.float32()));
        }
        return out;
    }
}
