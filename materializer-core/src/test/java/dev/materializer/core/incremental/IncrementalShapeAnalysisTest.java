package dev.materializer.core.incremental;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.materializer.core.incremental.ViewShape.Kind;
import dev.materializer.core.view.IncrementalDeclaration;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@link ShapeAnalysis}: the incremental shapes, their keys, and why everything else is FULL. */
class IncrementalShapeAnalysisTest {

    static List<BsonDocument> pipeline(String json) {
        List<BsonDocument> stages = new ArrayList<>();
        BsonArray.parse(json).forEach(stage -> stages.add(stage.asDocument()));
        return stages;
    }

    static ViewShape shape(String json) {
        return ShapeAnalysis.analyze(pipeline(json), "orders");
    }

    // ---- per document

    @Test
    void anEmptyPipelineIsPerDocumentKeyedByTheSourceId() {
        ViewShape shape = shape("[]");

        assertThat(shape.kind()).isEqualTo(Kind.PER_DOCUMENT);
        assertThat(shape.keyPaths()).containsExactly("_id");
        assertThat(shape.keyIsInDocumentId()).isTrue();
        assertThat(shape.fullReason()).isNull();
    }

    @Test
    void perDocumentStagesThatLeaveTheIdAloneKeepTheSourceId() {
        ViewShape shape = shape("""
                [{$match: {qty: {$gt: 1}, $expr: {$gt: ['$qty', '$min']}}},
                 {$addFields: {total: {$multiply: ['$qty', '$price']}}},
                 {$set: {'a.b': 1}}, {$unset: ['price', 'secret.x']},
                 {$project: {total: 1, customer: 1}}, {$project: {secret: 0}},
                 {$sort: {total: -1}}]""");

        assertThat(shape.kind()).isEqualTo(Kind.PER_DOCUMENT);
        assertThat(shape.keyPaths()).containsExactly("_id");
    }

    @Test
    void anIdSetFromAPlainFieldIsKeyedByThatField() {
        assertThat(shape("[{$project: {_id: '$sku', qty: 1}}]").keyPaths()).containsExactly("sku");
        assertThat(shape("[{$addFields: {_id: '$sku'}}]").keyPaths()).containsExactly("sku");
        assertThat(shape("[{$set: {_id: '$item.sku'}}]").keyPaths()).containsExactly("item.sku");
        // followed back through a rename
        assertThat(shape("[{$addFields: {s: '$sku'}}, {$project: {_id: '$s'}}]").keyPaths()).containsExactly("sku");
        assertThat(shape("[{$project: {_id: '$sku'}}]").keyIsInDocumentId()).isFalse();
    }

    @Test
    void aReplacedRootIsFollowedBack() {
        assertThat(shape("[{$replaceRoot: {newRoot: '$order'}}]").keyPaths()).containsExactly("order._id");
        assertThat(shape("[{$replaceWith: {_id: '$sku', n: {$add: ['$a', 1]}}}]").keyPaths()).containsExactly("sku");
        assertThat(shape("[{$replaceRoot: {newRoot: {_id: '$_id', n: 1}}}]").keyPaths()).containsExactly("_id");
    }

    // ---- group by

