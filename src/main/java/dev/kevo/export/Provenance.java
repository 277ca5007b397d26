package dev.kevo.export;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.Sanitized;
import java.util.List;

/**
 * Where an exported kernel came from, written beside it as {@code kevo-export.json} and into its README.
 *
 * @param kernel the kernel file's name
 * @param op the operator it implements, which names the package's files, C API and torch op
 * @param source the path it was read from
 * @param sourceHash kevo's identity of the source ({@code sha256:} of its exact bytes)
 * @param exportedBy the kevo version that wrote the package
 * @param exportedAt when (UTC, ISO-8601)
 * @param target {@code cpp} or {@code torch}
 * @param judged what kevo measured for this source, or null for a file that no campaign judged
 * @param note for a file no campaign judged, says so
 * @param size the largest shape the package accepts, and why
 * @param sanitized what compute-sanitizer found in this source (kevo exports only a source it ran clean)
 * @param dtype the dtypes of x and y the package takes ({@code fp32}, {@code bf16}, {@code bf16-fp32}, ...)
 * @param build the cubin the package ships: the one compute-sanitizer ran, judged by kevo
 * @param plans where the package runs each plan, and why it does not run the others
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Provenance(String kernel, String op, String source, String sourceHash, String exportedBy, String exportedAt,
                         String target, Judged judged, String note, Size size, Sanitized sanitized, String dtype,
                         JudgedBuild build, List<PlanEnvelope.Entry> plans) {

    /**
     * How many elements (rows x cols) the package accepts: as many as kevo judged the kernel on, and 2^31-1 where it
     * was judged on fewer (every shape kevo's suites had, before it judged kernels at scale).
     *
     * @param maxElements larger shapes are refused with an error saying so
     * @param judgedElements the most elements of any shape a record says the kernel passed on; null: no record says
     * @param why one line: which record judged it that far, or that none judged it past 2^31-1
     */
    public record Size(long maxElements, Long judgedElements, String why) {

        /** What a record that judged the kernel on up to {@code judged} elements (null: none) lets it accept. */
        public static Size judged(Long judged, String where) {
            if (judged != null && judged > Integer.MAX_VALUE) {
                return new Size(judged, judged, String.format(java.util.Locale.ROOT,
                        "judged at scale: it passed on shapes of up to %d elements (%s)", judged, where));
            }
            return new Size(Integer.MAX_VALUE, judged, "not judged at scale" + (judged == null ? ""
                    : String.format(java.util.Locale.ROOT, " (%s: shapes of up to %d elements)", where, judged))
                    + ", so shapes past 2^31-1 elements are refused; champion confirmation or kevo eval --at-scale "
                    + "judges it there");
        }
    }

    /**
     * The campaign's record of the mutant.
     *
     * @param campaign the campaign folder's name
     * @param campaignPath the folder as given
     * @param mutantId the mutant's id
     * @param campaignKevoVersion the kevo version that ran the campaign
     * @param device the GPU that judged it
     * @param verdict its verdict
     * @param score geometric mean speedup over the baseline on the suite
     * @param floorFraction geometric mean fraction of the memory floor
     * @param suite the suite it was judged on
     * @param baseline what the speedups are relative to
     * @param inputSeed replays the inputs it was checked on
     * @param recordedSourceHash the source hash in the record; differs from the export's when the file was edited
     * @param sourceMatches whether the exported source is the one that was judged
     * @param shapes the measured time per shape
     * @param deterministic whether a repeated launch wrote the same bits on every shape; null where not recorded
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Judged(String campaign, String campaignPath, String mutantId, String campaignKevoVersion,
                         String device, String verdict, Double score, Double floorFraction, String suite,
                         String baseline, long inputSeed, String recordedSourceHash, boolean sourceMatches,
                         List<ShapeTime> shapes, Boolean deterministic) {
        public Judged {
            shapes = shapes == null ? List.of() : List.copyOf(shapes);
        }
    }

    /** One shape's medians as kevo measured them, in microseconds. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ShapeTime(String shape, Integer plan, Double timeUs, Double baselineUs, Double speedup,
                            Double floorFraction) {
    }
}
