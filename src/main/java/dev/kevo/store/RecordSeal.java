package dev.kevo.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.kevo.cuda.CompileCache;
import dev.kevo.data.Sanitized;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals sanitizer records, so that kevo counts only those its own code wrote on this host: an HMAC-SHA256 of the
 * whole record (the kevo version and host that wrote it included) under a random key kevo keeps in its cache folder
 * ({@code $KEVO_CACHE}, else {@code $XDG_CACHE_HOME/kevo}, else {@code ~/.cache/kevo}), readable by its owner only.
 *
 * <p>What a verified seal proves: this host's kevo (a process that could read the key) wrote this record, with
 * these contents, for the source its hash names. What it does not: it does not stop anyone who can read the key (the
 * user, root) from sealing a record by hand, and a record copied from another host, or written before seals, does
 * not verify here even where it is genuine: such a file is re-judged ({@code kevo eval --sanitize}) where it is to be
 * exported. With the cache off ({@code KEVO_CACHE=off}) kevo keeps no key: it writes records unsealed and counts none.
 */
public final class RecordSeal {
    static final String KEY_FILE = "record-seal.key";
    private static final String PREFIX = "hmac-sha256:";
    /** Every field in a fixed order, maps by key: the bytes sealed are the same wherever the record is read back. */
    private static final JsonMapper CANONICAL = JsonMapper.builder()
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

    private final Optional<Path> keyFile;

    private RecordSeal(Optional<Path> keyFile) {
        this.keyFile = keyFile;
    }

    /** The seal of this host's kevo, its key in the cache folder {@code env} names. */
    public static RecordSeal fromEnvironment(Map<String, String> env) {
        return new RecordSeal(CompileCache.fromEnvironment(env).dir().map(d -> d.resolve(KEY_FILE)));
    }

    /** The seal of the kevo running here, as its environment says. */
    public static RecordSeal local() {
        return fromEnvironment(System.getenv());
    }

    /** kevo's version, from the jar's manifest; "dev" when running from classes. */
    public static String version() {
        String v = RecordSeal.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    /** {@code record} as this kevo writes it: its version, this host's name and, where there is a key, the seal. */
    public Sanitized seal(Sanitized record) {
        Sanitized unsealed = record.writtenBy(version(), hostName(), null);
        return key(true).map(k -> unsealed.writtenBy(version(), hostName(), PREFIX + mac(k, unsealed)))
                .orElse(unsealed);
    }

    /**
     * Why {@code record} does not count here, in a phrase, or empty when its seal verifies under this host's key.
     * Source hashes are for the caller to compare.
     */
    public Optional<String> problem(Sanitized record) {
        if (SHIPPED.contains(digest(record))) {
            return Optional.empty();
        }
        if (record.seal() == null) {
            return Optional.of("it carries no seal (written before kevo sealed its records, or by hand)");
        }
        Optional<byte[]> key = key(false);
        if (key.isEmpty()) {
            return Optional.of("this host's kevo keeps no key to verify it with (" + keyFile.map(Path::toString)
                    .map(f -> "no " + f).orElse("the cache is off") + ")");
        }
        byte[] expected = (PREFIX + mac(key.get(), record.writtenBy(record.kevoVersion(), record.host(), null)))
                .getBytes(StandardCharsets.UTF_8);
        if (!MessageDigest.isEqual(expected, record.seal().getBytes(StandardCharsets.UTF_8))) {
            return Optional.of("its seal does not verify with this host's key (written on "
                    + (record.host() == null ? "an unnamed host" : record.host()) + ": edited since, copied from "
                    + "another host, or forged)");
        }
        return Optional.empty();
    }

    /**
     * Records kevo itself ships (the sample campaign's champion, recorded on an H100): no host's key made them, so
     * they count by their digest, listed inside kevo's jar. Changing one byte of such a record, or listing another,
     * takes changing kevo itself.
     */
    private static final Set<String> SHIPPED = shippedDigests();

    private static Set<String> shippedDigests() {
        try (InputStream in = RecordSeal.class.getResourceAsStream(SHIPPED_LIST)) {
            if (in == null) {
                throw new IllegalStateException(SHIPPED_LIST + " missing from the kevo jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).map(l -> l.split("\\s+")[0])
                    .collect(Collectors.toUnmodifiableSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The list of {@link #SHIPPED} digests, one a line, each followed by the record it is of. */
    static final String SHIPPED_LIST = "shipped-sanitizer-records.txt";

    /** The SHA-256 of a record's canonical form, seal included: what {@link #SHIPPED} lists. */
    static String digest(Sanitized record) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(CANONICAL.writeValueAsBytes(record)));
        } catch (NoSuchAlgorithmException | JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String mac(byte[] key, Sanitized unsealed) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(CANONICAL.writeValueAsBytes(unsealed)));
        } catch (GeneralSecurityException | JsonProcessingException e) {
            throw new IllegalStateException("sealing a sanitizer record", e);
        }
    }

    /** The key; made once where {@code create} and there is none (two kevos racing keep the first one written). */
    private Optional<byte[]> key(boolean create) {
        if (keyFile.isEmpty()) {
            return Optional.empty();
        }
        Path file = keyFile.get();
        try {
            if (create && !Files.exists(file)) {
                Files.createDirectories(file.getParent());
                byte[] fresh = new byte[32];
                new SecureRandom().nextBytes(fresh);
                Path made = Files.createTempFile(file.getParent(), KEY_FILE, ".new",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(made, HexFormat.of().formatHex(fresh));
                try {
                    Files.createLink(file, made);  // fails where another kevo got there first: its key stands
                } catch (FileAlreadyExistsException e) {
                    // the other one's
                } catch (UnsupportedOperationException e) {
                    Files.move(made, file);  // no hard links here: not atomic, but never over an existing key
                } finally {
                    Files.deleteIfExists(made);
                }
            }
            return Files.isRegularFile(file) ? Optional.of(HexFormat.of().parseHex(Files.readString(file).strip()))
                    : Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();  // no key here: records stay unsealed, and none counts
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return Optional.ofNullable(System.getenv("HOSTNAME")).orElse("unknown");
        }
    }
}
