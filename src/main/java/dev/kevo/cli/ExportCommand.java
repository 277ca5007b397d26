package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.data.Precision;
import dev.kevo.export.ExportPackage;
import dev.kevo.export.ExportSource;
import dev.kevo.export.ExportTarget;
import dev.kevo.export.TrainingPackage;
import dev.kevo.task.SourcePolicy;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "export", mixinStandardHelpOptions = true,
        header = "Package a kernel for use outside kevo: C++ or PyTorch.",
        description = {"Writes one kernel file as a self-contained package to use outside kevo: the exact cubin kevo "
                + "judged (the package builds no kernel from source; the source is included to read), a CUDA runtime "
                + "launcher (kevo_<op>(x, y, rows, cols, stream), the file's operator's tensors as its parameters: "
                + "kevo_softmax, kevo_log_softmax) whose plan evaluation is generated from kevo's "
                + "own parse of the header and which runs each plan only on the shapes and SM counts kevo judged it "
                + "on, and with --to torch a PyTorch extension (module kevo_<op>, function <op>(x, dim=-1); for "
                + "masked_softmax, masked_softmax(x, scale, mask_kind=\"none\", lengths=None, mask=None, dim=-1) on x "
                + "of [batch, heads, queries, keys]) with setup.py and a load() example. Each example checks the package against a float64 reference of "
                + "its operator (kevo's own in example.cu, torch's in example.py). The package records where the "
                + "kernel came from (campaign, mutant, source hash, device, score and compute-sanitizer's pass) in "
                + "kevo-export.json and its README. Only a kernel whose exact source compute-sanitizer ran clean is "
                + "exported: a campaign's champion is sanitized before it is named, and kevo eval --sanitize FILE "
                + "records any file's pass beside it (NAME.sanitized.json)."},
        footer = {"", "Examples without a GPU, on the sample campaign shipped with kevo:",
            "  kevo export mutations/sample-h100                # its champion, as C++",
            "  kevo export mutations/sample-h100 --to torch --out softmax-torch",
            "  kevo export mutations/sample-h100/g0021-i0-c2 --to cpp --out softmax-cpp",
            "A kernel file of yours, once sanitized and judged at scale on a GPU host:",
            "  kevo eval mine.cu --sanitize --at-scale --json mine-at-scale.json",
            "  kevo export mine.cu --to torch --eval-json mine-at-scale.json",
            "A file of another operator (its header's op) is judged with --op and exports under that operator's names:",
            "  kevo eval --op log_softmax mine_log.cu --sanitize --at-scale --json mine-log.json",
            "  kevo export mine_log.cu --to torch --eval-json mine-log.json    # kevo_log_softmax.log_softmax(x)",
            "A forward and its gradient as one package for training (torch.autograd), each judged so:",
            "  kevo export mine.cu --to torch --backward mine_backward.cu --out softmax-training"})
