package dev.kevo.agent.llm;

import dev.kevo.KevoException;
import dev.kevo.data.ModelSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The prompt files a user can edit: {@code system.md} (the task, the contract, the device, the rules),
 * {@code repair.md} (a failed candidate sent back) and one file per proposal template, each with
 * {@code {{placeholders}}} that kevo fills with evidence. Read once when the agent is built, so a typo in a
 * placeholder is one line before any GPU work, not a confusing prompt an hour in.
 */
record PromptTemplates(Map<String, String> texts) {

    static final String SYSTEM = "system";
    static final String REPAIR = "repair";

    /** Every placeholder a template may use; docs/campaigns.md ("Using a language model") explains each. */
    static final Set<String> PLACEHOLDERS = Set.of("device", "suite", "task", "dtype", "kevo_h", "known_to_work",
            "plan_rules", "knob_rules", "source_rules", "judging_rules", "parent", "mate", "inspirations", "failures",
            "failure", "regime", "round", "rounds", "template");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z0-9_]+)\\s*}}");

    PromptTemplates {
        texts = Map.copyOf(texts);
    }

    /**
     * @param where the config key of the model block, for error messages
     * @throws KevoException a missing file or an unknown placeholder, naming the file and line
     */
    static PromptTemplates load(Path dir, ModelSpec spec, String where) {
        Map<String, String> texts = new LinkedHashMap<>();
        texts.put(SYSTEM, read(dir, SYSTEM, where + ".prompts"));
        if (spec.repairRounds() > 0) {
            texts.put(REPAIR, read(dir, REPAIR, where + ".prompts"));
        }
        for (String name : spec.templates().keySet()) {
            texts.put(name, read(dir, name, where + ".templates." + name));
        }
        return new PromptTemplates(texts);
    }

    private static String read(Path dir, String name, String key) {
        Path file = dir.resolve(name + ".md");
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw KevoException.input(key + ": no prompt template " + file);
        } catch (IOException e) {
            throw KevoException.input(key + ": cannot read " + file + " (" + e.getMessage() + ")");
        }
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = PLACEHOLDER.matcher(lines.get(i));
            while (m.find()) {
                if (!PLACEHOLDERS.contains(m.group(1))) {
                    throw KevoException.input(file + ":" + (i + 1) + ": unknown placeholder {{" + m.group(1)
                            + "}} (known: " + String.join(", ", new TreeSet<>(PLACEHOLDERS)) + ")");
                }
            }
        }
        return text;
    }

    String text(String name) {
        String t = texts.get(name);
        if (t == null) {
            throw new IllegalStateException("prompt template " + name + " was not loaded");
        }
        return t;
    }

    /** Whether the template names the placeholder, so that what it shows can be recorded. */
    boolean uses(String name, String placeholder) {
        Matcher m = PLACEHOLDER.matcher(text(name));
        while (m.find()) {
            if (m.group(1).equals(placeholder)) {
                return true;
            }
        }
        return false;
    }

    /** The template with each placeholder replaced; values are computed only for placeholders it uses. */
    String render(String name, Function<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(text(name));
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(values.apply(m.group(1))));
        }
        m.appendTail(out);
        return out.toString().strip() + "\n";
    }
}
