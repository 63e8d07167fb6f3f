package dev.materializer.core.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.bson.BsonDocument;
import org.bson.BsonValue;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import org.junit.jupiter.api.Test;

/**
 * Properties of {@link RowHasher} over random rows of every BSON type, nested three deep. The hash
 * compares as MongoDB compares documents: the order of keys counts at every depth, as it always did
 * for id keys. Where a
 * case must differ from its row, the generator draws again until it does, so every case checks.
 */
class RowHasherPropertiesTest {

    private static final int CASES = 1000;

    private final RowHasher hasher = new RowHasher();

    @Test
    void reorderingTheKeysOfAnyDocumentAtAnyDepthChangesTheHash() {
        // MongoDB keeps {x: 1, y: 2} and {y: 2, x: 1} apart (equality, $group keys, unique indexes): so does the hash.
        Seeds.check(CASES, gen -> {
            BsonDocument row = gen.until(() -> row(gen), candidate -> !reorderable(candidate).isEmpty());
            BsonDocument changed = row.clone();
            BsonDocument target = gen.oneOf(reorderable(changed));
            List<String> keys = List.copyOf(target.keySet());
            List<String> order = gen.until(() -> gen.shuffle(new ArrayList<>(keys)), candidate -> !candidate.equals(keys));
            BsonDocument entries = target.clone();
            target.clear();
            order.forEach(key -> target.append(key, entries.get(key)));

            assertThat(hasher.hash(changed)).as("hash of %s reordered to %s", row, changed)
                .isNotEqualTo(hasher.hash(row));
        });
    }

    @Test
    void aShuffledRowKeepsItsHashExactlyWhenEveryDocumentKeptTheOrderOfItsKeys() {
        Seeds.check(CASES, gen -> {
            BsonDocument row = row(gen);
            BsonDocument shuffled = BsonSamples.shuffled(row, gen).asDocument();
            // The JSON lists every key in its order: equal text, equal order everywhere.
            boolean sameOrder = shuffled.toJson().equals(row.toJson());

            assertThat(hasher.hash(shuffled).equals(hasher.hash(row))).as("hash of %s shuffled to %s", row, shuffled)
                .isEqualTo(sameOrder);
        });
    }

    @Test
    void aCopyOfARowHasItsHash() {
        Seeds.check(CASES, gen -> {
            BsonDocument row = row(gen);

            assertThat(hasher.hash(row.clone())).as("hash of a copy of %s", row).isEqualTo(hasher.hash(row));
        });
    }

    @Test
    void changingAnyValueOrItsTypeChangesTheHash() {
        Seeds.check(CASES, gen -> {
            BsonDocument row = row(gen);
            BsonDocument changed = row.clone();

            replaceAnyValue(changed, gen);

            assertThat(hasher.hash(changed)).as("hash of %s changed to %s", row, changed)
                .isNotEqualTo(hasher.hash(row));
        });
    }

    @Test
    void addingAKeyAnywhereChangesTheHash() {
        Seeds.check(CASES, gen -> {
            BsonDocument row = row(gen);
            BsonDocument changed = row.clone();
            BsonDocument target = gen.oneOf(documentsIn(changed));
            String key = gen.until(() -> BsonSamples.key(gen), candidate -> !target.containsKey(candidate));

            target.append(key, BsonSamples.leaf(gen));

            assertThat(hasher.hash(changed)).as("hash of %s grown to %s", row, changed).isNotEqualTo(hasher.hash(row));
        });
    }

    @Test
    void renamingAKeyChangesTheHash() {
        Seeds.check(CASES, gen -> {
            BsonDocument row = row(gen);
            String oldKey = gen.oneOf(List.copyOf(row.keySet()));
            String newKey = gen.until(() -> BsonSamples.key(gen), candidate -> !row.containsKey(candidate));
            BsonDocument renamed = new BsonDocument();
            row.forEach((key, value) -> renamed.append(key.equals(oldKey) ? newKey : key, value));

            assertThat(hasher.hash(renamed)).as("hash of %s renamed to %s", row, renamed)
                .isNotEqualTo(hasher.hash(row));
        });
    }

    @Test
    void theIdKeyOfAnIdIsTheIdKeyOfItsCopy() {
        Seeds.check(CASES, gen -> {
            BsonDocument id = row(gen);

            assertThat(hasher.idKey(id.clone())).as("id key of a copy of %s", id).isEqualTo(hasher.idKey(id));
        });
    }

    @Test
    void changingAnyValueOrItsTypeChangesTheIdKey() {
        Seeds.check(CASES, gen -> {
            BsonDocument id = row(gen);
            BsonDocument changed = id.clone();

            replaceAnyValue(changed, gen);

            assertThat(hasher.idKey(changed)).as("id key of %s changed to %s", id, changed)
                .isNotEqualTo(hasher.idKey(id));
        });
    }

    @Test
    void theIdKeyOfAnIdDependsOnTheOrderOfItsKeys() {
        Seeds.check(CASES, gen -> {
            // Two entries may share a key, so draw until the id has two keys to reorder.
            BsonDocument id = gen.until(() -> BsonSamples.document(gen, 2, 2), candidate -> candidate.size() >= 2);
            BsonDocument shuffled = gen.until(() -> BsonSamples.shuffled(id, gen).asDocument(),
                candidate -> !List.copyOf(candidate.keySet()).equals(List.copyOf(id.keySet())));

            assertThat(hasher.idKey(shuffled)).as("id key of %s reordered to %s", id, shuffled)
                .isNotEqualTo(hasher.idKey(id));
        });
    }

    /** A row of at least one key, nested three deep. */
    private static BsonDocument row(Gen gen) {
        return BsonSamples.document(gen, 3, 1);
    }

    /** Replaces the value in one place, at any depth, by a different leaf. */
    private static void replaceAnyValue(BsonDocument root, Gen gen) {
        BsonSamples.Slot slot = gen.oneOf(BsonSamples.slots(root));
        BsonValue replacement = gen.until(() -> BsonSamples.leaf(gen), candidate -> !candidate.equals(slot.get()));
        slot.set(replacement);
    }

    /** The documents of a row, at any depth, with keys to reorder. */
    private static List<BsonDocument> reorderable(BsonDocument root) {
        return documentsIn(root).stream().filter(document -> document.size() >= 2).toList();
    }

    private static List<BsonDocument> documentsIn(BsonDocument root) {
        List<BsonDocument> documents = new ArrayList<>();
        documents.add(root);
        for (BsonSamples.Slot slot : BsonSamples.slots(root)) {
            if (slot.get().isDocument()) {
                documents.add(slot.get().asDocument());
            }
        }
        return documents;
    }
}
