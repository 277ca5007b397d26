package dev.kevo.export;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.Precision;
import dev.kevo.cuda.Prelude;
import dev.kevo.store.AtomicFiles;
import dev.kevo.store.SourceHash;
import dev.kevo.task.KernelFile;
import dev.kevo.task.SourceCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.kevo.task.op.Operator;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A kernel file as a self-contained package for a target: the files by name and what they came from. Its files, C API
 * and torch op are named after the file's operator ({@link OperatorApi}: {@code kevo_softmax.h},
 * {@code kevo_log_softmax.h}, ...) and take its tensors.
 *
 * @param files file name to content, in the order a reader meets them
 */
public record ExportPackage(ExportTarget target, Provenance provenance, Map<String, String> files) {

    public static final String PROVENANCE = "kevo-export.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Pattern INCLUDE_KEVO_H = Pattern.compile("(?m)^[ \\t]*#[ \\t]*include[ \\t]*\"kevo\\.h\"[^\\n]*$");
    /** A {@code __device__} variable (not a function): state that outlives a launch. */
    private static final Pattern DEVICE_STATE = Pattern.compile("(?m)^[ \\t]*(?:static[ \\t]+)?(?:volatile[ \\t]+)?"
            + "__device__[^(;{]*?[\\w\\]][ \\t]*(?:=[^;(]*)?;");

