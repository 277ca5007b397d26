package dev.kevo.evolve;

import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * What a campaign starts or resumes from, read and checked before any folder is made: the frozen settings, where
 * the folder is (or will be), the baseline's source, the seeds and the agents (checked ready). Check first, then
 * create: a campaign that cannot start leaves nothing behind.
 *
 * @param existing the store of a resumed campaign, null for a new one
 */
public record CampaignStart(Path dir, FrozenCampaign frozen, String baselineSource, List<KernelFile> seeds,
                            AgentPool agents, CampaignStore existing) {

    /**
     * A new campaign, frozen as its folder will hold it; the folder is named but not made.
     *
     * @param agents the config's agents, each checked ready (a model without its key is an error before any GPU work)
     * @param notes where a line about the baseline kevo chose goes
     */
    public static CampaignStart fresh(Path config, KevoHome home, String kevoVersion,
                                      Function<CampaignConfig, AgentPool> agents, Map<String, String> env,
                                      Consumer<String> notes) {
        CampaignConfig campaign = CampaignConfig.load(config);
        AgentPool pool = agents.apply(campaign);
        EvalSettings settings = EvalSettings.load(home.root().resolve(campaign.evalConfig()))
                .withSuite(campaign.suite()).withBaseline(campaign.baseline()).withDtype(campaign.dtype());
        Suite suite = SuiteFile.load(home.suite(settings.suite()));
        Task.of(settings).checkSuite(suite.name(), suite.shapes());
        // Resolved once, before the folder is made: the record says which baseline (and cuDNN version) it was.
        BaselineResolver.Resolved resolved = new BaselineResolver(home::baseline, env)
                .resolve(settings.baseline(), "campaign config", Task.of(settings));
        resolved.note().ifPresent(notes);
        List<KernelFile> seeds = readSeeds(home.root().resolve(campaign.seeds()), Task.of(settings));
        Path dir = home.root().resolve(campaign.output()).resolve(campaign.name() + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        FrozenCampaign frozen = FrozenCampaign.of(kevoVersion, OffsetDateTime.now(ZoneOffset.UTC).toString(),
                campaign, settings, suite.name(), suite.shapes().stream().map(Shape::toString).toList(),
                resolved.choice());
        return new CampaignStart(dir, frozen, resolved.file() != null ? resolved.file().source()
                : builtIn(resolved.choice()), seeds, pool, null);
    }

    /** A campaign to continue: its folder exists, and says everything but where the seeds are. */
    public static CampaignStart resume(Path folder, KevoHome home, Function<CampaignConfig, AgentPool> agents) {
        CampaignStore store = CampaignStore.open(folder);
        FrozenCampaign frozen = store.frozen();
        Path original = home.root().resolve(frozen.config().seeds());
        List<KernelFile> seeds = Files.isDirectory(original) ? readSeeds(original, Task.of(frozen.settings()))
                : savedSeeds(store);
        return new CampaignStart(store.dir(), frozen, store.baselineSource(), seeds, agents.apply(frozen.config()),
                store);
    }

    public boolean resumed() {
        return existing != null;
    }

    public Suite suite() {
        return Suite.of(frozen.suiteName(), frozen.shapes());
    }

    /** The baseline the campaign recorded: its kernel file as saved, or the cuDNN it named (never a fall-back). */
    public BaselineResolver.Resolved baseline(KevoHome home, Map<String, String> env) {
        return new BaselineResolver(home::baseline, env).recorded(frozen.baseline(), () -> ContractParser.parse(
                frozen.baselineName(), dir.resolve(CampaignStore.BASELINE), baselineSource));
    }

    /** The resumed campaign's store, or the new campaign's folder, made now: call once its workers are ready. */
    public CampaignStore store() {
        return existing != null ? existing : CampaignStore.create(dir, frozen, baselineSource);
    }

    /**
     * The .cu files of a seeds folder that implement the task, its operator and its dtype, in name order. Only the
     * folder itself is read, not the folders in it: kevo's seeds of other operators live in {@code seeds/<op>/} (e.g.
     * {@code seeds/log_softmax/}), and a file of another operator that is here anyway is left out, never judged.
     */
    public static List<KernelFile> readSeeds(Path dir, Task task) {
        if (!Files.isDirectory(dir)) {
            throw KevoException.input(dir + ": no seeds folder");
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<KernelFile> all = files.filter(p -> p.toString().endsWith(".cu")).sorted()
                    .map(ContractParser::read).toList();
            if (all.isEmpty()) {
                throw KevoException.input(dir + ": no .cu seeds");
            }
            List<KernelFile> ofOp = all.stream().filter(f -> f.op().id().equals(task.op().id())).toList();
            if (ofOp.isEmpty()) {
                throw KevoException.input(dir + ": no seed implements " + task.op().id() + " (a header's \"op\": \""
                        + task.op().id() + "\"" + (task.op() == Operators.DEFAULT ? ", or none" : "")
                        + "; kevo's seeds of other operators are in seeds/OP/)");
            }
            Precision dtype = task.dtype();
            List<KernelFile> seeds = ofOp.stream().filter(f -> f.implementsDtype(dtype)).toList();
            if (seeds.isEmpty()) {
                throw KevoException.input(dir + ": no seed implements dtype " + dtype.id() + " (a header's \"dtype\": \""
                        + dtype.id() + "\")");
            }
            return seeds;
        } catch (IOException e) {
            throw KevoException.input(dir + ": cannot list (" + e.getMessage() + ")");
        }
    }

    /** The seeds as the campaign saved them, so a copied folder resumes without the original seeds/. */
    private static List<KernelFile> savedSeeds(CampaignStore store) {
        List<KernelFile> seeds = new ArrayList<>();
        for (MutantRecord m : store.mutants()) {
            if (m.isSeed()) {
                seeds.add(ContractParser.parse(m.seedFileName(), store.sourcePath(m.id()), store.source(m.id())));
            }
        }
        if (seeds.isEmpty()) {
            throw KevoException.input(store.dir() + ": the campaign was stopped before its seeds were saved; "
                    + "start it again");
        }
        return seeds;
    }

    /** baseline.cu of a campaign whose baseline is cuDNN: no kernel, a note for whoever opens the folder. */
    private static String builtIn(BaselineChoice choice) {
        return "// This campaign's baseline is built into kevo, not a kernel file: " + choice.label()
                + "'s cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL) from " + choice.library()
                + ".\n// campaign.yaml records it under baseline_choice.\n";
    }
}
