package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What Nsight Compute measured of a kernel file's launches on a few shapes (a parent's furthest from the memory floor),
 * for a model to read: how much of the DRAM bandwidth each launch used, how full the SMs were, and what its warps
 * waited on most.
 *
 * @param launches one per profiled kernel launch, in launch order
 * @param seconds what the profile cost, wall time, the worker's start under the tool included
 * @param detail why there is no profile (no ncu, a worker that failed under it), in one line; null when there is one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Profile(List<Launch> launches, double seconds, String tool, String device, String date, String detail) {
    public Profile {
        launches = launches == null ? List.of() : List.copyOf(launches);
    }

    /**
     * The {@code count} shapes of {@code timed} furthest from the memory floor (lowest floor fraction first): where a
     * change would pay most, so what a profile is of.
     */
    public static List<String> furthestFromFloor(List<ShapeResult> timed, int count) {
        return timed.stream().filter(s -> s.floorFraction() != null)
                .sorted(Comparator.comparingDouble(ShapeResult::floorFraction)).limit(count)
                .map(ShapeResult::shape).toList();
    }

    /** One line per launch, as a model and {@code kevo eval --profile} show it; the reason when there is none. */
    public List<String> lines() {
        if (launches.isEmpty()) {
            return List.of(detail == null ? "no profile" : detail);
        }
        return launches.stream().map(Launch::line).toList();
    }

    /**
     * One kernel launch of a shape's plan.
     *
     * @param dramPercent achieved DRAM throughput, percent of peak
     *     ({@code dram__throughput.avg.pct_of_peak_sustained_elapsed})
     * @param occupancyPercent achieved occupancy, percent of the SM's warps
     *     ({@code sm__warps_active.avg.pct_of_peak_sustained_active})
     * @param durationUs the launch's duration under the profiler (clocks not locked)
     * @param stalls the top reasons its warps stalled, most cycles first
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Launch(String shape, String kernel, Double dramPercent, Double occupancyPercent, Double durationUs,
                         List<Stall> stalls) {
        public Launch {
            stalls = stalls == null ? List.of() : List.copyOf(stalls);
        }

        /** "1x1000000 softmax_split: DRAM 41% of peak, occupancy 48%, 12.3 us; stalls (cycles per issue): ..." */
        String line() {
            StringBuilder b = new StringBuilder(shape + " " + kernel + ":");
            b.append(dramPercent == null ? " DRAM n/a" : String.format(Locale.ROOT, dramPercent < 10
                    ? " DRAM %.1f%% of peak" : " DRAM %.0f%% of peak", dramPercent));
            b.append(occupancyPercent == null ? ", occupancy n/a"
                    : String.format(Locale.ROOT, ", achieved occupancy %.0f%%", occupancyPercent));
            if (durationUs != null) {
                b.append(String.format(Locale.ROOT, ", %.1f us under the profiler", durationUs));
            }
            if (!stalls.isEmpty()) {
                b.append("; top stalls (cycles per issued instruction): ").append(String.join(", ", stalls.stream()
                        .map(st -> String.format(Locale.ROOT, "%s %.1f", st.reason(), st.cyclesPerIssue())).toList()));
            }
            return b.toString();
        }
    }

    /** A stall reason and its average cycles per issued instruction ({@code smsp__average_warps_issue_stalled_*}). */
    public record Stall(String reason, double cyclesPerIssue) {
    }
}
