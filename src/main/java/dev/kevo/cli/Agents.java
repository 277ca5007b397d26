package dev.kevo.cli;

import dev.kevo.agent.Agent;
import java.util.Map;

/** The agents a campaign config can name. */
final class Agents {
    private Agents() {
    }

    static Map<String, Agent> available() {
        return Map.of();
    }
}
