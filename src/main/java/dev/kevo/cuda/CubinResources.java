package dev.kevo.cuda;

import dev.kevo.data.KernelResources;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Each kernel's registers, local memory and static shared memory as the compiler recorded them in a cubin, read
 * without a GPU: what {@code cuFuncGetAttribute} reports once the cubin is loaded, so that {@code kevo check} shows
 * spills on a machine with NVRTC alone.
 *
 * <p>A cubin is an ELF64 file. Its {@code .nv.info} section holds attributes per function symbol: the register count
 * ({@code EIATTR_REGCOUNT}) and the stack frame, the per-thread local memory that spills and stack arrays take
 * ({@code EIATTR_FRAME_SIZE}). A kernel's static shared memory is the size of its {@code .nv.shared.NAME} section,
 * which on sm_90 and later also holds the kilobyte the driver reserves at the start of every block's shared memory.
 * Anything else (PTX, a truncated or foreign file, a kernel the cubin lacks) reads as nothing, never as a guess.
 */
public final class CubinResources {
    private static final int EIFMT_SVAL = 0x04;
    private static final int EIATTR_FRAME_SIZE = 0x11;
    private static final int EIATTR_REGCOUNT = 0x2f;
    private static final int SHT_SYMTAB = 2;
    /** Shared memory reserved per block ahead of a kernel's own from sm_90 on, in its {@code .nv.shared} section. */
    static final int RESERVED_SHARED_SM90 = 1024;

    private CubinResources() {
    }

    /** The resources of {@code kernels} in {@code compilation}'s cubin, in that order; empty if any is unreadable. */
    public static Optional<List<KernelResources>> of(Compilation compilation, List<String> kernels) {
        try {
            return read(compilation.cubin(), reservedShared(compilation.arch()), kernels);
        } catch (RuntimeException e) {  // a malformed file: out-of-range offsets, a missing string's terminator
            return Optional.empty();
        }
    }

    static int reservedShared(String arch) {
        String digits = arch.replaceAll("\\D", "");
        return !digits.isEmpty() && Integer.parseInt(digits) >= 90 ? RESERVED_SHARED_SM90 : 0;
    }

    private static Optional<List<KernelResources>> read(byte[] cubin, int reserved, List<String> kernels) {
        ByteBuffer b = ByteBuffer.wrap(cubin).order(ByteOrder.LITTLE_ENDIAN);
        if (cubin.length < 64 || b.getInt(0) != 0x464c457f || cubin[4] != 2 || cubin[5] != 1) {
            return Optional.empty();  // not a little-endian ELF64: PTX, or nothing
        }
        long shoff = b.getLong(0x28);
        int shentsize = Short.toUnsignedInt(b.getShort(0x3a));
        int shnum = Short.toUnsignedInt(b.getShort(0x3c));
        int shstrndx = Short.toUnsignedInt(b.getShort(0x3e));
        List<Section> sections = new ArrayList<>();
        for (int i = 0; i < shnum; i++) {
            int at = Math.toIntExact(shoff + (long) i * shentsize);
            sections.add(new Section(b.getInt(at), b.getInt(at + 4), Math.toIntExact(b.getLong(at + 24)),
                    Math.toIntExact(b.getLong(at + 32)), b.getInt(at + 40)));
        }
        int names = sections.get(shstrndx).offset();
        Map<String, Section> byName = new HashMap<>();
        for (Section s : sections) {
            byName.put(string(cubin, names + s.name()), s);
        }
        Section symtab = sections.stream().filter(s -> s.type() == SHT_SYMTAB).findFirst().orElse(null);
        Section info = byName.get(".nv.info");
        if (symtab == null || info == null) {
            return Optional.empty();
        }
        int strings = sections.get(symtab.link()).offset();
        Map<String, Integer> registers = new HashMap<>();
        Map<String, Integer> frames = new HashMap<>();
        for (int at = info.offset(); at + 4 <= info.offset() + info.size(); ) {
            int format = cubin[at] & 0xff;
            int attribute = cubin[at + 1] & 0xff;
            if (format != EIFMT_SVAL) {
                at += 4;  // a value of two bytes in the header itself
                continue;
            }
            int size = Short.toUnsignedInt(b.getShort(at + 2));
            if ((attribute == EIATTR_REGCOUNT || attribute == EIATTR_FRAME_SIZE) && size == 8) {
                int symbol = b.getInt(at + 4);
                String function = string(cubin, strings + b.getInt(symtab.offset() + symbol * 24));
                (attribute == EIATTR_REGCOUNT ? registers : frames).put(function, b.getInt(at + 8));
            }
            at += 4 + size;
        }
        List<KernelResources> out = new ArrayList<>();
        for (String kernel : kernels) {
            Integer regs = registers.get(kernel);
            if (regs == null) {
                return Optional.empty();
            }
            Section shared = byName.get(".nv.shared." + kernel);
            int sharedBytes = shared == null ? 0 : Math.max(0, shared.size() - reserved);
            out.add(new KernelResources(kernel, regs, frames.getOrDefault(kernel, 0), sharedBytes));
        }
        return Optional.of(List.copyOf(out));
    }

    private static String string(byte[] bytes, int at) {
        int end = at;
        while (bytes[end] != 0) {
            end++;
        }
        return new String(bytes, at, end - at, StandardCharsets.US_ASCII);
    }

    private record Section(int name, int type, int offset, int size, int link) {
    }
}
