package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.task.ContractParser;
import org.junit.jupiter.api.Test;

/** Model answers to kernel files: whole files, SEARCH/REPLACE edits, and every way an answer can be unusable. */
class AnswerParserTest {
    static final String PARENT = Fixtures.recordedParent();

    static String content(String recorded) throws Exception {
        return new ObjectMapper().readTree(ModelServer.recorded(recorded)).at("/choices/0/message/content").asText();
    }

    static AnswerParser.Unusable rejected(String answer) {
        return assertThrows(AnswerParser.Unusable.class, () -> AnswerParser.parse(answer, PARENT));
    }

    @Test
    void aWholeFileInACudaBlockIsTheFileAndItsChangeLineTheSummary() throws Exception {
        AnswerParser.Parsed p = AnswerParser.parse(content("openai-full-file.json"), PARENT);
        assertEquals(ModelServer.recorded("fast.cu"), p.source());
        assertEquals("file", p.form());
        assertTrue(p.summary().startsWith("use __expf in the write pass and wider blocks"), p.summary());
        ContractParser.parse("x.cu", null, p.source());
    }

    @Test
    void searchReplaceBlocksEditTheBaseFile() throws Exception {
        AnswerParser.Parsed p = AnswerParser.parse(content("openai-search-replace.json"), PARENT);
        assertEquals("search/replace", p.form());
        String expected = PARENT.replace("\"value\": 128", "\"value\": 256")
                .replace("yr[c] = expf(xr[c] - m) * inv", "yr[c] = __expf(xr[c] - m) * inv");
        assertEquals(expected, p.source());
        assertEquals("the write pass uses __expf and short rows get 256 threads.", p.summary());
    }

    @Test
    void aSearchThatDiffersOnlyInIndentationStillMatchesItsOnePlace() {
        String answer = "<<<<<<< SEARCH\nfloat m = -KEVO_INF, s = 0.0f;  \n=======\n"
                + "    float m = -KEVO_INF, s = 0.0f;  // running max and sum\n>>>>>>> REPLACE\n";
        String source = AnswerParser.parse(answer, PARENT).source();
        assertEquals(PARENT.replace("    float m = -KEVO_INF, s = 0.0f;\n",
                "    float m = -KEVO_INF, s = 0.0f;  // running max and sum\n"), source);
        // Part of a line is not a line: quoting the start of one must not splice into it.
        AnswerParser.Unusable e = rejected("<<<<<<< SEARCH\n    const float inv = 1.0f / s;\n=======\n"
                + "    const float inv = __frcp_rn(s);\n>>>>>>> REPLACE\n");
        assertTrue(e.getMessage().contains("does not match the file (its first line: 'const float inv"), e.getMessage());
    }

    @Test
    void aSearchRespacedAndQuotedAtColumnZeroAppliesAtTheFilesIndentation() {
        String line = "    const float inv = 1.0f / s;  // s >= 1: the row max contributes expf(0)\n";
        assertTrue(PARENT.contains(line));
        // The model quotes the line flush left with its spaces changed, and writes its replacement flush left too.
        String answer = "<<<<<<< SEARCH\nconst  float inv =   1.0f / s; // s >= 1: the row max contributes expf(0)\n"
                + "=======\nconst float inv = __frcp_rn(s);\nif (s < 1.0f) {\n    return;\n}\n>>>>>>> REPLACE\n";
        AnswerParser.Parsed p = AnswerParser.parse(answer, PARENT);
        assertEquals(PARENT.replace(line, "    const float inv = __frcp_rn(s);\n    if (s < 1.0f) {\n        return;\n"
                + "    }\n"), p.source());
        assertEquals(AnswerParser.APPLIED_IGNORING_WHITESPACE, p.patch());
        String exact = "<<<<<<< SEARCH\n" + line + "=======\n    const float inv = __frcp_rn(s);\n>>>>>>> REPLACE\n";
        assertEquals(AnswerParser.APPLIED, AnswerParser.parse(exact, PARENT).patch());
    }

    @Test
    void howBlocksFailedIsToldApart() {
        assertEquals(AnswerParser.UNMATCHED, rejected("<<<<<<< SEARCH\n    __threadfence();\n=======\n>>>>>>> REPLACE\n")
                .patch());
        assertEquals(AnswerParser.AMBIGUOUS, rejected("<<<<<<< SEARCH\n}\n=======\nx\n>>>>>>> REPLACE\n").patch());
        assertEquals(AnswerParser.MALFORMED, rejected("<<<<<<< SEARCH\n}\n=======\nx\n").patch());
        assertEquals(null, rejected("```python\nprint(1)\n```\n").patch(), "not blocks at all");
    }

    @Test
    void unusableAnswersSayWhatIsWrong() throws Exception {
        assertTrue(rejected(content("openai-garbage.json")).getMessage().startsWith("no code block"));
        assertTrue(rejected(content("openai-two-blocks.json")).getMessage()
                .contains("2 code blocks hold different kernel files"));
        assertTrue(rejected(content("openai-search-miss.json")).getMessage()
                .contains("SEARCH block 1 (line 4) does not match the file"));
        assertTrue(rejected(content("openai-truncated.json")).getMessage().contains("is never closed"));
        assertTrue(rejected("").getMessage().equals("empty answer"));
        assertTrue(rejected("```cuda\n__global__ void k() {}\n```\n").getMessage().contains("has no /*@kevo header"));
        assertTrue(rejected("```python\nprint(1)\n```\n").getMessage().startsWith("no cuda code block"));
        assertTrue(rejected("<<<<<<< SEARCH\n  m = live ? sm[lane] : -KEVO_INF;\n=======\nx\n")
                .getMessage().contains("never closed with >>>>>>> REPLACE"));
        assertTrue(rejected("<<<<<<< SEARCH\n\n=======\nx\n>>>>>>> REPLACE\n").getMessage().contains("is empty"));
        assertTrue(rejected("<<<<<<< SEARCH\n    __threadfence();\n=======\n>>>>>>> REPLACE\n").getMessage()
                .contains("does not match"));  // not in online.cu
        assertTrue(rejected("<<<<<<< SEARCH\n}\n=======\n"
                + "x\n>>>>>>> REPLACE\n").getMessage().contains("matches several places"));
    }

    @Test
    void theSameFileTwiceIsOneFileAndABareFileIsAccepted() throws Exception {
        String file = ModelServer.recorded("fast.cu");
        String twice = "```cuda\n" + file + "```\nor, again:\n```cpp\n" + file.replace("\n", "  \n") + "```\n";
        assertEquals(file, AnswerParser.parse(twice, PARENT).source());
        assertEquals(file, AnswerParser.parse(file, PARENT).source());
    }

    @Test
    void aHugeAnswerIsRefusedBeforeParsing() {
        String huge = "```cuda\n" + ModelServer.recorded("fast.cu") + "// " + "x".repeat(2_000_000) + "\n```\n";
        AnswerParser.Unusable e = rejected(huge);
        assertTrue(e.getMessage().startsWith("answer of " + huge.length() + " characters, over the"), e.getMessage());
    }

    @Test
    void aFileOverTheContractLimitIsRefused() {
        String big = "```cuda\n" + ModelServer.recorded("fast.cu") + "// " + "x".repeat(300_000) + "\n```\n";
        assertTrue(rejected(big).getMessage().contains("over the " + ContractParser.MAX_SOURCE_BYTES + "-byte limit"));
    }
}
