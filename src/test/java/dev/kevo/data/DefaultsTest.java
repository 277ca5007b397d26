package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Defaults} is the one home of the defaults: the shipped config/eval.yaml and the docs' tables of evaluation
 * settings and model keys must say what it says (config/default.yaml and the campaign table:
 * CampaignConfigDefaultsTest).
 */
class DefaultsTest {

    @TempDir
    Path dir;

    @Test
    void theShippedEvalConfigIsTheDefaults() {
        // config/eval.yaml is what kevo reads inside a checkout, the defaults what it uses outside one: they agree
        assertEquals(EvalSettings.defaults(), EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")));
    }

    @Test
    void anEmptyEvalConfigIsTheDefaults() throws IOException {
        Path empty = Files.writeString(dir.resolve("eval.yaml"), "# nothing set\n");
        assertEquals(EvalSettings.defaults(), EvalSettings.load(empty));
    }

    @Test
    void theShippedCampaignConfigIsTheDefaults() {
        assertEquals(CampaignConfig.defaults(), CampaignConfig.load(TestFiles.root().resolve("config/default.yaml")));
    }

    @Test
    void theDocsTableOfEvaluationSettingsShowsTheDefaults() throws IOException {
        ObjectNode table = DocTable.read("Evaluation settings", Set.of("all ten", "the operator's"));
        for (String key : new String[] {"/measurement/settle_ms", "/measurement/ci_floor_us", "/limits/launch_factor",
                "/op"}) {
            assertFalse(table.at(key).isMissingNode(), "the table was read: " + key + " in " + table);
        }
        assertEquals(EvalSettings.defaults(), EvalSettings.load(DocTable.write(dir, table)));
    }

    @Test
    void theDocsTableOfModelKeysShowsTheDefaults() throws IOException {
        ObjectNode table = DocTable.read("Model agents", Set.of("required", "none", "the provider's own",
                "the provider's"));
        assertFalse(table.at("/max_output_tokens").isMissingNode(), "the table was read: " + table);
        table.put("provider", "ollama").put("model", "q");
        assertEquals(ModelSpec.builder().provider("ollama").model("q").build(),
                ConfigFiles.read(DocTable.write(dir, table), ModelSpec.class));
    }
}
