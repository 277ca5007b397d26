package dev.kevo.cli;

import dev.kevo.config.KevoHome;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;

/**
 * kevo's one rule for relative paths. On the command line, a file or folder kevo reads (a kernel, a config, a campaign
 * folder, a suite or baseline file) is looked for in the working directory, then in kevo's home (the checkout, or the
 * bundle; see {@link KevoHome}), so that {@code kevo evolve --config config/default.yaml} and {@code kevo show
 * mutations/sample-h100} mean the shipped files from any directory unless the working directory has its own. A file
 * kevo writes ({@code --out}, {@code --json}) is always relative to the working directory. Inside a config, every
 * path (eval_config, seeds, output, prompts) is relative to kevo's home. docs/campaigns.md and {@code kevo --help}
 * state the rule.
 */
final class PathArguments {

    /** The rule in one line, for {@code kevo --help}. */
    static final String RULE = "Relative paths: a file kevo reads is looked for in the current directory, then in "
            + "kevo's home (the checkout or bundle, $KEVO_HOME); a file it writes (--out, --json) goes in the current "
            + "directory; paths inside a config are relative to kevo's home.";

    private PathArguments() {
    }

    /** Every {@code Path} argument's converter unless the option says otherwise: an input, found by the rule. */
    static final class Input implements CommandLine.ITypeConverter<Path> {
        private final Path workingDirectory;
        private final Path home;

        Input(Path workingDirectory, KevoHome home) {
            this.workingDirectory = workingDirectory;
            this.home = home.root();
        }

        @Override
        public Path convert(String value) {
            return resolve(Path.of(value), workingDirectory, home);
        }
    }

    /** An output: as given, relative to the working directory; never redirected into kevo's home. */
    static final class Output implements CommandLine.ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            return Path.of(value);
        }
    }

    /**
     * {@code given} as typed when it is absolute or exists relative to {@code workingDirectory}, else its place in
     * {@code home} when it exists there, else as typed (so the error names what the user wrote). A name that is no
     * file but whose folder is, such as a mutant given as {@code DIR/ID}, goes by its folder.
     */
    static Path resolve(Path given, Path workingDirectory, Path home) {
        if (given.isAbsolute() || Files.exists(workingDirectory.resolve(given))) {
            return given;
        }
        Path inHome = home.resolve(given);
        if (Files.exists(inHome)) {
            return inHome;
        }
        Path folder = given.getParent();
        boolean folderOnlyInHome = folder != null && !Files.exists(workingDirectory.resolve(folder))
                && Files.isDirectory(home.resolve(folder));
        return folderOnlyInHome ? inHome : given;
    }
}
