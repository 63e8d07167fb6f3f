package dev.materializer.core.stream;

import dev.materializer.core.routing.PartitionRouter;
import dev.materializer.core.routing.SourceChange;
import dev.materializer.core.stream.WatchPipeline.Kind;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WatchPipelineTest {

    @Test
    void whereTheServerSplitsLargeEventsEveryStreamSplitsThem() {
        assertThat(WatchPipeline.choose(true, true, "_part")).isEqualTo(Kind.SPLIT);
        assertThat(WatchPipeline.choose(true, false, null)).isEqualTo(Kind.SPLIT);
    }

    @Test
    void elseARoutingStreamIsProjectedWhereTheServerRunsTheProjection() {
        assertThat(WatchPipeline.choose(false, true, "_part")).isEqualTo(Kind.PROJECTED);
        assertThat(WatchPipeline.choose(false, false, "_part")).isEqualTo(Kind.PLAIN);
    }

    @Test
    void aStreamWhoseListenerReadsWholeDocumentsIsNeverProjected() {
        assertThat(WatchPipeline.choose(false, true, null)).isEqualTo(Kind.PLAIN);
    }

    @Test
    void theSplitStageIsTheLastAndOnlyStage() {
        assertThat(WatchPipeline.stages(Kind.SPLIT, "_part")).containsExactly(
                BsonDocument.parse("{$changeStreamSplitLargeEvent: {}}"));
        assertThat(WatchPipeline.stages(Kind.PLAIN, "_part")).isEmpty();
        assertThatThrownBy(() -> WatchPipeline.stages(Kind.PROJECTED, null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theProjectionKeepsWhatRoutingReadsAndNeverTheResumeToken() {
        BsonDocument project = WatchPipeline.stages(Kind.PROJECTED, "tenant").get(0).getDocument("$project");

        assertThat(project.keySet()).contains("operationType", "documentKey", "clusterTime", "wallTime",
                "fullDocument.tenant", "fullDocumentBeforeChange.tenant", "updateDescription.removedFields",
                "updateDescription.truncatedArrays", WatchPipeline.UPDATED_FIELD_NAMES)
            .doesNotContain("_id", "fullDocument", "fullDocumentBeforeChange", "updateDescription.updatedFields");
    }

    @Test
    void aProjectedUpdateRoutesAsTheWholeEventWould() {
        // What a server answers for the projection of an update that moved a document to globex.
        BsonDocument projected = BsonDocument.parse("""
                {_id: {_data: '1'}, operationType: 'update', documentKey: {_id: 'o1'},
                 updateDescription: {removedFields: ['note'], truncatedArrays: []},
                 materializerUpdatedFields: ['_part', 'lines.0.price'],
                 fullDocument: {_part: 'globex'}, fullDocumentBeforeChange: {_part: 'acme'},
                 wallTime: {$date: '2026-01-01T00:00:00Z'}}""");

        SourceChange change = ChangeEvents.toSourceChange(projected);

        assertThat(change.update()).isNotNull();
        assertThat(change.update().updated()).containsExactly("_part", "lines.0.price");
        assertThat(change.update().removed()).containsExactly("note");
        assertThat(new PartitionRouter("_part", java.util.Map.of()).route("orders", change).partitions())
            .containsExactlyInAnyOrder("acme", "globex");
    }

    @Test
    void aProjectedUpdateWithoutADescriptionStillReadsAsUnknown() {
        BsonDocument projected = BsonDocument.parse("""
                {_id: {_data: '1'}, operationType: 'update', documentKey: {_id: 'o1'},
                 materializerUpdatedFields: [], fullDocument: {_part: 'acme'}}""");

        assertThat(ChangeEvents.toSourceChange(projected).update()).isNull();
    }

    @Test
    void aProjectedStreamKeepsThePartitionTheVersionBoundAndTheKeyPathsOfKeyScopedViews() {
        assertThat(WatchPipeline.imagePaths("_part", java.util.Set.of("customer", "customer.name", "lines.sku", "$bad", "")))
            .as("a path under another one goes: the server refuses both").containsExactly("_part", "_viewTo", "customer",
                    "lines.sku");

        org.bson.BsonDocument project = WatchPipeline.projection("_part", java.util.Set.of("customer")).getDocument("$project");

        assertThat(project).containsKeys("fullDocument._part", "fullDocumentBeforeChange._part", "fullDocument._viewTo",
                "fullDocument.customer", "fullDocumentBeforeChange.customer");
    }

    @Test
    void anEventOfAProjectedStreamSaysWhichPathsItsImagesCarry() {
        org.bson.BsonDocument projected = org.bson.BsonDocument.parse("""
                {_id: {_data: 't'}, operationType: 'insert', documentKey: {_id: 1},
                 fullDocument: {_part: 'acme', customer: 'ann'}}""");

        dev.materializer.core.routing.SourceChange change = ChangeEvents.toSourceChange(projected,
                WatchPipeline.imagePaths("_part", java.util.Set.of("customer")));

        assertThat(change.imagesCarry("customer")).isTrue();
        assertThat(change.imagesCarry("customer.name")).as("under a kept path").isTrue();
        assertThat(change.imagesCarry("amount")).as("projected away: unknown, not missing").isFalse();
        assertThat(ChangeEvents.toSourceChange(projected).imagesCarry("amount")).as("whole images").isTrue();
    }

    @Test
    void aProjectionCoversThePathsItKeepsAndThoseUnderThem() {
        java.util.Set<String> carried = WatchPipeline.imagePaths("_part", java.util.Set.of("customer"));

        assertThat(WatchPipeline.covers(carried, WatchPipeline.imagePaths("_part", java.util.Set.of("customer.name"))))
            .isTrue();
        assertThat(WatchPipeline.covers(carried, WatchPipeline.imagePaths("_part", java.util.Set.of()))).isTrue();
        assertThat(WatchPipeline.covers(carried, WatchPipeline.imagePaths("_part", java.util.Set.of("customer", "_id"))))
            .as("a new path").isFalse();
        assertThat(WatchPipeline.covers(WatchPipeline.imagePaths("_part", java.util.Set.of("customer.name")),
                WatchPipeline.imagePaths("_part", java.util.Set.of("customer")))).as("more than it kept").isFalse();
    }
}
