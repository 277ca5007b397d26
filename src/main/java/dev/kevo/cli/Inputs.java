package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.Defaults;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Task;
import dev.kevo.task.Suite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** Options shared by the commands that judge kernels: where settings, suites and baselines come from. */
final class Inputs {

    // --eval-config, not --config: for evolve --config names a campaign. --config stays as the older spelling.
    @Option(names = {"--eval-config", "--config"}, paramLabel = "FILE",
            description = "Evaluation settings (tolerances, measurement method). Default: config/eval.yaml. "
                    + "(--config is the older name.)")
    Path config;

    @Option(names = "--suite", paramLabel = "NAME|FILE",
            description = "Shapes to judge on: standard, seed004, quick, long, llm, attention, attention-quick "
                    + "(evaluator/suites/NAME.yaml; attention's for masked_softmax), or a suite file. Default: from "
                    + "the config.")
    String suite;

    @Option(names = "--dtype", paramLabel = "fp32|bf16|fp16|bf16-fp32",
            description = "The dtypes of x and y to judge (bf16-fp32: bf16 in, float32 out); a kernel file declares "
                    + "the one it implements. Default: from the config (fp32).")
    String dtype;

    @Option(names = "--op", paramLabel = "OP",
            description = "The operator to judge: softmax, log_softmax, masked_softmax, softmax_backward, "
                    + "log_softmax_backward or cross_entropy (docs/operators.md); a kernel file declares the one it "
                    + "implements. Default: from the config (softmax).")
    String op;

    @Option(names = "--nvrtc", paramLabel = "LIB",
            description = "NVRTC library to use (else $KEVO_NVRTC, then the usual CUDA locations).")
    Path nvrtc;

    KevoHome home() {
        return KevoHome.locate(System.getenv(), Path.of("").toAbsolutePath());
    }

    EvalSettings settings() {
        Path file = config != null ? config : home().root().resolve(Defaults.EVAL_CONFIG);
        EvalSettings loaded = config == null && !Files.isRegularFile(file) ? EvalSettings.defaults()
                : EvalSettings.load(file);
        EvalSettings suited = suite == null ? loaded : loaded.withSuite(suite);
        EvalSettings typed = dtype == null ? suited : suited.withDtype(precision(dtype));
        EvalSettings chosen = op == null ? typed : typed.toBuilder().op(op.trim()).build();
        try {
            Task.of(chosen);
        } catch (KevoException e) {
            throw KevoException.input((op != null ? "--op" : configName()) + ": " + e.getMessage());
        }
        return chosen;
    }

    /** A {@code --dtype} value; a bad one is an input error naming the option and the dtypes kevo judges. */
    static Precision precision(String text) {
        try {
            return Precision.parse(text);
        } catch (IllegalArgumentException e) {
            throw KevoException.input("--dtype: " + e.getMessage());
        }
    }

    /** Where the settings came from, for a line that says why a value is what it is. */
    String configName() {
        return config != null ? config.toString() : Defaults.EVAL_CONFIG;
    }

    /** The settings' suite, each of whose shapes their operator can judge (a mask kind it takes). */
    Suite suite(EvalSettings settings) {
        Suite suite = SuiteFile.load(home().suite(settings.suite()));
        Task.of(settings).checkSuite(suite.name(), suite.shapes());
        return suite;
    }

    Optional<Path> nvrtcPath() {
        return Optional.ofNullable(nvrtc);
    }

    /** Existing, readable files; a missing one is a usage error before any work starts. */
    static List<Path> existing(List<Path> files) {
        for (Path file : files) {
            if (Files.isDirectory(file)) {
                throw KevoException.input(file + ": a folder, not a kernel file (name its files: " + file.resolve("*.cu")
                        + ")");
            }
            if (!Files.isRegularFile(file)) {
                throw KevoException.input(file + ": no such file");
            }
        }
        return files;
    }
}
