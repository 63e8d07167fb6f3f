package dev.materializer.core.write;

import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * One row of a view's result.
 *
 * @param id the {@code _id} the pipeline gave it
 * @param content its content, without {@code _id} and the engine's fields
 * @param hash the hash of its content
 */
record ResultRow(BsonValue id, BsonDocument content, String hash) {
}
