package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class InputCaseTest {

    @Test
    void byIdFindsEveryCase() {
        for (InputCase c : InputCase.values()) {
            assertEquals(c, InputCase.byId(c.id()));
            assertEquals(c, InputCase.byId("  " + c.id().toUpperCase() + " "));
        }
    }

    @Test
    void unknownIdListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> InputCase.byId("gaussian"));
        String known = String.join(", ", Arrays.stream(InputCase.values()).map(InputCase::id).toList());
        assertEquals("unknown input case 'gaussian' (known: " + known + ")", e.getMessage());
        assertTrue(known.contains("masked") && known.contains("uniform-500-1000"), known);
    }

    @Test
    void idsAreDistinct() {
        assertEquals(InputCase.values().length, Arrays.stream(InputCase.values()).map(InputCase::id).distinct().count());
    }

    @Test
    void everyCaseHasAGeneratorCaseInTrustedCu() {
        // kv_value in trusted.cu switches on the ordinal: one 'case N:' per InputCase, no more, no less
        String trusted = dev.kevo.cuda.Prelude.resource(InputCase.class, "/dev/kevo/eval/trusted.cu");
        String body = trusted.substring(trusted.indexOf("kv_value("), trusted.indexOf("default:", trusted.indexOf("kv_value(")));
        java.util.List<Integer> cases = java.util.regex.Pattern.compile("case (\\d+):").matcher(body).results()
                .map(m -> Integer.parseInt(m.group(1))).toList();
        assertEquals(java.util.stream.IntStream.range(0, InputCase.values().length).boxed().toList(), cases);
    }
}
