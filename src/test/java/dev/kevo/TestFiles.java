package dev.kevo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.store.SourceHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repository's files as tests see them. */
public final class TestFiles {
    private TestFiles() {
    }

    public static Path root() {
        return Path.of(System.getProperty("kevo.root", "."));
    }

    public static List<Path> seeds() {
        return list(root().resolve("seeds"));
    }

    public static List<Path> planted() {
        return list(root().resolve("src/test/resources/planted"));
    }

    /** The sample campaign (mutations/default-h100), copied into {@code into} for a test that writes into it. */
    public static Path sampleCampaignCopy(Path into) {
        Path target = into.resolve("default-h100");
        try (Stream<Path> files = Files.list(root().resolve("mutations/default-h100"))) {
            Files.createDirectories(target);
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    /**
     * The sample campaign, copied, with each mutant's record naming its source by the exact-bytes hash a campaign
     * records today: the sample predates it, and its legacy hashes are never a match (issue 41).
     */
    public static Path rehashedCampaignCopy(Path into) {
        Path target = sampleCampaignCopy(into);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        try (Stream<Path> files = Files.list(target)) {
            for (Path record : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                JsonNode node = json.readTree(record.toFile());
                Path source = target.resolve(node.path("id").asText() + ".cu");
                if (node.has("sourceHash") && Files.isRegularFile(source)) {
                    ((ObjectNode) node).put("sourceHash", SourceHash.of(Files.readString(source)));
                    json.writeValue(record.toFile(), node);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cu")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
