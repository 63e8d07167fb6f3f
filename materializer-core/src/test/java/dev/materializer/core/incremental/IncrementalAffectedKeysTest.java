package dev.materializer.core.incremental;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.routing.SourceChange.Operation;
import dev.materializer.core.routing.SourceChange.UpdatedFields;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link AffectedKeys}: the keys a change affects, for every operation and every image it may come with. */
class IncrementalAffectedKeysTest {

    private static final ViewShape BY_CUSTOMER = IncrementalShapeAnalysisTest.shape(
            "[{$group: {_id: '$customer', n: {$sum: 1}}}]");

    private static final ViewShape BY_CUSTOMER_AND_REGION = IncrementalShapeAnalysisTest.shape(
            "[{$group: {_id: {c: '$customer', r: '$address.region'}, n: {$sum: 1}}}]");

    private static final ViewShape PER_DOCUMENT = IncrementalShapeAnalysisTest.shape("[{$project: {qty: 1}}]");

    private static final ViewShape BY_SKU = IncrementalShapeAnalysisTest.shape("[{$project: {_id: '$sku', qty: 1}}]");

    private static final ViewShape JOINED = IncrementalShapeAnalysisTest.shape("""
            [{$lookup: {from: 'products', localField: 'product', foreignField: 'sku', as: 'p'}},
             {$lookup: {from: 'customers', localField: 'customer', foreignField: '_id', as: 'c'}},
             {$group: {_id: '$customer', cats: {$addToSet: '$p.category'}}}]""");

    private static final BsonString ID = new BsonString("o1");

    private static BsonDocument doc(String json) {
        return BsonDocument.parse(json);
    }

    private static GroupKey key(String json) {
        return GroupKey.of(BsonDocument.parse("{v: " + json + "}").get("v"));
    }

    private static SourceChange change(Operation operation, @Nullable String after, @Nullable String before,
            @Nullable UpdatedFields update) {
        return new SourceChange(operation, after == null ? null : doc(after), before == null ? null : doc(before), ID,
                update, null, null);
    }

    private static UpdatedFields updated(String... paths) {
        return new UpdatedFields(List.of(paths), List.of(), List.of());
    }

    private static AffectedKeys of(ViewShape shape, SourceChange change) {
        return AffectedKeys.of(shape, "orders", change);
    }

    // ---- insert

