package dev.materializer.core.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.ObjectId;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.statistics.Statistics;

/**
 * Pipelines generated from a grammar of stages, nested up to three deep, reading collections from a
 * pool where some are not readable; the guarded result is checked by walkers written apart from the
 * guard.
 */
class ScopeGuardPropertiesTest {

    private static final List<String> READABLE = List.of("orders", "customers", "rates");
    private static final List<String> UNREADABLE = List.of("secrets", "audit");
    private static final List<ObjectId> GENERATIONS =
            List.of(new ObjectId("65b000000000000000000001"), new ObjectId("65b000000000000000000002"));
    private static final BsonDocument SCOPE = BsonDocument.parse("{_part: 'p7', $or: [{_viewGen: {$exists: false}},"
            + " {_viewGen: {$in: [{$oid: '65b000000000000000000001'}, {$oid: '65b000000000000000000002'}]}}]}");
    private static final int DEPTH = 3;

    private final ScopeGuard guard = new ScopeGuard("_part");

    @Property(tries = 500)
    void aPipelineIsRefusedExactlyWhenItWritesOrReadsOutsideElseEveryReadIsScoped(
            @ForAll("anyPipeline") List<BsonDocument> pipeline) {
        boolean mustBeRefused = InputInspector.mustBeRefused(pipeline, READABLE);
        List<BsonDocument> before = pipeline.stream().map(BsonDocument::clone).toList();

        Throwable thrown = catchThrowable(() -> guard.scope(pipeline, "p7", READABLE, GENERATIONS));

        if (mustBeRefused) {
            assertThat(thrown).isInstanceOf(ScopeViolationException.class).hasMessageStartingWith("pipeline[");
        } else {
            assertThat(thrown).isNull();
        }
        assertThat(pipeline).isEqualTo(before);
        Statistics.label("outcome").collect(mustBeRefused ? "refused" : "scoped");
        Statistics.label("outcome").coverage(coverage -> {
            coverage.check("refused").percentage(p -> p >= 20);
            coverage.check("scoped").percentage(p -> p >= 20);
        });
    }

    @Property(tries = 500)
    void aGuardedPipelineReadsOnlyReadableCollectionsEachScopedAndNeverWrites(
            @ForAll("readablePipeline") List<BsonDocument> pipeline) throws ScopeViolationException {
        List<BsonDocument> guarded = guard.scope(pipeline, "p7", READABLE, GENERATIONS);

        assertThat(GuardedPipelineChecker.problems(guarded, SCOPE, READABLE)).isEmpty();
        Statistics.label("nesting").collect(nesting(pipeline));
        Statistics.label("nesting").coverage(coverage -> coverage.check(DEPTH).percentage(p -> p >= 5));
    }

    @Property(tries = 500)
    void theGuardAddsTheScopeAndChangesNothingElse(@ForAll("readablePipeline") List<BsonDocument> pipeline)
            throws ScopeViolationException {
        List<BsonDocument> guarded = guard.scope(pipeline, "p7", READABLE, GENERATIONS);

        ScopeStripper stripper = new ScopeStripper(SCOPE);
        assertThat(stripper.strip(guarded)).isEqualTo(stripper.normalize(pipeline));
    }

    @Property(tries = 500)
    void aViolationPlacedAnywhereInAnAcceptedPipelineIsRefused(@ForAll("readablePipeline") List<BsonDocument> pipeline,
            @ForAll("violation") BsonDocument violation, @ForAll @IntRange(max = 10_000) int where) {
        List<BsonArray> pipelines = new ArrayList<>();
        BsonArray top = new BsonArray(pipeline.stream().map(stage -> (BsonValue) stage.clone()).toList());
        collectPipelines(top, pipelines);
        BsonArray chosen = pipelines.get(where % pipelines.size());
        chosen.add(where % (chosen.size() + 1), violation);
        List<BsonDocument> violating = top.stream().map(BsonValue::asDocument).toList();

        assertThat(catchThrowable(() -> guard.scope(violating, "p7", READABLE, GENERATIONS)))
                .isInstanceOf(ScopeViolationException.class).hasMessageStartingWith("pipeline[");
        Statistics.label("placed in a sub-pipeline").collect(chosen != top);
        Statistics.label("placed in a sub-pipeline").coverage(coverage -> coverage.check(true).percentage(p -> p >= 30));
    }

    @Example
    void theCheckerFindsAReadLeftUnscoped() throws ScopeViolationException {
        List<BsonDocument> guarded = guard.scope(List.of(BsonDocument.parse("{$lookup: {from: 'rates',"
                + " pipeline: [{$unionWith: 'orders'}], as: 'r'}}")), "p7", READABLE, GENERATIONS);
        BsonArray lookupPipeline = guarded.get(1).getDocument("$lookup").getArray("pipeline");
        lookupPipeline.get(1).asDocument().getDocument("$unionWith").getArray("pipeline").remove(0);

        assertThat(GuardedPipelineChecker.problems(guarded, SCOPE, READABLE)).hasSize(1);
        assertThat(GuardedPipelineChecker.problems(List.of(BsonDocument.parse("{$limit: 1}")), SCOPE, READABLE))
                .hasSize(1);
    }

