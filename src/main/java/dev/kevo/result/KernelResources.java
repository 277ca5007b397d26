package dev.kevo.result;

import dev.kevo.cuda.Kernel;

/** What the compiler gave one kernel; {@code localBytes} above zero means spills or a stack array. */
public record KernelResources(String kernel, int registers, int localBytes, int staticSharedBytes) {

    public static KernelResources of(Kernel k) {
        return new KernelResources(k.name(), k.registers(), k.localBytes(), k.staticSharedBytes());
    }
}
