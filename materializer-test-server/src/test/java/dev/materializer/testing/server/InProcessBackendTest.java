package dev.materializer.testing.server;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import com.mongodb.MongoCommandException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoCursor;
import com.mongodb.client.model.ChangeStreamPreAndPostImagesOptions;
import com.mongodb.client.model.CreateCollectionOptions;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.changestream.ChangeStreamDocument;
import com.mongodb.client.model.changestream.FullDocumentBeforeChange;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What only the in-process backend can show, each on a server of its own: images that expire by
 * its clock, a change log that forgets its oldest entries, and what the {@code _id} index saves.
 */
class InProcessBackendTest {

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {

        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

        void advance(Duration by) {
            now.updateAndGet(instant -> instant.plus(by));
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void preImagesExpireAfterTheirTime() {
        MovableClock clock = new MovableClock();
        MongoServer server = InProcessMongoServer.create(new InProcessBackend(clock, 100, Duration.ofMinutes(5)));
        try (MongoClient client = connect(server)) {
            var db = client.getDatabase("expiry");
            db.createCollection("kept", new CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true)));
            MongoCollection<Document> kept = db.getCollection("kept");
            kept.insertMany(List.of(new Document("_id", 1).append("v", 0), new Document("_id", 2).append("v", 0)));
            try (MongoCursor<ChangeStreamDocument<Document>> cursor = kept.watch()
                .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE)
                .cursor()) {
                kept.updateOne(Filters.eq("_id", 1), Updates.set("v", 1));
                clock.advance(Duration.ofMinutes(6));
                kept.updateOne(Filters.eq("_id", 2), Updates.set("v", 1));

                ChangeStreamDocument<Document> expired = next(cursor);
                ChangeStreamDocument<Document> fresh = next(cursor);

                assertThat(expired.getFullDocumentBeforeChange()).isNull();
                assertThat(fresh.getFullDocumentBeforeChange()).containsEntry("v", 0);
            }
        }
        finally {
            server.shutdownNow();
        }
    }

    @Test
    void aServerThatRefusesPreImagesRefusesTheOptionAsMongoDbFiveDoesAndKeepsNone() {
        MongoServer server = InProcessMongoServer.create(InProcessBackend.refusingPreImages());
        try (MongoClient client = connect(server)) {
            var db = client.getDatabase("refused");
            MongoCollection<Document> orders = db.getCollection("orders");
            orders.insertOne(new Document("_id", 1).append("v", 0));

            assertThatThrownBy(() -> db.runCommand(new Document("collMod", "orders")
                .append("changeStreamPreAndPostImages", new Document("enabled", true))))
                .isInstanceOfSatisfying(MongoCommandException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(72));
            assertThatThrownBy(() -> db.createCollection("other", new CreateCollectionOptions()
                .changeStreamPreAndPostImagesOptions(new ChangeStreamPreAndPostImagesOptions(true))))
                .isInstanceOfSatisfying(MongoCommandException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(40415));
            Document options = db.listCollections().filter(Filters.eq("name", "orders")).first().get("options", Document.class);
            assertThat(options).doesNotContainKey("changeStreamPreAndPostImages");
            try (MongoCursor<ChangeStreamDocument<Document>> cursor = orders.watch()
                .fullDocumentBeforeChange(FullDocumentBeforeChange.WHEN_AVAILABLE)
                .cursor()) {
                orders.deleteOne(Filters.eq("_id", 1));

                assertThat(next(cursor).getFullDocumentBeforeChange()).isNull();
            }
        }
        finally {
            server.shutdownNow();
        }
    }

    @Test
    void aStreamResumingFromAForgottenEntryIsRefused() {
        MongoServer server = InProcessMongoServer.create(new InProcessBackend(Clock.systemUTC(), 3, null));
        try (MongoClient client = connect(server)) {
            MongoCollection<Document> rows = client.getDatabase("capacity").getCollection("rows");
            BsonDocument token;
            try (MongoCursor<ChangeStreamDocument<Document>> cursor = rows.watch().cursor()) {
                rows.insertOne(new Document("_id", 0));
                token = next(cursor).getResumeToken();
            }
            for (int i = 1; i <= 5; i++) {
                rows.insertOne(new Document("_id", i));
            }

            assertThatThrownBy(() -> {
                try (MongoCursor<ChangeStreamDocument<Document>> cursor = rows.watch().resumeAfter(token).cursor()) {
                    cursor.tryNext();
                }
            }).isInstanceOfSatisfying(MongoCommandException.class, ex -> assertThat(ex.getErrorCode()).isEqualTo(286));
        }
        finally {
            server.shutdownNow();
        }
    }

    /**
     * The engine's writes name {@code _id} with the partition (and the open version); the plain
     * backend scans the collection for each. Printed, not asserted: a timing is no test.
     */
    @Test
    void writesNamingIdAndOtherFieldsUseTheIdIndex() {
        long plain = timeGroupOfWrites(new MongoServer(new MemoryBackend()));
        long extended = timeGroupOfWrites(InProcessMongoServer.create());
        System.out.printf("500 closes + 500 upserts over 10,000 versions: plain backend %d ms, in-process backend %d ms%n",
                plain, extended);
    }

    private static long timeGroupOfWrites(MongoServer server) {
        try (MongoClient client = connect(server)) {
            MongoCollection<Document> target = client.getDatabase("cost").getCollection("target");
            List<Document> versions = new ArrayList<>();
            for (int i = 0; i < 10_000; i++) {
                versions.add(new Document("_id", "k" + i).append("_part", "p").append("_viewTo", null).append("v", i));
            }
            target.insertMany(versions);
            long start = System.nanoTime();
            for (int i = 0; i < 500; i++) {
                target.updateOne(new Document("_id", "k" + i).append("_part", "p").append("_viewTo", null),
                        Updates.set("_viewTo", 1));
                target.updateOne(new Document("_id", "n" + i).append("_part", "p"), Updates.set("v", i),
                        new UpdateOptions().upsert(true));
            }
            long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
            assertThat(target.countDocuments(Filters.eq("_viewTo", 1))).isEqualTo(500);
            assertThat(target.countDocuments()).isEqualTo(10_500);
            return millis;
        }
        finally {
            server.shutdownNow();
        }
    }

    private static MongoClient connect(MongoServer server) {
        InetSocketAddress address = server.bind();
        return MongoClients.create("mongodb://127.0.0.1:" + address.getPort());
    }

    private static ChangeStreamDocument<Document> next(MongoCursor<ChangeStreamDocument<Document>> cursor) {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            ChangeStreamDocument<Document> event = cursor.tryNext();
            if (event != null) {
                return event;
            }
        }
        throw new AssertionError("no event within 10 s");
    }
}
