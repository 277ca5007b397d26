package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * compute-sanitizer's reports read into findings and one line of detail. The logs are in the formats of the tool's
 * manual and of reports published from real runs (kernel names changed to kevo's); a worker's JVM lines, which have
 * no prefix, are mixed in where a log can hold them.
 */
class SanitizerReportTest {

    @Test
    void aReadPastTheEndOfXIsAMemcheckErrorNamingKernelAndDistance() {
        String log = """
                ========= COMPUTE-SANITIZER
                ========= Invalid __global__ read of size 4 bytes
                =========     at softmax_overread+0x1b0
                =========     by thread (16,0,0) in block (31,0,0)
                =========     Address 0x7f3a5c004000 is out of bounds
                =========     and is 1 bytes after the nearest allocation at 0x7f3a5c000000 of size 16,384 bytes
                =========
                ========= Invalid __global__ read of size 4 bytes
                =========     at softmax_overread+0x1b0
                =========     by thread (17,0,0) in block (31,0,0)
                =========     Address 0x7f3a5c004004 is out of bounds
                =========     and is 5 bytes after the nearest allocation at 0x7f3a5c000000 of size 16,384 bytes
                =========
                ========= ERROR SUMMARY: 16 errors
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.MEMCHECK, log);
        assertTrue(r.summarized());
        assertEquals(16, r.count());
        assertEquals(2, r.findings().size());
        assertFalse(r.clean());
        assertEquals("memcheck: 16 errors in softmax_overread (invalid __global__ read of size 4 bytes, 1 bytes after "
                + "an allocation of 16,384 bytes)", r.detail());
    }

    @Test
    void aCleanRunOfEachToolIsClean() {
        for (SanitizerTool tool : SanitizerTool.values()) {
            String summary = tool == SanitizerTool.RACECHECK
                    ? "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
                    : "========= ERROR SUMMARY: 0 errors";
            SanitizerReport r = SanitizerReport.parse(tool, "========= COMPUTE-SANITIZER\n" + summary + "\n");
            assertTrue(r.clean(), tool.id());
            assertNull(r.detail(), tool.id());
        }
    }

    @Test
    void racecheckAnalysisCountsEveryHazardOfTheRace() {
        String log = """
                ========= COMPUTE-SANITIZER
                ========= Error: Race reported between Write access at smem_race+0x140
                =========     and Read access at smem_race+0xe0 [4 hazards]
                =========     and Write access at smem_race+0x140 [5 hazards]
                =========
                ========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.RACECHECK, log);
        assertEquals("racecheck: 9 hazards in smem_race (shared memory, a read and a write no barrier orders)",
                r.detail());
    }

    @Test
    void racecheckWarningsAreFindingsToo() {
        // A warning is a hazard of warp-synchronous code without __syncwarp: a race since Volta.
        String log = """
                ========= WARNING: Race reported between Write access at RAW()+0xf0 in raceGroupBasic.cu:40
                =========     and Read access at RAW()+0x280 in raceGroupBasic:46 [2 hazards]
                =========
                ========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.RACECHECK, log);
        assertFalse(r.clean());
        assertEquals("racecheck: 2 hazards in RAW (shared memory, a read and a write no barrier orders)",
                r.detail());
    }

    @Test
    void racecheckHazardReportsNameTheHazardKind() {
        String log = """
                ========= ERROR: Potential WAR hazard detected at __shared__ 0x0 in block (0,0,0) :
                =========     Read Thread (31,0,0) at smem_race+0x2f0
                =========     Write Thread (0,0,0) at smem_race+0x310
                =========     Current Value : 0, Incoming Value : 1065353216
                =========
                ========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
                """;
        assertEquals("racecheck: 1 hazard in smem_race (shared memory, write-after-read)",
                SanitizerReport.parse(SanitizerTool.RACECHECK, log).detail());
    }

    @Test
    void synccheckAndInitcheckFindings() {
        String sync = """
                ========= Barrier error detected. Divergent thread(s) in warp
                =========     at ThreadDivergence(int *, int)+0xf0 in divergence.cu:79
                =========     by thread (37,0,0) in block (0,0,0)
                =========
                ========= ERROR SUMMARY: 1 error
                """;
        assertEquals("synccheck: 1 error in ThreadDivergence (barrier error: divergent thread(s) in warp)",
                SanitizerReport.parse(SanitizerTool.SYNCCHECK, sync).detail());
        String init = """
                ========= Uninitialized __global__ memory read of size 4 bytes
                =========     at softmax_uninit_ws+0x90
                =========     by thread (0,0,0) in block (0,0,0)
                =========     Address 0x7f00c0000000
                =========
                ========= ERROR SUMMARY: 32 errors
                """;
        assertEquals("initcheck: 32 errors in softmax_uninit_ws (uninitialized __global__ memory read of size 4 bytes)",
                SanitizerReport.parse(SanitizerTool.INITCHECK, init).detail());
    }

    @Test
    void aReportCutShortIsNeverClean() {
        String cut = """
                ========= COMPUTE-SANITIZER
                worker: loaded NVRTC 13.0
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.RACECHECK, cut);
        assertFalse(r.summarized());
        assertFalse(r.clean());
        assertEquals("racecheck: no summary in its report", r.detail());
        SanitizerReport failed = SanitizerReport.parse(SanitizerTool.MEMCHECK, """
                ========= Target application returned an error
                ========= ERROR SUMMARY: 0 errors
                """);
        assertTrue(failed.targetFailed());
        assertFalse(failed.clean());
    }

    @Test
    void aCountWithNoFindingItCanReadStillFails() {
        // An API error slipped through (kevo runs with --report-api-errors no, but a count is a count).
        String log = """
                ========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "invalid argument" on CUDA API call to cuCtxSetLimit.
                ========= ERROR SUMMARY: 1 error
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.MEMCHECK, log);
        assertTrue(r.findings().isEmpty(), r.findings().toString());
        assertFalse(r.clean());
        assertEquals("memcheck: 1 error, none printed in a form kevo reads", r.detail());
    }

    @Test
    void functionNamesInEveryFormTheToolsWrite() {
        assertEquals(Optional.of("softmax_online"), SanitizerReport.function("softmax_online+0x1a0 in k.cu:12"));
        assertEquals(Optional.of("unaligned_kernel"), SanitizerReport.function("unaligned_kernel():0x160 in demo.cu:6"));
        assertEquals(Optional.of("reverse_kernel"), SanitizerReport.function("reverse_kernel(const float *, float *, int)+0x70"));
        assertEquals(Optional.of("add_bias"), SanitizerReport.function(
                "0xd80 in /data/src/kernels/bias.cu:162:void add_bias<(bool)1, __half>(T2 *, int)"));
        assertEquals(Optional.empty(), SanitizerReport.function("0x79d8"));
    }

    @Test
    void linesOfAnotherPrefixOrNoneAreNotRead() {
        String log = """
                kevo worker: ready
                ========= Invalid __global__ write of size 4 bytes
                =========     at oob_write+0x40
                ========= ERROR SUMMARY: 1 error
                Invalid __global__ write of size 4 bytes
                """;
        SanitizerReport r = SanitizerReport.parse(SanitizerTool.MEMCHECK, log);
        assertEquals(1, r.findings().size());
        assertEquals(Optional.of("oob_write"), r.findings().getFirst().function());
    }
}
