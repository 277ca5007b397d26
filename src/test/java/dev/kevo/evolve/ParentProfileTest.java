package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.Precision;
import dev.kevo.data.Profile;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Profiler evidence in a campaign: asked for by the agent, computed once per parent, of its worst shapes. */
class ParentProfileTest {
    private static final List<Shape> SHAPES = List.of(new Shape(4, 100), new Shape(8, 200), new Shape(16, 300));

    /** A profile that names the file and shapes it was asked for, counting the asks per file. */
    static final class Profiling extends CascadeTest.Floors {
        final Map<String, AtomicInteger> asked = new ConcurrentHashMap<>();

        @Override
        public Optional<Profile> profile(KernelFile file, long inputSeed, List<Shape> shapes) {
            asked.computeIfAbsent(file.name(), n -> new AtomicInteger()).incrementAndGet();
            return Optional.of(new Profile(shapes.stream().map(s -> new Profile.Launch(s.toString(), file.name(),
                    50.0, 40.0, 1.0, List.of())).toList(), 0.1, "fake ncu", "0 fake", "now", null));
        }
    }

    /** The campaign's fake agent, asking for a profile of two shapes and keeping what each request carried. */
    static final class Asking extends CampaignTest.FakeAgent {
        final List<ProposalRequest> requests = new CopyOnWriteArrayList<>();

        @Override
        public int profileShapes() {
            return 2;
        }

        @Override
        public Proposal propose(ProposalRequest request) {
            requests.add(request);
            return super.propose(request);
        }
    }

    @Test
    void eachParentIsProfiledOnceOnItsTwoWorstShapesAndEveryRequestCarriesIt(@TempDir Path dir) {
        CampaignConfig config = CampaignTest.config(4).toBuilder().cascade(new CampaignConfig.Cascade(0, 0.1))
                .build().validated();
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        Profiling judge = new Profiling();
        Asking agent = new Asking();
        new Campaign(config, store, judge, new AgentPool(config.agents(), Map.of("fake", agent)),
                CampaignTest.seeds(), new TaskContext(null, "three", SHAPES, Precision.FP32, "b"),
                CampaignListener.NONE, () -> 0L).run();

        assertFalse(agent.requests.isEmpty());
        for (ProposalRequest r : agent.requests) {
            Profile p = r.parentProfile().orElseThrow(() -> new AssertionError("no profile for " + r.parent().id()));
            assertEquals(r.parent().id() + ".cu", p.launches().getFirst().kernel(), "the parent's own profile");
            assertEquals(2, p.launches().size(), "two shapes");
            assertTrue(store.profile(r.parent().id()).isPresent(), "kept beside " + r.parent().id());
        }
        judge.asked.forEach((file, n) -> assertEquals(1, n.get(), file + " profiled once"));
        long parents = agent.requests.stream().map(r -> r.parent().id()).distinct().count();
        assertEquals(parents, judge.asked.size());
        assertTrue(agent.requests.size() > parents, "some parent had several children, and one profile");
    }
}
