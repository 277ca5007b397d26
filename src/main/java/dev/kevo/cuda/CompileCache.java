package dev.kevo.cuda;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Cubins of kevo's own kernels (the trusted kernels every worker needs) kept on disk between runs: compiling
 * them is most of a worker's start, and they change only with kevo, NVRTC or the GPU. Keyed by everything that
 * goes into the compile; a file is a SHA-256 of the cubin followed by the cubin, so a damaged one is compiled
 * again rather than loaded. Candidates are never cached: each is compiled fresh, its compile time is evidence.
 * The same folder remembers facts a worker established once (that a baseline passed its check on this device),
 * keyed by a digest of everything the fact depends on.
 */
public final class CompileCache {
    private final Optional<Path> dir;

    private CompileCache(Optional<Path> dir) {
        this.dir = dir;
    }

    public static CompileCache none() {
        return new CompileCache(Optional.empty());
    }

    public static CompileCache at(Path dir) {
        return new CompileCache(Optional.of(dir));
    }

    /**
     * {@code $KEVO_CACHE} ({@code off} disables it), else {@code $XDG_CACHE_HOME/kevo}, else {@code ~/.cache/kevo}.
     */
    public static CompileCache fromEnvironment(Map<String, String> env) {
        String configured = env.get("KEVO_CACHE");
        if ("off".equals(configured)) {
            return none();
        }
        if (configured != null && !configured.isBlank()) {
            return at(Path.of(configured));
        }
        String xdg = env.get("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return at(Path.of(xdg, "kevo"));
        }
        String home = env.get("HOME");
        return home == null ? none() : at(Path.of(home, ".cache", "kevo"));
    }

    public Optional<Path> dir() {
        return dir;
    }

    /** The compilation from the cache, or from NVRTC (then stored; a cache that cannot be written is skipped). */
    public Compilation compile(Nvrtc nvrtc, String name, String source, Map<String, String> headers, String arch) {
        if (dir.isEmpty()) {
            return nvrtc.compile(name, source, headers, arch);
        }
        Path file = dir.get().resolve("cubin").resolve(key(nvrtc, name, source, headers, arch) + ".cubin");
        Optional<byte[]> cached = read(file);
        if (cached.isPresent()) {
            return new Compilation(name, arch, cached.get(), "", Duration.ZERO, List.of("(cached " + file + ")"));
        }
        Compilation fresh = nvrtc.compile(name, source, headers, arch);
        write(file, fresh.cubin());
        return fresh;
    }

    /**
     * Keeps a judged cubin under its SHA-256 ({@code judged/HASH.cubin}), for what records the judgement to copy beside
     * them: what an export ships. Returns the hash; a cache that cannot be written, or none, keeps nothing.
     */
    public String keepJudged(byte[] cubin) {
        String hash = sha256Hex(cubin);
        dir.ifPresent(d -> {
            Path file = d.resolve("judged").resolve(hash + ".cubin");
            if (!Files.isRegularFile(file)) {
                write(file, cubin);
            }
        });
        return hash;
    }

    /** The SHA-256 of a cubin, hex: a judged build's identity. */
    public static String sha256Hex(byte[] cubin) {
        return HexFormat.of().formatHex(sha256().digest(cubin));
    }

    /** The judged cubin of that hash, when this host's cache kept it and it is whole. */
    public Optional<byte[]> judged(String sha256) {
        return dir.flatMap(d -> read(d.resolve("judged").resolve(sha256 + ".cubin")));
    }

    /** True when {@link #remember(String)} was called with the same text on this host (false without a cache). */
    public boolean remembers(String fact) {
        return dir.map(d -> Files.exists(d.resolve("facts").resolve(digest(fact)))).orElse(false);
    }

    public void remember(String fact) {
        dir.ifPresent(d -> {
            try {
                Files.createDirectories(d.resolve("facts"));
                Files.writeString(d.resolve("facts").resolve(digest(fact)), "");
            } catch (IOException e) {
                // Forgetting only costs the next worker the check again.
            }
        });
    }

    private static String digest(String text) {
        return HexFormat.of().formatHex(sha256().digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static String key(Nvrtc nvrtc, String name, String source, Map<String, String> headers, String arch) {
        MessageDigest sha = sha256();
        for (String part : List.of(nvrtc.version(), nvrtc.location(), arch, name, source)) {
            sha.update(part.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
        }
        new TreeMap<>(headers).forEach((header, text) -> {
            sha.update(header.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            sha.update(text.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
        });
        return HexFormat.of().formatHex(sha.digest());
    }

    private static Optional<byte[]> read(Path file) {
        try {
            byte[] stored = Files.readAllBytes(file);
            if (stored.length <= 32) {
                return Optional.empty();
            }
            byte[] cubin = Arrays.copyOfRange(stored, 32, stored.length);
            return Arrays.equals(sha256().digest(cubin), Arrays.copyOf(stored, 32)) ? Optional.of(cubin) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    // Not store.AtomicFiles: several worker processes may write the same entry at once, so each needs its own
    // temporary name, and a cache needs no fsync (a torn entry fails its checksum and costs one compile).
    private static void write(Path file, byte[] cubin) {
        try {
            Files.createDirectories(file.getParent());
            Path temp = Files.createTempFile(file.getParent(), ".cubin-", ".tmp");
            byte[] hash = sha256().digest(cubin);
            byte[] stored = Arrays.copyOf(hash, hash.length + cubin.length);
            System.arraycopy(cubin, 0, stored, hash.length, cubin.length);
            Files.write(temp, stored);
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // A read-only or full cache only costs the next worker a compile.
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
