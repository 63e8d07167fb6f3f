package dev.materializer.core.pass;

import java.util.List;

import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DirtySourcesTest {

    @Test
    void theNewestClusterTimeOfTheMarksIsKeptThroughMerges() {
        DirtySources first = new DirtySources();
        first.add("orders", List.of("revenue"));
        first.noteClusterTime(new BsonTimestamp(100, 2));
        first.noteClusterTime(new BsonTimestamp(100, 1));
        DirtySources second = new DirtySources();
        second.noteClusterTime(new BsonTimestamp(101, 0));
        second.addAll("customers");

        DirtySources merged = new DirtySources();
        merged.addAll(first);
        assertThat(merged.clusterTime()).isEqualTo(new BsonTimestamp(100, 2));
        merged.addAll(second);
        assertThat(merged.clusterTime()).isEqualTo(new BsonTimestamp(101, 0));
        assertThat(merged.copy().clusterTime()).isEqualTo(new BsonTimestamp(101, 0));
    }

    @Test
    void aCopyChangesApartFromItsOriginal() {
        DirtySources original = new DirtySources();
        original.add("orders", List.of("revenue"));
        DirtySources copy = original.copy();
        copy.addAll("revenue_target");

        assertThat(original.contains("revenue_target")).isFalse();
        assertThat(copy.contains("revenue_target")).isTrue();
    }
}
