package dev.kevo.worker;

import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.deser.std.StdDelegatingDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdDelegatingSerializer;
import com.fasterxml.jackson.databind.util.StdConverter;
import dev.kevo.cuda.Compilation;
import dev.kevo.data.Screen;
import dev.kevo.eval.Evaluator;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How the values that cross the worker seam whole, but are not shaped for JSON themselves (they hold {@link Optional}s
 * and a {@link Duration}, and live in packages that know nothing of the wire), are written in a frame: each as a plain
 * record of nullable fields, here and nowhere else. Unknown fields are ignored on reading, as for every message.
 */
final class WireForms {
    private WireForms() {
    }

    /** The converters for {@link Frames}' mapper. */
    static SimpleModule module() {
        SimpleModule module = new SimpleModule("kevo-wire");
        module.addSerializer(Evaluator.Run.class, new StdDelegatingSerializer(new StdConverter<Evaluator.Run, RunForm>() {
            @Override
            public RunForm convert(Evaluator.Run run) {
                return new RunForm(run.timingSecret().orElse(null), run.cold(), run.compiledAhead().orElse(null),
                        run.atScale(), run.screen().orElse(null));
            }
        }));
        module.addDeserializer(Evaluator.Run.class, new StdDelegatingDeserializer<>(
                new StdConverter<RunForm, Evaluator.Run>() {
                    @Override
                    public Evaluator.Run convert(RunForm form) {
                        return new Evaluator.Run(Optional.ofNullable(form.timingSecret()), form.cold(),
                                Optional.ofNullable(form.compiledAhead()), form.atScale(),
                                Optional.ofNullable(form.screen()));
                    }
                }));
        module.addSerializer(Compilation.class, new StdDelegatingSerializer(
                new StdConverter<Compilation, CompilationForm>() {
                    @Override
                    public CompilationForm convert(Compilation c) {
                        return new CompilationForm(c.name(), c.arch(), c.cubin(), c.log(), c.time().toNanos() / 1e6,
                                c.options());
                    }
                }));
        module.addDeserializer(Compilation.class, new StdDelegatingDeserializer<>(
                new StdConverter<CompilationForm, Compilation>() {
                    @Override
                    public Compilation convert(CompilationForm form) {
                        return new Compilation(form.name(), form.arch(), form.cubin(),
                                form.log() == null ? "" : form.log(),
                                Duration.ofNanos((long) (form.compileMs() * 1e6)),
                                form.options() == null ? List.of() : form.options());
                    }
                }));
        return module;
    }

    /** {@link Evaluator.Run} in a frame: null where the run has none. */
    record RunForm(Long timingSecret, boolean cold, Compilation compiledAhead, boolean atScale, Screen screen) {
    }

    /** {@link Compilation} in a frame: the cubin as base64, NVRTC's time in milliseconds. */
    record CompilationForm(String name, String arch, byte[] cubin, String log, double compileMs, List<String> options) {
    }
}
