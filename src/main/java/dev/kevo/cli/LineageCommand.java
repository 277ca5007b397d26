package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.data.CampaignState;
import dev.kevo.report.Lineage;
import dev.kevo.store.CampaignStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "lineage", mixinStandardHelpOptions = true,
        header = "Trace how a champion (or any mutant) came to be, step by step.",
        description = "Shows how the champion (or any mutant) came to be: one line per step from its seed, with the "
                + "generation, the agent, how it was made, the score and its change, and what changed.",
        footer = {"", "Examples (the sample campaign shipped with kevo):",
            "  kevo lineage mutations/sample-h100",
            "  kevo lineage mutations/sample-h100 --id g0015-i2-c0 --format mermaid"})
public final class LineageCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    enum Format { tree, dot, mermaid, json }

    @Parameters(paramLabel = "CAMPAIGN", description = "A campaign folder, e.g. mutations/sample-h100.")
    Path campaign;

    @Option(names = "--id", paramLabel = "ID", description = "The mutant to trace. Default: the champion.")
    String id;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "tree",
            description = "tree (text), dot (Graphviz), mermaid or json. Default: tree.")
    Format format;

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "shown",
                ExitCode.USAGE, "not a campaign folder, a damaged one, or no such mutant");
    }

    @Override
    public ExitCode call() {
        CampaignStore store = CampaignStore.open(campaign);
        String target = id != null ? id : store.state().map(CampaignState::bestId)
                .orElseThrow(() -> KevoException.input(campaign + ": no champion yet; name a mutant with --id"));
        Lineage lineage = new Lineage(store.mutants(), target);
        spec.commandLine().getOut().print(switch (format) {
            case tree -> "scores are x over " + store.frozen().baseline().label() + ", "
                    + store.frozen().settings().op() + " in " + store.frozen().settings().dtype().id()
                    + " (geometric-mean speedup); "
                    + "floor: the fraction of memory speed reached (geometric mean)\n" + lineage.text();
            case dot -> lineage.dot();
            case mermaid -> lineage.mermaid();
            case json -> lineage.json();
        });
        return ExitCode.OK;
    }
}
