package dev.materializer.spring.data;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.mongodb.client.MongoClient;
import dev.materializer.core.Materializer;
import dev.materializer.core.SnapshotReason;
import dev.materializer.core.ViewDelta;
import dev.materializer.core.ViewRow;
import dev.materializer.core.ViewRowsSnapshot;
import dev.materializer.core.ViewSubscriber;
import dev.materializer.core.ViewSubscription;
import dev.materializer.core.hash.RowHasher;
import dev.materializer.spring.autoconfigure.data.MaterializerDataAutoConfiguration;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MaterializedViews#changes} and {@link ReactiveMaterializedViews}: the engine's snapshots and
 * deltas as typed changes of rows, keyed by the row's own id; the flux honours demand and closes its
 * subscription when cancelled; the reactive reader is configured only with Reactor on the classpath.
 */
class MaterializedViewsChangesTests {

    /** A row as the tests type it: the row's key in {@code id}. */
    record Revenue(String id, int revenue) {
    }

    /** The subscription the engine gave, and the subscriber it was given. */
    private final AtomicReference<ViewSubscriber> subscriber = new AtomicReference<>();

    private final List<String> subscribed = new CopyOnWriteArrayList<>();

    private final CountDownLatch closed = new CountDownLatch(1);

    private final Materializer engine = (Materializer) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] { Materializer.class }, (proxy, method, args) -> {
                if (!method.getName().equals("subscribe")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                this.subscribed.add(args[0] + "/" + args[1] + (args.length == 4 ? " from " + args[2] : ""));
                this.subscriber.set((ViewSubscriber) args[args.length - 1]);
                return subscription(args[0].toString(), args[1].toString());
            });

    private final MongoTemplate template = new MongoTemplate(
            (MongoClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { MongoClient.class },
                    (proxy, method, args) -> {
                        throw new UnsupportedOperationException("no MongoDB in this test: " + method.getName());
                    }),
            "shop");

    private final MaterializedViews views = new MaterializedViews(this.template, ViewNaming.DEFAULTS, () -> this.engine);

    private ViewSubscription subscription(String partition, String viewId) {
        return new ViewSubscription() {
            @Override
            public String partition() {
                return partition;
            }

            @Override
            public String viewId() {
                return viewId;
            }

            @Override
            public long generation() {
                return 0;
            }

            @Override
            public void close() {
                MaterializedViewsChangesTests.this.closed.countDown();
            }
        };
    }

    /** A stored version of a row, engine fields and all. */
    private static ViewRow row(String key, int revenue, long from) {
        BsonDocument stored = new BsonDocument("_id", new BsonDocument("partition", new BsonString("acme"))
                .append("id", new BsonString(key)))
            .append("revenue", new BsonInt32(revenue))
            .append("_part", new BsonString("acme"))
            .append("_viewRow", new BsonString(key))
            .append("_viewFrom", new BsonInt64(from))
            .append("_viewTo", new BsonInt64(Long.MAX_VALUE))
            .append("_viewHash", new BsonString("h"));
        return new ViewRow(new BsonString(key), new RowHasher().idKey(new BsonString(key)), stored);
    }

    @Test
    void aSnapshotIsAResetAndItsRowsAndADeltaIsEachRowItRemovedChangedAndAdded() {
        List<ViewChange<Revenue>> changes = new CopyOnWriteArrayList<>();
        this.views.changes("acme", "{tenant}:revenue", Revenue.class, changes::add);
        assertThat(this.subscribed).containsExactly("acme/acme:revenue");

        this.subscriber.get().onSnapshot(new ViewRowsSnapshot("acme", "acme:revenue", 3,
                List.of(row("apple", 6, 1), row("pear", 5, 3)), SnapshotReason.STARTED));
        this.subscriber.get().onDelta(new ViewDelta("acme", "acme:revenue", 3, 4, List.of(row("fig", 2, 4)),
                List.of(new ViewDelta.Change(row("apple", 6, 1), row("apple", 9, 4))), List.of(row("pear", 5, 3))));

        assertThat(changes).containsExactly(
                new ViewChange<>(ViewChange.Kind.RESET, 3, null, null, null, SnapshotReason.STARTED),
                new ViewChange<>(ViewChange.Kind.ADDED, 3, "apple", null, new Revenue("apple", 6), null),
                new ViewChange<>(ViewChange.Kind.ADDED, 3, "pear", null, new Revenue("pear", 5), null),
                new ViewChange<>(ViewChange.Kind.REMOVED, 4, "pear", new Revenue("pear", 5), null, null),
                new ViewChange<>(ViewChange.Kind.CHANGED, 4, "apple", new Revenue("apple", 6), new Revenue("apple", 9),
                        null),
                new ViewChange<>(ViewChange.Kind.ADDED, 4, "fig", null, new Revenue("fig", 2), null));
        assertThat(changes.get(3).row()).isEqualTo(new Revenue("pear", 5));
    }

    @Test
    void aResumeNamesTheGenerationHeld() {
        this.views.changes("acme", "acme:revenue", Revenue.class, 7L, change -> { });
        assertThat(this.subscribed).containsExactly("acme/acme:revenue from 7");
    }

    @Test
    void theFluxHandsOnlyWhatIsAskedForAndItsCancelClosesTheSubscription() throws Exception {
        ReactiveMaterializedViews reactive = new ReactiveMaterializedViews(this.views);
        Flux<ViewChange<Revenue>> flux = reactive.changes("acme", "{tenant}:revenue", Revenue.class);
        assertThat(this.subscribed).as("nothing before a subscriber").isEmpty();

        CountDownLatch delivered = new CountDownLatch(1);
        Thread engineThread = new Thread(() -> {
            this.subscriber.get().onSnapshot(new ViewRowsSnapshot("acme", "acme:revenue", 1,
                    List.of(row("apple", 6, 1), row("pear", 5, 1), row("fig", 1, 1)), SnapshotReason.STARTED));
            delivered.countDown();
        });
        List<ViewChange<Revenue>> taken = new CopyOnWriteArrayList<>();
        reactor.core.Disposable disposable = flux.limitRate(1).take(3).subscribe(taken::add);
        engineThread.start();
        // The fourth change waits for demand that never comes: take(3) cancels instead, closing the subscription
        assertThat(this.closed.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(taken).extracting(ViewChange::kind).containsExactly(ViewChange.Kind.RESET, ViewChange.Kind.ADDED,
                ViewChange.Kind.ADDED);
        engineThread.interrupt();
        assertThat(delivered.await(10, TimeUnit.SECONDS)).as("the waiting call ends at the close").isTrue();
        disposable.dispose();
    }

    @Test
    void theReactiveReaderIsConfiguredOnlyWithReactorOnTheClasspath() {
        ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(MaterializerDataAutoConfiguration.class))
            .withBean(MongoTemplate.class, () -> this.template)
            .withBean(Materializer.class, () -> this.engine);
        runner.run(context -> assertThat(context).hasSingleBean(ReactiveMaterializedViews.class));
        runner.withClassLoader(new FilteredClassLoader(Flux.class))
            .run(context -> assertThat(context).hasSingleBean(MaterializedViews.class)
                .doesNotHaveBean(ReactiveMaterializedViews.class));
    }
}
