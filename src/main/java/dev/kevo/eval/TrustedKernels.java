package dev.kevo.eval;

import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.InputCase;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.List;

/**
 * kevo's own kernels: the shared harness (harness.cu: input generation, the walk of the float64 reference and the
 * comparison, guard checks, digests, the flush, the gate, the copy) compiled with the operator's reference
 * ({@link dev.kevo.task.op.Operator#referenceSource()}). For a gradient operator the harness is compiled with its
 * forward's reference, which generates x and its statistics, and the gradient's own kernels follow
 * ({@link BackwardKernels}): generating, referencing, comparing and salting inputs then go to those. A loss's own
 * kernels ({@link CrossEntropyKernels}) follow its reference likewise, and add its labels, its totals and the
 * comparison of its two outputs to the forward's x and row statistics.
 */
final class TrustedKernels implements AutoCloseable {
    static final String SOURCE_NAME = "harness.cu";
    private static final int THREADS = 256;
    /** A full SM (2048 threads) at four blocks each: the occupancy a streaming copy wants. */
    private static final int COPY_THREADS = 512;

    private final Gpu gpu;
    private final Module module;
    private final Kernel generate;
    private final Kernel generateLengths;
    private final Kernel generateMask;
    private final Kernel perturb;
    private final Kernel prepare;
    private final Kernel referenceChunks;
    private final Kernel referenceMerge;
    private final Kernel compare;
    private final Kernel clearChecks;
    private final Kernel guardCheck;
    private final Kernel digest;
    private final Kernel flush;
    private final Kernel demote;
    private final Kernel gate;
    private final Kernel copy;
    private final int sms;
    /** Whether the operator reads key lengths, and an additive mask (under their mask kinds). */
    private final boolean takesLengths;
    private final boolean takesMask;
    /** A gradient operator's own kernels, which take over its inputs' generation, reference and comparison; else null. */
    private final BackwardKernels backward;
    /** A loss's own kernels, which add its labels, totals and comparison; else null. */
    private final CrossEntropyKernels loss;

    TrustedKernels(Gpu gpu, Nvrtc nvrtc, CompileCache cache) {
        this(gpu, nvrtc, cache, Task.softmax(Precision.FP32));
    }

    /**
     * kevo's kernels for {@code task}: its input generated, its reference computed and its output compared in its
     * dtypes, and copied in them.
     */
    TrustedKernels(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Task task) {
        this.gpu = gpu;
        Compilation compiled = cache.compile(nvrtc, SOURCE_NAME, source(task), Prelude.headers(), gpu.info().arch());
        this.module = gpu.load(compiled);
        this.generate = module.kernel("kevo_generate");
        this.generateLengths = module.kernel("kevo_generate_lengths");
        this.generateMask = module.kernel("kevo_generate_mask");
        this.perturb = module.kernel("kevo_perturb");
        this.prepare = module.kernel("kevo_prepare");
        this.referenceChunks = module.kernel("kevo_reference_chunks");
        this.referenceMerge = module.kernel("kevo_reference_merge");
        this.compare = module.kernel("kevo_compare");
        this.clearChecks = module.kernel("kevo_clear_checks");
        this.guardCheck = module.kernel("kevo_guard_check");
        this.digest = module.kernel("kevo_digest");
        this.flush = module.kernel("kevo_flush");
        this.demote = module.kernel("kevo_demote");
        this.gate = module.kernel("kevo_gate");
        this.copy = module.kernel("kevo_copy");
        this.sms = gpu.info().sms();
        this.takesLengths = task.op().extraInputs().stream().anyMatch(t -> t.extent() == Tensor.Extent.BATCH);
        this.takesMask = task.op().extraInputs().stream()
                .anyMatch(t -> t.extent() == Tensor.Extent.BATCH_QUERIES_KEYS);
        this.backward = task.op().gradientOf().isPresent() ? new BackwardKernels(gpu, module) : null;
        this.loss = task.op().reducedOutput().isPresent() ? new CrossEntropyKernels(gpu, module) : null;
    }

    /** The harness and softmax's reference behind the {@link #constants} they are compiled with, in float32. */
    static String source() {
        return source(Task.softmax(Precision.FP32));
    }

