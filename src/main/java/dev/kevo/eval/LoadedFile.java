package dev.kevo.eval;

import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.data.KernelResources;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ResolvedPlan;
import java.util.List;

/** A kernel file compiled, loaded and resolved for every shape of the suite (plans by the shape's index). */
record LoadedFile(KernelFile file, Compilation compilation, Module module, PlanRunner runner,
                  List<ResolvedPlan> plans) {

    /** What the compiler gave each kernel the file names. */
    List<KernelResources> resources() {
        return file.kernelNames().stream().map(module::kernel).map(Kernel::resources).toList();
    }
}
