package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;

/**
 * The candidate's buffers for one checked launch: an input set of the evaluation's guarded {@link Workbench}, or
 * plain allocations of exactly the bytes a shape needs ({@link PlainBuffers}), where a kernel that recognises
 * kevo's guarded buffers meets buffers like a user's.
 */
interface CheckBuffers {

    /**
     * Generates the operator's inputs of {@code inputCase} under {@code caseSeed} here (x, the tensors the shape's mask
     * kind reads, the scalars' values): what the launch ({@link #bindings}) and the check then read.
     */
    Inputs generate(TrustedKernels trusted, Shape shape, long caseSeed, InputCase inputCase);

    /** The operator's outputs, where the check compares them. */
    Outputs outputs();

    /** What a launch on {@code shape} gets, by the operator's names, on the inputs generated last. */
    Bindings bindings(Shape shape);

    /** The output poisoned, the workspace poisoned, and guard zones armed where there are any. */
    void arm(Shape shape, long wsBytes);

    /** Guard words overwritten since {@link #arm}; 0 where there are no guards. */
    long guardDamage(TrustedKernels trusted, Shape shape, long wsBytes);

    /** For messages: what to say of where a check ran, after "in ", or empty where it needs no saying. */
    String where();
}
