package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.report.CampaignCompare;
import dev.kevo.report.CampaignReport;
import dev.kevo.report.HtmlPage;
import dev.kevo.store.AtomicFiles;
import dev.kevo.store.CampaignStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "report", mixinStandardHelpOptions = true,
        header = "Write one HTML page about a campaign, or compare two.",
        description = {
            "Writes one HTML page about a campaign, to open in any browser (everything is inside the file; no "
                    + "network, no campaign folder needed): the best and median score per island against "
                    + "evaluations and wall time with each new champion marked; the champion's lineage as a graph "
                    + "(click a node for its source, its diff against its parents and its per-shape results); "
                    + "per-shape time and fraction of the memory floor for the champion, the seeds and the "
                    + "baseline; verdicts per generation; LLM tokens and cost when an LLM was used; the top "
                    + "mutants with links to their files.",
            "With --compare A B: a page comparing two campaigns (progress, verdicts, champions shape by shape "
                    + "and their diff) or two mutants (shape by shape, and their diff)."},
        footer = {"", "Examples:",
            "  kevo report mutations/sample-h100             (the sample campaign shipped with kevo)",
            "  kevo report --compare mutations/sample-h100 mutations/<yours> --out cmp.html",
            "  kevo report --compare mutations/sample-h100/g0021-i0-c2 mutations/sample-h100/seed-cluster_rows"})
public final class ReportCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Parameters(paramLabel = "CAMPAIGN", arity = "0..*",
            description = "Campaign folder(s), e.g. mutations/sample-h100; one page per folder.")
    List<Path> campaigns = new ArrayList<>();

    @Option(names = "--compare", arity = "2", paramLabel = "A B", hideParamSyntax = true,
            description = "Compare A and B instead: each a campaign folder (its champion stands for it) or a mutant "
                    + "as FOLDER/ID or FOLDER/ID.json.")
    List<Path> compare;

    @Option(names = "--out", paramLabel = "FILE", converter = PathArguments.Output.class,
            description = "Where to write the page. Default: CAMPAIGN/report.html; with --compare, "
                    + "compare-<A>-vs-<B>.html in the current folder.")
    Path out;

    @Option(names = "--top", paramLabel = "N", defaultValue = "10",
            description = "How many of the best distinct mutants the table lists. Default: 10.")
    int top;

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "written",
                ExitCode.USAGE, "not a campaign folder or mutant, a damaged one, or an unwritable --out");
    }

    @Override
    public ExitCode call() {
        OptionChecks.atLeast(spec, "--top", top, 1);
        if (compare != null) {
            if (!campaigns.isEmpty()) {
                throw KevoException.input("give either campaign folders or --compare A B, not both");
            }
            return compare();
        }
        if (campaigns.isEmpty()) {
            throw KevoException.input("name a campaign folder (kevo report mutations/<campaign>) or --compare A B");
        }
        if (out != null && campaigns.size() > 1) {
            throw KevoException.input("--out names one file; with " + campaigns.size()
                    + " campaigns leave it out (each page goes into its campaign folder)");
        }
        for (Path campaign : campaigns) {
            CampaignStore store = CampaignStore.open(campaign);
            Path file = out != null ? out : campaign.resolve("report.html");
            String title = "kevo report: " + campaign.toAbsolutePath().normalize().getFileName();
            write(file, HtmlPage.render(HtmlPage.Kind.CAMPAIGN, title, footer(),
                    CampaignReport.gather(store, top, directory(file))));
        }
        return ExitCode.OK;
    }

    private ExitCode compare() {
        Path a = compare.get(0);
        Path b = compare.get(1);
        Path file = out != null ? out : Path.of("compare-" + name(a) + "-vs-" + name(b) + ".html");
        String title = "kevo compare: " + name(a) + " vs " + name(b);
        write(file, HtmlPage.render(HtmlPage.Kind.COMPARE, title, footer(),
                CampaignCompare.compare(a, b, directory(file))));
        return ExitCode.OK;
    }

    /** A short name for a side: a campaign's folder name, or folder-id for a mutant. */
    private static String name(Path side) {
        Path abs = side.toAbsolutePath().normalize();
        String last = abs.getFileName() == null ? "root" : abs.getFileName().toString().replaceFirst("\\.(json|cu)$", "");
        return Files.isDirectory(abs) || abs.getParent() == null || abs.getParent().getFileName() == null ? last
                : abs.getParent().getFileName() + "-" + last;
    }

    private String footer() {
        return "kevo " + Version.current() + ", written " + Instant.now().truncatedTo(ChronoUnit.SECONDS) + " by: kevo "
                + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    }

    private static Path directory(Path file) {
        Path parent = file.toAbsolutePath().getParent();
        return parent == null ? Path.of("").toAbsolutePath() : parent;
    }

    private void write(Path file, String html) {
        if (Files.isDirectory(file)) {
            throw KevoException.input(file + ": is a folder; --out names the page's file, e.g. "
                    + file.resolve("report.html"));
        }
        try {
            Path dir = directory(file);
            Files.createDirectories(dir);
            AtomicFiles.write(file, html);
        } catch (IOException e) {
            throw KevoException.input(file + ": cannot write (" + e.getMessage() + ")");
        }
        spec.commandLine().getOut().printf(Locale.ROOT, "wrote %s (%.1f MB)%n", file,
                html.getBytes(StandardCharsets.UTF_8).length / 1e6);
    }
}
