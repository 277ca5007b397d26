package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;

/**
 * Where a launch writes the operator's outputs, as kevo's kernels poison and judge them: y, the output of one element
 * per (row, column) (a gradient's dx), and the output of one element beside it ({@link
 * dev.kevo.task.op.Operator#reducedOutput}: a loss's value), {@link DevicePointer#none()} for an operator without one.
 */
record Outputs(DevicePointer y, DevicePointer reduced) {

    /** y alone: every operator of the row-wise family. */
    static Outputs of(DevicePointer y) {
        return new Outputs(y, DevicePointer.none());
    }
}
