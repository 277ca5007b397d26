package dev.kevo.data;

/** What the compiler gave one kernel; {@code localBytes} above zero means spills or a stack array. */
public record KernelResources(String kernel, int registers, int localBytes, int staticSharedBytes) {
}
