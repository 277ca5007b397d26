package dev.kevo.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.cuda.CudnnLocator;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.NsightCompute;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bundle's README is all a GPU engineer has on a host without the checkout: it lists everything the host needs,
 * the optional tools included, each with the variable that names it and what its absence costs. It once left out
 * compute-sanitizer, without which a campaign stopped at its start.
 */
class BundleReadmeTest {

    @Test
    void everyToolKevoLooksForIsListedWithWhatItsAbsenceCosts() throws IOException {
        String readme = Files.readString(TestFiles.root().resolve("src/main/dist/README.md"));
        String needs = readme.substring(readme.indexOf("## What the host needs"), readme.indexOf("## First steps"));
        List<String> rows = needs.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| ---")).skip(1).toList();
        for (String[] tool : new String[][] {{"GPU", "driver"}, {"NVRTC", "KEVO_NVRTC"},
                {"cuDNN", CudnnLocator.ENV}, {"compute-sanitizer", ComputeSanitizer.VARIABLE},
                {"Nsight Compute", NsightCompute.VARIABLE}, {"cache", "KEVO_CACHE"}}) {
            String row = rows.stream().filter(r -> r.contains(tool[0])).findFirst()
                    .orElseThrow(() -> new AssertionError("no row for " + tool[0] + " in: " + needs));
            String[] cells = row.split(" \\| ");
            assertEquals(3, cells.length, row);
            assertTrue(cells[2].length() > 20, tool[0] + ": what its absence costs, in words: " + row);
            assertTrue(needs.contains(tool[1]), tool[0] + ": " + tool[1] + " is named");
        }
    }
}