    public ExportPackage {
        files = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(files));
    }

    /** Why {@code op} cannot be exported to {@code target} yet, in one line ({@link OperatorApi#unsupported}), or empty. */
    public static Optional<String> unsupported(Operator op, ExportTarget target) {
        return OperatorApi.unsupported(op, target);
    }

    public static ExportPackage build(ExportSource source, ExportTarget target, String kevoVersion, Instant now) {
        return build(source, target, Optional.empty(), kevoVersion, now);
    }

    /** As above, in {@code dtype} when given ({@link ExportSource#dtype}: else the one its campaign judged). */
    public static ExportPackage build(ExportSource source, ExportTarget target, Optional<Precision> dtype,
                                      String kevoVersion, Instant now) {
        KernelFile file = source.file();
        OperatorApi api = OperatorApi.of(file.op());
        OperatorApi.unsupported(file.op(), target).ifPresent(why -> {
            throw KevoException.input(why);
        });
        Optional<TorchReference> torchReference = TorchReference.of(file.op());
        if (target == ExportTarget.TORCH && torchReference.isEmpty()) {
            // The torch example checks the op against torch's own function for it; without one it could not.
            throw KevoException.input(file.name() + " implements " + file.op().id() + ", for which kevo knows no "
                    + "torch function to check a torch package against; --to cpp exports it, checked against kevo's "
                    + "own reference");
        }
        Precision precision = source.dtype(dtype);
        Optional<String> unshippable = source.unsanitized().or(source::unshippable);
        if (unshippable.isPresent()) {
            throw KevoException.input(unshippable.get());
        }
        JudgedBuild build = source.sanitized().build();
        if (!build.options().containsAll(file.macros(precision).entrySet().stream()
                .map(m -> "-D" + m.getKey() + "=" + m.getValue()).toList())) {
            throw KevoException.input(file.name() + ": the judged cubin was built for other element types or knobs ("
                    + String.join(" ", build.options()) + "), not dtype " + precision.id());
        }
        ApiText text = new ApiText(api, precision);
        String hash = SourceHash.of(file.source());
        String when = now.truncatedTo(ChronoUnit.SECONDS).toString();
        PlanEnvelope envelope = PlanEnvelope.of(file.plans().size(), source.judgement().plans(), source.sanitized());
        Provenance.Size size = new Provenance.Size(envelope.maxElements(), source.judgement().judgedElements(),
                "each plan up to what " + source.judgement().where() + " judged it on: " + envelope.summary()
                        + " (README.md and kevo-export.json, \"plans\", say which)");
        Provenance provenance = new Provenance(file.name(), file.op().id(),
                file.path() == null ? file.name() : file.path().toString(), hash, "kevo " + kevoVersion, when,
                target.id(), source.judged(), source.judged() == null
                ? "not judged: exported from a file outside any campaign folder, so no campaign's record applies to it"
                        + " (kevo eval measures it)" : null, size, source.sanitized(), precision.id(), build,
                envelope.plans());
        String maxElements = Long.toString(size.maxElements());
        String banner = "// Generated by kevo export (kevo " + kevoVersion + ", " + when + ") from "
                + CText.comment(provenance.source()) + "\n// " + CText.comment(origin(provenance)) + "\n";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(api.source(), launcher(api, text, banner, maxElements));
        files.put(api.header(), Template.fill("header.h", text.slots()));
        files.put(api.planHeader(), PlanHeader.render(file, banner, envelope));
        files.put(api.cubinHeader(), CubinHeader.render(api, build, source.cubin().cubin(), banner));
        files.put(api.kernels(), kernels(file, api, precision, banner));
        if (target == ExportTarget.TORCH) {
            String doc = "kevo " + api.function() + ": " + file.name() + " (" + origin(provenance) + ")";
            files.put(api.torchBinding(), Template.fill("torch_binding.cpp", with(text.slots(), Map.of("DOC",
                    cEscaped(doc), "MAX_ELEMENTS", maxElements))));
            files.put("setup.py", Template.fill("setup.py", Map.of("P", api.prefix(), "DOC", pyEscaped(doc),
                    "VERSION", kevoVersion.matches("\\d+(\\.\\d+)*") ? kevoVersion : "0.0.0")));
            if (api.loss()) {
                files.put("example.py", Examples.torchLoss(api, precision));
                files.put(api.lossModule(), Template.fill("loss.py", Map.of("P", api.prefix(), "FN", api.function(),
                        "DTYPE", precision.id(), "REDUCTION", Examples.reduction(api))));
            } else {
                files.put("example.py", Examples.torch(api, precision, torchReference.orElseThrow()));
            }
        } else {
            files.put("example.cu", Examples.cpp(api, precision));
        }
        files.put("README.md", ExportReadme.render(file, target, provenance, text, deviceState(file.source())));
        files.put(PROVENANCE, json(provenance));
        return new ExportPackage(target, provenance, files);
    }

    /** One line on where the kernel comes from, for banners and docstrings. */
    static String origin(Provenance p) {
        if (p.judged() == null) {
            return "source " + p.sourceHash() + "; not judged by any campaign";
        }
        Provenance.Judged j = p.judged();
        return "campaign " + j.campaign() + ", mutant " + j.mutantId() + ", source " + p.sourceHash()
                + (j.score() == null ? "" : String.format(java.util.Locale.ROOT, ", score %.3fx", j.score()))
                + (j.device() == null ? "" : " on " + j.device());
    }

    /** The host launcher, which loads the judged cubin and refuses shapes of more than {@code maxElements}. */
    static String launcher(OperatorApi api, ApiText text, String banner, String maxElements) {
        return banner + "// The host launcher: it runs the kernels of " + api.cubinHeader() + ", the cubin kevo judged "
                + "(built from " + api.kernels() + "),\n// on the plan " + api.planHeader() + " chooses.\n"
                + Template.fill("launcher.cu", with(text.slots(), Map.of("MAX_ELEMENTS", maxElements)));
    }

    /**
     * The kernel file with kevo.h, which kevo supplies in memory, written in place of its include, and the macros kevo
     * compiled it with: the source of the judged cubin, to read. It is not built: the package runs the cubin.
     */
    static String kernels(KernelFile file, OperatorApi api, Precision dtype, String banner) {
        String prelude = Prelude.headers().get(Prelude.NAME).replaceAll("(?m)^#pragma once[^\\n]*\\n", "");
        String inlined = "// ---- kevo.h, inlined by kevo export (kevo supplies it in memory) ----\n" + prelude
                + "// ---- end of kevo.h ----";
        Matcher m = INCLUDE_KEVO_H.matcher(file.source());
        String body = INCLUDE_KEVO_H.matcher(m.replaceFirst(Matcher.quoteReplacement(inlined)))
                .replaceAll("// (kevo.h is inlined above)");
        StringBuilder knobs = new StringBuilder();
        // kevo passes these as -D options when it compiles; the header's current values are what was judged, and
        // KEVO_X and KEVO_Y are the dtype exported.
        file.macros(dtype).forEach((name, value) -> knobs.append("#define ").append(name).append(' ')
                .append(value).append('\n'));
        knobs.insert(0, "// The file's knobs at their current values and its element types, as kevo defines them.\n");
        return banner + "// The source of " + api.cubinHeader() + ", which NVRTC compiled from it when kevo judged it. "
                + "Not built by this package:\n// another compiler, or another version, makes other code, which kevo never judged.\n"
                + knobs + "// The kernel file as kevo judged it (its /*@kevo plan header below is what "
                + api.planHeader() + " evaluates).\n" + body + (body.endsWith("\n") ? "" : "\n");
    }

    private static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        Map<String, String> all = new LinkedHashMap<>(a);
        all.putAll(b);
        return all;
    }

    static boolean deviceState(String source) {
        String code = SourceCode.withoutComments(source);
        return DEVICE_STATE.matcher(code).find();
    }

    private static String json(Provenance provenance) {
        try {
            return JSON.writeValueAsString(provenance) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String cEscaped(String text) {
        String literal = CText.string(text);
        return literal.substring(1, literal.length() - 1);
    }

    private static String pyEscaped(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"").replaceAll("[\\r\\n]", " ");
    }

    /**
     * Writes the files into {@code out}, creating it. A folder that holds anything but an earlier export is left
     * alone: an export never overwrites files it did not write.
     */
    public void writeTo(Path out) {
        try {
            if (Files.exists(out) && !Files.isDirectory(out)) {
                throw KevoException.input(out + ": exists and is not a folder");
            }
            if (Files.isDirectory(out) && !Files.isRegularFile(out.resolve(PROVENANCE))) {
                try (Stream<Path> entries = Files.list(out)) {
                    if (entries.findAny().isPresent()) {
                        throw KevoException.input(out + ": not empty and not an earlier kevo export (no " + PROVENANCE
                                + "); choose another --out");
                    }
                }
            }
            Files.createDirectories(out);
            for (Map.Entry<String, String> f : files.entrySet()) {
                AtomicFiles.write(out.resolve(f.getKey()), f.getValue());
            }
        } catch (IOException e) {
            throw KevoException.input(out + ": cannot write (" + e.getMessage() + ")");
        } catch (UncheckedIOException e) {
            throw KevoException.input(out + ": cannot write (" + e.getCause().getMessage() + ")");
        }
    }
}
