package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The internal switch bench/check_costs.sh uses to measure what each safeguard of the timing phase costs. */
class AblationTest {

    @Test
    void nothingIsSwitchedOffUnlessNamed() {
        assertFalse(Ablation.parse(null).any());
        assertFalse(Ablation.parse(" ").any());
        assertEquals(Ablation.NONE, Ablation.parse(""));
    }

    @Test
    void eachNameSwitchesOffItsOwnSafeguardOnly() {
        assertEquals(new Ablation(true, false, false, false, false, false, false, false), Ablation.parse("perturb"));
        assertEquals(new Ablation(false, true, false, false, false, false, false, false), Ablation.parse("poison"));
        assertEquals(new Ablation(false, false, true, false, false, false, false, false), Ablation.parse("demote"));
        assertEquals(new Ablation(false, false, false, true, false, false, false, false), Ablation.parse("checks"));
        assertEquals(new Ablation(false, false, false, false, true, false, false, false), Ablation.parse("PinnedFlush"));
        assertEquals(new Ablation(false, false, false, false, false, true, false, false), Ablation.parse("persistreset"));
        assertEquals(new Ablation(false, false, false, false, false, false, true, false), Ablation.parse("deadlines"));
        assertEquals(new Ablation(false, false, false, false, false, false, false, true), Ablation.parse("overlap"));
        assertEquals(new Ablation(true, false, true, false, false, false, false, false), Ablation.parse("demote, perturb"));
    }

    @Test
    void allSwitchesOffEveryOneAndPrintsBackAsTheList() {
        Ablation all = Ablation.parse("all");
        assertEquals(new Ablation(true, true, true, true, true, true, true, true), all);
        assertEquals("perturb,poison,demote,checks,pinnedflush,persistreset,deadlines,overlap", all.toString());
        assertEquals(all, Ablation.parse(all.toString()));
    }

    @Test
    void anUnknownNameIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ablation.parse("poison,flush"));
        assertTrue(e.getMessage().contains("'flush'"), e.getMessage());
    }
}
