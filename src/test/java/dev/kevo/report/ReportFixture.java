package dev.kevo.report;

import dev.kevo.TestFiles;
import java.nio.file.Path;

/**
 * The recorded campaign folder the report tests read: the sample campaign shipped in mutations/ for newcomers
 * (mutations/default-h100.md says what it holds). Tests that write copy it first.
 */
final class ReportFixture {
    static final String CHAMPION = "g0018-i3-c2";

    private ReportFixture() {
    }

    static Path folder() {
        return TestFiles.root().resolve("mutations/default-h100");
    }

    /** A writable copy, for tests that write into the folder or change it. */
    static Path copy(Path into) {
        return TestFiles.sampleCampaignCopy(into);
    }
}
