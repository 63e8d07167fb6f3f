package dev.materializer.core.guard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.materializer.core.Generation;
import java.util.function.Supplier;

import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

import dev.materializer.core.testing.Gen;
import dev.materializer.core.testing.Seeds;
import dev.materializer.core.testing.Weighted;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Pipelines generated from a grammar of stages, nested up to three deep, reading collections from a
 * pool where some are not readable; the guarded result is checked by walkers written apart from the
 * guard.
 */
class ScopeGuardPropertiesTest {

    private static final List<String> READABLE = List.of("orders", "customers", "rates");
    private static final List<String> UNREADABLE = List.of("secrets", "audit");
    /** No source is a view's target here: every read gets the same scope, which the checks look for. */
    private static final Map<String, Generation> GENERATIONS = Map.of();
    private static final BsonDocument SCOPE = BsonDocument.parse(
            "{_part: 'p7', _viewTo: {$exists: false}, _viewGen: {$exists: false}}");
    private static final int DEPTH = 3;
    private static final int CASES = 500;

    private final ScopeGuard guard = new ScopeGuard("_part");

    @Test
    void aPipelineIsRefusedExactlyWhenItWritesOrReadsOutsideElseEveryReadIsScoped() {
        Seeds.check(CASES, gen -> {
            List<BsonDocument> pipeline = new Grammar(gen, true).topLevel();
            boolean mustBeRefused = InputInspector.mustBeRefused(pipeline, READABLE);
            List<BsonDocument> before = pipeline.stream().map(BsonDocument::clone).toList();

            Throwable thrown = catchThrowable(() -> guard.scope(pipeline, "p7", READABLE, "orders", GENERATIONS));

            if (mustBeRefused) {
                assertThat(thrown).as("guarding %s", pipeline).isInstanceOf(ScopeViolationException.class)
                        .hasMessageStartingWith("pipeline[");
            } else {
                assertThat(thrown).as("guarding %s", pipeline).isNull();
            }
            assertThat(pipeline).isEqualTo(before);
        });
    }

    @Test
    void thePipelinesOfThePropertyAboveAreRefusedInSomeCasesAndScopedInOthers() {
        // Seed by seed the same pipelines it draws: with too few of either kind it would prove little.
        long all = Seeds.forCoverage(CASES).count();
        long refused = Seeds.forCoverage(CASES)
                .filter(seed -> InputInspector.mustBeRefused(new Grammar(new Gen(seed), true).topLevel(), READABLE))
                .count();

        assertThat(100.0 * refused / all).as("percent refused").isBetween(20.0, 80.0);
    }

    @Test
    void aGuardedPipelineReadsOnlyReadableCollectionsEachScopedAndNeverWrites() {
        Seeds.check(CASES, gen -> {
            List<BsonDocument> pipeline = new Grammar(gen, false).topLevel();

            List<BsonDocument> guarded = guard.scope(pipeline, "p7", READABLE, "orders", GENERATIONS);

            assertThat(GuardedPipelineChecker.problems(guarded, SCOPE, READABLE)).as("guarding %s", pipeline).isEmpty();
        });
    }

    @Test
    void someReadablePipelinesNestAsDeepAsTheGrammarAllows() {
        // Seed by seed the pipelines the properties over readable pipelines draw: without deep ones,
        // the scoping of nested reads would go unchecked.
        long all = Seeds.forCoverage(CASES).count();
        long deepest = Seeds.forCoverage(CASES)
                .filter(seed -> nesting(new Grammar(new Gen(seed), false).topLevel()) == DEPTH)
                .count();

        assertThat(100.0 * deepest / all).as("percent nested %d deep", DEPTH).isGreaterThanOrEqualTo(5);
    }

    @Test
    void theGuardAddsTheScopeAndChangesNothingElse() {
        Seeds.check(CASES, gen -> {
            List<BsonDocument> pipeline = new Grammar(gen, false).topLevel();

            List<BsonDocument> guarded = guard.scope(pipeline, "p7", READABLE, "orders", GENERATIONS);

            ScopeStripper stripper = new ScopeStripper(SCOPE);
            assertThat(stripper.strip(guarded)).isEqualTo(stripper.normalize(pipeline));
        });
    }

    @Test
    void aViolationPlacedAnywhereInAnAcceptedPipelineIsRefused() {
        Seeds.check(CASES, gen -> {
            List<BsonDocument> violating = Placed.draw(gen).pipeline();

            assertThat(catchThrowable(() -> guard.scope(violating, "p7", READABLE, "orders", GENERATIONS)))
                    .as("guarding %s", violating)
                    .isInstanceOf(ScopeViolationException.class).hasMessageStartingWith("pipeline[");
        });
    }

