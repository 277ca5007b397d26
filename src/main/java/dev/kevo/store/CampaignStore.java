package dev.kevo.store;

import dev.kevo.data.CampaignState;
import dev.kevo.data.Confirmation;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Profile;
import dev.kevo.data.Rejudged;
import dev.kevo.data.Sanitized;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.agent.ModelCall;
import dev.kevo.data.ConfigFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A campaign folder ({@code mutations/<campaign>/}): campaign.yaml, baseline.cu, one {@code <id>.cu} and
 * {@code <id>.json} per mutant, events.jsonl (append-only, synced per event), champion.cu and champion.json,
 * state.json, and {@code <id>.rejudged.json} for a mutant {@code kevo reeval} judged again. Every file but the event
 * log is replaced atomically; the folder alone is enough to inspect the campaign and re-evaluate its mutants
 * elsewhere.
 */
public final class CampaignStore {
    public static final String CONFIG = "campaign.yaml";
    public static final String BASELINE = "baseline.cu";
    public static final String EVENTS = "events.jsonl";
    public static final String STATE = "state.json";
    public static final String CHAMPION = "champion";
    public static final String CONFIRMATION = "confirmation.json";
    public static final String PROMPT = ".prompt.md";
    /** Nsight Compute's profile of a parent, beside its record: what its children's prompts showed. */
    public static final String PROFILE = ".profile.json";
    public static final String ANSWER = ".answer.md";
    /** The last re-judgement of a mutant by {@code kevo reeval}, beside its record. */
    public static final String REJUDGED = ".rejudged.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final ObjectMapper LINES = new ObjectMapper();
    /** Where a Jackson message says a place is in its input, which it withholds: noise beside the file's line. */
    private static final Pattern JACKSON_SOURCE = Pattern.compile(" ?\\(?(start marker )?at \\[Source: [^]]*]\\)?");

    private final Path dir;

    private CampaignStore(Path dir) {
        this.dir = dir;
    }

    public static CampaignStore create(Path dir, FrozenCampaign frozen, String baselineSource) {
        try {
            if (Files.exists(dir.resolve(CONFIG))) {
                throw KevoException.input(dir + " already holds a campaign (use --resume " + dir + ")");
            }
            Files.createDirectories(dir);
            CampaignStore store = new CampaignStore(dir);
            AtomicFiles.write(dir.resolve(BASELINE), baselineSource);
            AtomicFiles.write(dir.resolve(CONFIG), ConfigFiles.toYaml(frozen));
            return store;
        } catch (IOException e) {
            throw KevoException.input(dir + ": cannot create the campaign folder (" + e.getMessage() + ")");
        }
    }

    public static CampaignStore open(Path dir) {
        if (!Files.exists(dir)) {
            throw KevoException.input(dir + ": no such folder");
        }
        if (!Files.isRegularFile(dir.resolve(CONFIG))) {
            throw KevoException.input(dir + ": not a campaign folder (no " + CONFIG + ")");
        }
        return new CampaignStore(dir);
    }

    public Path dir() {
        return dir;
    }

    public FrozenCampaign frozen() {
        return ConfigFiles.read(dir.resolve(CONFIG), FrozenCampaign.class);
    }

    public String baselineSource() {
        return read(dir.resolve(BASELINE));
    }

    public void saveMutant(MutantRecord record, String source) {
        io(() -> {
            AtomicFiles.write(dir.resolve(record.id() + ".cu"), source);
            if (record.result() != null) {
                // sanitize: every keeps the pass in the record; its cubin, what an export ships, goes beside it
                SanitizedRecords.keepCubin(sourcePath(record.id()), record.result().sanitized());
            }
            AtomicFiles.write(dir.resolve(record.id() + ".json"), JSON.writeValueAsBytes(record));
        });
    }

    /**
     * The prompt and raw answer behind a model's mutant (or failure), as {@code <id>.prompt.md} and
     * {@code <id>.answer.md}: written before the mutant's record so that a record never names files that are missing.
     */
    public void saveModelCall(String id, ModelCall call) {
        io(() -> {
            AtomicFiles.write(dir.resolve(id + PROMPT), call.prompt());
            AtomicFiles.write(dir.resolve(id + ANSWER), call.answer());
        });
    }

    public void saveProfile(String id, Profile profile) {
        io(() -> AtomicFiles.write(dir.resolve(id + PROFILE), JSON.writeValueAsBytes(profile)));
    }

    /** The parent's profile saved by an earlier run (a resumed campaign profiles no parent twice). */
    public Optional<Profile> profile(String id) {
        Path file = dir.resolve(id + PROFILE);
        return Files.isRegularFile(file) ? Optional.of(readRecord(file, Profile.class)) : Optional.empty();
    }

    public Optional<String> prompt(String id) {
        return optional(dir.resolve(id + PROMPT));
    }

    public Optional<String> answer(String id) {
        return optional(dir.resolve(id + ANSWER));
    }

    private static Optional<String> optional(Path file) {
        return Files.isRegularFile(file) ? Optional.of(read(file)) : Optional.empty();
    }

    public void saveChampion(MutantRecord record, String source) {
        io(() -> {
            AtomicFiles.write(dir.resolve(CHAMPION + ".cu"), source);
            AtomicFiles.write(dir.resolve(CHAMPION + ".json"), JSON.writeValueAsBytes(record));
        });
    }

    /** champion.cu and champion.json go: the campaign has no champion (none of its best passed confirmation). */
    public void removeChampion() {
        io(() -> {
            Files.deleteIfExists(dir.resolve(CHAMPION + ".cu"));
            Files.deleteIfExists(dir.resolve(CHAMPION + ".json"));
        });
    }

