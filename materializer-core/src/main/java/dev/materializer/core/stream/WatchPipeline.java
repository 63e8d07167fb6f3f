package dev.materializer.core.stream;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.core.ViewFilter;
import dev.materializer.core.view.ViewDefinitionParser;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.jspecify.annotations.Nullable;

/**
 * The stages a change stream adds after {@code $changeStream}, so that no event over 16 MB (a
 * large document's post-image with its pre-image, say) can break it:
 * <ul>
 * <li>{@link Kind#SPLIT}: {@code $changeStreamSplitLargeEvent} as the last stage, where the server
 *     offers it (MongoDB 7.0, and 6.0.9); {@link SplitEvents} puts the fragments together.</li>
 * <li>{@link Kind#PROJECTED}: elsewhere, on a stream whose events are only routed, a projection
 *     down to what routing reads: the operation, the document key, the partition field of the
 *     post- and pre-image (and the key paths of key-scoped views reading the collection), the names
 *     (not the values) of the updated fields, the removed fields and
 *     truncated arrays, the times.</li>
 * <li>{@link Kind#PLAIN}: nothing, where neither works or the whole document is needed (the views
 *     stream reads the view documents).</li>
 * </ul>
 * The resume token ({@code _id}) is never touched: a server refuses a pipeline that changes it.
 */
final class WatchPipeline {

    /**
     * The field of a projected event that lists the names of the updated fields. Top-level, so an
     * event without an update description stays without one ("may touch anything").
     */
    static final String UPDATED_FIELD_NAMES = "materializerUpdatedFields";

    /** The stage that splits events over 16 MB into fragments. */
    static final BsonDocument SPLIT_STAGE = new BsonDocument("$changeStreamSplitLargeEvent", new BsonDocument());

    /** The kinds of pipeline. */
    enum Kind {
        /** Large events split into fragments. */
        SPLIT,
        /** Events projected down to what routing reads. */
        PROJECTED,
        /** Events as the server sends them. */
        PLAIN
    }

    private WatchPipeline() {
    }

    /**
     * Chooses the pipeline.
     * @param splitOffered whether the server offers {@code $changeStreamSplitLargeEvent}
     * @param projectionOffered whether the server runs the projection in a change stream
     * @param routingField the partition field when the stream's events are only routed; null when
     *     its listener reads whole documents
     * @return the kind of pipeline
     */
    static Kind choose(boolean splitOffered, boolean projectionOffered, @Nullable String routingField) {
        if (splitOffered) {
            return Kind.SPLIT;
        }
        return projectionOffered && routingField != null ? Kind.PROJECTED : Kind.PLAIN;
    }

    /**
     * The stages of a kind of pipeline.
     * @param kind the kind
     * @param routingField the partition field, needed by {@link Kind#PROJECTED}
     * @return the stages after {@code $changeStream}
     */
    static List<BsonDocument> stages(Kind kind, @Nullable String routingField) {
        return stages(kind, routingField, Set.of());
    }

    /**
     * The stages of a kind of pipeline, keeping more document paths in a projected one.
     * @param kept paths of the documents a projected stream keeps beside the partition field (the
     *     keys of key-scoped views); see {@link #imagePaths}
     */
    static List<BsonDocument> stages(Kind kind, @Nullable String routingField, Set<String> kept) {
        return switch (kind) {
            case SPLIT -> List.of(SPLIT_STAGE);
            case PROJECTED -> {
                if (routingField == null) {
                    throw new IllegalArgumentException("a projected stream needs the partition field");
                }
                yield List.of(projection(routingField, kept));
            }
            case PLAIN -> List.of();
        };
    }

    /**
     * What routing reads of an event ({@link ChangeEvents}, the partition router, watched fields),
     * with operators the in-process test server runs too (no {@code $type}, no {@code $$REMOVE}).
     */
    static BsonDocument projection(String partitionField) {
        return projection(partitionField, Set.of());
    }

    /**
     * The document paths a projected stream keeps: the partition field and the kept paths, without
     * a path under another one (the server refuses both) or one it cannot name.
     */
    static Set<String> imagePaths(String partitionField, Set<String> kept) {
        Set<String> all = new TreeSet<>();
        all.add(partitionField);
        // Routing tells the engine's own row versions by it (see RowVersionEvents)
        all.add(ViewFilter.TO_FIELD);
        for (String path : kept) {
            if (ViewDefinitionParser.isFieldPath(path)) {
                all.add(path);
            }
        }
        Set<String> outermost = new TreeSet<>();
        for (String path : all) {
            boolean under = false;
            for (String other : all) {
                under |= !other.equals(path) && path.startsWith(other + ".");
            }
            if (!under) {
                outermost.add(path);
            }
        }
        return outermost;
    }

    /**
     * Whether images projected to some paths carry every path of others: each is one of them or
     * under one (as {@link dev.materializer.core.routing.SourceChange#imagesCarry} reads them).
     * @param carried the image paths of a projection
     * @param wanted the image paths wanted
     */
    static boolean covers(Set<String> carried, Set<String> wanted) {
        for (String path : wanted) {
            boolean kept = false;
            for (String outer : carried) {
                kept |= path.equals(outer) || path.startsWith(outer + ".");
            }
            if (!kept) {
                return false;
            }
        }
        return true;
    }

    static BsonDocument projection(String partitionField, Set<String> kept) {
        BsonInt32 keep = new BsonInt32(1);
        BsonDocument updatedNames = BsonDocument.parse("""
                {"$map": {"input": {"$objectToArray": {"$ifNull": ["$updateDescription.updatedFields", {}]}},
                          "in": "$$this.k"}}""");
        BsonDocument projection = new BsonDocument("$project", new BsonDocument("operationType", keep)
            .append("documentKey", keep)
            .append("clusterTime", keep)
            .append("wallTime", keep)
            .append("updateDescription.removedFields", keep)
            .append("updateDescription.truncatedArrays", keep)
            .append(UPDATED_FIELD_NAMES, updatedNames));
        for (String path : imagePaths(partitionField, kept)) {
            projection.getDocument("$project").append("fullDocument." + path, keep)
                .append("fullDocumentBeforeChange." + path, keep);
        }
        return projection;
    }
}
