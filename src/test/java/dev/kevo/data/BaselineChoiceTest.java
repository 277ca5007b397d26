package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.TestFiles;
import dev.kevo.store.CampaignStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a baseline is named and recorded, and that folders from before cuDNN baselines still read. */
class BaselineChoiceTest {

    @Test
    void namesForPeople() {
        BaselineChoice cudnn = BaselineChoice.cudnn("9.14.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9", "auto: x");
        assertEquals("cuDNN 9.14.0", cudnn.label());
        assertEquals("cudnn 9.14.0 (auto: x)", cudnn.describe());
        BaselineChoice file = BaselineChoice.file("block_two_pass.cu", null);
        assertEquals("block_two_pass", file.label());
        assertEquals("block_two_pass", file.describe());
        assertFalse(file.isCudnn());
        assertEquals("mine", BaselineChoice.labelOf("mine"));
    }

    /** The record's JSON carries its fields only: helper methods must not become properties (stored data). */
    @Test
    void jsonRoundTripKeepsTheChoiceAndNothingElse() throws Exception {
        ObjectMapper json = new ObjectMapper();
        BaselineChoice c = BaselineChoice.cudnn("9.14.0", "/lib/libcudnn.so.9", "auto: y");
        String text = json.writeValueAsString(c);
        assertFalse(text.contains("label") || text.contains("describe") || text.contains("cudnn\":"), text);
        assertEquals(c, json.readValue(text, BaselineChoice.class));
    }

    /** The recorded default campaign predates cuDNN baselines: its baseline is its kernel file, by the same name. */
    @Test
    void anOldCampaignReadsWithItsKernelFileBaseline() {
        FrozenCampaign frozen = CampaignStore.open(TestFiles.root().resolve("mutations/default-h100")).frozen();
        assertEquals(null, frozen.baselineChoice());
        assertEquals(BaselineChoice.file("block_two_pass.cu", null), frozen.baseline());
        assertEquals("block_two_pass", frozen.baseline().label());
    }

    @Test
    void aCudnnCampaignRecordsItsVersionAndLibrary(@TempDir Path dir) {
        BaselineChoice c = BaselineChoice.cudnn("9.14.0", "/usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                "auto: libcudnn.so.9 loaded from /usr/lib/x86_64-linux-gnu");
        FrozenCampaign frozen = FrozenCampaign.of("test", "now", CampaignConfig.defaults(), EvalSettings.defaults(),
                "standard", List.of("32x128"), c);
        CampaignStore.create(dir.resolve("c"), frozen, "// built in\n");
        FrozenCampaign back = CampaignStore.open(dir.resolve("c")).frozen();
        assertEquals(c, back.baseline());
        assertEquals("cudnn", back.baselineName());
        assertEquals("auto", back.settings().baseline(), "the setting as asked stays beside the choice as resolved");
    }
}