    @Example
    void theCheckerFindsAWriteAndAnUnreadableCollection() {
        BsonDocument match = new BsonDocument("$match", SCOPE);
        assertThat(GuardedPipelineChecker.problems(List.of(match, BsonDocument.parse("{$facet: {f: [{$out: 'x'}]}}")),
                SCOPE, READABLE)).hasSize(1);
        assertThat(GuardedPipelineChecker.problems(List.of(match, BsonDocument.parse("{$graphLookup: {from: 'secrets',"
                + " restrictSearchWithMatch: {$and: [{a: 1}, " + SCOPE.toJson() + "]}}}")), SCOPE, READABLE)).hasSize(1);
    }

    @Provide
    Arbitrary<BsonDocument> violation() {
        Arbitrary<BsonDocument> unreadableRead = Arbitraries.of(UNREADABLE).flatMap(coll -> Arbitraries.of(
                "{$lookup: {from: '" + coll + "', localField: 'k', foreignField: 'k', as: 'j'}}",
                "{$lookup: {from: '" + coll + "', pipeline: [], as: 'j'}}",
                "{$unionWith: '" + coll + "'}",
                "{$unionWith: {coll: '" + coll + "', pipeline: [{$limit: 1}]}}",
                "{$graphLookup: {from: '" + coll + "', startWith: '$a', connectFromField: 'a', connectToField: 'b',"
                        + " as: 'g'}}").map(BsonDocument::parse));
        return Arbitraries.oneOf(Grammar.refused(), unreadableRead);
    }

    @Provide
    Arbitrary<List<BsonDocument>> anyPipeline() {
        return new Grammar(true).topLevel();
    }

    @Provide
    Arbitrary<List<BsonDocument>> readablePipeline() {
        return new Grammar(false).topLevel();
    }

    /** Every pipeline in the stages, the stages themselves first. */
    private static void collectPipelines(BsonArray stages, List<BsonArray> into) {
        into.add(stages);
        for (BsonValue stage : stages) {
            BsonValue body = stage.asDocument().values().iterator().next();
            if (body.isDocument() && body.asDocument().get("pipeline") instanceof BsonArray pipeline) {
                collectPipelines(pipeline, into);
            }
            if (stage.asDocument().containsKey("$facet")) {
                body.asDocument().values().forEach(output -> collectPipelines(output.asArray(), into));
            }
        }
    }

    /** How deep sub-pipelines nest: 0 for a flat pipeline. */
    private static int nesting(List<? extends BsonValue> stages) {
        int deepest = 0;
        for (BsonValue stage : stages) {
            BsonValue body = stage.asDocument().values().iterator().next();
            List<BsonArray> inner = new ArrayList<>();
            if (body.isDocument() && body.asDocument().containsKey("pipeline")) {
                inner.add(body.asDocument().getArray("pipeline"));
            }
            if (stage.asDocument().containsKey("$facet")) {
                body.asDocument().values().forEach(pipeline -> inner.add(pipeline.asArray()));
            }
            for (BsonArray pipeline : inner) {
                deepest = Math.max(deepest, 1 + nesting(pipeline));
            }
        }
        return deepest;
    }

    /** The stages a pipeline is made of; with violations, some stages are refused or read unreadable collections. */
    private static final class Grammar {

        private final boolean withViolations;
        private final List<Arbitrary<BsonDocument>> stagesByDepth = new ArrayList<>();

        Grammar(boolean withViolations) {
            this.withViolations = withViolations;
            for (int depth = 0; depth <= DEPTH; depth++) {
                stagesByDepth.add(stage(depth));
            }
        }

        Arbitrary<List<BsonDocument>> topLevel() {
            return readPipeline(DEPTH).map(stages -> stages.stream().map(BsonValue::asDocument).toList());
        }

        /** A pipeline that reads a collection, sometimes led by $geoNear. */
        private Arbitrary<BsonArray> readPipeline(int depth) {
            Arbitrary<BsonArray> plain = pipeline(depth);
            Arbitrary<BsonArray> geo = Combinators.combine(geoNear(), plain).as((first, rest) -> {
                BsonArray stages = rest.clone();
                stages.add(0, first);
                return stages;
            });
            return Arbitraries.frequencyOf(Tuple.of(5, plain), Tuple.of(1, geo));
        }

        private Arbitrary<BsonArray> pipeline(int depth) {
            return stagesByDepth.get(depth).list().ofMaxSize(3).map(stages -> new BsonArray(new ArrayList<>(stages)));
        }