    @Test
    void theViolationsOfThePropertyAboveAreOftenInSubPipelines() {
        // Seed by seed the cases it draws: violations only at the top would leave nested ones unchecked.
        long all = Seeds.forCoverage(CASES).count();
        long nested = Seeds.forCoverage(CASES).filter(seed -> Placed.draw(new Gen(seed)).inSubPipeline()).count();

        assertThat(100.0 * nested / all).as("percent placed in a sub-pipeline").isGreaterThanOrEqualTo(30);
    }

    @Test
    void theCheckerFindsAReadLeftUnscoped() throws ScopeViolationException {
        List<BsonDocument> guarded = guard.scope(List.of(BsonDocument.parse("{$lookup: {from: 'rates',"
                + " pipeline: [{$unionWith: 'orders'}], as: 'r'}}")), "p7", READABLE, "orders", GENERATIONS);
        BsonArray lookupPipeline = guarded.get(1).getDocument("$lookup").getArray("pipeline");
        lookupPipeline.get(1).asDocument().getDocument("$unionWith").getArray("pipeline").remove(0);

        assertThat(GuardedPipelineChecker.problems(guarded, SCOPE, READABLE)).hasSize(1);
        assertThat(GuardedPipelineChecker.problems(List.of(BsonDocument.parse("{$limit: 1}")), SCOPE, READABLE))
                .hasSize(1);
    }

    @Test
    void theCheckerFindsAWriteAndAnUnreadableCollection() {
        BsonDocument match = new BsonDocument("$match", SCOPE);
        assertThat(GuardedPipelineChecker.problems(List.of(match, BsonDocument.parse("{$facet: {f: [{$out: 'x'}]}}")),
                SCOPE, READABLE)).hasSize(1);
        assertThat(GuardedPipelineChecker.problems(List.of(match, BsonDocument.parse("{$graphLookup: {from: 'secrets',"
                + " restrictSearchWithMatch: {$and: [{a: 1}, " + SCOPE.toJson() + "]}}}")), SCOPE, READABLE)).hasSize(1);
    }

    /**
     * An accepted pipeline with a violation put in any of its pipelines, its sub-pipelines included, at
     * any place.
     * @param pipeline the violating pipeline
     * @param inSubPipeline whether the violation is in a sub-pipeline rather than at the top
     */
    private record Placed(List<BsonDocument> pipeline, boolean inSubPipeline) {

        static Placed draw(Gen gen) {
            BsonArray top = new BsonArray(new ArrayList<>(new Grammar(gen, false).topLevel()));
            BsonDocument violation = violation(gen);
            List<BsonArray> pipelines = new ArrayList<>();
            collectPipelines(top, pipelines);
            BsonArray chosen = gen.oneOf(pipelines);
            chosen.add(gen.between(0, chosen.size()), violation);
            return new Placed(top.stream().map(BsonValue::asDocument).toList(), chosen != top);
        }

        /** A stage refused wherever it is, or a read of a collection that is not readable. */
        private static BsonDocument violation(Gen gen) {
            if (gen.anyBoolean()) {
                return Grammar.refused(gen);
            }
            String coll = gen.oneOf(UNREADABLE);
            return BsonDocument.parse(gen.oneOf(
                    "{$lookup: {from: '" + coll + "', localField: 'k', foreignField: 'k', as: 'j'}}",
                    "{$lookup: {from: '" + coll + "', pipeline: [], as: 'j'}}",
                    "{$unionWith: '" + coll + "'}",
                    "{$unionWith: {coll: '" + coll + "', pipeline: [{$limit: 1}]}}",
                    "{$graphLookup: {from: '" + coll + "', startWith: '$a', connectFromField: 'a', connectToField: 'b',"
                            + " as: 'g'}}"));
        }
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

        private static final Weighted<Integer> SIZES = new Weighted<Integer>().or(1, 0).or(2, 1).or(4, 2).or(8, 3);

        private final Gen gen;
        private final boolean withViolations;

        Grammar(Gen gen, boolean withViolations) {
            this.gen = gen;
            this.withViolations = withViolations;
        }

        List<BsonDocument> topLevel() {
            return readPipeline(DEPTH).stream().map(BsonValue::asDocument).toList();
        }

        /** A pipeline that reads a collection, led by $geoNear one time in six. */
        private BsonArray readPipeline(int depth) {
            BsonArray stages = pipeline(depth);
            if (gen.oneIn(6)) {
                stages.add(0, geoNear());
            }
            return stages;
        }

