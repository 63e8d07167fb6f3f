package dev.materializer.benchmarks.scale;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoDatabase;
import org.bson.BsonDocument;

/**
 * The indexes of the views collection after a start, as {@code listIndexes} gives them. Every run
 * of a view reads the views collection by partition (the current generations its pipeline may
 * read); the report says whether an index leads with the partition field: what the engine creates.
 * The in-process test server uses such an index for those reads (issue 19), as MongoDB does.
 */
final class ViewsIndex {

    record Result(List<String> indexes, boolean partitionIndexed) {
    }

    private ViewsIndex() {
    }

    static Result inspect(MongoDatabase database, String viewsCollection, String partitionField) {
        List<String> indexes = new ArrayList<>();
        boolean partitionIndexed = false;
        for (BsonDocument index : database.getCollection(viewsCollection, BsonDocument.class).listIndexes(BsonDocument.class)) {
            BsonDocument key = index.getDocument("key", new BsonDocument());
            indexes.add(key.toJson());
            if (!key.isEmpty() && key.getFirstKey().equals(partitionField)) {
                partitionIndexed = true;
            }
        }
        return new Result(indexes, partitionIndexed);
    }
}
