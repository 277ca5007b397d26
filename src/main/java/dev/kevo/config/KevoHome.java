package dev.kevo.config;

import dev.kevo.KevoException;
import dev.kevo.data.Defaults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where kevo finds the files it reads by name (suites, baselines, configs, seeds): the current directory
 * when it is a kevo checkout, otherwise the installation ($KEVO_HOME, set by bin/kevo). Relative paths inside a config
 * are relative to it; docs/campaigns.md#relative-paths has the whole rule.
 */
public record KevoHome(Path root) {

    public static KevoHome locate(Map<String, String> env, Path workingDirectory) {
        if (Files.isDirectory(workingDirectory.resolve("evaluator/suites"))) {
            return new KevoHome(workingDirectory);
        }
        String home = env.get("KEVO_HOME");
        if (home != null && Files.isDirectory(Path.of(home, "evaluator/suites"))) {
            return new KevoHome(Path.of(home));
        }
        return new KevoHome(workingDirectory);
    }

    public Path suite(String name) {
        return byName("evaluator/suites", name, ".yaml", "suite");
    }

    public Path baseline(String name) {
        return byName("evaluator/baselines", name, ".cu", "baseline");
    }

    public Path config(String name) {
        return byName("config", name, ".yaml", "config");
    }

    public Path seeds() {
        return root.resolve(Defaults.SEEDS);
    }

    /**
     * A path as given when it names an existing file, else the same path under the root (a file named from outside
     * the checkout, as every relative path kevo reads is found), otherwise {@code dir/name + ext} under the root.
     */
    private Path byName(String dir, String name, String ext, String what) {
        Path direct = Path.of(name);
        if (Files.isRegularFile(direct)) {
            return direct;
        }
        if (!direct.isAbsolute() && Files.isRegularFile(root.resolve(direct))) {
            return root.resolve(direct);
        }
        Path named = root.resolve(dir).resolve(name.endsWith(ext) ? name : name + ext);
        if (!Files.isRegularFile(named)) {
            throw KevoException.input("no " + what + " '" + name + "' (looked for " + named + ")");
        }
        return named;
    }
}
