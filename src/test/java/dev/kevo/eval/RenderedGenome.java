package dev.kevo.eval;

import dev.kevo.agent.DefaultGenomes;
import dev.kevo.agent.Genome;
import dev.kevo.agent.KernelRenderer;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Task;

/** The built-in agent's default genome rendered for a task, read as kevo reads a kernel file (none on disk). */
final class RenderedGenome {
    private RenderedGenome() {
    }

    static KernelFile defaultFor(Task task) {
        return of(DefaultGenomes.float32(), "default-genome", task);
    }

    /** {@code genome} rendered for {@code task}, named {@code name} and the task. */
    static KernelFile of(Genome genome, String name, Task task) {
        return ContractParser.parse(name + "-" + task.op().id() + "-" + task.dtype().id() + ".cu", null,
                KernelRenderer.render(genome, task));
    }
}
