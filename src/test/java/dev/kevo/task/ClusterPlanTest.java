package dev.kevo.task;

import dev.kevo.data.Shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The contract's thread-block clusters: how a launch names one, and the rules a plan must keep for every shape. */
class ClusterPlanTest {

    private static KernelFile launch(String fields) {
        return ContractParser.parse("cluster.cu", null, "/*@kevo\n{ \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", "
                + fields + ", \"args\": [\"x\", \"y\", \"rows\", \"cols\"] } ] } ] }\n*/\n");
    }

    private static String rejection(KernelFile file, Shape shape) {
        return assertThrows(PlanException.class, () -> PlanResolver.resolve(file, shape, 132)).getMessage();
    }

    @Test
    void aClusterIsAnExpressionOverTheShape() {
        KernelFile file = launch("\"grid\": \"rows * cdiv(cols, 32768)\", \"block\": 512, \"cluster\": \"cdiv(cols, 32768)\"");
        ResolvedPlan.Launch wide = PlanResolver.resolve(file, new Shape(2048, 128256), 132).launches().getFirst();
        assertEquals(4, wide.cluster());
        assertEquals(2048 * 4, wide.grid());
        assertEquals(1, PlanResolver.resolve(file, new Shape(4096, 32000), 132).launches().getFirst().cluster());
    }

    @Test
    void aLaunchWithoutClusterIsAClusterOfOne() {
        KernelFile file = launch("\"grid\": \"rows\", \"block\": 256");
        assertEquals(1, PlanResolver.resolve(file, new Shape(7, 100), 132).launches().getFirst().cluster());
    }

    @Test
    void theGridMustBeAMultipleOfTheCluster() {
        KernelFile file = launch("\"grid\": \"rows\", \"block\": 256, \"cluster\": 4");
        PlanResolver.resolve(file, new Shape(8, 100), 132);
        String message = rejection(file, new Shape(6, 100));
        assertTrue(message.contains("grid 6 is not a multiple of cluster 4"), message);
        assertTrue(message.contains("plan 1 launch 1 (k)"), message);
    }

    @Test
    void clustersStopAtSixteenBlocks() {
        KernelFile file = launch("\"grid\": \"rows * cdiv(cols, 1000)\", \"block\": 256, \"cluster\": \"cdiv(cols, 1000)\"");
        assertEquals(16, PlanResolver.resolve(file, new Shape(2, 16000), 132).launches().getFirst().cluster());
        String message = rejection(file, new Shape(2, 17000));
        assertTrue(message.contains("'cluster'") && message.contains("= 17") && message.contains("[1, 16]"), message);
        assertTrue(rejection(launch("\"grid\": 4, \"block\": 32, \"cluster\": 0"), new Shape(1, 1)).contains("[1, 16]"));
    }

    @Test
    void aLaunchIsCooperativeOrClusteredNotBoth() {
        KernelFile file = launch("\"grid\": 8, \"block\": 256, \"cooperative\": true, \"cluster\": \"rows\"");
        assertEquals(1, PlanResolver.resolve(file, new Shape(1, 10), 132).launches().getFirst().cluster());
        assertTrue(rejection(file, new Shape(2, 10)).contains("cooperative or clustered, not both"));
    }

    @Test
    void aBadClusterExpressionNamesItsLine() {
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.parse("c.cu", null,
                "/*@kevo\n{ \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", \"grid\": 4, \"block\": 32,\n"
                        + "  \"cluster\": \"clustr\", \"args\": [] } ] } ] }\n*/\n"));
        assertTrue(e.getMessage().startsWith("c.cu:3:") && e.getMessage().contains("'cluster'")
                && e.getMessage().contains("clustr"), e.getMessage());
    }
}
