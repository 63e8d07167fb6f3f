package dev.materializer.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** {@link ViewFilter} on a server: a reader sees exactly one generation of one partition. */
@MongoTest(MongoKind.IN_PROCESS)
class ViewFilterInProcessTest {

    private static final ObjectId CURRENT = new ObjectId("65e1a0000000000000000002");

    private static final ObjectId OLDER = new ObjectId("65e1a0000000000000000001");

    @Test
    void aReaderSeesOnlyTheCurrentGenerationOfItsPartition(TestMongo mongo) {
        MongoCollection<Document> target = rows(mongo);
        Document view = new Document("_part", "acme").append("_materializerStatus", new Document("generation", CURRENT));

        assertThat(ids(target.find(ViewFilter.of(view)))).containsExactlyInAnyOrder("acme-current-1", "acme-current-2");
    }

    @Test
    void aReaderOfAViewNeverRunSeesNoRow(TestMongo mongo) {
        MongoCollection<Document> target = rows(mongo);

        assertThat(ids(target.find(ViewFilter.of(new Document("_part", "acme"))))).isEmpty();
        assertThat(ids(target.find(ViewFilter.of("_part", "acme", null)))).isEmpty();
    }

    private MongoCollection<Document> rows(TestMongo mongo) {
        MongoCollection<Document> target = mongo.database().getCollection("revenue");
        target.insertMany(List.of(row("acme-current-1", "acme", CURRENT), row("acme-current-2", "acme", CURRENT),
                row("acme-older", "acme", OLDER), row("globex-current", "globex", CURRENT),
                new Document("_id", "acme-no-generation").append("_part", "acme")));
        return target;
    }

    private Document row(String id, String partition, ObjectId generation) {
        return new Document("_id", id).append("_part", partition).append("_viewGen", generation);
    }

    private List<String> ids(Iterable<Document> documents) {
        List<String> ids = new ArrayList<>();
        documents.forEach(document -> ids.add(document.getString("_id")));
        return ids;
    }
}
