package dev.kevo.worker;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.kevo.cuda.Compilation;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.EvalSettings;
import dev.kevo.eval.Evaluator;
import dev.kevo.eval.Phase;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.nio.file.Path;
import java.util.List;

/** What supervisor and worker say to each other. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = Message.Configure.class, name = "configure"),
        @JsonSubTypes.Type(value = Message.Ready.class, name = "ready"),
        @JsonSubTypes.Type(value = Message.Evaluate.class, name = "evaluate"),
        @JsonSubTypes.Type(value = Message.Entered.class, name = "phase"),
        @JsonSubTypes.Type(value = Message.Expect.class, name = "expect"),
        @JsonSubTypes.Type(value = Message.Result.class, name = "result"),
        @JsonSubTypes.Type(value = Message.Failed.class, name = "failed")})
public sealed interface Message {

    /**
     * Supervisor to worker, once: what to judge against. Sources travel whole, so the worker reads no files.
     * {@code arch} and {@code sms} are for a check-only worker (no GPU); a GPU worker uses its device's.
     * {@code baseline}, when it names cuDNN, is the library the supervisor resolved (the worker loads exactly it);
     * otherwise the baseline is the kernel file {@code baselineName} with {@code baselineSource}.
     */
    record Configure(String suiteName, List<String> shapes, String baselineName, String baselineSource,
                     EvalSettings settings, String arch, int sms, BaselineChoice baseline) implements Message {
    }

    /**
     * Worker: configured, baseline checked, ready for candidates. {@code device} is null for a check-only worker;
     * {@code devices} is how many GPUs the worker's host has, so that "all devices" needs no CUDA in the
     * supervising process. {@code node} and {@code visibleDevices}: see {@link #here}.
     */
    record Ready(DeviceInfo device, int devices, String nvrtcVersion, String nvrtcLibrary, double startupMs,
                 String node, String visibleDevices) implements Message {

        /**
         * As reported by a worker from its environment: the Slurm node it runs on (null outside Slurm) and its
         * CUDA_VISIBLE_DEVICES, so that a record can name the node and the physical GPU, which inside a Slurm step
         * is device 0 whatever GPU Slurm gave it.
         */
        public static Ready here(DeviceInfo device, int devices, String nvrtcVersion, String nvrtcLibrary,
                                 double startupMs, java.util.Map<String, String> env) {
            return new Ready(device, devices, nvrtcVersion, nvrtcLibrary, startupMs, env.get("SLURMD_NODENAME"),
                    env.get("CUDA_VISIBLE_DEVICES"));
        }

        /**
         * "0 NVIDIA H100", or "gpu07 3 NVIDIA H100" on a Slurm node: the node, then the GPU as the host numbers it
         * (the ordinal's entry in CUDA_VISIBLE_DEVICES when that is set), then its name. Null for a check-only worker.
         */
        public String judgedOn() {
            if (device == null) {
                return null;
            }
            String gpu = Integer.toString(device.ordinal());
            if (visibleDevices != null && !visibleDevices.isBlank()) {
                String[] visible = visibleDevices.split(",");
                if (device.ordinal() < visible.length) {
                    gpu = visible[device.ordinal()].strip();
                }
            }
            return (node == null || node.isBlank() ? "" : node + " ") + gpu + " " + device.name();
        }
    }

    /**
     * Supervisor: judge {@code file} on inputs from {@code inputSeed}, as {@code run} says (a replayed timing secret, a
     * cold launch, a cubin compiled ahead for this architecture by a check-only worker, champion confirmation's
     * checks, a cascade's screen). The request travels whole: the worker judges exactly this, rebuilding nothing.
     */
    record Evaluate(long id, FileText file, long inputSeed, Evaluator.Run run) implements Message {
    }

    /**
     * A kernel file as it crosses the seam: its text, name and path. The worker reads no files, and parses the text
     * once ({@link #parse}); the parsed header does not travel, so that what is judged is what the text says.
     */
    record FileText(String name, String path, String source) {
        static FileText of(KernelFile file) {
            return new FileText(file.name(), file.path() == null ? null : file.path().toString(), file.source());
        }

        KernelFile parse() {
            return ContractParser.parse(name, path == null ? null : Path.of(path), source);
        }
    }

    /** Worker: candidate {@code id} entered a phase; the supervisor's clock for that phase starts now. */
    record Entered(long id, Phase phase) implements Message {
    }

    /**
     * Worker: the work of candidate {@code id} it is about to wait for ({@code what}) should be done within
     * {@code seconds}; until the next message, the supervisor kills the worker past that (never later than the
     * phase's own limit).
     */
    record Expect(long id, double seconds, String what) implements Message {
    }

    /**
     * Worker: the verdict. {@code contextLost}: a sticky fault; the worker exits after sending this. A check-only
     * worker adds the cubin of a candidate that passed preflight (null otherwise), for a GPU worker to load.
     */
    record Result(long id, CandidateResult result, boolean contextLost, Compilation compiled) implements Message {
        /** A verdict with no cubin attached. */
        static Result of(long id, CandidateResult result, boolean contextLost) {
            return new Result(id, result, contextLost, null);
        }
    }

    /** Worker: it cannot go on (no GPU, unusable baseline); {@code exitCode} as kevo's own. */
    record Failed(String message, int exitCode) implements Message {
    }
}
