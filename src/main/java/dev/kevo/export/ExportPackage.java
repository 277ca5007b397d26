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
import dev.kevo.task.op.Operators;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A kernel file as a self-contained package for a target: the files by name and what they came from.
 *
 * @param files file name to content, in the order a reader meets them
 */
public record ExportPackage(ExportTarget target, Provenance provenance, Map<String, String> files) {

    public static final String PROVENANCE = "kevo-export.json";
    public static final String SOURCE = "kevo_softmax.cu";
    public static final String HEADER = "kevo_softmax.h";
    /** The kernel file as the judged cubin was compiled from it: for reading, not built. */
    public static final String KERNELS = "kevo_softmax_kernels.cu";
    public static final String CUBIN = "kevo_softmax_cubin.h";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    private static final Pattern INCLUDE_KEVO_H = Pattern.compile("(?m)^[ \\t]*#[ \\t]*include[ \\t]*\"kevo\\.h\"[^\\n]*$");
    /** A {@code __device__} variable (not a function): state that outlives a launch. */
    private static final Pattern DEVICE_STATE = Pattern.compile("(?m)^[ \\t]*(?:static[ \\t]+)?(?:volatile[ \\t]+)?"
            + "__device__[^(;{]*?[\\w\\]][ \\t]*(?:=[^;(]*)?;");

    public ExportPackage {
        files = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(files));
    }

    public static ExportPackage build(ExportSource source, ExportTarget target, String kevoVersion, Instant now) {
        return build(source, target, Optional.empty(), kevoVersion, now);
    }

    /** As above, in {@code dtype} when given ({@link ExportSource#dtype}: else the one its campaign judged). */
    public static ExportPackage build(ExportSource source, ExportTarget target, Optional<Precision> dtype,
                                      String kevoVersion, Instant now) {
        KernelFile file = source.file();
        if (file.op() != Operators.SOFTMAX) {
            // The C API, the example and the torch binding are softmax's: another operator's package would call its
            // kernels with softmax's arguments.
            throw KevoException.input(file.name() + " implements " + file.op().id() + "; kevo export packages "
                    + Operators.SOFTMAX.id() + " kernels only, for now");
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
        Map<String, String> types = new ExportTypes(precision).slots();
        String hash = SourceHash.of(file.source());
        String when = now.truncatedTo(ChronoUnit.SECONDS).toString();
        PlanEnvelope envelope = PlanEnvelope.of(file.plans().size(), source.judgement().plans(), source.sanitized());
        Provenance.Size size = new Provenance.Size(envelope.maxElements(), source.judgement().judgedElements(),
                "each plan up to what " + source.judgement().where() + " judged it on: " + envelope.summary()
                        + " (README.md and kevo-export.json, \"plans\", say which)");
        Provenance provenance = new Provenance(file.name(), file.path() == null ? file.name() : file.path().toString(),
                hash, "kevo " + kevoVersion, when, target.id(), source.judged(), source.judged() == null
                ? "not judged: exported from a file outside any campaign folder, so no campaign's record applies to it"
                        + " (kevo eval measures it)" : null, size, source.sanitized(), precision.id(), build,
                envelope.plans());
        String maxElements = Long.toString(size.maxElements());
        String banner = "// Generated by kevo export (kevo " + kevoVersion + ", " + when + ") from "
                + CText.comment(provenance.source()) + "\n// " + CText.comment(origin(provenance)) + "\n";
        Map<String, String> files = new LinkedHashMap<>();
        files.put(SOURCE, launcher(precision, banner, maxElements));
        files.put(HEADER, Template.fill(HEADER, types));
        files.put(PlanHeader.FILE, PlanHeader.render(file, banner, envelope));
        files.put(CUBIN, CubinHeader.render(build, source.cubin().cubin(), banner));
        files.put(KERNELS, kernels(file, precision, banner));
        if (target == ExportTarget.TORCH) {
            String doc = "kevo softmax: " + file.name() + " (" + origin(provenance) + ")";
            files.put("kevo_softmax_torch.cpp", Template.fill("torch_binding.cpp", with(types, Map.of("DOC",
                    cEscaped(doc), "MAX_ELEMENTS", maxElements))));
            files.put("setup.py", Template.fill("setup.py", Map.of("DOC", pyEscaped(doc),
                    "VERSION", kevoVersion.matches("\\d+(\\.\\d+)*") ? kevoVersion : "0.0.0")));
            files.put("example.py", Template.fill("example.py", types));
        } else {
            files.put("example.cu", Template.fill("example.cu", types));
        }
        files.put("README.md", ExportReadme.render(file, target, provenance, deviceState(file.source())));
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
    static String launcher(Precision dtype, String banner, String maxElements) {
        return banner + "// The host launcher: it runs the kernels of " + CUBIN + ", the cubin kevo judged (built from "
                + KERNELS + "),\n// on the plan " + PlanHeader.FILE + " chooses.\n" + Template.fill("launcher.cu",
                with(new ExportTypes(dtype).slots(), Map.of("MAX_ELEMENTS", maxElements)));
    }

    /**
     * The kernel file with kevo.h, which kevo supplies in memory, written in place of its include, and the macros kevo
     * compiled it with: the source of the judged cubin, to read. It is not built: the package runs the cubin.
     */
    static String kernels(KernelFile file, Precision dtype, String banner) {
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
        return banner + "// The source of " + CUBIN + ", which NVRTC compiled from it when kevo judged it. Not built by "
                + "this package:\n// another compiler, or another version, makes other code, which kevo never judged.\n"
                + knobs + "// The kernel file as kevo judged it (its /*@kevo plan header below is what "
                + PlanHeader.FILE + " evaluates).\n" + body + (body.endsWith("\n") ? "" : "\n");
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
