package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.agent.Agent;
import dev.kevo.agent.BuiltinAgent;
import dev.kevo.agent.llm.LlmAgent;
import dev.kevo.config.KevoHome;
import dev.kevo.data.CampaignConfig;
import dev.kevo.evolve.AgentPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Agents built from campaign configs: the example configs, and config mistakes as one line naming the key. */
class AgentsTest {
    static final KevoHome HOME = new KevoHome(TestFiles.root());

    /** The agents of {@code config}, read from {@code file}. */
    static Map<String, Agent> agents(CampaignConfig config, Path file, Map<String, String> env) {
        return Agents.forCampaign(config.agents(), file, HOME, env::get);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openai", "openai-compatible", "anthropic", "ollama", "ensemble", "default"})
    void everyExampleConfigLoadsAndBuildsItsAgents(String name) {
        CampaignConfig config = CampaignConfig.load(HOME.config(name));
        Map<String, Agent> agents = agents(config, HOME.config(name), Map.of());
        for (CampaignConfig.AgentWeight entry : config.agents()) {
            Agent agent = agents.get(entry.name());
            if (entry.model() == null) {
                assertInstanceOf(BuiltinAgent.class, agent, name);
            } else {
                assertInstanceOf(LlmAgent.class, agent, name);
                assertEquals(entry.name(), agent.name());
            }
        }
        new AgentPool(config.agents(), agents);
    }

    @Test
    void theDefaultConfigNeedsNoKeyAndNoServer() {
        CampaignConfig config = CampaignConfig.load(HOME.config("default"));
        new AgentPool(config.agents(), agents(config, HOME.config("default"), Map.of())).checkReady();
    }

    @Test
    void aModelWithoutItsKeyIsOneLineBeforeAnythingRuns() {
        CampaignConfig config = CampaignConfig.load(HOME.config("ensemble"));
        AgentPool pool = new AgentPool(config.agents(), agents(config, HOME.config("ensemble"), Map.of()));
        KevoException e = assertThrows(KevoException.class, pool::checkReady);
        assertEquals(HOME.config("ensemble") + ": agents[2].model.api_key_env: environment variable OPENAI_API_KEY "
                + "is not set (it must hold the openai key for agent 'gpt')", e.getMessage());
    }

    static String yaml(String model) {
        return """
                name: t
                agents:
                  - name: builtin
                  - name: m
                    model:
                %s
                stop: {generations: 1}
                """.formatted(model.indent(6).stripTrailing());
    }

    static String error(Path dir, String model) throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, yaml(model));
        return assertThrows(KevoException.class, () -> CampaignConfig.load(file)).getMessage()
                .replace(file.toString(), "c.yaml");
    }

    @Test
    void modelBlockMistakesNameTheKey(@TempDir Path dir) throws Exception {
        assertEquals("c.yaml: agents[2].model.api_key_env: missing (the name of the environment variable that holds "
                + "the openai key, e.g. OPENAI_API_KEY)", error(dir, "provider: openai\nmodel: gpt-5"));
        assertEquals("c.yaml: agents[2].model.api_key_env: 'sk-p...' is not an environment variable name; name the "
                + "variable that holds the key, never the key itself",
                error(dir, "provider: openai\nmodel: gpt-5\napi_key_env: sk-proj-abcdefghijklmnop"));
        assertTrue(error(dir, "provider: openia\nmodel: x").startsWith("c.yaml: agents[2].model.provider: unknown "
                + "provider 'openia' (one of openai, openai-compatible, anthropic, ollama)"));
        assertEquals("c.yaml: agents[2].model.base_url: missing (the server's address, e.g. http://localhost:8000/v1)",
                error(dir, "provider: openai-compatible\nmodel: q"));
        assertEquals("c.yaml: agents[2].model.concurrency: between 1 and 64",
                error(dir, "provider: ollama\nmodel: q\nconcurrency: 0"));
        assertEquals("c.yaml: agents[2].model.templates.improve: weight must not be negative",
                error(dir, "provider: ollama\nmodel: q\ntemplates: {improve: -1}"));
        assertTrue(error(dir, "provider: ollama\nmodel: q\nmax_tokens: 5")
                .contains("unknown key 'agents[2].model.max_tokens'"), "strict keys");
    }

    @Test
    void aTemplateWithAnUnknownPlaceholderIsAnErrorAtItsLine(@TempDir Path dir) throws Exception {
        Path prompts = Files.createDirectories(dir.resolve("prompts"));
        for (String name : new String[] {"system", "repair", "improve"}) {
            Files.copy(TestFiles.root().resolve("config/prompts/" + name + ".md"), prompts.resolve(name + ".md"));
        }
        Files.writeString(prompts.resolve("improve.md"), "Make it faster.\n\n{{parent}}\n{{parnet}}\n");
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, yaml("provider: ollama\nmodel: q\ntemplates: {improve: 1}\nprompts: "
                + prompts));
        CampaignConfig config = CampaignConfig.load(file);
        KevoException e = assertThrows(KevoException.class, () -> agents(config, file, Map.of()));
        assertTrue(e.getMessage().startsWith(prompts.resolve("improve.md") + ":4: unknown placeholder {{parnet}}"),
                e.getMessage());
        Files.delete(prompts.resolve("improve.md"));
        KevoException missing = assertThrows(KevoException.class, () -> agents(config, file, Map.of()));
        assertEquals(file + ": agents[2].model.templates.improve: no prompt template " + prompts.resolve("improve.md"),
                missing.getMessage());
    }

    @Test
    void aModelMayNotTakeTheBuiltinAgentsNameNorShareOne(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, """
                agents:
                  - name: builtin
                    model: {provider: ollama, model: q}
                stop: {generations: 1}
                """);
        assertTrue(assertThrows(KevoException.class, () -> CampaignConfig.load(file)).getMessage()
                .endsWith("c.yaml: agents[1].name: 'builtin' is the built-in agent; give the model another name"));
        Files.writeString(file, """
                agents:
                  - name: q
                    model: {provider: ollama, model: q}
                  - name: q
                    model: {provider: ollama, model: r}
                stop: {generations: 1}
                """);
        assertTrue(assertThrows(KevoException.class, () -> CampaignConfig.load(file)).getMessage()
                .endsWith("c.yaml: agents[2].name: 'q' is also agents[1]'s name; every mutant records its agent by "
                        + "name"));
    }
}
