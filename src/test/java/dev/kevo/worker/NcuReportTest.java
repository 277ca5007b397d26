package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.Profile;
import java.util.List;
import org.junit.jupiter.api.Test;

class NcuReportTest {
    private static String header() {
        StringBuilder b = new StringBuilder("\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
                + "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"" + NsightCompute.DRAM + "\",\""
                + NsightCompute.DURATION + "\",\"" + NsightCompute.OCCUPANCY + "\"");
        for (String r : NsightCompute.STALLS) {
            b.append(",\"").append(NsightCompute.stallMetric(r)).append('"');
        }
        return b.toString();
    }

    private static String row(int id, String kernel, String dram, String ns, String occupancy, double longScoreboard,
                              double barrier, double wait) {
        StringBuilder b = new StringBuilder("\"" + id + "\",\"4242\",\"java\",\"127.0.0.1\",\"" + kernel + "\",\"1\","
                + "\"13\",\"(512, 1, 1)\",\"(264, 1, 1)\",\"0\",\"9.0\",\"" + dram + "\",\"" + ns + "\",\"" + occupancy + "\"");
        for (String r : NsightCompute.STALLS) {
            double v = r.equals("long_scoreboard") ? longScoreboard : r.equals("barrier") ? barrier
                    : r.equals("wait") ? wait : 0.01;
            b.append(",\"").append(v).append('"');
        }
        return b.toString();
    }

    @Test
    void eachLaunchRowBecomesALaunchOfItsShapeWithItsTopStalls() {
        String log = String.join("\n", "==PROF== Connected to process 4242 (java)",
                "==PROF== Profiling \"softmax_stats\" - 0: 0%....50%....100% - 9 passes",
                header(),
                "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"%\",\"nsecond\",\"%\"",
                row(0, "softmax_stats", "41.37", "12,345", "48.2", 12.5, 3.25, 1.5),
                row(1, "softmax_norm", "88.0", "9,000", "71.0", 2.0, 7.0, 0.5),
                "==PROF== Disconnected from process 4242");
        List<Profile.Launch> launches = NcuReport.launches(log, List.of("1x1000000", "1x1000000"));
        assertEquals(2, launches.size());
        Profile.Launch first = launches.getFirst();
        assertEquals("1x1000000", first.shape());
        assertEquals("softmax_stats", first.kernel());
        assertEquals(41.37, first.dramPercent(), 1e-9);
        assertEquals(48.2, first.occupancyPercent(), 1e-9);
        assertEquals(12.345, first.durationUs(), 1e-9, "thousands grouped with a comma, nanoseconds to us");
        assertEquals(List.of("long_scoreboard", "barrier", "wait"),
                first.stalls().stream().map(Profile.Stall::reason).toList(), "most cycles first, three kept");
        assertEquals(List.of("barrier", "long_scoreboard", "wait"),
                launches.get(1).stalls().stream().map(Profile.Stall::reason).toList());
        String line = new Profile(launches, 1, "ncu", "0 H100", "now", null).lines().getFirst();
        assertTrue(line.startsWith("1x1000000 softmax_stats: DRAM 41% of peak, achieved occupancy 48%"), line);
        assertTrue(line.contains("long_scoreboard 12.5"), line);
    }

    @Test
    void aLogWithoutAHeaderHasNoLaunchesAndAValueThatIsNoNumberIsNone() {
        assertEquals(List.of(), NcuReport.launches("==PROF== ERROR: something\n", List.of("4x4")));
        assertNull(NcuReport.number("n/a"));
        assertEquals(List.of("a", "b,c", "d\"e"), NcuReport.cells("\"a\",\"b,c\",\"d\"\"e\""));
    }
}
