package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.data.EvalSettings;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The scripted model's answers (bench/llm-answers*, what bench/llm-step.sh serves on the GPU host) read as kevo reads a
 * model's answer, and each is a kernel file of the operator its campaign judges (bench/llm-step-OP.yaml's eval config):
 * an answer of another operator, or one the parser refuses, would turn the GPU run's campaign into a test of the
 * answers instead of the model path. The broken answer is the same file with one identifier misspelt.
 */
class ScriptedAnswersTest {

    @Test
    void everyScriptedAnswerIsAKernelOfItsCampaignsOperator() throws IOException {
        Path bench = TestFiles.root().resolve("bench");
        List<Path> folders;
        try (Stream<Path> entries = Files.list(bench)) {
            folders = entries.filter(p -> p.getFileName().toString().startsWith("llm-answers")).sorted().toList();
        }
        assertTrue(folders.size() >= 5, folders.toString());
        for (Path folder : folders) {
            // llm-answers-OP/ serves llm-step-OP.yaml, whose eval config names OP; the others serve softmax's steps
            Path config = bench.resolve(folder.getFileName().toString().replace("llm-answers", "llm-step") + ".yaml");
            String op = "softmax";
            if (Files.isRegularFile(config) && !config.getFileName().toString().equals("llm-step.yaml")) {
                String eval = Files.readString(config).lines().filter(l -> l.startsWith("eval_config:"))
                        .map(l -> l.substring("eval_config:".length()).strip()).findFirst().orElseThrow();
                op = EvalSettings.load(TestFiles.root().resolve(eval)).op();
                assertEquals("llm-answers-" + op, folder.getFileName().toString(), config + " judges " + op);
            }
            for (String answer : List.of("improve", "broken", "repaired")) {
                AnswerParser.Parsed parsed = AnswerParser.parse(Files.readString(folder.resolve(answer + ".md")), "");
                KernelFile file = ContractParser.parse(answer + ".cu", null, parsed.source());
                assertEquals(op, file.op().id(), folder + "/" + answer);
                assertFalse(parsed.summary().isBlank(), folder + "/" + answer + ": no one-line account of the change");
            }
        }
    }
}
