package dev.kevo.eval;

import dev.kevo.KevoException;
import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.CudnnLocator;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Task;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns the {@code baseline} setting into the baseline a run uses, before any worker starts: {@code cudnn} (the
 * library must load: a host without it is an error, exit 3), {@code auto} (cuDNN where it loads, else
 * the operator's own kernel-file baseline ({@code block_two_pass} for softmax), saying so), or a kernel file by name or path. Runs in the supervising process, which
 * only opens the library and reads its version (no GPU); the workers then load exactly the library resolved here,
 * so the header, the record and every worker agree.
 */
public final class BaselineResolver {
    private final Function<String, Path> files;
    private final Map<String, String> env;
    private final Loader loader;

    /** How cuDNN is loaded; tests replace it to see the fall-back without a cuDNN on the host. */
    interface Loader {
        Library load(Map<String, String> env, Optional<String> library);
    }

    /** What the resolver needs of a loaded cuDNN: its version and where it came from. */
    record Library(String version, String location) {
    }

    private static Library load(Map<String, String> env, Optional<String> library) {
        Cudnn cudnn = Cudnn.load(env, library);
        return new Library(cudnn.version(), cudnn.location());
    }

    /** @param files where a kernel-file baseline of a name lives ({@code KevoHome::baseline}) */
    public BaselineResolver(Function<String, Path> files, Map<String, String> env) {
        this(files, env, BaselineResolver::load);
    }

    BaselineResolver(Function<String, Path> files, Map<String, String> env, Loader loader) {
        this.files = files;
        this.env = env;
        this.loader = loader;
    }

    /**
     * A resolved baseline: the record, and what the workers need to run it.
     *
     * @param file the kernel file; null for cuDNN
     * @param note a line for stderr when {@code auto} fell back (why), else empty
     */
    public record Resolved(BaselineChoice choice, KernelFile file, Optional<String> note) {
    }

    /**
     * @param asked the setting: {@code cudnn}, {@code auto}, a baseline's name or a path
     * @param source where the setting came from ({@code --baseline}, {@code config/eval.yaml}), for the reason
     */
    public Resolved resolve(String asked, String source) {
        return resolve(asked, source, Task.softmax(Precision.FP32));
    }

    /**
     * As {@link #resolve(String, String)} for {@code task}. cuDNN takes one dtype for x and y and has only some
     * operators: where it cannot serve the task, {@code auto} uses the operator's own kernel-file baseline and
     * {@code cudnn} is an error.
     */
    public Resolved resolve(String asked, String source, Task task) {
        String fallback = task.op().ownBaseline();
        String unserved = task.vendorCannotServe().orElse(null);
        if (asked.equals(BaselineChoice.CUDNN) && unserved != null) {
            throw KevoException.input(source + ": baseline cudnn: " + unserved + " (use auto or a kernel file)");
        }
        if (asked.equals(BaselineChoice.AUTO) && unserved != null) {
            KernelFile file = ContractParser.read(files.apply(fallback));
            return new Resolved(BaselineChoice.file(file.name(), "auto: " + unserved), file,
                    Optional.of("baseline auto: using " + fallback + ", not cuDNN: " + unserved));
        }
        if (asked.equals(BaselineChoice.CUDNN)) {
            Library cudnn = loader.load(env, Optional.empty());
            return new Resolved(BaselineChoice.cudnn(cudnn.version(), cudnn.location(),
                    source + ": " + loadedFrom(cudnn.location())), null, Optional.empty());
        }
        if (asked.equals(BaselineChoice.AUTO)) {
            return auto(fallback);
        }
        KernelFile file = ContractParser.read(files.apply(asked));
        return new Resolved(BaselineChoice.file(file.name(), source), file, Optional.empty());
    }

    /**
     * What a campaign recorded, for {@code kevo reeval} and {@code --resume}: its kernel file as saved, or cuDNN from
     * the recorded library ($KEVO_CUDNN overrides it; missing is an error: never another baseline). A different
     * cuDNN version than recorded is said in the note, since its speedups are then over another library.
     *
     * @param saved the campaign's baseline.cu, read only for a kernel-file baseline
     */
    public Resolved recorded(BaselineChoice choice, java.util.function.Supplier<KernelFile> saved) {
        if (!choice.isCudnn()) {
            return new Resolved(choice, saved.get(), Optional.empty());
        }
        Library cudnn = loader.load(env, Optional.ofNullable(choice.library()));
        BaselineChoice now = BaselineChoice.cudnn(cudnn.version(), cudnn.location(),
                "recorded by the campaign: " + loadedFrom(cudnn.location()));
        return new Resolved(now, null, cudnn.version().equals(choice.version()) ? Optional.empty()
                : Optional.of("the campaign recorded cuDNN " + choice.version() + "; this host loads cuDNN "
                        + cudnn.version() + " (" + cudnn.location() + "): speedups are over that"));
    }

    private Resolved auto(String fallback) {
        try {
            Library cudnn = loader.load(env, Optional.empty());
            return new Resolved(BaselineChoice.cudnn(cudnn.version(), cudnn.location(),
                    "auto: " + loadedFrom(cudnn.location())), null, Optional.empty());
        } catch (KevoException e) {
            if (named()) {
                // A library the user named is a choice: falling back would pass off another baseline as it.
                throw e;
            }
            boolean absent = e.getMessage().startsWith(CudnnLocator.NOT_FOUND);
            KernelFile file = ContractParser.read(files.apply(fallback));
            String why = absent ? CudnnLocator.NOT_FOUND : e.getMessage();
            return new Resolved(BaselineChoice.file(file.name(), "auto: " + why),
                    file, Optional.of("baseline auto: using " + fallback + ", not cuDNN: "
                    + e.getMessage()));
        }
    }

    private boolean named() {
        return Optional.ofNullable(env.get(CudnnLocator.ENV)).filter(s -> !s.isBlank()).isPresent();
    }

    /** {@code libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu}, or the soname alone when no folder is known. */
    static String loadedFrom(String location) {
        Path path = Path.of(location);
        String where = path.getParent() == null ? path + " loaded" : path.getFileName() + " loaded from "
                + path.getParent();
        return where;
    }
}
