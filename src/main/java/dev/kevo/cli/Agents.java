package dev.kevo.cli;

import dev.kevo.agent.Agent;
import dev.kevo.agent.BuiltinAgent;
import dev.kevo.agent.llm.LlmAgent;
import dev.kevo.config.KevoHome;
import dev.kevo.data.CampaignConfig;
import dev.kevo.evolve.AgentPool;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The agents a campaign config can name: the built-in one, and a language model per entry with a model block. */
final class Agents {
    private Agents() {
    }

    /** The agents that need no config: the built-in one. */
    static Map<String, Agent> available() {
        return Map.of(BuiltinAgent.NAME, new BuiltinAgent());
    }

    /**
     * Every agent the config's entries name, a model entry built from its block (prompt templates read now, so
     * a broken template is an error before the campaign starts).
     *
     * @param source the config file the entries came from, named by every error about them
     * @param env where model keys are read from (the process environment)
     */
    static Map<String, Agent> forCampaign(List<CampaignConfig.AgentWeight> entries, Path source, KevoHome home,
                                          Function<String, String> env) {
        Map<String, Agent> agents = new LinkedHashMap<>(available());
        for (int i = 0; i < entries.size(); i++) {
            CampaignConfig.AgentWeight entry = entries.get(i);
            if (entry.model() != null) {
                agents.put(entry.name(), LlmAgent.create(entry.name(), source + ": " + CampaignConfig.agentKey(i),
                        entry.model(), home.root(), env));
            }
        }
        return agents;
    }

    /** The campaign's pool, each agent checked (keys set, servers answering): call before any GPU work. */
    static AgentPool pool(CampaignConfig campaign, Path source, KevoHome home) {
        Map<String, Agent> agents = forCampaign(campaign.agents(), source, home, System::getenv);
        // The built-in agent renders its genomes in the dtype each request's TaskContext names, so fresh genomes
        // are on in every dtype unless the campaign turns them off.
        boolean genomes = campaign.freshGenomes() == null || campaign.freshGenomes();
        agents.put(BuiltinAgent.NAME, new BuiltinAgent(genomes));
        AgentPool pool = new AgentPool(campaign.agents(), agents);
        pool.checkReady();
        return pool;
    }
}
