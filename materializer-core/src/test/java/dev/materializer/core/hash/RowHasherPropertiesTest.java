package dev.materializer.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;

import org.bson.BsonDocument;
import org.bson.BsonValue;

import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.PropertyDefaults;
import net.jqwik.api.Provide;

// Edge cases of nested generators multiply out of proportion; random samples cover the types.
@PropertyDefaults(edgeCases = EdgeCasesMode.NONE)
class RowHasherPropertiesTest {

    private final RowHasher hasher = new RowHasher();

    @Provide
    Arbitrary<BsonDocument> rows() {
        return BsonSamples.documents(3, 1);
    }

    @Provide
    Arbitrary<BsonDocument> compoundIds() {
        return BsonSamples.documents(2, 2);
    }

    @Provide
    Arbitrary<BsonValue> leaves() {
        return BsonSamples.leaves();
    }

    @Provide
    Arbitrary<String> keys() {
        return BsonSamples.keys();
    }

    @Property
    void shufflingTheKeysOfEveryNestedDocumentKeepsTheHash(@ForAll("rows") BsonDocument row, @ForAll Random random) {
        BsonDocument shuffled = BsonSamples.shuffled(row, random).asDocument();

        assertThat(hasher.hash(shuffled)).isEqualTo(hasher.hash(row));
    }

    @Property
    void aCopyOfARowHasItsHash(@ForAll("rows") BsonDocument row) {
        assertThat(hasher.hash(row.clone())).isEqualTo(hasher.hash(row));
    }

    @Property
    void changingAnyValueOrItsTypeChangesTheHash(@ForAll("rows") BsonDocument row, @ForAll("leaves") BsonValue replacement,
            @ForAll Random random) {
        BsonDocument changed = row.clone();
        List<BsonSamples.Slot> slots = BsonSamples.slots(changed);
        BsonSamples.Slot slot = slots.get(random.nextInt(slots.size()));
        Assume.that(!slot.get().equals(replacement));

        slot.set(replacement);

        assertThat(hasher.hash(changed)).isNotEqualTo(hasher.hash(row));
    }

    @Property
    void addingAKeyAnywhereChangesTheHash(@ForAll("rows") BsonDocument row, @ForAll("keys") String key,
            @ForAll("leaves") BsonValue value, @ForAll Random random) {
        BsonDocument changed = row.clone();
        List<BsonDocument> documents = documentsIn(changed);
        BsonDocument target = documents.get(random.nextInt(documents.size()));
        Assume.that(!target.containsKey(key));

        target.append(key, value);

        assertThat(hasher.hash(changed)).isNotEqualTo(hasher.hash(row));
    }

    @Property
    void renamingAKeyChangesTheHash(@ForAll("rows") BsonDocument row, @ForAll("keys") String newKey, @ForAll Random random) {
        List<String> keys = List.copyOf(row.keySet());
        String oldKey = keys.get(random.nextInt(keys.size()));
        Assume.that(!row.containsKey(newKey));
        BsonDocument renamed = new BsonDocument();
        row.forEach((key, value) -> renamed.append(key.equals(oldKey) ? newKey : key, value));

        assertThat(hasher.hash(renamed)).isNotEqualTo(hasher.hash(row));
    }

    @Property
    void theIdKeyOfAnIdIsTheIdKeyOfItsCopy(@ForAll("rows") BsonDocument id) {
        assertThat(hasher.idKey(id.clone())).isEqualTo(hasher.idKey(id));
    }

    @Property
    void changingAnyValueOrItsTypeChangesTheIdKey(@ForAll("rows") BsonDocument id, @ForAll("leaves") BsonValue replacement,
            @ForAll Random random) {
        BsonDocument changed = id.clone();
        List<BsonSamples.Slot> slots = BsonSamples.slots(changed);
        BsonSamples.Slot slot = slots.get(random.nextInt(slots.size()));
        Assume.that(!slot.get().equals(replacement));

        slot.set(replacement);

        assertThat(hasher.idKey(changed)).isNotEqualTo(hasher.idKey(id));
    }

    @Property
    void theIdKeyOfAnIdDependsOnTheOrderOfItsKeys(@ForAll("compoundIds") BsonDocument id, @ForAll Random random) {
        BsonDocument shuffled = BsonSamples.shuffled(id, random).asDocument();
        Assume.that(!List.copyOf(shuffled.keySet()).equals(List.copyOf(id.keySet())));

        assertThat(hasher.idKey(shuffled)).isNotEqualTo(hasher.idKey(id));
    }

    private static List<BsonDocument> documentsIn(BsonDocument root) {
        List<BsonDocument> documents = new java.util.ArrayList<>();
        documents.add(root);
        for (BsonSamples.Slot slot : BsonSamples.slots(root)) {
            if (slot.get().isDocument()) {
                documents.add(slot.get().asDocument());
            }
        }
        return documents;
    }
}
