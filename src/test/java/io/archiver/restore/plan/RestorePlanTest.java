package io.archiver.restore.plan;

import io.archiver.restore.plan.RestorePlan.PlannedFile;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RestorePlanTest {

    @Test
    void filesWhoseOffsetsOverlapAreOneReadUnitAndTheOthersEachTheirOwn() {
        PlannedFile a = file("a", 0, 99);
        PlannedFile repairedInsideA = file("r", 40, 49);
        PlannedFile b = file("b", 100, 199);
        PlannedFile copyOfB = file("b-copy", 100, 199);
        PlannedFile c = file("c", 250, 300);
        // sorted by first offset, as the plan keeps them
        List<List<PlannedFile>> units = RestorePlan.readUnits(List.of(a, repairedInsideA, b, copyOfB, c));
        assertThat(units).containsExactly(List.of(a, repairedInsideA), List.of(b, copyOfB), List.of(c));
    }

    private static PlannedFile file(String name, long first, long last) {
        return new PlannedFile(name, first, last, last - first + 1, 1);
    }
}
