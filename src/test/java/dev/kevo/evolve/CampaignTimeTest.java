package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.store.CampaignStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A campaign's wall time is the time that passed, the seeds' included once. */
class CampaignTimeTest {

    @Test
    void theSeedsTimeCountsOnce(@TempDir Path dir) {
        AtomicLong clock = new AtomicLong(5_000_000);
        CampaignTest.FakeGpu scores = new CampaignTest.FakeGpu(Integer.MAX_VALUE);
        Judge minuteEach = (file, seed) -> {
            clock.addAndGet(60_000);
            return scores.evaluate(file, seed);
        };
        CampaignConfig config = CampaignTest.config(2);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        CampaignState state = new Campaign(config, store, minuteEach, new AgentPool(config.agents(),
                Map.of("fake", new CampaignTest.FakeAgent())), CampaignTest.seeds(), null, CampaignListener.NONE,
                clock::get).run();
        assertEquals(scores.calls.get() * 60_000L, state.elapsedMillis(), "one minute per evaluation, no more");
    }
}
