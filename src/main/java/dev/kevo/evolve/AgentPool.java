package dev.kevo.evolve;

import dev.kevo.KevoException;
import dev.kevo.agent.Agent;
import dev.kevo.agent.WeightedDraw;
import dev.kevo.data.CampaignConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/** The campaign's agents and their weights: each request goes to one, drawn in proportion to its weight. */
public final class AgentPool {
    private final List<Agent> agents = new ArrayList<>();
    private final List<Double> weights = new ArrayList<>();

    /** @param available agents by name; the config's names must all be among them */
    public AgentPool(List<CampaignConfig.AgentWeight> config, Map<String, Agent> available) {
        for (int i = 0; i < config.size(); i++) {
            CampaignConfig.AgentWeight entry = config.get(i);
            Agent agent = available.get(entry.name());
            if (agent == null) {
                throw KevoException.input(CampaignConfig.agentKey(i) + ".name: unknown agent '" + entry.name()
                        + "' (known: "
                        + String.join(", ", available.keySet().stream().sorted().toList())
                        + "; a language model needs a model: block)");
            }
            agents.add(agent);
            weights.add(entry.weight() == null ? 1.0 : entry.weight());
        }
    }

    /**
     * Every agent's own check (a model's key set, its server answering), in config order; the first problem is
     * the error. Call it before any GPU work, so a campaign does not start only to fail at its first child.
     */
    public void checkReady() {
        agents.forEach(Agent::checkReady);
    }

    /** Whether any of the agents proposes offline ({@link Agent#proposesOffline}). */
    public boolean anyOffline() {
        return agents.stream().anyMatch(Agent::proposesOffline);
    }

    public Agent pick(RandomGenerator random) {
        return agents.get(WeightedDraw.index(weights, random));
    }
}