        /** Up to 3 stages, longer pipelines more often than shorter: most nesting needs several stages. */
        private BsonArray pipeline(int depth) {
            int size = SIZES.pick(gen);
            BsonArray stages = new BsonArray(new ArrayList<>(size));
            for (int i = 0; i < size; i++) {
                stages.add(stage(depth));
            }
            return stages;
        }

        private BsonDocument stage(int depth) {
            Weighted<Supplier<BsonDocument>> choices = new Weighted<Supplier<BsonDocument>>()
                    .or(12, this::leaf)
                    .or(2, this::lookupByFields)
                    .or(1, this::unionWithName)
                    .or(1, this::graphLookup);
            if (depth > 0) {
                choices.or(3, () -> lookupByPipeline(depth - 1))
                        .or(2, () -> unionWithDocument(depth - 1))
                        .or(2, () -> facet(depth - 1));
            }
            if (withViolations) {
                choices.or(2, () -> refused(gen));
            }
            return choices.pick(gen).get();
        }

        /** A readable collection; with violations, an unreadable one time in 21. */
        private String collection() {
            return withViolations && gen.oneIn(21) ? gen.oneOf(UNREADABLE) : gen.oneOf(READABLE);
        }

        private BsonDocument leaf() {
            return BsonDocument.parse(switch (gen.between(0, 4)) {
                case 0 -> "{$match: {k: " + gen.between(1, 9) + "}}";
                case 1 -> "{$project: {'" + gen.oneOf("a", "b.c") + "': 1}}";
                case 2 -> "{$group: {_id: '$k', n: {$sum: 1}}}";
                case 3 -> "{$sort: {a: " + gen.oneOf(1, -1) + "}}";
                default -> "{$limit: " + gen.between(1, 9) + "}";
            });
        }

        private BsonDocument geoNear() {
            int kind = gen.between(0, 3);
            return BsonDocument.parse(kind == 0
                    ? "{$geoNear: {near: [0, 0], distanceField: 'dist'}}"
                    : "{$geoNear: {near: [0, 0], distanceField: 'dist', query: {kind: " + kind + "}}}");
        }

        private BsonDocument lookupByFields() {
            return BsonDocument.parse(
                    "{$lookup: {from: '" + collection() + "', localField: 'k', foreignField: 'k', as: 'joined'}}");
        }

        private BsonDocument lookupByPipeline(int depth) {
            BsonDocument lookup = new BsonDocument("from", new BsonString(collection()));
            BsonArray pipeline = readPipeline(depth);
            if (gen.anyBoolean()) {
                lookup.append("localField", new BsonString("k")).append("foreignField", new BsonString("k"));
            } else {
                lookup.append("let", BsonDocument.parse("{k: '$k'}"));
            }
            lookup.append("pipeline", pipeline).append("as", new BsonString("joined"));
            return new BsonDocument("$lookup", lookup);
        }

        private BsonDocument unionWithName() {
            return new BsonDocument("$unionWith", new BsonString(collection()));
        }

        /** A $unionWith of a collection, with a pipeline four times in five. */
        private BsonDocument unionWithDocument(int depth) {
            BsonDocument unionWith = new BsonDocument("coll", new BsonString(collection()));
            if (!gen.oneIn(5)) {
                unionWith.append("pipeline", readPipeline(depth));
            }
            return new BsonDocument("$unionWith", unionWith);
        }

        /** A $graphLookup, restricted by a match half the time. */
        private BsonDocument graphLookup() {
            String from = collection();
            @Nullable Boolean active = gen.anyBoolean() ? null : gen.anyBoolean();
            return BsonDocument.parse("{$graphLookup: {from: '" + from + "', startWith: '$ref',"
                    + " connectFromField: 'ref', connectToField: '_id', as: 'chain'"
                    + (active == null ? "" : ", restrictSearchWithMatch: {active: " + active + "}") + "}}");
        }

        private BsonDocument facet(int depth) {
            List<BsonArray> outputs = gen.listOf(1, 3, () -> pipeline(depth));
            BsonDocument facet = new BsonDocument();
            for (int i = 0; i < outputs.size(); i++) {
                facet.put("out" + i, outputs.get(i));
            }
            return new BsonDocument("$facet", facet);
        }

        /** A stage refused at any depth: a write (most often), another refused stage, or a malformed one. */
        static BsonDocument refused(Gen gen) {
            if (gen.oneIn(5)) {
                return BsonDocument.parse(gen.oneOf("{$match: {}, $limit: 1}", "{match: {}}", "{}"));
            }
            String name = gen.between(1, 5) <= 3 ? gen.oneOf("$merge", "$out")
                    : gen.oneOf(InputInspector.REFUSED.stream().sorted().toList());
            return new BsonDocument(name, new BsonDocument());
        }
    }
}
