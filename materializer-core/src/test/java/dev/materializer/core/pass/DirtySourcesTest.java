package dev.materializer.core.pass;

import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.materializer.core.incremental.AffectedKeys;
import dev.materializer.core.incremental.GroupKey;
import dev.materializer.core.incremental.PassPlanner;
import dev.materializer.core.incremental.ShapeAnalysis;
import dev.materializer.core.incremental.ViewShape;
import dev.materializer.core.routing.SourceChange;
import org.bson.BsonDocument;
import org.bson.BsonString;
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
    void aTakeOverRunByKeysCarriesPerViewTheTimeItsKeysAccountForThroughCopiesAndMerges() {
        DirtySources handedOver = new DirtySources();
        handedOver.addHandover();
        AffectedKeys fig = AffectedKeys.ofKeys(Set.of(GroupKey.of(new BsonString("fig"))));

        DirtySources marks = handedOver.withoutHandover(Map.of("summary", List.of("orders")),
                Map.of("revenue", Map.of("orders", fig)), Map.of("revenue", Map.of("orders", new BsonTimestamp(12, 1))));

        assertThat(marks.handover()).isFalse();
        assertThat(marks.takenOverUpTo("revenue")).containsExactly(Map.entry("orders", new BsonTimestamp(12, 1)));
        assertThat(marks.takenOverUpTo("summary")).as("a view run whole with no time given names none").isEmpty();
        assertThat(marks.newestTakenOver()).isEqualTo(new BsonTimestamp(12, 1));
        assertThat(marks.clusterTime()).as("no event's time: the pass reads as it would").isNull();
        DirtySources later = new DirtySources();
        later.addAll(marks);
        later.addAll(new DirtySources().withoutHandover(Map.of(), Map.of("revenue", Map.of("orders", fig)),
                Map.of("revenue", Map.of("orders", new BsonTimestamp(11, 1)))));
        assertThat(later.copy().takenOverUpTo("revenue")).as("the newest, with the keys it came with")
            .containsExactly(Map.entry("orders", new BsonTimestamp(12, 1)));
        assertThat(later.copy().affects("revenue", List.of("orders"))).isTrue();
    }

    @Test
    void aViewMarkedOnlyByReplayedEventsMayBeLetGoAndAnyOtherMarkMakesItRun() {
        AffectedKeys whole = AffectedKeys.fullPass("test");
        DirtySources marks = new DirtySources();
        marks.addReplayed("orders", Map.of("revenue", whole, "count", whole), new BsonTimestamp(100, 1));
        marks.addReplayed("orders", Map.of("revenue", whole), new BsonTimestamp(100, 3));
        marks.add("orders", Map.of("count", whole));
        DirtySources merged = new DirtySources();
        merged.addAll(marks);

        assertThat(merged.hasReplayed()).isTrue();
        assertThat(merged.replayedOnly("revenue", List.of("orders"))).containsExactly(
                Map.entry("orders", new BsonTimestamp(100, 3)));
        assertThat(merged.replayedOnly("count", List.of("orders"))).as("a change heard live too").isNull();
        DirtySources rest = merged.without(java.util.Set.of("revenue"));
        assertThat(rest.affects("revenue", List.of("orders"))).isFalse();
        assertThat(rest.affects("count", List.of("orders"))).isTrue();
        assertThat(merged.affects("revenue", List.of("orders"))).as("the original keeps its marks").isTrue();

        DirtySources caughtUp = merged.copy();
        caughtUp.addAll("orders");
        assertThat(caughtUp.replayedOnly("revenue", List.of("orders"))).as("every view reading orders").isNull();
        DirtySources handover = merged.copy();
        handover.addHandover();
        assertThat(handover.replayedOnly("revenue", List.of("orders"))).isNull();
        DirtySources retry = new DirtySources();
        retry.addAll(merged.without(java.util.Set.of("revenue")));
        retry.add("orders", List.of("revenue"));
        assertThat(retry.replayedOnly("revenue", List.of("orders"))).as("a retry").isNull();
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

    // ---- the keys of lookup changes: bounded, merged in linear time

    private static final ViewShape JOINED = ShapeAnalysis.analyze(List.of(
            BsonDocument.parse("{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}}"),
            BsonDocument.parse("{$group: {_id: '$customer', cats: {$addToSet: '$p.category'}}}")), "orders");

    private static final List<String> SOURCES = List.of("orders", "products");

    /** What one insert of a product marks: a key query for the orders of its sku. */
    private static AffectedKeys productInserted(String sku) {
        BsonDocument product = new BsonDocument("_id", new BsonString("id-" + sku)).append("sku", new BsonString(sku));
        return AffectedKeys.of(JOINED, "products",
                new SourceChange(SourceChange.Operation.INSERT, product, null, product.get("_id"), null, null, null));
    }

    /** Marks the partition as the scheduler does: a one-change set merged into the partition's. */
    private static void mark(DirtySources partition, AffectedKeys keys) {
        DirtySources one = new DirtySources();
        one.add("products", Map.of("view", keys));
        partition.addAll(one);
    }

    /** The values the key queries look for, all queries together. */
    private static int valuesLookedFor(AffectedKeys keys) {
        return keys.keyQueries().stream().mapToInt(query -> query.getDocument("product").getArray("$in").size()).sum();
    }

    @Test
    void theMarksOfLookupChangesKeepAtMostTheCapAndPastItAreAWholePassThatKeepsNothing() {
        DirtySources partition = new DirtySources();
        for (int i = 0; i < PassPlanner.MAX_KEYS; i++) {
            mark(partition, productInserted("p" + i));
        }
        assertThat(partition.keysOf("view", SOURCES).needsFullPass()).isFalse();
        assertThat(valuesLookedFor(partition.keysOf("view", SOURCES))).isEqualTo(PassPlanner.MAX_KEYS);

        mark(partition, productInserted("one more"));
        AffectedKeys past = partition.keysOf("view", SOURCES);
        assertThat(past.fullPassReason()).isEqualTo(PassPlanner.TOO_MANY_KEYS);
        assertThat(past.keyQueries()).as("nothing kept").isEmpty();

        long copied = partition.elementsCopied();
        for (int i = 0; i < 100; i++) {
            mark(partition, productInserted("later" + i));
        }
        assertThat(partition.elementsCopied()).as("a whole pass takes nothing more").isEqualTo(copied);
        assertThat(partition.keysOf("view", SOURCES).fullPassReason()).isEqualTo(PassPlanner.TOO_MANY_KEYS);
    }

    @Test
    void mergingMarksCopiesWhatEachMarkHoldsNotWhatIsKept() {
        DirtySources partition = new DirtySources();
        int marks = PassPlanner.MAX_KEYS;
        for (int i = 0; i < marks; i++) {
            mark(partition, productInserted("p" + i));
        }

        // Each mark holds one value: linear is at most a few copies per mark, where rebuilding is marks² / 2
        assertThat(partition.elementsCopied()).isLessThanOrEqualTo(2L * marks);
        DirtySources copy = partition.copy();
        assertThat(copy.elementsCopied()).as("a copy copies each once").isLessThanOrEqualTo(2L * marks);
        assertThat(valuesLookedFor(copy.keysOf("view", SOURCES))).isEqualTo(marks);
    }
}