        @SuppressWarnings("unchecked")
        private Arbitrary<BsonDocument> stage(int depth) {
            List<Tuple2<Integer, Arbitrary<BsonDocument>>> choices = new ArrayList<>();
            choices.add(Tuple.of(12, leaf()));
            choices.add(Tuple.of(2, lookupByFields()));
            choices.add(Tuple.of(1, unionWithName()));
            choices.add(Tuple.of(1, graphLookup()));
            if (depth > 0) {
                choices.add(Tuple.of(3, lookupByPipeline(depth - 1)));
                choices.add(Tuple.of(2, unionWithDocument(depth - 1)));
                choices.add(Tuple.of(2, facet(depth - 1)));
            }
            if (withViolations) {
                choices.add(Tuple.of(2, refused()));
            }
            return Arbitraries.frequencyOf(choices.toArray(Tuple2[]::new));
        }

        private Arbitrary<String> collection() {
            Arbitrary<String> readable = Arbitraries.of(READABLE);
            return withViolations ? Arbitraries.frequencyOf(Tuple.of(20, readable), Tuple.of(1, Arbitraries.of(UNREADABLE)))
                    : readable;
        }

        private static Arbitrary<BsonDocument> leaf() {
            Arbitrary<Integer> small = Arbitraries.integers().between(1, 9);
            return Arbitraries.oneOf(
                    small.map(k -> BsonDocument.parse("{$match: {k: " + k + "}}")),
                    Arbitraries.of("a", "b.c").map(field -> BsonDocument.parse("{$project: {'" + field + "': 1}}")),
                    Arbitraries.just(BsonDocument.parse("{$group: {_id: '$k', n: {$sum: 1}}}")),
                    Arbitraries.of(1, -1).map(order -> BsonDocument.parse("{$sort: {a: " + order + "}}")),
                    small.map(n -> BsonDocument.parse("{$limit: " + n + "}")));
        }

        private static Arbitrary<BsonDocument> geoNear() {
            return Arbitraries.integers().between(0, 3).map(kind -> BsonDocument.parse(kind == 0
                    ? "{$geoNear: {near: [0, 0], distanceField: 'dist'}}"
                    : "{$geoNear: {near: [0, 0], distanceField: 'dist', query: {kind: " + kind + "}}}"));
        }

        private Arbitrary<BsonDocument> lookupByFields() {
            return collection().map(from -> BsonDocument.parse(
                    "{$lookup: {from: '" + from + "', localField: 'k', foreignField: 'k', as: 'joined'}}"));
        }

        private Arbitrary<BsonDocument> lookupByPipeline(int depth) {
            return Combinators.combine(collection(), readPipeline(depth), Arbitraries.of(true, false))
                    .as((from, pipeline, byFieldsToo) -> {
                        BsonDocument lookup = new BsonDocument("from", new org.bson.BsonString(from));
                        if (byFieldsToo) {
                            lookup.append("localField", new org.bson.BsonString("k"))
                                    .append("foreignField", new org.bson.BsonString("k"));
                        } else {
                            lookup.append("let", BsonDocument.parse("{k: '$k'}"));
                        }
                        return new BsonDocument("$lookup",
                                lookup.append("pipeline", pipeline).append("as", new org.bson.BsonString("joined")));
                    });
        }

        private Arbitrary<BsonDocument> unionWithName() {
            return collection().map(coll -> new BsonDocument("$unionWith", new org.bson.BsonString(coll)));
        }

        private Arbitrary<BsonDocument> unionWithDocument(int depth) {
            return Combinators.combine(collection(), readPipeline(depth).injectNull(0.2)).as((coll, pipeline) -> {
                BsonDocument unionWith = new BsonDocument("coll", new org.bson.BsonString(coll));
                if (pipeline != null) {
                    unionWith.append("pipeline", pipeline);
                }
                return new BsonDocument("$unionWith", unionWith);
            });
        }

        private Arbitrary<BsonDocument> graphLookup() {
            return Combinators.combine(collection(), Arbitraries.of(true, false).injectNull(0.5)).as((from, active) ->
                    BsonDocument.parse("{$graphLookup: {from: '" + from + "', startWith: '$ref', connectFromField: 'ref',"
                            + " connectToField: '_id', as: 'chain'"
                            + (active == null ? "" : ", restrictSearchWithMatch: {active: " + active + "}") + "}}"));
        }

        private Arbitrary<BsonDocument> facet(int depth) {
            return pipeline(depth).list().ofMinSize(1).ofMaxSize(3).map(outputs -> {
                BsonDocument facet = new BsonDocument();
                for (int i = 0; i < outputs.size(); i++) {
                    facet.put("out" + i, outputs.get(i));
                }
                return new BsonDocument("$facet", facet);
            });
        }

        static Arbitrary<BsonDocument> refused() {
            Arbitrary<BsonDocument> named = Arbitraries.frequencyOf(
                    Tuple.of(3, Arbitraries.of("$merge", "$out")),
                    Tuple.of(2, Arbitraries.of(InputInspector.REFUSED.stream().sorted().toList())))
                    .map(name -> new BsonDocument(name, new BsonDocument()));
            Arbitrary<BsonDocument> malformed = Arbitraries.of("{$match: {}, $limit: 1}", "{match: {}}", "{}")
                    .map(BsonDocument::parse);
            return Arbitraries.frequencyOf(Tuple.of(4, named), Tuple.of(1, malformed));
        }
    }
}
