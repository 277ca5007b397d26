package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.Ablation.Switch;
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
        assertEquals(Ablation.of(Switch.PERTURB), Ablation.parse("perturb"));
        assertEquals(Ablation.of(Switch.POISON), Ablation.parse("poison"));
        assertEquals(Ablation.of(Switch.DEMOTE), Ablation.parse("demote"));
        assertEquals(Ablation.of(Switch.CHECKS), Ablation.parse("checks"));
        assertEquals(Ablation.of(Switch.PINNED_FLUSH), Ablation.parse("PinnedFlush"));
        assertEquals(Ablation.of(Switch.PERSIST_RESET), Ablation.parse("persistreset"));
        assertEquals(Ablation.of(Switch.DEADLINES), Ablation.parse("deadlines"));
        assertEquals(Ablation.of(Switch.OVERLAP), Ablation.parse("overlap"));
        assertEquals(Ablation.of(Switch.PERTURB, Switch.DEMOTE), Ablation.parse("demote, perturb"));
    }

    @Test
    void allSwitchesOffEveryOneAndPrintsBackAsTheList() {
        Ablation all = Ablation.parse("all");
        assertEquals(Ablation.of(Switch.values()), all);
        assertEquals("perturb,poison,demote,checks,pinnedflush,persistreset,deadlines,repeat,overlap", all.toString());
        assertEquals(all, Ablation.parse(all.toString()));
    }

    @Test
    void anUnknownNameIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Ablation.parse("poison,flush"));
        assertTrue(e.getMessage().contains("'flush'"), e.getMessage());
    }
}
