package dev.kevo.eval;

/** Derives the input seed of each shape and case from one recorded seed, so one number replays a whole run. */
public final class SplitMix {
    private SplitMix() {
    }

    public static long derive(long master, int shapeIndex, int salt) {
        return mix(master ^ mix(((long) shapeIndex << 32) | (salt & 0xffffffffL)));
    }

    /** splitmix64's finaliser. */
    static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