    /**
     * The harness behind the {@link #constants} it is compiled with, for x and y of the task's dtype, then the
     * operator's score and its reference; each under its own name, so a compiler message points into the right file.
     * For a gradient operator, its forward's score and reference (what x's statistics and y are), then the
     * gradient's reference and kernels ({@link BackwardKernels#source}).
     */
    static String source(Task task) {
        Operator op = task.op();
        Operator scored = op.gradientOf().orElse(op);
        String harness = constants(task.dtype()) + "#line 1 \"" + SOURCE_NAME + "\"\n"
                + Prelude.resource(TrustedKernels.class, SOURCE_NAME)
                + "\n" + scored.scoreSource()
                + "\n#line 1 \"" + scored.id() + ".cu\"\n" + scored.referenceSource();
        if (op.reducedOutput().isPresent()) {
            return harness + CrossEntropyKernels.source();
        }
        return op.gradientOf().isEmpty() ? harness : harness + BackwardKernels.source(op);
    }

    /**
     * What harness.cu shares with Java, written from Java, so that neither side can drift: each input case's number
     * (the generator is launched with {@link InputCase#ordinal()}, and kv_value switches on these names, so a case
     * renamed on one side does not compile, and harness.cu's count check stops a case added without a generator), each
     * mask kind's number (what kernels get as mask_kind), the poison patterns that Workbench's checks look for, and the
     * element types of x and y.
     */
    static String constants(Precision dtype) {
        StringBuilder out = new StringBuilder("// Written by TrustedKernels.constants().\n");
        for (InputCase c : InputCase.values()) {
            out.append("#define KEVO_CASE_").append(c.name()).append(' ').append(c.ordinal()).append('\n');
        }
        out.append("#define KEVO_CASE_COUNT ").append(InputCase.values().length).append('\n');
        for (MaskKind k : MaskKind.values()) {
            out.append("#define KEVO_MASK_").append(k.name()).append(' ').append(k.ordinal()).append('\n');
        }
        out.append("#define KEVO_MASK_COUNT ").append(MaskKind.values().length).append('\n');
        out.append("#define KEVO_POISON_Y ").append(hex(Workbench.poisonY(dtype.y()))).append('\n');
        out.append("#define KEVO_POISON_WS ").append(hex(Workbench.POISON_WS)).append('\n');
        out.append("#define KEVO_POISON_REDUCED ").append(hex(Workbench.POISON_Y)).append('\n');
        out.append("#define KEVO_X ").append(dtype.x().cudaType()).append('\n');
        out.append("#define KEVO_Y ").append(dtype.y().cudaType()).append('\n');
        return out.toString();
    }

    private static String hex(int pattern) {
        return String.format("0x%08Xu", pattern);
    }

    void generate(DevicePointer x, Shape shape, long caseSeed, InputCase inputCase) {
        gpu.launch(generate, elementGrid(shape.elements()), THREADS, 0, x, shape.rows(), shape.cols(), caseSeed,
                inputCase.ordinal());
    }

    /**
     * x of {@code inputs}, and the tensors the shape's mask kind reads, for {@code inputCase} under {@code caseSeed}.
     * For a gradient operator, its row inputs: the forward's x generated into {@code inputs.source()}, its row
     * statistics there, then y and dy derived from them.
     */
    void generate(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase) {
        if (backward != null) {
            Inputs.Source from = inputs.source();
            generate(from.x(), shape, caseSeed, inputCase);
            statistics(from.stats(), from.partial(), Inputs.of(from.x()), shape);
            backward.generate(inputs, shape, caseSeed, inputCase);
            return;
        }
        generate(inputs.x(), shape, caseSeed, inputCase);
        if (loss != null) {
            loss.generateLabels(inputs, shape, caseSeed, inputCase);
        }
        if (readsLengths(shape)) {
            gpu.launch(generateLengths, Math.max(1, (shape.batch() + THREADS - 1) / THREADS), THREADS, 0,
                    inputs.lengths(), shape.batch(), shape.cols(), caseSeed, inputCase.ordinal());
        }
        if (readsMask(shape)) {
            int maskRows = shape.batch() * shape.queries();
            gpu.launch(generateMask, elementGrid((long) maskRows * shape.cols()), THREADS, 0, inputs.mask(), maskRows,
                    shape.cols(), caseSeed, inputCase.ordinal());
        }
    }

