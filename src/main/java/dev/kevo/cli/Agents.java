package dev.kevo.cli;

import dev.kevo.agent.Agent;
import dev.kevo.agent.BuiltinAgent;
import java.util.Map;

/** The agents a campaign config can name. */
final class Agents {
    private Agents() {
    }

    static Map<String, Agent> available() {
        return Map.of(BuiltinAgent.NAME, new BuiltinAgent());
    }
}
