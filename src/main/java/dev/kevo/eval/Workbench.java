package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Dtype;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The device memory of an evaluation, allocated once for the largest shape and reused by every candidate. The
 * operator's input (x here; a gradient's y, with its dy beside it), the tensors a mask brings (key lengths, an additive
 * mask, a loss's labels: per input set too, where the operator reads them), its outputs (y, a gradient's or a loss's
 * dx; a loss's value) and the workspace each sit between two guard zones, so a write just outside them is caught; a
 * launch gets them by the operator's names for them ({@link #bindings}). A gradient's inputs are derived through memory
 * of kevo's own ({@link ForwardScratch}).
 *
 * <p>Where in its allocation each guarded region starts is drawn anew for every evaluation ({@link #place}), in
 * {@link #SHIFT_STEP} steps over {@link #SHIFT_SPAN}: a kernel cannot tell kevo's buffers by their addresses (once
 * they always sat 64 KiB past a 2 MiB boundary, and a kernel honest only there passed), and each input set sits
 * somewhere else.
 */
final class Workbench implements AutoCloseable {
    static final long GUARD_BYTES = 64 * 1024;
    /**
     * How far into its allocation a guarded region may start: the alignment the driver gives large allocations, so
     * an address modulo it says nothing (it takes SHIFT_SPAN / SHIFT_STEP = 4096 values).
     */
    static final long SHIFT_SPAN = 2L << 20;
    /**
     * The step of a shift: the alignment PyTorch's caching allocator gives every tensor, so kernels are timed on
     * buffers aligned as users' are. Steps of 16 bytes (the contract's least alignment) slowed cuDNN by up to 40% and
     * the copy by 8% on the H100 (bench/results/buffer-placement-h100/), which would time every kernel on buffers
     * no user has.
     */
    static final long SHIFT_STEP = 512;
    /** Guard zone pattern ("kevo"). */
    static final int GUARD_PATTERN = 0x6B65766F;
    /** Bytes of an output of one element: a float32 loss, the one kind the harness judges (harness_cross_entropy). */
    static final long REDUCED_BYTES = 4;
    /** Unwritten output: a signalling NaN that no float arithmetic produces. */
    static final int POISON_Y = 0x7FBADBAD;
    /** Unwritten 16-bit output, both halves of the word: NaN patterns no conversion from float produces. */
    static final int POISON_Y_BF16 = 0x7FBD7FBD;
    static final int POISON_Y_FP16 = 0x7DAD7DAD;
    /** Workspace before every launch: a quiet NaN, so reading scratch that was never written shows. */
    static final int POISON_WS = 0x7FC0FFEE;

    private final Gpu gpu;
    private final Task task;
    private final Precision dtype;
    private final List<DeviceBuffer> xSets = new ArrayList<>();
    /** The operator's other input tensors ({@link #besideFirst}), each one buffer per set. */
    private final List<Tensor> extras;
    private final List<List<DeviceBuffer>> extraSets = new ArrayList<>();
    /** Per input set, the scalars of the case last generated into it. */
    private final List<Map<String, Float>> scalars = new ArrayList<>();
    private final DeviceBuffer y;
    /** The operator's output of one element (a loss's value), guarded like y; null for an operator without one. */
    private final DeviceBuffer reduced;
    private final DeviceBuffer stats;
    private final DeviceBuffer referenceScratch;
    private final DeviceBuffer checkResult;
    private final DeviceBuffer counter;
    private final DeviceBuffer flush;
    private DeviceBuffer workspace;
    /** Where a gradient operator's inputs are derived through; null for a forward operator. */
    private final ForwardScratch forward;
    /** Where each input set's, y's and the workspace's guarded region starts in its allocation ({@link #place}). */
    private final long[] xShift;
    private final long[][] extraShift;
    private long yShift;
    private long reducedShift;
    private long wsShift;

    /**
     * Allocates everything for the largest of {@code shapes}; when the GPU cannot hold it (an at-scale shape on a
     * small GPU), frees what it had allocated before it throws, so the evaluation can go on without it.
     *
     * @param task the operator, whose tensor names the buffers are bound by, and the element types of x and y: what
     *     their sizes, guards and poison follow
     */
    Workbench(Gpu gpu, List<Shape> shapes, int inputSets, Task task) {
        this.gpu = gpu;
        this.task = task;
        this.dtype = task.dtype();
        this.extras = besideFirst(task.op());
        long maxRows = shapes.stream().mapToLong(Shape::rows).max().orElseThrow();
        long copyCapacity = copyCapacity(task, shapes);
        xShift = new long[inputSets];
        extraShift = new long[extras.size()][inputSets];
        List<DeviceBuffer> allocated = new ArrayList<>();
        try {
            for (int i = 0; i < inputSets; i++) {
                xSets.add(held(allocated, gpu.alloc(guardedBytes(copyCapacity))));
                scalars.add(Map.of());
            }
            for (Tensor t : extras) {
                // As much as any layout and mask kind of the suite's sizes reads, so that a drawn shape fits too.
                long capacity = shapes.stream().mapToLong(s -> t.extent().mostElements(s)).max().orElseThrow()
                        * t.element().bytes(dtype);
                List<DeviceBuffer> sets = new ArrayList<>();
                for (int i = 0; i < inputSets; i++) {
                    sets.add(held(allocated, gpu.alloc(guardedBytes(capacity))));
                }
                extraSets.add(sets);
            }
            y = held(allocated, gpu.alloc(guardedBytes(Math.max(copyCapacity,
                    shapes.stream().mapToLong(Shape::elements).max().orElseThrow() * dtype.y().bytes()))));
            reduced = task.op().reducedOutput().isEmpty() ? null
                    : held(allocated, gpu.alloc(guardedBytes(REDUCED_BYTES)));
            stats = held(allocated, gpu.alloc(TrustedKernels.statsBytes(maxRows)));
            referenceScratch = held(allocated, gpu.alloc(shapes.stream()
                    .mapToLong(TrustedKernels::referenceScratchBytes).max().orElseThrow()));
            checkResult = held(allocated, gpu.alloc(CheckCounts.BYTES));
            counter = held(allocated, gpu.alloc(8));
            flush = held(allocated, gpu.alloc(Math.max(2 * gpu.info().l2Bytes(), 64L << 20) / 128 * 128));
            workspace = held(allocated, gpu.alloc(guardedBytes(0)));
            forward = ForwardScratch.of(gpu, task, shapes, inputSets);
        } catch (RuntimeException e) {
            allocated.forEach(DeviceBuffer::close);
            throw e;
        }
        gpu.fill(flush.pointer(), 0x3F800000, flush.bytes() / 4);
        // No L2 set aside for persisting accesses: a candidate has no host code to ask for any, and this context's
        // own limit should not hand it some either (0 is the default; a setting the driver refuses, as under MPS,
        // is left as it is).
        gpu.setPersistingL2Limit(0);
    }

    /**
     * Bytes of each input set's first row input (x, a gradient's y) and of y (a gradient's dx), at least: x as large as
     * y even where its type is narrower, since the memcpy that times the floor reads as many bytes as it writes, (x's +
     * y's) / 2 an element, from an input set; and both as large as the floor's copy, which for an operator that also
     * reads a mask, or a second row input, moves more than x's and y's bytes (Task.floorCopyElements).
     */
    static long copyCapacity(Task task, List<Shape> shapes) {
        long copyElements = shapes.stream().mapToLong(s -> Math.max(s.elements(), task.floorCopyElements(s))).max()
                .orElseThrow();
        return copyElements * Math.max(task.dtype().x().bytes(), task.dtype().y().bytes());
    }

    /**
     * Returns every persisting L2 line to normal (cuCtxResetPersistingL2Cache); called before a shape is timed.
     * Not ordered with the stream, so only between synchronised stretches of work.
     */
    void resetPersistingL2() {
        gpu.resetPersistingL2();
    }

    /**
     * The input tensors of {@code op} beside its first row input, in its order: what a mask brings (each of another
     * extent: {@link dev.kevo.task.op.Operator#extraInputs}, for a forward operator all of them) and a gradient's
     * second row input, dy. Each gets a guarded buffer per input set as the first one does.
     */
    static List<Tensor> besideFirst(dev.kevo.task.op.Operator op) {
        Tensor first = op.rowInputs().getFirst();
        return op.tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT && !t.equals(first)).toList();
    }

    /** {@code buffer}, added to {@code allocated}, so that a later failed allocation can free it. */
    static DeviceBuffer held(List<DeviceBuffer> allocated, DeviceBuffer buffer) {
        allocated.add(buffer);
        return buffer;
    }

    /** An allocation that holds a guarded region of {@code payload} bytes wherever {@link #place} puts it. */
    private static long guardedBytes(long payload) {
        return SHIFT_SPAN + regionBytes(payload);
    }

    /** A guarded region: a guard zone, the payload, another guard zone. */
    private static long regionBytes(long payload) {
        return GUARD_BYTES + align(payload) + GUARD_BYTES;
    }

    /**
     * Moves every guarded region to where {@code secret} says, for the evaluation that secret belongs to: each input
     * set, y and the workspace at its own multiple of {@link #SHIFT_STEP} below {@link #SHIFT_SPAN}. Contents are not
     * kept (inputs are generated and outputs poisoned before every launch anyway).
     */
    void place(long secret) {
        for (int set = 0; set < xShift.length; set++) {
            xShift[set] = shift(secret, set);
        }
        yShift = shift(secret, xShift.length);
        wsShift = shift(secret, xShift.length + 1);
        reducedShift = shift(secret, xShift.length * (extras.size() + 1) + 2);
        for (int t = 0; t < extras.size(); t++) {
            for (int set = 0; set < xShift.length; set++) {
                extraShift[t][set] = shift(secret, xShift.length * (t + 1) + 2 + set);
            }
        }
    }

    /** The {@code k}-th shift of {@code secret}. */
    static long shift(long secret, int k) {
        return Long.remainderUnsigned(SplitMix.derive(secret, k, 0x5EED), SHIFT_SPAN / SHIFT_STEP) * SHIFT_STEP;
    }

    private static long align(long bytes) {
        return (bytes + 255) / 256 * 256;
    }

    /** The operator and dtypes the buffers are laid out for. */
    Task task() {
        return task;
    }

    int inputSets() {
        return xSets.size();
    }

    DevicePointer x(int set) {
        return xSets.get(set).at(xShift[set] + GUARD_BYTES);
    }

    DevicePointer y() {
        return y.at(yShift + GUARD_BYTES);
    }

    DevicePointer workspace() {
        return workspace.at(wsShift + GUARD_BYTES);
    }

    /** y and the output of one element (none for an operator without one), where a launch writes them. */
    Outputs outputs() {
        return new Outputs(y(), reduced == null ? DevicePointer.none() : reduced.at(reducedShift + GUARD_BYTES));
    }

    /** Where extra input {@code t} of input set {@code set} starts. */
    private DevicePointer extra(int t, int set) {
        return extraSets.get(t).get(set).at(extraShift[t][set] + GUARD_BYTES);
    }

    /**
     * Input set {@code set} as kevo's kernels read it for {@code shape}: x, the tensors the shape's mask kind reads,
     * and the scalars of the case last generated into it.
     */
    Inputs inputs(int set, Shape shape) {
        List<DevicePointer> rows = new ArrayList<>(List.of(x(set)));
        DevicePointer lengths = DevicePointer.none();
        DevicePointer mask = DevicePointer.none();
        DevicePointer labels = DevicePointer.none();
        for (int t = 0; t < extras.size(); t++) {
            if (extras.get(t).present(shape)) {
                switch (extras.get(t).extent()) {
                    case ROWS_COLS -> rows.add(extra(t, set));
                    case BATCH -> lengths = extra(t, set);
                    case BATCH_QUERIES_KEYS -> mask = extra(t, set);
                    case ROWS -> labels = extra(t, set);
                    case ONE -> throw new IllegalStateException(extras.get(t).name() + ": no input has one element");
                }
            }
        }
        return new Inputs(rows, lengths, mask, labels, scalars.get(set), forward == null ? null
                : forward.source(set));
    }

    /**
     * Generates the operator's inputs of {@code inputCase} under {@code caseSeed} for {@code shape} into input set
     * {@code set}: x, the tensors its mask kind reads, and the scalars' values, which later launches on the set get.
     */
    Inputs generate(TrustedKernels trusted, int set, Shape shape, long caseSeed, InputCase inputCase) {
        scalars.set(set, task.scalars(caseSeed));
        Inputs inputs = inputs(set, shape);
        trusted.generate(inputs, shape, caseSeed, inputCase);
        return inputs;
    }

    /** What a plan's launch on {@code shape} gets, by the operator's names: input set {@code set}, y and the workspace. */
    Bindings bindings(int set, Shape shape) {
        return inputs(set, shape).bindings(task, shape, outputs(), workspace());
    }

    DevicePointer stats() {
        return stats.pointer();
    }

    DevicePointer referenceScratch() {
        return referenceScratch.pointer();
    }

    DevicePointer checkResult() {
        return checkResult.pointer();
    }

    /** Makes sure the workspace holds at least {@code bytes}; contents are not kept. */
    void reserveWorkspace(long bytes) {
        if (guardedBytes(bytes) > workspace.bytes()) {
            workspace.close();
            workspace = gpu.alloc(guardedBytes(bytes));
        }
    }

    /** The fill word of unwritten output of {@code type}. */
    static int poisonY(Dtype type) {
        return switch (type) {
            case FP32 -> POISON_Y;
            case BF16 -> POISON_Y_BF16;
            case FP16 -> POISON_Y_FP16;
        };
    }

    long xBytes(Shape shape) {
        return shape.elements() * dtype.x().bytes();
    }

    long yBytes(Shape shape) {
        return shape.elements() * dtype.y().bytes();
    }

    /** 32-bit words that hold y of {@code shape} (the last one half filler for an odd count of 16-bit elements). */
    long yWords(Shape shape) {
        return (yBytes(shape) + 3) / 4;
    }

    /**
     * Guards around x and the other inputs (input set {@code set}), y and {@code wsBytes} of workspace; y poisoned;
     * workspace poisoned.
     */
    void arm(Shape shape, long wsBytes, int set) {
        armGuards(xSets.get(set), xShift[set], xBytes(shape));
        for (int t = 0; t < extras.size(); t++) {
            armGuards(extraSets.get(t).get(set), extraShift[t][set], extras.get(t).bytes(shape, dtype));
        }
        armGuards(y, yShift, yBytes(shape));
        gpu.fill(y(), poisonY(dtype.y()), yWords(shape));
        if (reduced != null) {
            armGuards(reduced, reducedShift, REDUCED_BYTES);
            gpu.fill(outputs().reduced(), POISON_Y, 1);
        }
        armGuards(workspace, wsShift, wsBytes);
        gpu.fill(workspace(), POISON_WS, (wsBytes + 3) / 4);
    }

    /** Words of the guard zones (as armed for this shape and input set) that something overwrote. */
    long guardDamage(TrustedKernels trusted, Shape shape, long wsBytes, int set) {
        return counted(c -> {
            checkGuards(trusted, xSets.get(set), xShift[set], xBytes(shape), c);
            for (int t = 0; t < extras.size(); t++) {
                checkGuards(trusted, extraSets.get(t).get(set), extraShift[t][set], extras.get(t).bytes(shape, dtype), c);
            }
            checkGuards(trusted, y, yShift, yBytes(shape), c);
            if (reduced != null) {
                checkGuards(trusted, reduced, reducedShift, REDUCED_BYTES, c);
            }
            checkGuards(trusted, workspace, wsShift, wsBytes, c);
        });
    }

    /** Input set {@code set}, y and the workspace as a checked launch uses them: guarded, in place. */
    CheckBuffers checked(int set) {
        return new CheckBuffers() {
            @Override
            public Inputs generate(TrustedKernels trusted, Shape shape, long caseSeed, InputCase inputCase) {
                return Workbench.this.generate(trusted, set, shape, caseSeed, inputCase);
            }

            @Override
            public Outputs outputs() {
                return Workbench.this.outputs();
            }

            @Override
            public Bindings bindings(Shape shape) {
                return Workbench.this.bindings(set, shape);
            }

            @Override
            public void arm(Shape shape, long wsBytes) {
                Workbench.this.arm(shape, wsBytes, set);
            }

            @Override
            public long guardDamage(TrustedKernels trusted, Shape shape, long wsBytes) {
                return Workbench.this.guardDamage(trusted, shape, wsBytes, set);
            }

            /** Nothing: kevo's guarded buffers are where every check runs unless it says otherwise. */
            @Override
            public String where() {
                return "";
            }
        };
    }

    /**
     * A digest of the outputs' bits for {@code shape} (y's, and a loss's value): equal only when two launches wrote the
     * same outputs, bit for bit.
     */
    long outputDigest(TrustedKernels trusted, Shape shape) {
        return counted(c -> {
            trusted.digest(y(), yWords(shape), c);
            if (reduced != null) {
                trusted.digest(outputs().reduced(), 1, c);
            }
        });
    }

    /** What {@code work} adds up in the 64-bit counter, from zero. */
    private long counted(Consumer<DevicePointer> work) {
        gpu.fill(counter.pointer(), 0, 2);
        work.accept(counter.pointer());
        long[] sum = new long[1];
        gpu.download(counter.pointer(), sum, 8);
        return sum[0];
    }

    /** Evicts L2 by reading a buffer twice its size (filled once with real numbers, never zeros). */
    void flushL2(TrustedKernels trusted) {
        flushL2(trusted, false);
    }

    /**
     * As {@link #flushL2(TrustedKernels)}; with {@code pinned}, at evict_last priority and then demoting those lines,
     * so that lines a candidate pinned with an evict_last hint anywhere (its own {@code __device__} memory too) go.
     */
    void flushL2(TrustedKernels trusted, boolean pinned) {
        trusted.flushL2(flush.pointer(), flush.bytes(), counter.pointer(), pinned);
    }

    /**
     * What a candidate can address for {@code shape}, to be demoted to evict_normal after each of its launches: input
     * set {@code set}, y and {@code wsBytes} of workspace, guard zones included, each from the 128-byte line its
     * region starts in. Where all input sets fit in L2 together, the other sets too: a
     * kernel that found them by pointer arithmetic could otherwise keep them pinned for its next launches. Listed
     * rather than launched, so that one launch demotes them all.
     */
    List<TrustedKernels.Range> candidateLines(int set, Shape shape, long wsBytes) {
        long xRegion = regionBytes(xBytes(shape));
        List<TrustedKernels.Range> ranges = new ArrayList<>(List.of(lines(xSets.get(set), xShift[set], xRegion),
                lines(y, yShift, regionBytes(yBytes(shape))), lines(workspace, wsShift, regionBytes(wsBytes))));
        if (reduced != null) {
            ranges.add(lines(reduced, reducedShift, regionBytes(REDUCED_BYTES)));
        }
        long setRegion = xRegion;
        for (int t = 0; t < extras.size(); t++) {
            if (extras.get(t).present(shape)) {
                long region = regionBytes(extras.get(t).bytes(shape, dtype));
                setRegion += region;
                ranges.add(lines(extraSets.get(t).get(set), extraShift[t][set], region));
            }
        }
        if (setRegion * xSets.size() <= gpu.info().l2Bytes()) {
            for (int other = 0; other < xSets.size(); other++) {
                if (other != set) {
                    ranges.add(lines(xSets.get(other), xShift[other], xRegion));
                    for (int t = 0; t < extras.size(); t++) {
                        if (extras.get(t).present(shape)) {
                            ranges.add(lines(extraSets.get(t).get(other), extraShift[t][other],
                                    regionBytes(extras.get(t).bytes(shape, dtype))));
                        }
                    }
                }
            }
        }
        return ranges;
    }

    /** The 128-byte lines of a region of {@code bytes} at {@code shift} in {@code buffer} (whose start is a line's). */
    private static TrustedKernels.Range lines(DeviceBuffer buffer, long shift, long bytes) {
        long first = shift / 128 * 128;
        return new TrustedKernels.Range(buffer.at(first), shift - first + bytes);
    }

    private void armGuards(DeviceBuffer buffer, long shift, long payload) {
        gpu.fill(buffer.at(shift), GUARD_PATTERN, GUARD_BYTES / 4);
        gpu.fill(buffer.at(shift + GUARD_BYTES + payload4(payload)), GUARD_PATTERN, GUARD_BYTES / 4);
    }

    private void checkGuards(TrustedKernels trusted, DeviceBuffer buffer, long shift, long payload,
                             DevicePointer counter) {
        trusted.guardCheck(buffer.at(shift), GUARD_BYTES / 4, GUARD_PATTERN, counter);
        trusted.guardCheck(buffer.at(shift + GUARD_BYTES + payload4(payload)), GUARD_BYTES / 4, GUARD_PATTERN,
                counter);
    }

    /** The tail guard starts right after the payload (rounded to a word), so a one-element overrun lands in it. */
    private static long payload4(long payload) {
        return (payload + 3) / 4 * 4;
    }

    @Override
    public void close() {
        xSets.forEach(DeviceBuffer::close);
        extraSets.forEach(sets -> sets.forEach(DeviceBuffer::close));
        y.close();
        if (reduced != null) {
            reduced.close();
        }
        stats.close();
        referenceScratch.close();
        checkResult.close();
        counter.close();
        flush.close();
        workspace.close();
        if (forward != null) {
            forward.close();
        }
    }
}