    public void saveConfirmation(Confirmation confirmation) {
        io(() -> AtomicFiles.write(dir.resolve(CONFIRMATION), JSON.writeValueAsBytes(confirmation)));
    }

    public Optional<Confirmation> confirmation() {
        return readIfPresent(dir.resolve(CONFIRMATION), Confirmation.class);
    }

    public void saveState(CampaignState state) {
        io(() -> AtomicFiles.write(dir.resolve(STATE), JSON.writeValueAsBytes(state)));
    }

    /**
     * Where the campaign stands; empty only while its seeds are being judged (state.json is first written when they
     * are done). A folder that lacks state.json although it holds a later generation's mutants or a confirmation, or
     * lacks the champion's files although state.json names one, lost files since (a partial copy, a hand clean-up):
     * an input error naming the missing file, never a campaign shown without its champion.
     */
    public Optional<CampaignState> state() {
        Optional<CampaignState> state = readIfPresent(dir.resolve(STATE), CampaignState.class);
        if (state.isEmpty()) {
            String after = Files.exists(dir.resolve(CONFIRMATION)) ? CONFIRMATION
                    : mutants().stream().filter(m -> m.generation() > 0).map(MutantRecord::id).findFirst()
                            .map(id -> "mutant " + id).orElse(null);
            if (after != null) {
                throw missing(STATE, "the folder holds " + after + ", written after it");
            }
        }
        state.map(CampaignState::bestId).ifPresent(best -> {
            for (String file : List.of(CHAMPION + ".json", CHAMPION + ".cu")) {
                if (!Files.isRegularFile(dir.resolve(file))) {
                    throw missing(file, STATE + " names the champion " + best);
                }
            }
        });
        return state;
    }

    private KevoException missing(String file, String why) {
        return KevoException.input(dir.resolve(file) + ": missing, although " + why + ": a damaged campaign folder");
    }

    /** A JSON file of the folder, if it is there; one that is there but unreadable is an input error. */
    private static <T> Optional<T> readIfPresent(Path file, Class<T> type) {
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        return Optional.of(readRecord(file, type));
    }

    /**
     * One JSON record of the folder. Kevo writes each atomically, so one that does not parse was damaged since
     * (cut short by a copy, edited by hand): an input error that names the file, never a record quietly left out,
     * which would make a report or a lineage silently wrong.
     */
    private static <T> T readRecord(Path file, Class<T> type) {
        try {
            return JSON.readValue(file.toFile(), type);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw KevoException.input(file + (at == null || at.getLineNr() < 1 ? "" : ":" + at.getLineNr())
                    + ": damaged, not a readable record (" + JACKSON_SOURCE.matcher(e.getOriginalMessage())
                    .replaceAll("") + ")");
        } catch (IOException e) {
            throw KevoException.input(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    /** Appends one event with a timestamp and forces it to disk. */
    public synchronized void event(String type, Map<String, ?> fields) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("time", Instant.now().toString());
        line.put("type", type);
        line.putAll(fields);
        io(() -> AtomicFiles.appendLine(dir.resolve(EVENTS), LINES.writeValueAsString(line)));
    }

    /** Every mutant saved so far. */
    public List<MutantRecord> mutants() {
        List<MutantRecord> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(CampaignStore::isMutantRecord).sorted().toList()) {
                out.add(readRecord(file, MutantRecord.class));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    public Optional<MutantRecord> mutant(String id) {
        Path file = dir.resolve(id + ".json");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        return Optional.of(readRecord(file, MutantRecord.class));
    }

    public String source(String id) {
        return read(dir.resolve(id + ".cu"));
    }

    public Path sourcePath(String id) {
        return dir.resolve(id + ".cu");
    }

    public void saveRejudged(String id, Rejudged record) {
        io(() -> AtomicFiles.write(dir.resolve(id + REJUDGED), JSON.writeValueAsBytes(record)));
    }

    /** The last re-judgement of mutant {@code id}, if {@code kevo reeval} judged it again. */
    public Optional<Rejudged> rejudged(String id) {
        return readIfPresent(dir.resolve(id + REJUDGED), Rejudged.class);
    }

    /** Records what compute-sanitizer found in mutant {@code id}, beside its source ({@link SanitizedRecords}). */
    public void saveSanitized(String id, Sanitized record) {
        io(() -> SanitizedRecords.write(sourcePath(id), record));
    }

    /**
     * What compute-sanitizer found in mutant {@code id}, when it ran on the source the folder holds and this host's
     * kevo sealed the record: the one kevo acts on.
     */
    public Optional<Sanitized> sanitized(String id) {
        return SanitizedRecords.covering(sourcePath(id), source(id));
    }

    /**
     * Mutant {@code id}'s sanitizer record in one line, as recorded, marked where kevo does not count it here (a
     * campaign recorded before seals, or on another host): for {@code show} and {@code report}.
     */
    public Optional<String> sanitizedLine(String id) {
        return SanitizedRecords.shown(sourcePath(id), source(id));
    }

    private static boolean isMutantRecord(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".json") && !name.startsWith(".") && !name.equals(STATE)
                && !name.equals(CHAMPION + ".json") && !name.equals(CONFIRMATION)
                && !name.endsWith(SanitizedRecords.SUFFIX) && !name.endsWith(PROFILE) && !name.endsWith(REJUDGED);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw KevoException.input(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    private interface IoAction {
        void run() throws IOException;
    }

    /** A write that fails is not a bad input: the campaign cannot safely go on, so it stops here. */
    private void io(IoAction action) {
        try {
            action.run();
        } catch (IOException e) {
            throw KevoException.environment(dir + ": cannot write (" + e.getMessage() + ")");
        }
    }
}