public final class ExportCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Parameters(paramLabel = "FILE|DIR|DIR/ID",
            description = "A kernel file, a campaign folder (its champion), or a mutant as DIR/ID.")
    Path input;

    @Option(names = "--to", paramLabel = "cpp|torch", defaultValue = "cpp",
            description = "What to write: cpp (CUDA runtime launcher) or torch (PyTorch extension). Default: cpp.")
    String to;

    @Option(names = "--out", paramLabel = "DIR", converter = PathArguments.Output.class,
            description = "The package folder (new, empty, or an earlier export). Default: <name>-<target>.")
    Path out;

    @Option(names = "--eval-json", paramLabel = "RECORD",
            description = "A kevo eval --at-scale --json record of this file: the package then accepts shapes of "
                    + "up to as many elements as that evaluation judged it on (past 2^31-1). A campaign's champion "
                    + "needs none: its confirmation says.")
    Path evalJson;

    @Option(names = "--dtype", paramLabel = "fp32|bf16|fp16|bf16-fp32",
            description = "The dtypes of x and y the package takes; the kernel must implement them. Default: the dtype "
                    + "its campaign judged it in, else fp32 where the file implements it, else the first it declares.")
    String dtype;

    @Option(names = "--backward", paramLabel = "FILE|DIR|DIR/ID",
            description = "With --to torch: a kernel of the operator's gradient (softmax_backward for softmax, "
                    + "log_softmax_backward for log_softmax), exported beside it with a torch.autograd.Function that "
                    + "joins the two (<prefix>_autograd.py) and train_check.py, which checks x.grad against torch.")
    Path backward;

    @Option(names = "--backward-eval-json", paramLabel = "RECORD",
            description = "A kevo eval --at-scale --json record of the --backward file, as --eval-json is of FILE.")
    Path backwardEvalJson;

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "written",
                ExitCode.REJECTED, "the campaign rejected that mutant, kevo's source rules would, or "
                        + "compute-sanitizer found something in it",
                ExitCode.USAGE, "bad usage or input, or no compute-sanitizer record for the kernel's source "
                        + "(kevo eval --sanitize FILE makes one)",
                ExitCode.UNVERIFIED, "its compute-sanitizer record does not count here (a legacy source hash, no "
                        + "seal, or a seal this host's key does not verify), or kevo cannot ship what it judged (no "
                        + "judged cubin beside the file, or a record from before plans were judged one by one): "
                        + "re-judge with kevo eval --at-scale --sanitize FILE");
    }

    @Override
    public ExitCode call() {
        ExportTarget target = ExportTarget.of(to);
        PrintWriter err = spec.commandLine().getErr();
        Optional<Precision> asked = Optional.ofNullable(dtype).map(Inputs::precision);
        ExportSource source = ExportSource.locate(input, Optional.ofNullable(evalJson));
        Optional<Refusal> refused = refusal(source, target, asked);
        if (refused.isPresent()) {
            err.println("kevo: " + refused.get().line());
            return refused.get().code();
        }
        ExportPackage pkg = ExportPackage.build(source, target, asked, Version.current(), Instant.now());
        if (backward != null) {
            Precision both = Precision.parse(pkg.provenance().dtype());
            ExportSource gradient = ExportSource.locate(backward, Optional.ofNullable(backwardEvalJson));
            Optional<Refusal> gradientRefused = gradientRefusal(source, gradient, target, both);
            if (gradientRefused.isPresent()) {
                err.println("kevo: " + gradientRefused.get().line() + " (--backward)");
                return gradientRefused.get().code();
            }
            pkg = TrainingPackage.join(pkg, ExportPackage.build(gradient, target, Optional.of(both),
                    Version.current(), Instant.now()), Version.current());
        }
        Path folder = out != null ? out
                : Path.of(source.file().name().replaceFirst("\\.cu$", "") + "-" + target.id());
        pkg.writeTo(folder);
        source.legacyJudgement().ifPresent(line -> err.println("kevo: " + line));
        PrintWriter o = spec.commandLine().getOut();
        o.printf("wrote %s (%s %s, %d files): %s%n", folder, pkg.provenance().op()
                        + (backward != null ? " and its gradient" : ""), target.id(), pkg.files().size(),
                pkg.provenance().judged() == null ? "not judged by any campaign"
                        : "mutant " + pkg.provenance().judged().mutantId() + " of " + pkg.provenance().judged().campaign());
        o.printf(Locale.ROOT, "  shapes of up to %,d elements: %s%n", pkg.provenance().size().maxElements(),
                pkg.provenance().size().why());
        o.println("  see " + folder.resolve("README.md") + " to build and call it");
        return ExitCode.OK;
    }

    /**
     * Why {@code gradient} cannot join {@code forward}'s package for training, or empty when it can: it must be a kernel
     * of the forward's gradient, exportable to torch in the forward's dtype, whose x and y types autograd passes alike.
     */
    private static Optional<Refusal> gradientRefusal(ExportSource forward, ExportSource gradient, ExportTarget target,
                                                     Precision dtype) {
        if (target != ExportTarget.TORCH) {
            return Optional.of(new Refusal(ExitCode.USAGE, "--backward joins a forward and its gradient for torch's "
                    + "autograd: give --to torch"));
        }
        return TrainingPackage.mismatch(forward.file().op(), gradient.file().op(), dtype)
                .map(m -> new Refusal(ExitCode.USAGE, m))
                .or(() -> refusal(gradient, target, Optional.of(dtype)));
    }

    /** Why kevo will not export a source, in one line, with the exit code that says so. */
    record Refusal(ExitCode code, String line) {
    }

    /**
     * Why {@code source} cannot be exported to {@code target} in {@code asked}, or empty when it can: an operator the
     * target does not package, a rejected mutant or a source kevo's rules reject, a dtype it does not implement, no
     * clean compute-sanitizer record, or nothing judged to ship.
     */
    private static Optional<Refusal> refusal(ExportSource source, ExportTarget target, Optional<Precision> asked) {
        Optional<String> unsupported = ExportPackage.unsupported(source.file().op(), target);
        if (unsupported.isPresent()) {
            return Optional.of(new Refusal(ExitCode.USAGE, source.file().name() + ": " + unsupported.get()));
        }
        Optional<String> rejected = source.rejection()
                .or(() -> SourcePolicy.violation(source.file().source())
                        .map(v -> source.file().name() + ": " + v + " (kevo would reject it: source-rejected)"));
        if (rejected.isPresent()) {
            return Optional.of(new Refusal(ExitCode.REJECTED, rejected.get() + "; kevo exports only kernels it would "
                    + "judge"));
        }
        source.dtype(asked);
        Optional<String> unsanitized = source.unsanitized();
        if (unsanitized.isPresent()) {
            return Optional.of(new Refusal(source.sanitized() != null ? ExitCode.REJECTED
                    : source.unverified() != null ? ExitCode.UNVERIFIED : ExitCode.USAGE,
                    unsanitized.get() + "; kevo exports only kernels compute-sanitizer ran clean"));
        }
        return source.unshippable().map(line -> new Refusal(ExitCode.UNVERIFIED, line));
    }
}
