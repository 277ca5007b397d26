package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.data.Shape;

/**
 * The candidate's buffers for one checked launch: an input set of the evaluation's guarded {@link Workbench}, or
 * plain allocations of exactly the bytes a shape needs ({@link PlainBuffers}), where a kernel that recognises
 * kevo's guarded buffers meets buffers like a user's.
 */
interface CheckBuffers {

    /** The operator's input, where the check generates it. */
    DevicePointer x();

    /** The operator's output, where the check compares it. */
    DevicePointer y();

    /** What the launch gets, by the operator's names. */
    Bindings bindings();

    /** The output poisoned, the workspace poisoned, and guard zones armed where there are any. */
    void arm(Shape shape, long wsBytes);

    /** Guard words overwritten since {@link #arm}; 0 where there are no guards. */
    long guardDamage(TrustedKernels trusted, Shape shape, long wsBytes);

    /** For messages: what to say of where a check ran, after "in ", or empty where it needs no saying. */
    String where();
}