    @Test
    void anInsertAffectsTheKeyOfItsDocument() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.INSERT, "{_id: 'o1', customer: 'ann'}", null, null));

        assertThat(affected.keys()).containsExactly(key("'ann'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
        assertThat(affected.keyQueries()).isEmpty();
        assertThat(affected.needsFullPass()).isFalse();
    }

    @Test
    void anInsertWithoutItsDocumentIsAFullPassUnlessTheKeyIsTheId() {
        SourceChange insert = change(Operation.INSERT, null, null, null);

        assertThat(of(BY_CUSTOMER, insert).fullPassReason()).isEqualTo("an insert into 'orders' without its document");
        assertThat(of(PER_DOCUMENT, insert).keys()).containsExactly(key("'o1'"));
    }

    // ---- replace

    @Test
    void aReplaceAffectsTheNewKeyAndTheOldOne() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.REPLACE, "{_id: 'o1', customer: 'bob'}",
                "{_id: 'o1', customer: 'ann'}", null));

        assertThat(affected.keys()).containsExactlyInAnyOrder(key("'bob'"), key("'ann'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
    }

    @Test
    void aReplaceWithoutAPreImageLeavesTheOldKeyUnknown() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.REPLACE, "{_id: 'o1', customer: 'bob'}", null, null));

        assertThat(affected.keys()).containsExactly(key("'bob'"));
        assertThat(affected.unknownOldKeyOf()).containsExactly(ID);
        assertThat(affected.needsFullPass()).isFalse();
    }

    @Test
    void aReplaceWithoutItsNewDocumentIsAFullPass() {
        assertThat(of(BY_CUSTOMER, change(Operation.REPLACE, null, "{_id: 'o1', customer: 'ann'}", null))
            .fullPassReason()).isEqualTo("a replace in 'orders' without its new document");
    }

    @Test
    void aReplaceKeyedByTheIdNeedsNoImage() {
        AffectedKeys affected = of(PER_DOCUMENT, change(Operation.REPLACE, null, null, null));

        assertThat(affected.keys()).containsExactly(key("'o1'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
    }

    @Test
    void aReplaceWithoutAnIdOrAPreImageIsAFullPass() {
        SourceChange replace = new SourceChange(Operation.REPLACE, doc("{customer: 'bob'}"), null, null, null, null, null);

        assertThat(of(BY_CUSTOMER, replace).fullPassReason())
            .isEqualTo("a replace in 'orders' without a pre-image or a document id: the key it had is unknown");
    }

    // ---- update
    // Found by the fault suite once updates carried descriptions: the looked-up image is the document
    // as it is now, maybe after later changes made in the partition it moved to, whose events then
    // name the keys in between there, and never in the partition it left.

    @Test
    void anUpdateThatMovesADocumentToAnotherPartitionAffectsItsKeyBeforeTheMove() {
        AffectedKeys affected = AffectedKeys.of(BY_CUSTOMER, "orders", change(Operation.UPDATE,
                "{_id: 'o1', _part: 't2', customer: 'bob'}", "{_id: 'o1', _part: 't0', customer: 'ann'}",
                updated("_part")), "_part");

        assertThat(affected.keys()).containsExactlyInAnyOrder(key("'bob'"), key("'ann'"));
    }

    @Test
    void anUpdateThatMovesADocumentWithoutAPreImageLeavesItsOldKeyUnknown() {
        AffectedKeys affected = AffectedKeys.of(BY_CUSTOMER, "orders", change(Operation.UPDATE,
                "{_id: 'o1', _part: 't2', customer: 'bob'}", null, updated("_part")), "_part");

        assertThat(affected.keys()).containsExactly(key("'bob'"));
        assertThat(affected.unknownOldKeyOf()).containsExactly(ID);
    }

    @Test
    void anUpdateWithAPreImageAlwaysAffectsTheKeyItHadBefore() {
        AffectedKeys affected = AffectedKeys.of(BY_CUSTOMER, "orders", change(Operation.UPDATE,
                "{_id: 'o1', _part: 't0', customer: 'bob'}", "{_id: 'o1', _part: 't0', customer: 'ann'}",
                updated("qty")), "_part");

        assertThat(affected.keys()).containsExactlyInAnyOrder(key("'bob'"), key("'ann'"));
    }

    @Test
    void aForeignDocumentThatMovesToAnotherPartitionQueriesTheValueItHadBefore() {
        AffectedKeys moved = AffectedKeys.of(JOINED, "products", change(Operation.UPDATE,
                "{_id: 'p1', _part: 't2', sku: 'y'}", "{_id: 'p1', _part: 't0', sku: 'x'}", updated("_part")), "_part");
        AffectedKeys unknown = AffectedKeys.of(JOINED, "products", change(Operation.UPDATE,
                "{_id: 'p1', _part: 't2', sku: 'y'}", null, updated("_part")), "_part");

        assertThat(moved.keyQueries()).containsExactly(doc("{product: {$in: ['y', 'x']}}"));
        assertThat(unknown.needsFullPass()).isTrue();
    }


    @Test
    void anUpdateThatTouchesNoKeyPathAffectsOnlyTheCurrentKey() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.UPDATE, "{_id: 'o1', customer: 'ann', qty: 2}", null,
                updated("qty", "lines.0.price")));

        assertThat(affected.keys()).containsExactly(key("'ann'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
    }

    @Test
    void anUpdateThatTouchesTheKeyAffectsTheOldKeyOfThePreImage() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.UPDATE, "{_id: 'o1', customer: 'bob'}",
                "{_id: 'o1', customer: 'ann'}", updated("customer")));

        assertThat(affected.keys()).containsExactlyInAnyOrder(key("'bob'"), key("'ann'"));
    }

    @Test
    void anUpdateThatTouchesTheKeyWithoutAPreImageLeavesTheOldKeyUnknown() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.UPDATE, "{_id: 'o1', customer: 'bob'}", null,
                updated("customer")));

        assertThat(affected.keys()).containsExactly(key("'bob'"));
        assertThat(affected.unknownOldKeyOf()).containsExactly(ID);
    }

    @Test
    void anUpdateWithoutADescriptionMayTouchTheKey() {
        AffectedKeys withPreImage = of(BY_CUSTOMER, change(Operation.UPDATE, "{_id: 'o1', customer: 'bob'}",
                "{_id: 'o1', customer: 'ann'}", null));
        AffectedKeys without = of(BY_CUSTOMER, change(Operation.UPDATE, "{_id: 'o1', customer: 'bob'}", null, null));

        assertThat(withPreImage.keys()).containsExactlyInAnyOrder(key("'bob'"), key("'ann'"));
        assertThat(without.unknownOldKeyOf()).containsExactly(ID);
    }

    @Test
    void pathsTouchTheirParentsChildrenAndArrayElements() {
        ViewShape byName = IncrementalShapeAnalysisTest.shape("[{$group: {_id: '$customer.name'}}]");
        ViewShape byLineSku = IncrementalShapeAnalysisTest.shape("[{$group: {_id: '$lines.sku'}}]");
        String after = "{_id: 'o1', customer: {name: 'bob'}, lines: [{sku: 'x'}]}";

        for (UpdatedFields touching : List.of(updated("customer"), updated("customer.name"), updated("customer.name.first"),
                new UpdatedFields(List.of(), List.of("customer"), List.of()),
                new UpdatedFields(List.of(), List.of(), List.of("customer")))) {
            assertThat(of(byName, change(Operation.UPDATE, after, null, touching)).unknownOldKeyOf())
                .as("%s", touching).containsExactly(ID);
        }
        for (UpdatedFields touching : List.of(updated("lines"), updated("lines.0"), updated("lines.0.sku"),
                new UpdatedFields(List.of(), List.of(), List.of("lines")))) {
            assertThat(of(byLineSku, change(Operation.UPDATE, after, null, touching)).unknownOldKeyOf())
                .as("%s", touching).containsExactly(ID);
        }
        for (UpdatedFields apart : List.of(updated("customerName"), updated("customer.names"), updated("cust"),
                updated("lines.0.qty"), updated("line"))) {
            assertThat(of(byName, change(Operation.UPDATE, after, null, apart)).unknownOldKeyOf()).as("%s", apart).isEmpty();
            assertThat(of(byLineSku, change(Operation.UPDATE, after, null, apart)).unknownOldKeyOf()).as("%s", apart)
                .isEmpty();
        }
    }

    @Test
    void anUpdateWithoutAPostImageUsesThePreImageOnlyWhenTheKeyIsUntouched() {
        AffectedKeys untouched = of(BY_CUSTOMER, change(Operation.UPDATE, null, "{_id: 'o1', customer: 'ann'}",
                updated("qty")));
        AffectedKeys touched = of(BY_CUSTOMER, change(Operation.UPDATE, null, "{_id: 'o1', customer: 'ann'}",
                updated("customer")));
        AffectedKeys neither = of(BY_CUSTOMER, change(Operation.UPDATE, null, null, updated("qty")));

        assertThat(untouched.keys()).containsExactly(key("'ann'"));
        assertThat(touched.fullPassReason()).isEqualTo("an update in 'orders' without its post-image (deleted since, "
                + "or not looked up) that may touch the key: the key it has now is unknown");
        assertThat(neither.needsFullPass()).isTrue();
    }

    @Test
    void anUpdateKeyedByTheIdNeedsNoImage() {
        AffectedKeys affected = of(PER_DOCUMENT, change(Operation.UPDATE, null, null, null));

        assertThat(affected.keys()).containsExactly(key("'o1'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
    }

    @Test
    void anUpdateOfAFieldBehindAnIdTakesBothKeys() {
        AffectedKeys affected = of(BY_SKU, change(Operation.UPDATE, "{_id: 'o1', sku: 'b'}", "{_id: 'o1', sku: 'a'}",
                updated("sku")));

        assertThat(affected.keys()).containsExactlyInAnyOrder(key("'a'"), key("'b'"));
    }

    // ---- delete

    @Test
    void aDeleteAffectsTheKeyOfThePreImage() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.DELETE, null, "{_id: 'o1', customer: 'ann'}", null));

        assertThat(affected.keys()).containsExactly(key("'ann'"));
    }

    @Test
    void aDeleteWithoutAPreImageLeavesTheKeyUnknown() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.DELETE, null, null, null));

        assertThat(affected.keys()).isEmpty();
        assertThat(affected.unknownOldKeyOf()).containsExactly(ID);
        assertThat(affected.isEmpty()).isFalse();
    }

    @Test
    void aDeleteKeyedByTheIdNeedsOnlyTheDocumentKey() {
        AffectedKeys affected = of(PER_DOCUMENT, change(Operation.DELETE, null, null, null));
        ViewShape byIdPart = IncrementalShapeAnalysisTest.shape("[{$group: {_id: '$_id.store', n: {$sum: 1}}}]");
        SourceChange delete = new SourceChange(Operation.DELETE, null, null, doc("{store: 's1', n: 3}"), null, null, null);

        assertThat(affected.keys()).containsExactly(key("'o1'"));
        assertThat(affected.unknownOldKeyOf()).isEmpty();
        assertThat(of(byIdPart, delete).keys()).containsExactly(key("'s1'"));
    }

    @Test
    void aDeleteWithoutAnIdOrAPreImageIsAFullPass() {
        SourceChange delete = new SourceChange(Operation.DELETE, null, null, null, null, null, null);

        assertThat(of(BY_CUSTOMER, delete).needsFullPass()).isTrue();
    }

    // ---- key values

    @Test
    void aMissingKeyIsTheNullKeyAsInAGroupOnOnePath() {
        AffectedKeys missing = of(BY_CUSTOMER, change(Operation.INSERT, "{_id: 'o1'}", null, null));
        AffectedKeys isNull = of(BY_CUSTOMER, change(Operation.INSERT, "{_id: 'o1', customer: null}", null, null));

        assertThat(missing.keys()).containsExactly(GroupKey.nullKey());
        assertThat(isNull.keys()).containsExactly(GroupKey.nullKey());
    }

    @Test
    void aCompoundKeyLeavesAMissingPartOutAndKeepsANullOne() {
        AffectedKeys missing = of(BY_CUSTOMER_AND_REGION, change(Operation.INSERT, "{_id: 'o1', address: {region: 'n'}}",
                null, null));
        AffectedKeys isNull = of(BY_CUSTOMER_AND_REGION, change(Operation.INSERT,
                "{_id: 'o1', customer: null, address: {region: 'n'}}", null, null));
        AffectedKeys none = of(BY_CUSTOMER_AND_REGION, change(Operation.INSERT, "{_id: 'o1'}", null, null));

        assertThat(missing.keys()).containsExactly(key("{r: 'n'}"));
        assertThat(isNull.keys()).containsExactly(key("{c: null, r: 'n'}"));
        assertThat(none.keys()).containsExactly(key("{}"));
    }

    @Test
    void anArrayKeyIsTheWholeArray() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.INSERT, "{_id: 'o1', customer: ['ann', 'bob']}", null,
                null));
        ViewShape byLineSku = IncrementalShapeAnalysisTest.shape("[{$group: {_id: '$lines.sku'}}]");
        AffectedKeys through = of(byLineSku, change(Operation.INSERT,
                "{_id: 'o1', lines: [{sku: 'x'}, {qty: 1}, 5, {sku: ['y']}]}", null, null));

        assertThat(affected.keys()).containsExactly(key("['ann', 'bob']"));
        // Through an array of documents: what each element document holds, the others skipped
        assertThat(through.keys()).containsExactly(key("['x', ['y']]"));
    }

    @Test
    void numbersOfOneValueAreOneKey() {
        AffectedKeys affected = of(BY_CUSTOMER, change(Operation.REPLACE, "{_id: 'o1', customer: 1}",
                "{_id: 'o1', customer: {$numberLong: '1'}}", null)).union(of(BY_CUSTOMER,
                        change(Operation.INSERT, "{_id: 'o2', customer: 1.0}", null, null)));

        assertThat(affected.keys()).containsExactly(key("1"));
    }

    @Test
    void aKeyOfADeprecatedTypeIsAFullPass() {
        BsonDocument after = new BsonDocument("_id", ID).append("customer", new BsonUndefined());
        SourceChange insert = new SourceChange(Operation.INSERT, after, null, ID, null, null, null);

        assertThat(of(BY_CUSTOMER, insert).fullPassReason()).startsWith("a change of 'orders' where a key holds a value of "
                + "the deprecated BSON type undefined");
    }

    // ---- foreign collections

    @Test
    void aForeignChangeGivesAKeyQueryOnTheLocalField() {
        AffectedKeys inserted = AffectedKeys.of(JOINED, "products",
                change(Operation.INSERT, "{_id: 'p1', sku: 'x', category: 'c'}", null, null));
        AffectedKeys moved = AffectedKeys.of(JOINED, "products",
                change(Operation.UPDATE, "{_id: 'p1', sku: 'y'}", "{_id: 'p1', sku: 'x'}", updated("sku")));
        AffectedKeys same = AffectedKeys.of(JOINED, "products",
                change(Operation.UPDATE, "{_id: 'p1', sku: 'x', category: 'd'}", null, updated("category")));
        AffectedKeys deleted = AffectedKeys.of(JOINED, "products", change(Operation.DELETE, null, "{_id: 'p1', sku: 'x'}",
                null));
        AffectedKeys replaced = AffectedKeys.of(JOINED, "products", change(Operation.REPLACE, "{_id: 'p1', sku: 'y'}",
                "{_id: 'p1', sku: 'x'}", null));

        assertThat(inserted.keyQueries()).containsExactly(doc("{product: {$in: ['x']}}"));
        assertThat(inserted.keys()).isEmpty();
        assertThat(moved.keyQueries()).containsExactly(doc("{product: {$in: ['y', 'x']}}"));
        assertThat(same.keyQueries()).containsExactly(doc("{product: {$in: ['x']}}"));
        assertThat(deleted.keyQueries()).containsExactly(doc("{product: {$in: ['x']}}"));
        assertThat(replaced.keyQueries()).containsExactly(doc("{product: {$in: ['y', 'x']}}"));
    }

    @Test
    void aForeignValueJoinsAsALookupMatchesIt() {
        AffectedKeys missing = AffectedKeys.of(JOINED, "products", change(Operation.INSERT, "{_id: 'p1'}", null, null));
        AffectedKeys array = AffectedKeys.of(JOINED, "products", change(Operation.INSERT, "{_id: 'p1', sku: ['x', 1]}",
                null, null));
        AffectedKeys withNull = AffectedKeys.of(JOINED, "products", change(Operation.INSERT,
                "{_id: 'p1', sku: ['x', null]}", null, null));

        // A missing or null foreignField joins local documents whose field is null or missing
        assertThat(missing.keyQueries()).containsExactly(doc("{product: {$in: [null, []]}}"));
        assertThat(array.keyQueries()).containsExactly(doc("{product: {$in: ['x', 1, ['x', 1]]}}"));
        assertThat(withNull.keyQueries()).containsExactly(doc("{product: {$in: ['x', null, [], ['x', null]]}}"));
    }

    @Test
    void aForeignChangeWithoutTheImagesItNeedsIsAFullPass() {
        assertThat(AffectedKeys.of(JOINED, "products", change(Operation.DELETE, null, null, null)).fullPassReason())
            .isEqualTo("a delete in 'products' without a pre-image: the value of 'sku' it had, and so the rows it "
                    + "joined, are unknown");
        assertThat(AffectedKeys.of(JOINED, "products", change(Operation.REPLACE, "{_id: 'p1', sku: 'x'}", null, null))
            .needsFullPass()).isTrue();
        assertThat(AffectedKeys.of(JOINED, "products", change(Operation.UPDATE, "{_id: 'p1', sku: 'x'}", null,
                updated("sku"))).needsFullPass()).isTrue();
        assertThat(AffectedKeys.of(JOINED, "products", change(Operation.UPDATE, null, null, updated("category")))
            .needsFullPass()).isTrue();
        assertThat(AffectedKeys.of(JOINED, "products", change(Operation.INSERT, null, null, null)).needsFullPass())
            .isTrue();
    }

    @Test
    void aForeignFieldThatIsTheIdNeedsOnlyTheDocumentKey() {
        SourceChange delete = new SourceChange(Operation.DELETE, null, null, new BsonString("ann"), null, null, null);

        AffectedKeys affected = AffectedKeys.of(JOINED, "customers", delete);

        assertThat(affected.keyQueries()).containsExactly(doc("{customer: {$in: ['ann']}}"));
    }

    @Test
    void aSelfLookupAffectsBothTheKeyAndTheJoinedDocuments() {
        ViewShape self = IncrementalShapeAnalysisTest.shape(
                "[{$lookup: {from: 'orders', localField: 'parent', foreignField: '_id', as: 'up'}}]");

        AffectedKeys affected = of(self, change(Operation.INSERT, "{_id: 'o1', parent: 'o0'}", null, null));

        assertThat(affected.keys()).containsExactly(key("'o1'"));
        assertThat(affected.keyQueries()).containsExactly(doc("{parent: {$in: ['o1']}}"));
    }

    // ---- images a change stream projected

    /** An event as a projected stream gives it: its images carry only the paths given. */
    private static SourceChange projected(Operation operation, @Nullable String after, @Nullable String before,
            String... carried) {
        return new SourceChange(operation, after == null ? null : doc(after), before == null ? null : doc(before), ID,
                null, null, null, Set.of(carried));
    }

    @Test
    void anImageProjectedWithoutAKeyPathNeverGivesAKey() {
        SourceChange insert = projected(Operation.INSERT, "{_part: 'acme'}", null, "_part");
        SourceChange delete = projected(Operation.DELETE, null, "{_part: 'acme'}", "_part");

        assertThat(of(BY_CUSTOMER, insert).fullPassReason()).isEqualTo("the images of a change of 'orders' do not carry "
                + "customer (its change stream projected them): its key is unknown");
        assertThat(of(BY_SKU, delete).needsFullPass()).as("no key from an image without it").isTrue();
        assertThat(of(BY_CUSTOMER_AND_REGION, projected(Operation.INSERT, "{customer: 'ann'}", null, "customer"))
            .needsFullPass()).as("one key path of two").isTrue();
        assertThat(of(BY_CUSTOMER, projected(Operation.INSERT, "{customer: {name: 'ann'}}", null, "customer.name"))
            .needsFullPass()).as("a path under the key path is only part of it").isTrue();
        assertThat(of(BY_CUSTOMER, projected(Operation.INSERT, "{_part: 'acme'}", null, "_part", "customer")).keys())
            .as("carried and missing: really missing").containsExactly(key("null"));
    }

    @Test
    void aKeyInTheIdComesFromTheDocumentKeyWhateverTheImagesCarry() {
        SourceChange insert = projected(Operation.INSERT, "{_part: 'acme'}", null, "_part");
        SourceChange update = projected(Operation.UPDATE, "{_part: 'acme'}", "{_part: 'acme'}", "_part");

        assertThat(of(PER_DOCUMENT, insert).keys()).containsExactly(key("'o1'"));
        assertThat(of(PER_DOCUMENT, update).keys()).containsExactly(key("'o1'"));
        assertThat(of(PER_DOCUMENT, projected(Operation.DELETE, null, null, "_part")).keys()).containsExactly(key("'o1'"));
    }

    @Test
    void aForeignImageProjectedWithoutTheForeignFieldIsAFullPassUnlessItIsTheId() {
        AffectedKeys product = AffectedKeys.of(JOINED, "products",
                projected(Operation.INSERT, "{_part: 'acme'}", null, "_part"));
        AffectedKeys customer = AffectedKeys.of(JOINED, "customers",
                new SourceChange(Operation.INSERT, doc("{_part: 'acme'}"), null, new BsonString("ann"), null, null, null,
                        Set.of("_part")));

        assertThat(product.fullPassReason()).isEqualTo("the images of a change of 'products' do not carry sku (its "
                + "change stream projected them): the rows it joins are unknown");
        assertThat(customer.keyQueries()).as("the document key").containsExactly(doc("{customer: {$in: ['ann']}}"));
    }

    // ---- always a full pass

    @ParameterizedTest
    @EnumSource(value = Operation.class, names = {"DROP", "RENAME", "DROP_DATABASE", "INVALIDATE", "OTHER"})
    void eventsOtherThanDocumentChangesAreFullPasses(Operation operation) {
        AffectedKeys affected = of(BY_CUSTOMER, new SourceChange(operation, null, null, null, null, null, null));

        assertThat(affected.needsFullPass()).isTrue();
        assertThat(affected.fullPassReason()).startsWith("a ").endsWith(" event of 'orders'");
        assertThat(affected.keys()).isEmpty();
    }

    @Test
    void aViewThatIsNotIncrementalIsAlwaysAFullPass() {
        ViewShape limited = IncrementalShapeAnalysisTest.shape("[{$limit: 1}]");

        assertThat(of(limited, change(Operation.INSERT, "{_id: 'o1'}", null, null)).fullPassReason())
            .startsWith("the view is not incremental: pipeline[0] ($limit)");
    }

    @Test
    void aChangeOfACollectionTheShapeDoesNotLinkIsAFullPass() {
        AffectedKeys affected = AffectedKeys.of(BY_CUSTOMER, "elsewhere",
                change(Operation.INSERT, "{_id: 'o1', customer: 'ann'}", null, null));

        assertThat(affected.fullPassReason()).isEqualTo("a change of 'elsewhere', which the pipeline reads neither as its "
                + "primary source nor through a $lookup with localField/foreignField");
    }

    // ---- union

    @Test
    void aUnionHoldsEverythingAndAFullPassWins() {
        AffectedKeys a = of(BY_CUSTOMER, change(Operation.INSERT, "{_id: 'o1', customer: 'ann'}", null, null));
        AffectedKeys b = of(BY_CUSTOMER, change(Operation.DELETE, null, null, null));
        AffectedKeys c = AffectedKeys.of(JOINED, "products", change(Operation.INSERT, "{_id: 'p', sku: 'x'}", null, null));
        AffectedKeys full = AffectedKeys.fullPass("why");

        AffectedKeys all = a.union(b).union(c).union(AffectedKeys.none());

        assertThat(all.keys()).containsExactly(key("'ann'"));
        assertThat(all.unknownOldKeyOf()).containsExactly(ID);
        assertThat(all.keyQueries()).hasSize(1);
        assertThat(all.union(full).fullPassReason()).isEqualTo("why");
        assertThat(full.union(all).fullPassReason()).isEqualTo("why");
        assertThat(full.union(AffectedKeys.fullPass("other")).fullPassReason()).isEqualTo("why");
        assertThat(AffectedKeys.none().isEmpty()).isTrue();
        assertThat(AffectedKeys.ofKeys(Set.of(key("1"))).union(AffectedKeys.ofKeys(Set.of(key("1.0")))).keys()).hasSize(1);
    }

    @Test
    void unknownIdsAreOnceAsMongoDbComparesThem() {
        SourceChange one = new SourceChange(Operation.DELETE, null, null, new BsonInt32(1), null, null, null);
        SourceChange alsoOne = new SourceChange(Operation.DELETE, null, null, BsonDocument.parse("{v: 1.0}").get("v"),
                null, null, null);

        Set<BsonValue> ids = of(BY_CUSTOMER, one).union(of(BY_CUSTOMER, alsoOne)).unknownOldKeyOf();

        assertThat(ids).containsExactly(new BsonInt32(1));
    }
}
