package dev.kevo.export;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.KevoException;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.EvalRecord;
import dev.kevo.data.Precision;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Score;
import dev.kevo.data.ShapeResult;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.store.SourceHash;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What {@code kevo export} was pointed at: a kernel file, a campaign folder (its champion) or a mutant
 * ({@code DIR/ID}, {@code DIR/ID.cu}, {@code DIR/ID.json}), read and parsed, with the campaign's record of it.
 *
 * @param file the parsed kernel file
 * @param record the mutant's record when a campaign judged it
 * @param judged the record, as the package states it
 * @param confirmed the mutant's champion confirmation, when it was a contender
 * @param judgement what each plan was judged on, and by which record ({@link Judgement}): what the package runs each
 *     plan within
 * @param sanitized what compute-sanitizer found in exactly this source ({@link SanitizedRecords}, the mutant's own
 *     evaluation under {@code sanitize: every}, or a {@code kevo eval --sanitize --json} record given); null when it
 *     never ran on it
 * @param judgedDtype the dtype its campaign judged it in; null for a file outside a campaign
 * @param unverified where a sanitizer record of this source was found but does not count here (a legacy hash, no
 *     seal, a seal this host's key does not verify), why, in a phrase; null otherwise
 * @param cubin the cubin the sanitizer's pass ran, kept beside the source ({@link SanitizedRecords#judgedCubin}):
 *     what the package ships, or why there is none to ship
 */
public record ExportSource(KernelFile file, MutantRecord record, Provenance.Judged judged,
                           Confirmation.Entry confirmed, Judgement judgement, Sanitized sanitized,
                           Precision judgedDtype, String unverified, SanitizedRecords.Judged cubin) {

    /**
     * The dtype to export in: {@code asked}, or else the one its campaign judged it in, or else float32 where the file
     * implements it, or else the first it declares.
     *
     * @throws KevoException for a dtype the file does not implement, or one its campaign did not judge it in
     */
    public Precision dtype(Optional<Precision> asked) {
        Precision chosen = asked.orElseGet(() -> judgedDtype != null ? judgedDtype
                : file.implementsDtype(Precision.FP32) ? Precision.FP32 : file.dtypes().getFirst());
        if (!file.implementsDtype(chosen)) {
            throw KevoException.input(file.name() + " implements dtype " + file.dtypes().stream().map(Precision::id)
                    .collect(java.util.stream.Collectors.joining(", ")) + ", not " + chosen.id());
        }
        if (judgedDtype != null && !judgedDtype.equals(chosen)) {
            throw KevoException.input(file.name() + ": its campaign judged it in " + judgedDtype.id() + ", not "
                    + chosen.id() + " (kevo eval --dtype " + chosen.id() + " judges it there; export the file then)");
        }
        return chosen;
    }

    public static ExportSource locate(Path given) {
        return locate(given, Optional.empty());
    }

    /**
     * As {@link #locate(Path)}; {@code evalRecord}, a {@code kevo eval --json} record of the file (with
     * {@code --at-scale}), says how large a shape it was judged on.
     */
    public static ExportSource locate(Path given, Optional<Path> evalRecord) {
        ExportSource found = find(given);
        return evalRecord.map(r -> found.judgedBy(r)).orElse(found);
    }

    private static ExportSource find(Path given) {
        if (Files.isDirectory(given)) {
            CampaignStore store = CampaignStore.open(given);
            String id = store.state().map(s -> s.bestId())
                    .or(() -> store.mutant(CampaignStore.CHAMPION).map(MutantRecord::id))
                    .orElseThrow(() -> KevoException.input(given + ": the campaign has no champion yet"));
            return mutant(store, id);
        }
        String name = given.getFileName() == null ? "" : given.getFileName().toString();
        String id = name.replaceFirst("\\.(cu|json)$", "");
        Path folder = given.toAbsolutePath().getParent();
        boolean inCampaign = folder != null && Files.isRegularFile(folder.resolve(CampaignStore.CONFIG))
                && Files.isRegularFile(folder.resolve(id + ".json")) && Files.isRegularFile(folder.resolve(id + ".cu"));
        if (inCampaign) {
            Path dir = given.getParent() == null ? Path.of(".") : given.getParent();
            return mutant(CampaignStore.open(dir), id);
        }
        if (!Files.exists(given)) {
            throw KevoException.input(given + ": no such file, campaign folder or mutant (give FILE, DIR or DIR/ID)");
        }
        if (name.endsWith(".json")) {
            throw KevoException.input(given + ": a record outside a campaign folder; give the kernel's .cu file");
        }
        KernelFile file = ContractParser.read(given);
        Counted pass = Counted.first(file.source(), SanitizedRecords.read(given).stream());
        return new ExportSource(file, null, null, null, Judgement.of(pass.record()), pass.record(), null,
                pass.unverified(), cubinOf(given, pass.record()));
    }

    /**
     * The first sanitizer record of {@code source} that counts here, or why the first one found of it does not.
     * A record of other bytes is no record of this source.
     */
    private record Counted(Sanitized record, String unverified) {
        static Counted first(String source, Stream<Sanitized> found) {
            String why = null;
            for (Sanitized s : found.filter(Objects::nonNull).filter(s -> SourceHash.matches(source, s.sourceHash())
                    || SourceHash.isLegacy(s.sourceHash())).toList()) {
                Optional<String> problem = SanitizedRecords.unverified(s, source, RecordSeal.local());
                if (problem.isEmpty()) {
                    return new Counted(s, null);
                }
                why = why != null ? why : problem.get();
            }
            return new Counted(null, why);
        }
    }

    private static ExportSource mutant(CampaignStore store, String id) {
        MutantRecord record = store.mutant(id).orElseThrow(
                () -> KevoException.input(store.dir() + ": no mutant '" + id + "' (no " + id + ".json)"));
        if (CampaignStore.CHAMPION.equals(id)) {
            // champion.json is a copy of the champion's record: export the mutant under its own id.
            return mutant(store, record.id());
        }
        Path path = store.sourcePath(id);
        if (!Files.isRegularFile(path)) {
            throw KevoException.input(path + ": no such file (the mutant's source)");
        }
        KernelFile file = ContractParser.read(path);
        FrozenCampaign frozen = store.frozen();
        Confirmation.Entry confirmed = store.confirmation().flatMap(c -> c.entry(id)).orElse(null);
        boolean byConfirmation = confirmed != null && confirmed.confirmed().passed();
        CandidateResult judging = byConfirmation ? confirmed.confirmed() : record.result();
        Provenance.Judged judged = judged(store, frozen, record, file.source());
        // beside the file (a champion's, kevo eval --sanitize's), else its own evaluation's (sanitize: every)
        Counted pass = Counted.first(file.source(), Stream.concat(SanitizedRecords.read(path).stream(),
                Stream.ofNullable(record.result()).map(CandidateResult::sanitized)));
        Judgement judgement = byConfirmation
                ? Judgement.of(judging, "champion confirmation on " + judging.device() + ", " + CampaignStore.CONFIRMATION)
                : judging != null && !judging.plans().isEmpty() ? Judgement.of(judging, "its campaign's evaluation")
                : Judgement.of(pass.record());
        return new ExportSource(file, record, judged, confirmed, judgement, pass.record(), frozen.settings().dtype(),
                pass.unverified(), cubinOf(path, pass.record()));
    }

    /**
     * The same, with what a {@code kevo eval --json} record says of this exact source: how large it was judged, and
     * (where no record beside the file says) what compute-sanitizer found.
     */
    private ExportSource judgedBy(Path evalRecord) {
        EvalRecord eval;
        try {
            eval = new ObjectMapper().readValue(evalRecord.toFile(), EvalRecord.class);
        } catch (IOException e) {
            throw KevoException.input(evalRecord + ": not a kevo eval --json record (" + e.getMessage().lines()
                    .findFirst().orElse("") + ")");
        }
        String hash = SourceHash.of(file.source());
        CandidateResult judging = (eval.results() == null ? List.<CandidateResult>of() : eval.results()).stream()
                .filter(r -> r.passed() && hash.equals(r.sourceHash()) && r.judgedElements() != null)
                .max(java.util.Comparator.comparingLong(CandidateResult::judgedElements))
                .orElseThrow(() -> KevoException.input(evalRecord + ": no passing result of this source ("
                        + file.name() + ", " + hash + "); kevo eval --at-scale --json OUT " + file.name()
                        + " makes one"));
        String device = eval.device() == null ? "" : " on " + eval.device().name();
        Counted pass = sanitized != null ? new Counted(sanitized, null) : Counted.first(file.source(),
                eval.results().stream().filter(r -> hash.equals(r.sourceHash())).map(CandidateResult::sanitized));
        return new ExportSource(file, record, this.judged, confirmed, Judgement.of(judging, "kevo eval" + device + ", "
                + evalRecord), pass.record(), judgedDtype,
                pass.record() != null ? null : pass.unverified() != null ? pass.unverified() : unverified,
                pass.record() == sanitized ? cubin : cubinOf(file.path() == null ? Path.of(file.name()) : file.path(),
                        pass.record()));
    }

    /**
     * What each plan of the file was judged on, by which record: champion confirmation, a {@code kevo eval --json}
     * record given, else the evaluation the sanitizer's pass followed.
     *
     * @param plans per plan, as {@link CandidateResult#plans}; empty where no record says
     * @param build the build that judgement ran, which must be the one shipped; null where the record names none
     * @param where the record, in a phrase
     * @param judgedElements the most elements of any shape it judged the file on; null where it does not say
     */
    public record Judgement(List<dev.kevo.data.PlanJudgement> plans, dev.kevo.data.JudgedBuild build, String where,
                            Long judgedElements) {
        static Judgement of(CandidateResult result, String where) {
            return new Judgement(result.plans(), result.build(), where, result.judgedElements());
        }

        static Judgement of(Sanitized pass) {
            return pass == null ? new Judgement(List.of(), null, "no record", null)
                    : new Judgement(pass.judgedPlans(), pass.build(), "the evaluation its compute-sanitizer pass "
                            + "followed", null);
        }
    }

    private static SanitizedRecords.Judged cubinOf(Path kernelFile, Sanitized pass) {
        return SanitizedRecords.judgedCubin(kernelFile, pass == null ? null : pass.build());
    }

    /**
     * Why kevo cannot ship what it judged, where its sanitizer's pass counts: no judged cubin to ship, or no record of
     * what each plan was judged on (a pass recorded before kevo counted plans). The line says how to judge it again.
     */
    public Optional<String> unshippable() {
        if (sanitized == null || !sanitized.passed()) {
            return Optional.empty();  // unsanitized() says why
        }
        Path at = file.path() == null ? Path.of(file.name()) : file.path();
        String again = "; judge it again on a GPU host with 'kevo eval --at-scale --sanitize " + at + "' and export then";
        if (cubin.cubin() == null) {
            return Optional.of(at + ": kevo ships the exact cubin it judged, and has none: " + cubin.missing() + again);
        }
        if (judgement.plans().isEmpty()) {
            return Optional.of(at + ": " + judgement.where() + " names no plan judgements (it predates per-plan "
                    + "judging), so no plan can be shipped" + again);
        }
        if (judgement.build() != null && !judgement.build().sha256().equals(sanitized.build().sha256())) {
            return Optional.of(at + ": " + judgement.where() + " judged another build (cubin " + judgement.build()
                    .sha256() + ") than compute-sanitizer ran (" + sanitized.build().sha256() + ")" + again);
        }
        return Optional.empty();
    }

    private static Provenance.Judged judged(CampaignStore store, FrozenCampaign frozen, MutantRecord record,
                                            String source) {
        CandidateResult result = record.result();
        Score score = result == null ? null : result.score();
        Path dir = store.dir().toAbsolutePath().normalize();
        return new Provenance.Judged(dir.getFileName() == null ? dir.toString() : dir.getFileName().toString(),
                store.dir().toString(), record.id(), frozen.kevoVersion(),
                result == null ? null : result.device(), result == null ? null : result.verdict().id(),
                score == null ? null : score.speedup(), score == null ? null : score.floorFraction(),
                frozen.suiteName(), frozen.baselineName(), result == null ? 0 : result.inputSeed(),
                record.sourceHash(), SourceHash.matches(source, record.sourceHash()),
                result == null ? null : result.shapes().stream().map(ExportSource::shapeTime).toList(),
                result == null ? null : result.deterministic());
    }

    private static Provenance.ShapeTime shapeTime(ShapeResult s) {
        return new Provenance.ShapeTime(s.shape(), s.plan(),
                s.candidate() == null ? null : s.candidate().medianMs() * 1000,
                s.baseline() == null ? null : s.baseline().medianMs() * 1000, s.speedup(), s.floorFraction());
    }

    /**
     * Why kevo would not hand this kernel out for want of a sanitizer's pass: it has no record for this source (the
     * line says how to get one), or its record has a finding.
     */
    public Optional<String> unsanitized() {
        Path at = file.path() == null ? Path.of(file.name()) : file.path();
        if (sanitized == null && unverified != null) {
            return Optional.of(at + ": its compute-sanitizer record does not count: " + unverified + "; not "
                    + "sanitized here: re-judge with 'kevo eval --sanitize " + at + "' on this host, then export again");
        }
        if (sanitized == null) {
            return Optional.of(at + ": no compute-sanitizer record for this source (" + SanitizedRecords.beside(at)
                    + "); run 'kevo eval --sanitize " + at + "' on a GPU host, then export again");
        }
        if (!sanitized.passed()) {
            return Optional.of(at + ": compute-sanitizer found " + sanitized.verdict().id() + " ("
                    + sanitized.detail() + ")");
        }
        return Optional.empty();
    }

    /**
     * The one line to say where the campaign's record names this mutant's source by a legacy hash: its numbers are
     * exported marked as not this file's, and the line says how to judge the file again.
     */
    public Optional<String> legacyJudgement() {
        if (judged == null || !SourceHash.isLegacy(judged.recordedSourceHash())) {
            return Optional.empty();
        }
        String at = file.path() == null ? file.name() : file.path().toString();
        return Optional.of(SourceHash.rejudge(at, "its campaign's record", "kevo reeval " + judged.campaignPath()
                + " --id " + judged.mutantId() + ", or kevo eval " + at + "; the package says its numbers are not "
                + "this file's"));
    }

    /** Why kevo would not hand this kernel out: its campaign rejected it, or it failed champion confirmation. */
    public Optional<String> rejection() {
        if (confirmed != null && !confirmed.confirmed().passed()) {
            CandidateResult c = confirmed.confirmed();
            return Optional.of(record.id() + " failed champion confirmation (" + c.verdict().id()
                    + (c.detail() == null ? "" : ": " + c.detail()) + ")");
        }
        if (record == null || record.passed()) {
            return Optional.empty();
        }
        CandidateResult result = record.result();
        String verdict = result == null ? "no result" : result.verdict().id()
                + (result.detail() == null ? "" : ": " + result.detail());
        return Optional.of(record.id() + " was rejected by its campaign (" + verdict + ")");
    }
}