    @Test
    void aGroupByAFieldPathIsKeyedByThatPath() {
        ViewShape shape = shape("""
                [{$match: {status: 'paid'}}, {$addFields: {total: {$multiply: ['$qty', '$price']}}},
                 {$group: {_id: '$customer', total: {$sum: '$total'}, n: {$sum: 1}}},
                 {$match: {total: {$gt: 10}}}, {$addFields: {big: {$gt: ['$total', 100]}}},
                 {$project: {n: 0}}, {$unset: 'big'}, {$sort: {total: -1}}]""");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.keyPaths()).containsExactly("customer");
        assertThat(shape.keyNames()).isEmpty();
        assertThat(shape.isCompoundKey()).isFalse();
    }

    @Test
    void aGroupByADocumentOfFieldPathsIsKeyedByEachPath() {
        ViewShape shape = shape("[{$group: {_id: {c: '$customer', r: '$address.region'}, n: {$sum: 1}}}]");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.keyPaths()).containsExactly("customer", "address.region");
        assertThat(shape.keyNames()).containsExactly("c", "r");
        assertThat(shape.isCompoundKey()).isTrue();
    }

    @Test
    void aKeyCopiedBeforeTheGroupIsFollowedBackToTheSource() {
        assertThat(shape("[{$project: {c: '$customer', qty: 1}}, {$group: {_id: '$c', q: {$sum: '$qty'}}}]").keyPaths())
            .containsExactly("customer");
        assertThat(shape("[{$addFields: {c: '$customer'}}, {$group: {_id: '$c.name'}}]").keyPaths())
            .containsExactly("customer.name");
        assertThat(shape("[{$replaceRoot: {newRoot: '$order'}}, {$group: {_id: '$customer'}}]").keyPaths())
            .containsExactly("order.customer");
        assertThat(shape("[{$project: {customer: 1}}, {$group: {_id: '$customer.name'}}]").keyPaths())
            .containsExactly("customer.name");
    }

    @Test
    void anUnwindOfAnotherPathBeforeTheGroupKeepsTheKey() {
        ViewShape shape = shape("[{$unwind: {path: '$lines', includeArrayIndex: 'i'}}, {$group: {_id: '$customer', "
                + "q: {$sum: '$lines.qty'}}}]");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.keyPaths()).containsExactly("customer");
    }

    @Test
    void sortByCountOfAFieldPathIsAGroup() {
        ViewShape shape = shape("[{$sortByCount: '$region'}]");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.keyPaths()).containsExactly("region");
    }

    @Test
    void aGroupByTheSourceIdIsKnownFromTheDocumentId() {
        assertThat(shape("[{$group: {_id: '$_id', n: {$sum: 1}}}]").keyIsInDocumentId()).isTrue();
        assertThat(shape("[{$group: {_id: {a: '$_id.a', b: '$_id.b'}}}]").keyIsInDocumentId()).isTrue();
        assertThat(shape("[{$group: {_id: {a: '$_id.a', b: '$b'}}}]").keyIsInDocumentId()).isFalse();
    }

    @Test
    void aRowIdKeptByAReplacedRootAfterTheGroupKeepsTheShape() {
        ViewShape shape = shape("[{$group: {_id: '$c', n: {$sum: 1}}}, {$replaceWith: {_id: '$_id', count: '$n'}}]");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
    }

    // ---- lookups

    @Test
    void aLookupBeforeAGroupLinksTheForeignFieldToTheLocalSourcePath() {
        ViewShape shape = shape("""
                [{$addFields: {p: '$product'}},
                 {$lookup: {from: 'products', localField: 'p', foreignField: 'sku', as: 'item'}},
                 {$unwind: {path: '$item', preserveNullAndEmptyArrays: true}},
                 {$group: {_id: '$customer', cats: {$addToSet: '$item.category'}}}]""");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.lookups()).containsExactly(new LookupLink("products", "sku", "product", 1));
    }

    @Test
    void aLookupOfAPerDocumentViewLinksToTheLocalField() {
        ViewShape shape = shape("[{$lookup: {from: 'products', localField: 'product', foreignField: '_id', as: 'p'}}, "
                + "{$project: {product: 1, category: '$p.category'}}]");

        assertThat(shape.kind()).isEqualTo(Kind.PER_DOCUMENT);
        assertThat(shape.keyPaths()).containsExactly("_id");
        assertThat(shape.lookups()).containsExactly(new LookupLink("products", "_id", "product", 0));
    }

    @Test
    void aLookupAfterTheGroupOnTheRowIdLinksToTheKeyPath() {
        ViewShape single = shape("[{$group: {_id: '$product', q: {$sum: '$qty'}}}, "
                + "{$lookup: {from: 'products', localField: '_id', foreignField: 'sku', as: 'p'}}]");
        ViewShape part = shape("[{$group: {_id: {p: '$product', c: '$customer'}}}, "
                + "{$lookup: {from: 'products', localField: '_id.p', foreignField: 'sku', as: 'p'}}]");

        assertThat(single.lookups()).containsExactly(new LookupLink("products", "sku", "product", 1));
        assertThat(part.lookups()).containsExactly(new LookupLink("products", "sku", "product", 1));
    }

    @Test
    void aLookupOfUnwoundElementsLinksToThePathInTheArray() {
        ViewShape shape = shape("[{$unwind: '$lines'}, {$lookup: {from: 'products', localField: 'lines.sku', "
                + "foreignField: 'sku', as: 'p'}}, {$group: {_id: '$customer', q: {$sum: '$lines.qty'}}}]");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(shape.keyPaths()).containsExactly("customer");
        assertThat(shape.lookups()).containsExactly(new LookupLink("products", "sku", "lines.sku", 1));
    }

    @Test
    void aSelfLookupIsALinkToo() {
        ViewShape shape = shape("[{$lookup: {from: 'orders', localField: 'parent', foreignField: '_id', as: 'up'}}]");

        assertThat(shape.lookups()).containsExactly(new LookupLink("orders", "_id", "parent", 0));
    }

    // ---- full

    static Stream<Arguments> fullPipelines() {
        return Stream.of(
                full("[{$limit: 10}]", "pipeline[0] ($limit) keeps a number of documents"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$sort: {n: -1}}, {$limit: 10}]",
                        "pipeline[2] ($limit) keeps a number of documents"),
                full("[{$skip: 1}, {$group: {_id: '$c'}}]", "pipeline[0] ($skip) skips a number of documents"),
                full("[{$sample: {size: 3}}]", "pipeline[0] ($sample) picks documents at random"),
                full("[{$sort: {at: 1}}, {$group: {_id: '$c', first: {$first: '$x'}}}]",
                        "pipeline[0] ($sort) comes before the $group"),
                full("[{$count: 'n'}]", "pipeline[0] ($count) counts the whole input"),
                full("[{$facet: {a: [{$match: {}}]}}]", "pipeline[0] ($facet) its sub-pipelines see the whole input"),
                full("[{$bucket: {groupBy: '$x', boundaries: [0, 10]}}]", "pipeline[0] ($bucket) groups by ranges"),
                full("[{$bucketAuto: {groupBy: '$x', buckets: 3}}]", "pipeline[0] ($bucketAuto)"),
                full("[{$setWindowFields: {sortBy: {a: 1}, output: {s: {$sum: '$x'}}}}]",
                        "pipeline[0] ($setWindowFields) its windows span several documents"),
                full("[{$unionWith: 'other'}]", "pipeline[0] ($unionWith) adds the documents of another collection"),
                full("[{$graphLookup: {from: 'o', startWith: '$a', connectFromField: 'a', connectToField: 'b', as: 'g'}}]",
                        "pipeline[0] ($graphLookup)"),
                full("[{$densify: {field: 'x', range: {step: 1, bounds: 'full'}}}]", "pipeline[0] ($densify)"),
                full("[{$fill: {output: {x: {value: 0}}}}]", "pipeline[0] ($fill)"),
                full("[{$geoNear: {near: [0, 0], distanceField: 'd'}}]", "pipeline[0] ($geoNear)"),
                full("[{$redact: '$$KEEP'}]", "pipeline[0] ($redact)"),
                full("[{$match: {$text: {$search: 'x'}}}]", "pipeline[0] ($match) uses $text"),
                full("[{$search: {text: {query: 'x', path: 'a'}}}]",
                        "pipeline[0] ($search) is not a stage this analysis knows to be per-document"),
                full("[{$group: {_id: '$c'}}, {$myStage: {}}]",
                        "pipeline[1] ($myStage) is not a stage this analysis knows to be per-row"),
                // group keys
                full("[{$group: {_id: {$toUpper: '$c'}}}]", "the $group _id of pipeline[0] is computed: {\"$toUpper\": \"$c\"}"),
                full("[{$group: {_id: {c: {$toUpper: '$c'}}}}]",
                        "the $group _id of pipeline[0] is computed: its part 'c' is {\"$toUpper\": \"$c\"}"),
                full("[{$group: {_id: {c: {d: '$c'}}}}]", "its part 'c' is {\"d\": \"$c\"}, not a field path"),
                full("[{$group: {_id: null, n: {$sum: 1}}}]",
                        "the $group _id of pipeline[0] is the constant null: every change affects the one row"),
                full("[{$group: {_id: 'all'}}]", "is the constant \"all\""),
                full("[{$group: {_id: '$$ROOT'}}]", "the $group _id of pipeline[0] is computed: \"$$ROOT\""),
                full("[{$group: {n: {$sum: 1}}}]", "pipeline[0] ($group) has no _id"),
                full("[{$group: {_id: '$c'}}, {$group: {_id: '$n'}}]", "pipeline[1] ($group) is a second $group"),
                full("[{$sortByCount: {$toUpper: '$c'}}]", "is computed"),
                // key paths broken before the group
                full("[{$addFields: {c: {$toUpper: '$c'}}}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is computed by pipeline[0] ($addFields): 'c' is set to {\"$toUpper\": \"$c\"}"),
                full("[{$set: {c: 'x'}}, {$group: {_id: '$c'}}]", "is computed by pipeline[0] ($set): 'c' is set to \"x\""),
                full("[{$set: {'c.n': 1}}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is changed by pipeline[0] ($set), which sets 'c.n'"),
                full("[{$unset: 'c.n'}, {$group: {_id: '$c'}}]", "the $group key '$c' is removed by pipeline[0] ($unset)"),
                full("[{$project: {c: 0}}, {$group: {_id: '$c'}}]", "the $group key '$c' is removed by pipeline[0] ($project)"),
                full("[{$project: {x: 1}}, {$group: {_id: '$c'}}]", "the $group key '$c' is not kept by pipeline[0] ($project)"),
                full("[{$project: {'c.n': 1}}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is kept only in part ('c.n') by pipeline[0] ($project)"),
                full("[{$project: {c: {$concat: ['$a', '$b']}}}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is computed by pipeline[0] ($project)"),
                full("[{$unwind: '$c'}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is unwound by pipeline[0] ($unwind) (it unwinds 'c')"),
                full("[{$unwind: '$c.items'}, {$group: {_id: '$c'}}]", "is unwound by pipeline[0] ($unwind)"),
                full("[{$unwind: {path: '$x', includeArrayIndex: 'c'}}, {$group: {_id: '$c'}}]",
                        "is overwritten by the includeArrayIndex of pipeline[0] ($unwind)"),
                full("[{$replaceRoot: {newRoot: {x: '$x'}}}, {$group: {_id: '$c'}}]",
                        "the $group key '$c' is not in the new root of pipeline[0] ($replaceRoot)"),
                full("[{$replaceWith: {$mergeObjects: ['$$ROOT', '$extra']}}, {$group: {_id: '$c'}}]",
                        "is replaced by the computed root of pipeline[0] ($replaceWith)"),
                full("[{$lookup: {from: 'c', localField: 'cid', foreignField: '_id', as: 'cust'}}, "
                        + "{$group: {_id: '$cust.region'}}]",
                        "the $group key '$cust.region' comes from, or is overwritten by, the documents pipeline[0] "
                                + "($lookup) joins from 'c'"),
                // the row _id broken
                full("[{$project: {_id: 0, a: 1}}]", "the row _id is removed by pipeline[0] ($project)"),
                full("[{$project: {_id: {$concat: ['$a', '$b']}}}]", "the row _id is computed by pipeline[0] ($project)"),
                full("[{$addFields: {_id: '$$ROOT.sku'}}]", "the row _id is computed by pipeline[0] ($addFields)"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$project: {_id: '$n'}}]",
                        "the row _id is taken from the field 'n' of the rows of pipeline[0], not from the $group _id"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$project: {_id: {$toString: '$n'}}}]",
                        "the row _id is computed by pipeline[1] ($project)"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$unset: '_id'}]", "the row _id is removed by pipeline[1] ($unset)"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$set: {'_id.x': 1}}]", "which sets '_id.x'"),
                full("[{$group: {_id: {a: '$a', b: '$b'}}}, {$project: {_id: '$_id.a'}}]",
                        "the row _id is taken from _id.a, a part of the $group _id of pipeline[0]"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$lookup: {from: 'x', localField: 'n', foreignField: 'a', "
                        + "as: '_id'}}]", "the row _id comes from, or is overwritten by"),
                // unwind where rows have one _id
                full("[{$unwind: '$lines'}]", "pipeline[0] ($unwind) gives several rows per source document"),
                full("[{$group: {_id: '$c', l: {$push: '$l'}}}, {$unwind: '$l'}]",
                        "pipeline[1] ($unwind) comes after the $group: it gives several rows with one _id"),
                // lookups
                full("[{$lookup: {from: 'p', let: {s: '$sku'}, pipeline: [{$match: {$expr: {$eq: ['$sku', '$$s']}}}], "
                        + "as: 'p'}}]", "pipeline[0] ($lookup) has a pipeline"),
                full("[{$lookup: {from: 'p', localField: 'a', foreignField: 'b.c', as: 'p'}}]",
                        "pipeline[0] ($lookup) has the dotted foreignField 'b.c'"),
                full("[{$lookup: {from: 'p', localField: 'a', as: 'p'}}]",
                        "pipeline[0] ($lookup) needs from, localField, foreignField and as"),
                full("[{$addFields: {a: {$toUpper: '$a'}}}, {$lookup: {from: 'p', localField: 'a', foreignField: 'b', "
                        + "as: 'p'}}]", "the localField 'a' of pipeline[1] ($lookup) is computed by pipeline[0] ($addFields)"),
                full("[{$group: {_id: '$c', n: {$sum: 1}}}, {$lookup: {from: 'p', localField: 'n', foreignField: 'b', "
                        + "as: 'p'}}]", "is the row field 'n', not the row _id or a named part of it"),
                full("[{$group: {_id: {a: '$a', b: '$b'}}}, {$lookup: {from: 'p', localField: '_id', foreignField: 'b', "
                        + "as: 'p'}}]", "is the whole compound row _id"),
                full("[{$unwind: {path: '$lines', includeArrayIndex: 'i'}}, {$lookup: {from: 'p', localField: 'i', "
                        + "foreignField: 'b', as: 'p'}}, {$group: {_id: '$c'}}]",
                        "the localField 'i' of pipeline[1] ($lookup) is overwritten by the includeArrayIndex"),
                full("[{$unwind: '$a.lines'}, {$lookup: {from: 'p', localField: 'a', foreignField: 'b', as: 'p'}}, "
                        + "{$group: {_id: '$c'}}]", "the localField 'a' of pipeline[1] ($lookup) is unwound"),
                // time and randomness
                full("[{$addFields: {at: '$$NOW'}}]", "pipeline[0] ($addFields) reads $$NOW"),
                full("[{$match: {$expr: {$lt: ['$t', '$$CLUSTER_TIME']}}}]", "reads $$CLUSTER_TIME"),
                full("[{$group: {_id: '$c', r: {$max: {$rand: {}}}}}]", "pipeline[0] ($group) uses $rand"),
                full("[{$match: {$sampleRate: 0.5}}]", "uses $sampleRate"),
                full("[{$match: {$where: 'this.a > 1'}}]", "uses $where, which runs JavaScript"),
                full("[{$addFields: {x: {$function: {body: 'function() {return 1}', args: [], lang: 'js'}}}}]",
                        "uses $function"),
                full("[{$match: {}, $limit: 1}]", "pipeline[0] is not a document with one stage operator"));
    }

    private static Arguments full(String pipeline, String reason) {
        return Arguments.of(pipeline, reason);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fullPipelines")
    void everythingElseIsFullWithAReasonNamingTheStage(String pipeline, String reason) {
        ViewShape shape = shape(pipeline);

        assertThat(shape.kind()).isEqualTo(Kind.FULL);
        assertThat(shape.isIncremental()).isFalse();
        assertThat(shape.fullReason()).contains(reason);
        assertThat(shape.keyPaths()).isEmpty();
        assertThat(shape.lookups()).isEmpty();
    }

    @Test
    void theAnalysisNeverChangesThePipeline() {
        List<BsonDocument> stages = pipeline("[{$project: {c: '$customer'}}, {$group: {_id: '$c'}}]");
        List<BsonDocument> copy = new ArrayList<>();
        stages.forEach(stage -> copy.add(stage.clone()));

        ViewShape shape = ShapeAnalysis.analyze(stages, "orders");
        shape.pipeline().get(0).put("$limit", new org.bson.BsonInt32(1));

        assertThat(stages).isEqualTo(copy);
        assertThat(shape.pipeline()).isEqualTo(copy);
    }

    // ---- the declaration

    private static final ViewDefinitionParser PARSER = new ViewDefinitionParser("_part", "_aggregations");

    private static ViewDefinition view(String pipeline, String incremental) throws InvalidViewException {
        BsonDocument document = BsonDocument.parse("{_id: 'revenue', _part: 'acme', collections: ['orders'], "
                + "targetCollection: 'out', pipeline: " + pipeline + (incremental == null ? "" : ", incremental: "
                        + incremental) + "}");
        return PARSER.parse(document);
    }

    @Test
    void aDeclaredKeyThatIsTheProvedKeyIsAccepted() throws InvalidViewException {
        ViewShape shape = ShapeAnalysis.of(view("[{$group: {_id: '$customer'}}]", "{key: 'customer'}"));
        ViewShape compound = ShapeAnalysis.of(view("[{$group: {_id: {c: '$customer', r: '$region'}}}]",
                "{key: ['region', 'customer']}"));

        assertThat(shape.keyPaths()).containsExactly("customer");
        assertThat(compound.keyPaths()).containsExactly("customer", "region");
    }

    @Test
    void noDeclarationLeavesItToTheAnalysis() throws InvalidViewException {
        assertThat(ShapeAnalysis.of(view("[{$group: {_id: '$customer'}}]", null)).kind()).isEqualTo(Kind.GROUP_BY);
        assertThat(ShapeAnalysis.of(view("[{$limit: 1}]", null)).kind()).isEqualTo(Kind.FULL);
    }

    @Test
    void falseTurnsItOff() throws InvalidViewException {
        ViewShape shape = ShapeAnalysis.of(view("[{$group: {_id: '$customer'}}]", "false"));

        assertThat(shape.kind()).isEqualTo(Kind.FULL);
        assertThat(shape.fullReason()).isEqualTo("incremental: false in the view document");
    }

    @Test
    void aDeclaredKeyThatIsNotTheProvedKeyMakesTheViewInvalid() {
        assertThatThrownBy(() -> ShapeAnalysis.of(view("[{$group: {_id: '$customer'}}]", "{key: 'region'}")))
            .isInstanceOf(InvalidViewException.class)
            .hasMessage("incremental.key [region] is not the key of view acme/revenue: its rows are keyed by "
                    + "[customer] (the source field paths behind the $group _id); declare incremental: "
                    + "{key: 'customer'}, or incremental: false");
        assertThatThrownBy(() -> ShapeAnalysis.of(view("[{$project: {_id: '$sku'}}]", "{key: '_id'}")))
            .isInstanceOf(InvalidViewException.class)
            .hasMessageContaining("its rows are keyed by [sku] (the source field path behind the row _id)");
        assertThatThrownBy(() -> ShapeAnalysis.of(view("[{$group: {_id: {c: '$customer', r: '$region'}}}]",
                "{key: 'customer'}")))
            .isInstanceOf(InvalidViewException.class)
            .hasMessageContaining("declare incremental: {key: [customer, region]}");
    }

    @Test
    void aDeclaredKeyOfAPipelineThatIsNotIncrementalMakesTheViewInvalid() {
        assertThatThrownBy(() -> ShapeAnalysis.of(view("[{$group: {_id: '$customer'}}, {$limit: 3}]",
                "{key: 'customer'}")))
            .isInstanceOf(InvalidViewException.class)
            .hasMessage("incremental.key [customer] cannot be used: the pipeline of view acme/revenue is not "
                    + "incremental (pipeline[1] ($limit) keeps a number of documents: which ones depends on all the "
                    + "others, not on a key); remove incremental.key, or set incremental: false");
    }

    @Test
    void theDeclarationCanBeAppliedToAPipelineDirectly() throws InvalidViewException {
        ViewShape shape = ShapeAnalysis.analyze(pipeline("[{$group: {_id: '$c'}}]"), "orders",
                IncrementalDeclaration.key(List.of("c")), "acme/v");

        assertThat(shape.kind()).isEqualTo(Kind.GROUP_BY);
    }
}
