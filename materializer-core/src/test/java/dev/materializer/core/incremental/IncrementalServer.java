package dev.materializer.core.incremental;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import org.bson.BsonDocument;

/**
 * What the server of a test does where mongo-java-server and MongoDB differ, measured rather than
 * assumed, so the tests check MongoDB's behaviour and say when the server lacks it.
 */
final class IncrementalServer {

    private IncrementalServer() {
    }

    /**
     * Whether {@code $group} groups by a whole array, as MongoDB does: {@code [1, 2]} and {@code 1}
     * are two groups. mongo-java-server 1.47.0 makes them one.
     */
    static boolean groupsArraysWhole(MongoDatabase database) {
        MongoCollection<BsonDocument> probe = database.getCollection("groupsArraysWholeProbe", BsonDocument.class);
        probe.drop();
        probe.insertMany(List.of(BsonDocument.parse("{k: [1, 2]}"), BsonDocument.parse("{k: 1}")));
        int groups = probe.aggregate(List.of(BsonDocument.parse("{$group: {_id: '$k'}}"))).into(new ArrayList<>()).size();
        probe.drop();
        return groups == 2;
    }
}