    private boolean readsLengths(Shape shape) {
        return takesLengths && shape.mask() == MaskKind.PADDING;
    }

    private boolean readsMask(Shape shape) {
        return takesMask && shape.mask() == MaskKind.ADDITIVE;
    }

    /**
     * The arguments every reference and comparison kernel ends with: the rows' attention layout, the mask kind, the
     * scale, and the mask's tensors where the shape reads them (null pointers where it does not, which the
     * comparison takes as nothing to hold).
     */
    private Object[] attention(Inputs inputs, Shape shape) {
        return new Object[] {shape.batch(), shape.heads(), shape.queries(), shape.mask().ordinal(), inputs.scale(),
                readsLengths(shape) ? inputs.lengths() : DevicePointer.none(),
                readsMask(shape) ? inputs.mask() : DevicePointer.none()};
    }

    private static Object[] concat(Object[] a, Object[] b) {
        Object[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Moves input {@code x} (generated with {@code caseSeed}, {@code inputCase}) from salt {@code oldSalt} to
     * {@code newSalt}: one element per row, at a column the salt draws, raised far above the row (harness.cu,
     * kv_salt_col, kv_salt_value). Salt 0 is the generated input itself.
     */
    void perturb(DevicePointer x, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt) {
        gpu.launch(perturb, rowGrid(shape, sms), THREADS, 0, x, shape.rows(), shape.cols(), caseSeed,
                inputCase.ordinal(), oldSalt, newSalt);
    }

    /** As {@link #perturb(DevicePointer, Shape, long, InputCase, long, long)} of x, or of a gradient's dy. */
    void perturb(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt) {
        if (backward != null) {
            backward.perturb(inputs, shape, caseSeed, inputCase, oldSalt, newSalt);
        } else {
            perturb(inputs.x(), shape, caseSeed, inputCase, oldSalt, newSalt);
        }
    }

    /** Blocks for one thread a row, at most 32 a multiprocessor. */
    static int rowGrid(Shape shape, int sms) {
        return (int) Math.max(1, Math.min((shape.rows() + THREADS - 1) / THREADS, (long) sms * 32));
    }

    /**
     * What is queued before one timed launch of a candidate, as one launch: {@link #perturb} of {@code x},
     * {@code yWords} words of {@code y} (16-byte aligned) set to the unwritten-output poison and {@code wsWords} words
     * of {@code ws} to the workspace poison.
     */
    void prepare(DevicePointer x, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt,
                 DevicePointer y, long yWords, DevicePointer ws, long wsWords) {
        prepare(x, shape, caseSeed, inputCase, oldSalt, newSalt, Outputs.of(y), yWords, ws, wsWords);
    }

    /**
     * As {@link #prepare(DevicePointer, Shape, long, InputCase, long, long, DevicePointer, long, DevicePointer, long)}
     * of x, or of a gradient's dy; and an output of one element (a loss's value) poisoned too, where
     * {@code yWords} are (the poison switched off, bench only, leaves it as it is too).
     */
    void prepare(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt,
                 Outputs out, long yWords, DevicePointer ws, long wsWords) {
        if (backward != null) {
            backward.prepare(inputs, shape, caseSeed, inputCase, oldSalt, newSalt, out.y(), yWords, ws, wsWords);
        } else {
            prepare(inputs.x(), shape, caseSeed, inputCase, oldSalt, newSalt, out, yWords, ws, wsWords);
        }
    }

    private void prepare(DevicePointer x, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt,
                         Outputs out, long yWords, DevicePointer ws, long wsWords) {
        gpu.launch(prepare, prepareGrid(shape, Math.max(yWords, wsWords), sms), THREADS, 0, x, shape.rows(),
                shape.cols(), caseSeed, inputCase.ordinal(), oldSalt, newSalt, out.y(), yWords, ws, wsWords,
                out.reduced());
    }

    /** Blocks for one thread a row and for 16-byte stores of {@code words}, at most 32 a multiprocessor. */
    static int prepareGrid(Shape shape, long words, int sms) {
        return (int) Math.max(1, Math.min(Math.max((shape.rows() + THREADS - 1) / THREADS,
                (words / 4 + THREADS - 1) / THREADS), (long) sms * 32));
    }

    /**
     * Columns of a row one warp of the reference and of the comparison handles: long rows spread over many warps,
     * and a row longer than this needs the reference's merge.
     */
    static final int REFERENCE_CHUNK = 2048;

    /**
     * Bytes of the row statistics of {@code rows} rows and what follows them: a loss's totals, two double2
     * (harness_cross_entropy.cu), which are poisoned with the statistics once used.
     */
    static long statsBytes(long rows) {
        return (rows + 2) * 16;
    }
    private static final int WARPS_PER_BLOCK = THREADS / 32;

    /** Bytes of scratch the reference needs next to the row statistics for a shape. */
    static long referenceScratchBytes(Shape shape) {
        return (long) shape.rows() * chunks(shape) * 16;
    }

    static int chunks(Shape shape) {
        return (shape.cols() + REFERENCE_CHUNK - 1) / REFERENCE_CHUNK;
    }

    /** Blocks for one warp per (row, chunk) item, at most 32 a multiprocessor (a grid-stride walk does the rest). */
    private int itemGrid(Shape shape) {
        return itemGrid(shape, sms);
    }

    static int itemGrid(Shape shape, int sms) {
        long items = (long) shape.rows() * chunks(shape);
        return (int) Math.max(1, Math.min((items + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK, (long) sms * 32));
    }

    /**
     * The operator's row statistics (softmax's: max, sum of exp(x - max)) in float64 of the scores of {@code inputs} as
     * they are now. Only meaningful followed by {@link #compareQueued}, which holds every element of x (and of the
     * mask's tensors) to the generator: a candidate that changed them is rejected for that, whatever these statistics
     * say. {@code partial} holds {@link #referenceScratchBytes} bytes; it is left poisoned, so only {@code stats} holds
     * anything of the answer afterwards. For a gradient operator, each row's dot product of y and dy instead
     * ({@link BackwardKernels#reference}); for a loss, the totals after them ({@link CrossEntropyKernels#totals}).
     * {@code stats} holds {@link #statsBytes} bytes.
     */
    /**
     * As {@link #reference(DevicePointer, DevicePointer, Inputs, Shape, long, InputCase)}, for an operator without
     * labels.
     */
    void reference(DevicePointer stats, DevicePointer partial, Inputs inputs, Shape shape) {
        if (loss != null) {
            throw new IllegalStateException("a loss's reference regenerates its labels: give their case seed and case");
        }
        reference(stats, partial, inputs, shape, 0, InputCase.NORMAL_1);
    }

    void reference(DevicePointer stats, DevicePointer partial, Inputs inputs, Shape shape, long caseSeed,
                   InputCase inputCase) {
        if (backward != null) {
            backward.reference(stats, partial, inputs, shape);
            return;
        }
        statistics(stats, partial, inputs, shape);
        if (loss != null) {
            loss.totals(stats, inputs, shape, caseSeed, inputCase);
        }
    }

    /** The forward operator's row statistics of x (and the mask's tensors) in {@code inputs}, as {@link #reference}. */
    private void statistics(DevicePointer stats, DevicePointer partial, Inputs inputs, Shape shape) {
        int chunks = chunks(shape);
        // One chunk a row: the chunk's statistics are the row's, written straight to stats, and no merge is queued.
        gpu.launch(referenceChunks, itemGrid(shape), THREADS, 0, concat(new Object[] {chunks == 1 ? stats : partial,
                inputs.x(), shape.rows(), shape.cols(), REFERENCE_CHUNK, chunks}, attention(inputs, shape)));
        if (chunks > 1) {
            gpu.launch(referenceMerge, Math.min(shape.rows(), sms * 32), THREADS, 0, stats, partial, shape.rows(),
                    chunks);
        }
    }

    /**
     * As {@link #compare(Outputs, Inputs, DevicePointer, DevicePointer, Shape, long, InputCase, Tolerance)}, of y
     * alone.
     */
    CheckCounts compare(DevicePointer y, Inputs inputs, DevicePointer stats, DevicePointer result, Shape shape,
                        long caseSeed, InputCase inputCase, Tolerance tolerance) {
        return compare(Outputs.of(y), inputs, stats, result, shape, caseSeed, inputCase, tolerance);
    }

    CheckCounts compare(Outputs out, Inputs inputs, DevicePointer stats, DevicePointer result, Shape shape,
                        long caseSeed, InputCase inputCase, Tolerance tolerance) {
        compareQueued(out, inputs, stats, result, shape, caseSeed, inputCase, 0, tolerance, true);
        return counts(result);
    }

    /**
     * Queues the comparison of y with the reference in {@code stats}, and of x with the input generated under
     * {@code salt}, bit for bit, behind whatever the stream holds, its counts going to {@code result}
     * ({@link CheckCounts#BYTES}), zeroed first when {@code fresh} (otherwise they add up); read them with
     * {@link #counts} once the stream has run.
     */
    void compareQueued(Outputs out, Inputs inputs, DevicePointer stats, DevicePointer result, Shape shape,
                       long caseSeed, InputCase inputCase, long salt, Tolerance tolerance, boolean fresh) {
        if (fresh) {
            gpu.fill(result, 0, CheckCounts.BYTES / 4);
            gpu.fill(result.withByteOffset(4 * 8), -1, 2);  // first_bad starts at ~0
        }
        if (backward != null) {
            backward.compareQueued(out.y(), inputs, stats, result, shape, caseSeed, inputCase, salt, tolerance);
            return;
        }
        if (loss != null) {
            loss.compareQueued(out, inputs, stats, result, shape, caseSeed, inputCase, salt, tolerance);
            return;
        }
        gpu.launch(compare, itemGrid(shape), THREADS, 0, concat(new Object[] {out.y(), inputs.x(), stats, shape.rows(),
                shape.cols(), REFERENCE_CHUNK, chunks(shape), caseSeed, inputCase.ordinal(), salt, tolerance.absolute(),
                tolerance.relative(), result}, attention(inputs, shape)));
    }

    CheckCounts counts(DevicePointer result) {
        return counts(result, 1).getFirst();
    }

    /** The counts of {@code n} consecutive results, read in one copy (one synchronisation, not one per result). */
    List<CheckCounts> counts(DevicePointer results, int n) {
        int perResult = CheckCounts.BYTES / 8;
        long[] words = new long[n * perResult];
        if (n > 0) {
            gpu.download(results, words, (long) n * CheckCounts.BYTES);
        }
        return java.util.stream.IntStream.range(0, n).mapToObj(k -> CheckCounts.fromWords(
                java.util.Arrays.copyOfRange(words, k * perResult, (k + 1) * perResult))).toList();
    }

    /**
     * Zeroes {@code n} consecutive results for {@link #compareQueued} with {@code fresh} false (first_bad at ~0), in
     * one launch: once per timed shape instead of two memsets before every checked launch.
     */
    void clearChecks(DevicePointer results, int n) {
        gpu.launch(clearChecks, Math.max(1, (n + THREADS - 1) / THREADS), THREADS, 0, results, n);
    }

    /** Adds to {@code counter} a digest of {@code words} output words, equal for equal bits in any launch order. */
    void digest(DevicePointer y, long words, DevicePointer counter) {
        gpu.launch(digest, elementGrid(words), THREADS, 0, y, words, counter);
    }

    /** Adds to {@code counter} the words of a guard zone that lost their pattern. */
    void guardCheck(DevicePointer guard, long words, int pattern, DevicePointer counter) {
        gpu.launch(guardCheck, elementGrid(words), THREADS, 0, guard, words, pattern, counter);
    }

    /**
     * Reads {@code bytes} of {@code buffer} (a multiple of 128) so that L2 holds nothing a timed kernel wants. With
     * {@code pinned}, the reads carry an evict_last policy and their lines are demoted again after, so that lines a
     * candidate pinned with evict_last go too.
     */
    void flushL2(DevicePointer buffer, long bytes, DevicePointer sink, boolean pinned) {
        gpu.launch(flush, sms * 4, 1024, 0, buffer, bytes / 16, sink, pinned ? 1 : 0);
        if (pinned) {
            demote(buffer, bytes);
        }
    }

    /** A range of device memory. */
    record Range(DevicePointer base, long bytes) {
    }

    /** Ranges one launch of kevo_demote takes. */
    static final int DEMOTE_RANGES = 5;

    /** Sets the L2 lines of [{@code base}, +{@code bytes}) that are present back to evict_normal; base 128-aligned. */
    void demote(DevicePointer base, long bytes) {
        demote(List.of(new Range(base, bytes)), null, 0);
    }

    /** As {@link #demote(DevicePointer, long)} for three ranges at once (one launch). */
    void demote(DevicePointer a, long aBytes, DevicePointer b, long bBytes, DevicePointer c, long cBytes) {
        demote(List.of(new Range(a, aBytes), new Range(b, bBytes), new Range(c, cBytes)), null, 0);
    }

    /**
     * As {@link #demote(DevicePointer, long)} for every range (one launch per {@link #DEMOTE_RANGES}), and
     * {@code poisonWords} words of {@code poison} (16-byte aligned) set to the workspace poison in the first launch.
     */
    void demote(List<Range> ranges, DevicePointer poison, long poisonWords) {
        for (DemoteLaunch launch : demoteLaunches(ranges, poison, poisonWords)) {
            gpu.launch(demote, (int) Math.max(1, Math.min((launch.items() + 1023) / 1024, (long) sms * 4)), 1024, 0,
                    launch.args());
        }
    }

    /** One launch of kevo_demote: its arguments, and the most items (lines, or 4 words of poison) one range has. */
    record DemoteLaunch(long items, Object[] args) {
    }

    /** The launches {@link #demote(List, DevicePointer, long)} queues; none where there is nothing to do. */
    static List<DemoteLaunch> demoteLaunches(List<Range> ranges, DevicePointer poison, long poisonWords) {
        List<DemoteLaunch> launches = new java.util.ArrayList<>();
        for (int first = 0; first == 0 || first < ranges.size(); first += DEMOTE_RANGES) {
            boolean poisoned = first == 0 && poisonWords > 0;
            Object[] args = new Object[2 * DEMOTE_RANGES + 2];
            long most = poisoned ? (poisonWords + 3) / 4 : 0;
            // Unused slots get a real pointer and 0 lines: the kernel never touches them.
            DevicePointer filler = ranges.isEmpty() ? poison : ranges.getFirst().base();
            for (int k = 0; k < DEMOTE_RANGES; k++) {
                Range r = first + k < ranges.size() ? ranges.get(first + k) : null;
                long lines = r == null ? 0 : (r.bytes() + 127) / 128;
                args[2 * k] = r == null ? filler : r.base();
                args[2 * k + 1] = lines;
                most = Math.max(most, lines);
            }
            args[2 * DEMOTE_RANGES] = poisoned ? poison : filler;
            args[2 * DEMOTE_RANGES + 1] = poisoned ? poisonWords : 0L;
            if (most > 0) {
                launches.add(new DemoteLaunch(most, args));
            }
        }
        return launches;
    }

    /**
     * kevo's plain copy of {@code elements} elements of x to y (converting where y's type is wider), one of the two
     * copies the memory floor is taken from ({@link Task#floorCopyElements}: more than the shape's elements where the
     * operator also reads a mask). x and y are 16-byte aligned (Workbench's guard zones are 64 KiB).
     */
    void copy(DevicePointer x, DevicePointer y, long elements) {
        int blocks = (int) Math.max(1, Math.min((elements / 8 + COPY_THREADS - 1) / COPY_THREADS, (long) sms * 4));
        gpu.launch(copy, blocks, COPY_THREADS, 0, x, y, elements);
    }

    /** Queues a one-thread kernel that holds the stream until the host has set {@code flag} to {@code ticket} or more. */
    void gate(DevicePointer flag, int ticket) {
        gpu.launch(gate, 1, 1, 0, flag, ticket);
    }

    private int elementGrid(long elements) {
        return (int) Math.max(1, Math.min((elements + THREADS - 1) / THREADS, (long) sms * 32));
    }

    @Override
    public void close() {
        module.close();
    }
}
