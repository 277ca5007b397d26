package dev.kevo.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * 200 genomes the agent can reach, for the renderer tests: 70 drawn at random from the whole space, 130 bred
 * by the agent itself from a hand-written seed and the named genomes (fresh, mutate and crossover children,
 * grandchildren and so on). Fixed seed, so every run checks the same genomes.
 */
final class AgentPopulation {

    private static List<Genome> genomes;

    private AgentPopulation() {
    }

    static synchronized List<Genome> genomes() {
        if (genomes == null) {
            genomes = List.copyOf(breed(new SplittableRandom(20251123L)));
        }
        return genomes;
    }

    static Candidate seed(String id) {
        return new Candidate(id, "/*@kevo {} */", Optional.empty(), null);
    }

    private static List<Genome> breed(SplittableRandom random) {
        List<Genome> out = new ArrayList<>();
        for (int i = 0; i < 70; i++) {
            out.add(GenomeSpace.random(random, BuiltinAgent.defaultGenome()));
        }
        BuiltinAgent agent = new BuiltinAgent();
        List<Candidate> population = new ArrayList<>(List.of(seed("register_rows.cu")));
        BuiltinAgent.namedGenomes().forEach((name, g) ->
                population.add(new Candidate(name, KernelRenderer.render(g), Optional.of(g.toJson()), null)));
        for (int n = 0; out.size() < 200; n++) {
            Candidate parent = population.get(random.nextInt(population.size()));
            Optional<Candidate> mate = random.nextInt(3) == 0
                    ? Optional.of(population.get(random.nextInt(population.size()))) : Optional.empty();
            Proposal p = agent.propose(ProposalRequest.builder(parent, random.split()).mate(mate)
                    .inspirations(population.subList(0, 3)).build());
            population.add(new Candidate("child-" + n, p.source(), p.genome(), null));
            out.add(Genome.fromJson(p.genome().orElseThrow(), BuiltinAgent.defaultGenome()));
        }
        return out;
    }
}
