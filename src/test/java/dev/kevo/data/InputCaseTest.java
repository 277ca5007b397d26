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
}
