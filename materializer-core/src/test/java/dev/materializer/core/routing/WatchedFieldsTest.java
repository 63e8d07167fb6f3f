package dev.materializer.core.routing;

import static dev.materializer.core.routing.Changes.PARTITION_FIELD;
import static dev.materializer.core.routing.Changes.delete;
import static dev.materializer.core.routing.Changes.id;
import static dev.materializer.core.routing.Changes.inPartition;
import static dev.materializer.core.routing.Changes.insert;
import static dev.materializer.core.routing.Changes.removed;
import static dev.materializer.core.routing.Changes.replace;
import static dev.materializer.core.routing.Changes.truncated;
import static dev.materializer.core.routing.Changes.update;
import static dev.materializer.core.routing.Changes.updated;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;

class WatchedFieldsTest {

    private final WatchedFields watched = WatchedFields.of(List.of("status", "customer.name", "lines.price"), PARTITION_FIELD);

    private static SourceChange updateOf(UpdatedFields fields) {
        return update(inPartition("a"), null, id("x"), fields);
    }

    private boolean touches(String... keys) {
        return watched.mayBeTouchedBy(updateOf(updated(keys)));
    }

    @Test
    void anUpdateOfAnotherFieldTouchesNothing() {
        assertThat(touches("notes")).isFalse();
    }

    @Test
    void anUpdateOfAWatchedFieldTouchesIt() {
        assertThat(touches("status")).isTrue();
        assertThat(touches("customer.name")).isTrue();
    }

    @Test
    void oneTouchingKeyAmongOthersIsEnough() {
        assertThat(touches("notes", "tags", "status")).isTrue();
    }

    @Test
    void anUpdateOfAParentOfAWatchedFieldTouchesIt() {
        assertThat(touches("customer")).isTrue();
    }

    @Test
    void anUpdateOfAChildOfAWatchedFieldTouchesIt() {
        assertThat(touches("status.code")).isTrue();
        assertThat(touches("customer.name.first")).isTrue();
    }

    @Test
    void aSiblingOfAWatchedFieldTouchesNothing() {
        assertThat(touches("customer.address")).isFalse();
    }

    @Test
    void aFieldThatOnlyStartsLikeAWatchedFieldTouchesNothing() {
        assertThat(touches("statusText")).isFalse();
        assertThat(touches("customer.names")).isFalse();
        assertThat(touches("cust")).isFalse();
    }

    @Test
    void arrayPositionsInTheKeyDoNotCount() {
        assertThat(touches("lines.0.price")).isTrue();
        assertThat(touches("lines.12.price")).isTrue();
        assertThat(touches("lines.3")).isTrue();
        assertThat(touches("lines.0.quantity")).isFalse();
    }

    @Test
    void arrayPositionsInAWatchedPathDoNotCount() {
        WatchedFields firstLine = WatchedFields.of(List.of("lines.0.price"), PARTITION_FIELD);

        assertThat(firstLine.mayBeTouchedBy(updateOf(updated("lines.4.price")))).isTrue();
        assertThat(firstLine.mayBeTouchedBy(updateOf(updated("lines.4.quantity")))).isFalse();
    }

    @Test
    void aSegmentWithLettersAndDigitsIsAFieldNotAPosition() {
        assertThat(touches("lines.0a.price")).isFalse();
    }

    @Test
    void theRemovalOfAWatchedFieldTouchesIt() {
        assertThat(watched.mayBeTouchedBy(updateOf(removed("status")))).isTrue();
        assertThat(watched.mayBeTouchedBy(updateOf(removed("customer")))).isTrue();
        assertThat(watched.mayBeTouchedBy(updateOf(removed("notes")))).isFalse();
    }

    @Test
    void theTruncationOfAWatchedArrayTouchesIt() {
        assertThat(watched.mayBeTouchedBy(updateOf(truncated("lines")))).isTrue();
        assertThat(watched.mayBeTouchedBy(updateOf(truncated("tags")))).isFalse();
    }

    @Test
    void thePartitionFieldIsAlwaysWatched() {
        assertThat(touches(PARTITION_FIELD)).isTrue();
        assertThat(watched.mayBeTouchedBy(updateOf(removed(PARTITION_FIELD)))).isTrue();
    }

    @Test
    void anUpdateWithoutAnUpdateDescriptionMayTouchAnything() {
        assertThat(watched.mayBeTouchedBy(update(inPartition("a"), null, id("x"), null))).isTrue();
    }

    @Test
    void anUpdateDescriptionThatNamesNothingTouchesNothing() {
        assertThat(touches()).isFalse();
    }

    @Test
    void noWatchedFieldsMeansEveryField() {
        WatchedFields everything = WatchedFields.of(List.of(), PARTITION_FIELD);

        assertThat(everything.mayBeTouchedBy(updateOf(updated("notes")))).isTrue();
        assertThat(everything.mayBeTouchedBy(updateOf(updated()))).isTrue();
    }

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = "UPDATE", mode = EnumSource.Mode.EXCLUDE)
    void everyChangeButAnUpdateMayTouchAnything(Operation operation) {
        SourceChange change = new SourceChange(operation, inPartition("a"), null, id("x"), updated("notes"), null, null);

        assertThat(watched.mayBeTouchedBy(change)).isTrue();
    }

    @Test
    void insertsReplacesAndDeletesMayTouchAnything() {
        assertThat(watched.mayBeTouchedBy(insert(inPartition("a")))).isTrue();
        assertThat(watched.mayBeTouchedBy(replace(inPartition("a"), null, id("x")))).isTrue();
        assertThat(watched.mayBeTouchedBy(delete(null, id("x")))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " "})
    void aBlankWatchedPathIsRefused(String blank) {
        assertThatThrownBy(() -> WatchedFields.of(Arrays.asList("status", blank), PARTITION_FIELD))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("sourceFields[1]");
    }

    @Test
    void aBlankPartitionFieldIsRefused() {
        assertThatThrownBy(() -> WatchedFields.of(List.of("status"), ""))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("partitionField");
    }
}
