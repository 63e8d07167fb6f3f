package dev.materializer.core.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.materializer.core.Generation;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ScopeGuardTest {

    private static final List<String> READABLE = List.of("orders", "customers", "rates");

    private static final List<String> WITH_TARGETS = List.of("orders", "customers", "rates", "revenue", "legacy", "fresh");

    /** Targets of views of the partition: one at generation 7, one of the format before versions, one never run. */
    private static final Map<String, Generation> GENERATIONS = new HashMap<>();

    static {
        GENERATIONS.put("revenue", Generation.of(7));
        GENERATIONS.put("legacy", Generation.legacy(new ObjectId("65a000000000000000000001")));
        GENERATIONS.put("fresh", null);
    }

    /** The scope of a collection that is no view's target, written out by hand, so the tests do not trust the guard. */
    private static final String SCOPE = "{_part: 'p1', _viewTo: {$exists: false}, _viewGen: {$exists: false}}";
    private static final String SCOPE_MATCH = "{$match: " + SCOPE + "}";

    private final ScopeGuard guard = new ScopeGuard("_part");

    private List<BsonDocument> guarded(String pipelineJson) throws ScopeViolationException {
        return guard.scope(stages(pipelineJson), "p1", READABLE, "orders", GENERATIONS);
    }

    private static List<BsonDocument> stages(String json) {
        return BsonArray.parse(json).stream().map(BsonValue::asDocument).toList();
    }

    private String refusal(String pipelineJson) {
        Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(() -> guarded(pipelineJson));
        assertThat(thrown).isInstanceOf(ScopeViolationException.class);
        return thrown.getMessage();
    }

    @Nested
    class TheTopLevelRead {

        @Test
        void startsWithTheScopeMatchBeforeTheViewsOwnStages() throws Exception {
            assertThat(guarded("[{$match: {status: 'open'}}, {$limit: 5}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$match: {status: 'open'}}, {$limit: 5}]"));
        }

        @Test
        void anEmptyPipelineStillReadsOnlyTheScope() throws Exception {
            assertThat(guarded("[]")).isEqualTo(stages("[" + SCOPE_MATCH + "]"));
        }

        @Test
        void aCollectionThatIsNoViewsTargetAdmitsOnlySourceDocuments() throws Exception {
            assertThat(guard.scope(List.of(), "p1", READABLE, "orders", Map.of())).isEqualTo(stages("[" + SCOPE_MATCH + "]"));
        }

        @Test
        void theTargetOfAViewAdmitsSourceDocumentsAndTheRowVersionsOfItsCurrentGeneration() throws Exception {
            assertThat(guard.scope(List.of(), "p1", WITH_TARGETS, "revenue", GENERATIONS)).isEqualTo(stages(
                    "[{$match: {_part: 'p1', $or: [{_viewTo: {$exists: false}, _viewGen: {$exists: false}},"
                    + " {_viewTo: {$gt: {$numberLong: '7'}}, _viewFrom: {$lte: {$numberLong: '7'}}}]}}]"));
        }

        @Test
        void theTargetOfAViewOfTheFormatBeforeVersionsAdmitsTheRowsOfItsGeneration() throws Exception {
            assertThat(guard.scope(List.of(), "p1", WITH_TARGETS, "legacy", GENERATIONS)).isEqualTo(stages(
                    "[{$match: {_part: 'p1', $or: [{_viewTo: {$exists: false}, _viewGen: {$exists: false}},"
                    + " {_viewGen: {$oid: '65a000000000000000000001'}}]}}]"));
        }

        @Test
        void theTargetOfAViewNeverRunAdmitsNoneOfItsRows() throws Exception {
            assertThat(guard.scope(List.of(), "p1", WITH_TARGETS, "fresh", GENERATIONS)).isEqualTo(stages(
                    "[{$match: {_part: 'p1', $or: [{_viewTo: {$exists: false}, _viewGen: {$exists: false}},"
                    + " {_viewTo: {$in: []}}]}}]"));
        }

        @Test
        void aLookupIntoATargetGetsTheScopeOfThatTarget() throws Exception {
            assertThat(guard.scope(stages("[{$lookup: {from: 'revenue', localField: 'shop', foreignField: '_viewRow', as: 'r'}}]"),
                    "p1", WITH_TARGETS, "orders", GENERATIONS))
                .isEqualTo(stages("[" + SCOPE_MATCH + ", {$lookup: {from: 'revenue', localField: 'shop',"
                        + " foreignField: '_viewRow', as: 'r', pipeline: [{$match: {_part: 'p1', $or: ["
                        + "{_viewTo: {$exists: false}, _viewGen: {$exists: false}},"
                        + " {_viewTo: {$gt: {$numberLong: '7'}}, _viewFrom: {$lte: {$numberLong: '7'}}}]}}]}}]"));
        }

        @Test
        void usesTheConfiguredPartitionField() throws Exception {
            List<BsonDocument> scoped = new ScopeGuard("tenant").scope(List.of(), "t9", READABLE, "orders", Map.of());
            assertThat(scoped).isEqualTo(stages(
                    "[{$match: {tenant: 't9', _viewTo: {$exists: false}, _viewGen: {$exists: false}}}]"));
        }

        @Test
        void scopeMatchIsTheFilterEveryReadGets() {
            assertThat(guard.scopeMatch("p1", "orders", GENERATIONS)).isEqualTo(BsonDocument.parse(SCOPE));
        }

        @ParameterizedTest
        @ValueSource(strings = {"", " ", "$part"})
        void aPartitionFieldThatIsNotAFieldNameIsRejected(String field) {
            assertThatIllegalArgumentException().isThrownBy(() -> new ScopeGuard(field))
                    .withMessageContaining("partitionField");
        }
    }

    @Nested
    class GeoNear {

        @Test
        void aLeadingGeoNearTakesTheScopeIntoItsQueryAndStaysFirst() throws Exception {
            assertThat(guarded("[{$geoNear: {near: [0, 0], distanceField: 'd', query: {kind: 'shop'}}}, {$limit: 3}]"))
                    .isEqualTo(stages("[{$geoNear: {near: [0, 0], distanceField: 'd', query: {$and: [{kind: 'shop'}, "
                            + SCOPE + "]}}}, {$limit: 3}]"));
        }

        @Test
        void aLeadingGeoNearWithoutQueryGetsTheScopeAsItsQuery() throws Exception {
            assertThat(guarded("[{$geoNear: {near: [0, 0], distanceField: 'd'}}]"))
                    .isEqualTo(stages("[{$geoNear: {near: [0, 0], distanceField: 'd', query: " + SCOPE + "}}]"));
        }

        @Test
        void aLeadingGeoNearOfALookupPipelineTakesTheScopeToo() throws Exception {
            assertThat(guarded("[{$lookup: {from: 'rates', pipeline: [{$geoNear: {near: [1, 2], distanceField: 'd'}}],"
                    + " as: 'r'}}]")).isEqualTo(stages("[" + SCOPE_MATCH + ", {$lookup: {from: 'rates', pipeline:"
                            + " [{$geoNear: {near: [1, 2], distanceField: 'd', query: " + SCOPE + "}}], as: 'r'}}]"));
        }

        @Test
        void aGeoNearQueryThatIsNotADocumentIsRefused() {
            assertThat(refusal("[{$geoNear: {near: [0, 0], distanceField: 'd', query: 3}}]"))
                    .isEqualTo("pipeline[0].$geoNear.query: must be a document, found a value of type INT32");
        }
    }

    @Nested
    class Lookup {

        @Test
        void theLocalAndForeignFieldFormGetsAPipelineOfTheScope() throws Exception {
            assertThat(guarded("[{$lookup: {from: 'customers', localField: 'c', foreignField: '_id', as: 'cust'}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$lookup: {from: 'customers', localField: 'c',"
                            + " foreignField: '_id', as: 'cust', pipeline: [" + SCOPE_MATCH + "]}}]"));
        }

        @Test
        void thePipelineFormGetsTheScopeFirstAndKeepsItsVariables() throws Exception {
            assertThat(guarded("[{$lookup: {from: 'rates', let: {c: '$cur'}, pipeline: [{$match: {$expr:"
                    + " {$eq: ['$cur', '$$c']}}}], as: 'r'}}]")).isEqualTo(stages("[" + SCOPE_MATCH
                            + ", {$lookup: {from: 'rates', let: {c: '$cur'}, pipeline: [" + SCOPE_MATCH
                            + ", {$match: {$expr: {$eq: ['$cur', '$$c']}}}], as: 'r'}}]"));
        }

        @Test
        void theCombinedFormGetsTheScopeFirstInItsPipeline() throws Exception {
            assertThat(guarded("[{$lookup: {from: 'rates', localField: 'cur', foreignField: 'cur', pipeline:"
                    + " [{$limit: 1}], as: 'r'}}]")).isEqualTo(stages("[" + SCOPE_MATCH + ", {$lookup: {from: 'rates',"
                            + " localField: 'cur', foreignField: 'cur', pipeline: [" + SCOPE_MATCH
                            + ", {$limit: 1}], as: 'r'}}]"));
        }

        @Test
        void aCollectionThatIsNotASourceIsRefusedNamingItAndTheSources() {
            assertThat(refusal("[{$lookup: {from: 'secrets', localField: 'a', foreignField: 'b', as: 's'}}]"))
                    .isEqualTo("pipeline[0].$lookup.from: collection \"secrets\" is not a source of the view;"
                            + " it may read [customers, orders, rates]");
        }

        @Test
        void withoutFromItReadsDocumentsAndIsRefused() {
            assertThat(refusal("[{$lookup: {pipeline: [{$match: {}}], as: 'x'}}]"))
                    .startsWith("pipeline[0].$lookup.from: missing: a $lookup without from reads $documents")
                    .contains("[customers, orders, rates]");
        }

        @Test
        void aCollectionOfAnotherDatabaseIsRefused() {
            assertThat(refusal("[{$lookup: {from: {db: 'other', coll: 'orders'}, pipeline: [], as: 'x'}}]"))
                    .startsWith("pipeline[0].$lookup.from: reading another database ({db, coll}) is refused");
        }

        @Test
        void aFromThatIsNotANameIsRefused() {
            assertThat(refusal("[{$lookup: {from: 7, pipeline: [], as: 'x'}}]"))
                    .startsWith("pipeline[0].$lookup.from: must be a collection name, found a value of type INT32");
        }

        @Test
        void anUnknownOptionIsRefusedSoNoFutureFormCanSlipPast() {
            assertThat(refusal("[{$lookup: {from: 'orders', db: 'other', pipeline: [], as: 'x'}}]"))
                    .isEqualTo("pipeline[0].$lookup: unknown option \"db\" is refused;"
                            + " allowed: [as, foreignField, from, let, localField, pipeline]");
        }

        @Test
        void aPipelineThatIsNotAnArrayIsRefused() {
            assertThat(refusal("[{$lookup: {from: 'orders', pipeline: {$match: {}}, as: 'x'}}]"))
                    .startsWith("pipeline[0].$lookup.pipeline: must be an array of stages");
        }

        @Test
        void aBodyThatIsNotADocumentIsRefused() {
            assertThat(refusal("[{$lookup: 'orders'}]"))
                    .isEqualTo("pipeline[0].$lookup: must be a document, found a value of type STRING");
        }
    }

    @Nested
    class UnionWith {

        @Test
        void theStringFormBecomesTheDocumentFormWithThePipelineOfTheScope() throws Exception {
            assertThat(guarded("[{$unionWith: 'orders'}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$unionWith: {coll: 'orders', pipeline: [" + SCOPE_MATCH
                            + "]}}]"));
        }

        @Test
        void theDocumentFormGetsTheScopeFirstInItsPipeline() throws Exception {
            assertThat(guarded("[{$unionWith: {coll: 'rates', pipeline: [{$project: {a: 1}}]}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$unionWith: {coll: 'rates', pipeline: [" + SCOPE_MATCH
                            + ", {$project: {a: 1}}]}}]"));
        }

        @Test
        void theDocumentFormWithoutPipelineGetsThePipelineOfTheScope() throws Exception {
            assertThat(guarded("[{$unionWith: {coll: 'rates'}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$unionWith: {coll: 'rates', pipeline: [" + SCOPE_MATCH
                            + "]}}]"));
        }

        @Test
        void aCollectionThatIsNotASourceIsRefusedInTheStringForm() {
            assertThat(refusal("[{$match: {}}, {$unionWith: 'secrets'}]"))
                    .isEqualTo("pipeline[1].$unionWith: collection \"secrets\" is not a source of the view;"
                            + " it may read [customers, orders, rates]");
        }

        @Test
        void aCollectionThatIsNotASourceIsRefusedInTheDocumentForm() {
            assertThat(refusal("[{$unionWith: {coll: 'secrets', pipeline: []}}]"))
                    .startsWith("pipeline[0].$unionWith.coll: collection \"secrets\" is not a source of the view");
        }

        @Test
        void withoutCollItReadsDocumentsAndIsRefused() {
            assertThat(refusal("[{$unionWith: {pipeline: [{$match: {}}]}}]"))
                    .startsWith("pipeline[0].$unionWith.coll: missing: a $unionWith without coll reads $documents");
        }

        @Test
        void anotherDatabaseIsRefused() {
            assertThat(refusal("[{$unionWith: {db: 'other', coll: 'orders'}}]"))
                    .isEqualTo("pipeline[0].$unionWith: unknown option \"db\" is refused; allowed: [coll, pipeline]");
        }
    }

    @Nested
    class GraphLookup {

        private static final String GRAPH = "from: 'customers', startWith: '$ref', connectFromField: 'ref',"
                + " connectToField: '_id', as: 'chain'";

        @Test
        void withoutRestrictionTheSearchIsRestrictedToTheScope() throws Exception {
            assertThat(guarded("[{$graphLookup: {" + GRAPH + "}}]")).isEqualTo(stages(
                    "[" + SCOPE_MATCH + ", {$graphLookup: {" + GRAPH + ", restrictSearchWithMatch: " + SCOPE + "}}]"));
        }

        @Test
        void anExistingRestrictionIsKeptAndJoinedWithTheScope() throws Exception {
            assertThat(guarded("[{$graphLookup: {" + GRAPH + ", restrictSearchWithMatch: {active: true}}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$graphLookup: {" + GRAPH
                            + ", restrictSearchWithMatch: {$and: [{active: true}, " + SCOPE + "]}}}]"));
        }

        @Test
        void aCollectionThatIsNotASourceIsRefused() {
            assertThat(refusal("[{$graphLookup: {from: 'secrets', startWith: '$a', connectFromField: 'a',"
                    + " connectToField: 'b', as: 'c'}}]"))
                    .startsWith("pipeline[0].$graphLookup.from: collection \"secrets\" is not a source of the view");
        }

        @Test
        void withoutFromItIsRefused() {
            assertThat(refusal("[{$graphLookup: {startWith: '$a', connectFromField: 'a', connectToField: 'b',"
                    + " as: 'c'}}]")).startsWith("pipeline[0].$graphLookup.from: missing");
        }
    }

    @Nested
    class Facet {

        @Test
        void itsPipelinesSeeTheScopedInputAndGetNoScopeOfTheirOwn() throws Exception {
            assertThat(guarded("[{$facet: {count: [{$count: 'n'}], top: [{$sort: {a: -1}}, {$limit: 1}]}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH
                            + ", {$facet: {count: [{$count: 'n'}], top: [{$sort: {a: -1}}, {$limit: 1}]}}]"));
        }

        @Test
        void aReadInsideAFacetIsScoped() throws Exception {
            assertThat(guarded("[{$facet: {withRates: [{$lookup: {from: 'rates', pipeline: [], as: 'r'}}]}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$facet: {withRates: [{$lookup: {from: 'rates',"
                            + " pipeline: [" + SCOPE_MATCH + "], as: 'r'}}]}}]"));
        }

        @Test
        void aWriteInsideAFacetIsRefusedWithItsPath() {
            assertThat(refusal("[{$facet: {byType: [{$group: {_id: '$t'}}, {$merge: 'x'}]}}]"))
                    .isEqualTo("pipeline[0].$facet.byType[1]: $merge is refused: the materializer writes the target itself");
        }

        @Test
        void aReadOfAnotherCollectionInANestedFacetIsRefusedWithItsPath() {
            assertThat(refusal("[{$facet: {outer: [{$facet: {inner: [{$unionWith: 'secrets'}]}}]}}]"))
                    .startsWith("pipeline[0].$facet.outer[0].$facet.inner[0].$unionWith: collection \"secrets\"");
        }

        @Test
        void anOutputThatIsNotAnArrayIsRefused() {
            assertThat(refusal("[{$facet: {n: {$count: 'n'}}}]"))
                    .startsWith("pipeline[0].$facet.n: must be an array of stages");
        }
    }

    @Nested
    class RefusedStages {

        @ParameterizedTest
        @ValueSource(strings = {"$merge", "$out"})
        void writesAreRefusedAtTheTopAndInsideSubPipelines(String stage) {
            assertThat(refusal("[{$match: {}}, {" + stage + ": 'x'}]"))
                    .isEqualTo("pipeline[1]: " + stage + " is refused: the materializer writes the target itself");
            assertThat(refusal("[{$unionWith: {coll: 'orders', pipeline: [{" + stage + ": 'x'}]}}]"))
                    .isEqualTo("pipeline[0].$unionWith.pipeline[0]: " + stage
                            + " is refused: the materializer writes the target itself");
        }

        @Test
        void theMessageNamesTheStagePath() {
            assertThat(refusal("[{$match: {}}, {$lookup: {from: 'customers', pipeline: [{$out: 'x'}], as: 'c'}}]"))
                    .isEqualTo("pipeline[1].$lookup.pipeline[0]: $out is refused: the materializer writes the target itself");
        }

        @ParameterizedTest
        @ValueSource(strings = {"$collStats", "$indexStats", "$currentOp", "$listSessions", "$listLocalSessions",
                "$planCacheStats", "$documents", "$changeStream", "$changeStreamSplitLargeEvent", "$listSearchIndexes",
                "$listSampledQueries", "$querySettings", "$queryStats", "$shardedDataDistribution",
                "$listClusterCatalog", "$listCatalog"})
        void stagesThatReadOutsideTheSourcesAreRefusedAtAnyDepth(String stage) {
            assertThat(refusal("[{" + stage + ": {}}]"))
                    .isEqualTo("pipeline[0]: " + stage + " is refused: it reads outside the view's sources,"
                            + " where the partition scope cannot apply");
            assertThat(refusal("[{$facet: {f: [{$lookup: {from: 'orders', pipeline: [{" + stage + ": {}}], as: 'o'}}]}}]"))
                    .startsWith("pipeline[0].$facet.f[0].$lookup.pipeline[0]: " + stage + " is refused");
        }

        @ParameterizedTest
        @ValueSource(strings = {"$search", "$searchMeta", "$vectorSearch", "$rankFusion", "$scoreFusion"})
        void searchStagesAreRefusedBecauseTheyMustComeBeforeTheScope(String stage) {
            assertThat(refusal("[{" + stage + ": {}}]"))
                    .startsWith("pipeline[0]: " + stage + " is refused: it must be the first stage, so the scope $match"
                            + " cannot precede it");
            assertThat(refusal("[{$unionWith: {coll: 'orders', pipeline: [{" + stage + ": {}}]}}]"))
                    .startsWith("pipeline[0].$unionWith.pipeline[0]: " + stage + " is refused: it must be the first stage");
        }

        @Test
        void serverInternalStagesAreRefused() {
            assertThat(refusal("[{$_internalInhibitOptimization: {}}]"))
                    .isEqualTo("pipeline[0]: $_internalInhibitOptimization is refused: it is a server-internal stage");
        }
    }

    @Nested
    class MalformedStages {

        @Test
        void aStageWithTwoKeysIsRefused() {
            assertThat(refusal("[{$match: {}, $out: 'x'}]")).isEqualTo(
                    "pipeline[0]: a stage must be a document with exactly one $ key, found keys [$match, $out]");
        }

        @Test
        void anEmptyStageIsRefused() {
            assertThat(refusal("[{}]"))
                    .isEqualTo("pipeline[0]: a stage must be a document with exactly one $ key, found an empty document");
        }

        @Test
        void aStageWhoseKeyIsNotAnOperatorIsRefused() {
            assertThat(refusal("[{match: {}}]"))
                    .isEqualTo("pipeline[0]: a stage must be a document with exactly one $ key, found keys [match]");
        }

        @Test
        void aSubPipelineStageThatIsNotADocumentIsRefused() {
            assertThat(refusal("[{$lookup: {from: 'orders', pipeline: [{$match: {}}, 'oops'], as: 'o'}}]"))
                    .isEqualTo("pipeline[0].$lookup.pipeline[1]: a stage must be a document with exactly one $ key,"
                            + " found a value of type STRING");
        }
    }

    @Nested
    class NestedReads {

        @Test
        void aUnionWithInsideALookupPipelineIsScopedToo() throws Exception {
            assertThat(guarded("[{$lookup: {from: 'customers', pipeline: [{$unionWith: 'rates'}], as: 'c'}}]"))
                    .isEqualTo(stages("[" + SCOPE_MATCH + ", {$lookup: {from: 'customers', pipeline: [" + SCOPE_MATCH
                            + ", {$unionWith: {coll: 'rates', pipeline: [" + SCOPE_MATCH + "]}}], as: 'c'}}]"));
        }

        @Test
        void aGraphLookupInsideAUnionWithPipelineIsRestrictedToTheScope() throws Exception {
            List<BsonDocument> scoped = guarded("[{$unionWith: {coll: 'rates', pipeline: [{$graphLookup: {from: 'orders',"
                    + " startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'g'}}]}}]");
            assertThat(scoped.get(1).getDocument("$unionWith").getArray("pipeline").get(1).asDocument()
                    .getDocument("$graphLookup").getDocument("restrictSearchWithMatch")).isEqualTo(BsonDocument.parse(SCOPE));
        }

        @Test
        void aReadOfAnotherCollectionDeepInsideIsRefusedWithItsPath() {
            assertThat(refusal("[{$lookup: {from: 'customers', pipeline: [{$facet: {f: [{$unionWith: {coll: 'orders',"
                    + " pipeline: [{$lookup: {from: 'secrets', pipeline: [], as: 's'}}]}}]}}], as: 'c'}}]"))
                    .startsWith("pipeline[0].$lookup.pipeline[0].$facet.f[0].$unionWith.pipeline[0].$lookup.from:"
                            + " collection \"secrets\"");
        }
    }

    @Nested
    class Copies {

        private static final String EVERY_REWRITE = "[{$geoNear: {near: [0, 0], distanceField: 'd', query: {k: 1}}},"
                + " {$lookup: {from: 'customers', localField: 'c', foreignField: '_id', as: 'c'}},"
                + " {$lookup: {from: 'rates', pipeline: [{$unionWith: 'orders'}], as: 'r'}},"
                + " {$unionWith: {coll: 'orders', pipeline: [{$limit: 1}]}},"
                + " {$graphLookup: {from: 'orders', startWith: '$a', connectFromField: 'a', connectToField: 'b',"
                + " as: 'g', restrictSearchWithMatch: {x: 1}}},"
                + " {$facet: {f: [{$lookup: {from: 'orders', pipeline: [], as: 'o'}}]}}, {$project: {a: {b: 1}}}]";

        @Test
        void theInputIsNeverChanged() throws Exception {
            List<BsonDocument> input = stages(EVERY_REWRITE);
            guard.scope(input, "p1", READABLE, "orders", GENERATIONS);
            assertThat(input).isEqualTo(stages(EVERY_REWRITE));
        }

        @Test
        void changingTheResultDoesNotChangeTheInput() throws Exception {
            List<BsonDocument> input = stages(EVERY_REWRITE);
            List<BsonDocument> scoped = guard.scope(input, "p1", READABLE, "orders", GENERATIONS);
            for (BsonDocument stage : scoped) {
                clear(stage);
            }
            assertThat(input).isEqualTo(stages(EVERY_REWRITE));
        }

        @Test
        void everyInsertedScopeIsItsOwnDocument() throws Exception {
            List<BsonDocument> scoped = guarded("[{$unionWith: 'orders'}]");
            scoped.get(0).getDocument("$match").put("_part", new BsonInt32(0));
            assertThat(scoped.get(1).getDocument("$unionWith").getArray("pipeline").get(0))
                    .isEqualTo(BsonDocument.parse(SCOPE_MATCH));
        }

        /** Empties every document and array inside, depth first. */
        private void clear(BsonValue value) {
            if (value.isDocument()) {
                value.asDocument().values().forEach(this::clear);
                value.asDocument().clear();
            } else if (value.isArray()) {
                value.asArray().forEach(this::clear);
                value.asArray().clear();
            }
        }
    }
}
