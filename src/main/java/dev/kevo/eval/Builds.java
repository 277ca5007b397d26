package dev.kevo.eval;

import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.JudgedBuild;

/** The identity of the code a judgement ran, and the cubin itself kept where a record of it will want it. */
final class Builds {
    private final Nvrtc nvrtc;
    private final CompileCache cache;

    Builds(Nvrtc nvrtc, CompileCache cache) {
        this.nvrtc = nvrtc;
        this.cache = cache;
    }

    /**
     * What {@code compilation} is; {@code keep}: its cubin also goes to the cache's judged builds, for the record of a
     * judgement an export may follow (champion confirmation, {@code kevo eval --at-scale}, a sanitizer's pass).
     */
    JudgedBuild of(Compilation compilation, boolean keep) {
        String hash = keep ? cache.keepJudged(compilation.cubin()) : CompileCache.sha256Hex(compilation.cubin());
        return new JudgedBuild(compilation.arch(), "NVRTC " + nvrtc.version(), compilation.options(), hash);
    }
}
