package dev.materializer.spring.data;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import dev.materializer.core.Materializer;
import dev.materializer.spring.autoconfigure.data.MaterializerDataAutoConfiguration;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link MaterializedViews#awaitFresh}: the tenant's view id (an id pattern resolved), the collection
 * and the session's operation time reach the application's engine, whose answer it returns; a view
 * the engine does not know is not found, and without an engine the wait is refused saying why.
 */
class MaterializedViewsFreshnessTests {

    private static final BsonTimestamp WRITTEN = new BsonTimestamp(1_700_000_000, 3);

    private final List<String> calls = new ArrayList<>();

    private boolean answer = true;

    /** An engine that records each wait and answers as the test says; it knows no view "nope". */
    private final Materializer engine = (Materializer) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] { Materializer.class }, (proxy, method, args) -> {
                if (!method.getName().equals("awaitFresh")) {
                    throw new UnsupportedOperationException(method.getName());
                }
                if ("nope".equals(args[1])) {
                    throw new NoSuchElementException("no view 'nope' in partition 'acme'");
                }
                this.calls.add(Arrays.toString(args));
                return this.answer;
            });

    private final MongoTemplate template = new MongoTemplate(
            (MongoClient) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { MongoClient.class },
                    (proxy, method, args) -> {
                        throw new UnsupportedOperationException("no MongoDB in this test: " + method.getName());
                    }),
            "shop");

    private static ClientSession sessionAt(BsonTimestamp operationTime) {
        return (ClientSession) Proxy.newProxyInstance(MaterializedViewsFreshnessTests.class.getClassLoader(),
                new Class<?>[] { ClientSession.class }, (proxy, method, args) -> {
                    if (method.getName().equals("getOperationTime")) {
                        return operationTime;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aWaitReachesTheEngineWithTheTenantsViewIdAndGivesItsAnswer() throws InterruptedException {
        MaterializedViews views = new MaterializedViews(this.template, ViewNaming.DEFAULTS, () -> this.engine);

        assertThat(views.awaitFresh("acme", "{tenant}:revenue", Duration.ofSeconds(2))).isTrue();
        this.answer = false;
        assertThat(views.awaitFresh("acme", "acme:revenue", "orders", sessionAt(WRITTEN), Duration.ofMillis(5))).isFalse();

        assertThat(this.calls).containsExactly("[acme, acme:revenue, PT2S]",
                "[acme, acme:revenue, orders, " + WRITTEN + ", PT0.005S]");
    }

    @Test
    void aViewTheEngineDoesNotKnowIsNotFound() {
        MaterializedViews views = new MaterializedViews(this.template, ViewNaming.DEFAULTS, () -> this.engine);

        assertThatThrownBy(() -> views.awaitFresh("acme", "nope", Duration.ofSeconds(1)))
            .isInstanceOf(MaterializedViewNotFoundException.class)
            .hasMessage("Tenant 'acme' has no view 'nope' that the engine knows: no view 'nope' in partition 'acme'");
    }

    @Test
    void withoutAnEngineTheWaitIsRefusedSayingWhatItNeeds() {
        MaterializedViews views = new MaterializedViews(this.template, ViewNaming.DEFAULTS);

        assertThatIllegalStateException().isThrownBy(() -> views.awaitFresh("acme", "acme:revenue", Duration.ofSeconds(1)))
            .withMessageContaining("no materializer runs in this application");
    }

    @Test
    void theReaderBeanWaitsThroughTheApplicationsEngine() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(MaterializerDataAutoConfiguration.class))
            .withBean(MongoTemplate.class, () -> this.template)
            .withBean(Materializer.class, () -> this.engine)
            .run(context -> assertThat(context.getBean(MaterializedViews.class)
                .awaitFresh("globex", "{tenant}:stock", Duration.ofSeconds(3))).isTrue());
        assertThat(this.calls).containsExactly("[globex, globex:stock, PT3S]");
    }
}
