package dev.materializer.sample.views;

import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;

import dev.materializer.core.Materializer;
import dev.materializer.sample.InvalidInputException;
import dev.materializer.sample.MaterializerFields;
import dev.materializer.spring.data.MaterializedViews;
import dev.materializer.spring.data.ViewNaming;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.bson.Document;
import org.junit.jupiter.api.Test;

import org.springframework.data.mongodb.core.MongoTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * Which views a write waits for, how the waits share the request's time, and which waits a request
 * may ask for. The engine is a mock here; the waits on a running engine are
 * {@code SampleReadYourWritesTests}.
 */
@MongoTest(MongoKind.IN_PROCESS)
class SampleFreshViewsTests {

    private static final List<ViewSummary> SHOP = List.of(
            view("acme:best-product", List.of("revenue_by_product"), "best_product"),
            view("acme:revenue", List.of("orders"), "revenue_by_product"),
            view("acme:revenue-by-category", List.of("orders", "products"), "revenue_by_category"),
            view("acme:top-customers", List.of("orders"), "top_customers"));

    private final Materializer engine = mock(Materializer.class);

    @Test
    void anOrderWaitsForEveryViewAndTheViewOverAViewThroughTheTargetItReads() {
        assertThat(FreshViews.dependingOn(SHOP, "orders")).containsExactly("acme:best-product", "acme:revenue",
                "acme:revenue-by-category", "acme:top-customers");
    }

    @Test
    void aProductWaitsOnlyForTheViewThatReadsTheCatalogue() {
        assertThat(FreshViews.dependingOn(SHOP, "products")).containsExactly("acme:revenue-by-category");
        assertThat(FreshViews.dependingOn(SHOP, "revenue_by_product")).containsExactly("acme:best-product");
        assertThat(FreshViews.dependingOn(SHOP, "notes")).isEmpty();
    }

    @Test
    void aWaitIsADurationWithItsUnitUpToTenSeconds() {
        assertThat(FreshViews.waitOf(null)).isNull();
        assertThat(FreshViews.waitOf("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(FreshViews.waitOf("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(FreshViews.waitOf("PT1.5S")).isEqualTo(Duration.ofMillis(1500));
        assertThat(FreshViews.waitOf("10s")).isEqualTo(FreshViews.MAX_WAIT);
        for (String refused : List.of("", "5", "0s", "-2s", "10001ms", "1m", "soon", "2 s")) {
            assertThatThrownBy(() -> FreshViews.waitOf(refused)).as(refused)
                .isInstanceOf(InvalidInputException.class)
                .hasMessage("wait must be a duration with its unit, more than 0 and at most 10s, such as 2s, 500ms or "
                        + "PT2S, was '" + refused + "'");
        }
    }

    @Test
    void aViewTheEngineStillDoesNotKnowAtTheEndOfTheWaitIsNotFresh(TestMongo mongo) throws InterruptedException {
        when(this.engine.awaitFresh(eq("acme"), anyString(), any(Duration.class)))
            .thenThrow(new NoSuchElementException("this engine knows no view"));

        assertThat(freshViews(mongo).awaitFresh("acme", "products", Duration.ofMillis(300))).isFalse();
        verify(this.engine, times(1)).awaitFresh(eq("acme"), eq("acme:revenue-by-category"), any(Duration.class));
    }

    @Test
    void theFirstViewNotFreshInTimeEndsTheWaitWithoutAskingForTheOthers(TestMongo mongo) throws InterruptedException {
        when(this.engine.awaitFresh(eq("acme"), eq("acme:best-product"), any(Duration.class))).thenReturn(false);

        assertThat(freshViews(mongo).awaitFresh("acme", "orders", Duration.ofMillis(100))).isFalse();
        verify(this.engine, never()).awaitFresh(eq("acme"), eq("acme:revenue"), any(Duration.class));
    }

    @Test
    void withoutAnEngineAWriteIsNeverFresh(TestMongo mongo) {
        FreshViews fresh = freshViews(mongo, null);

        assertThat(fresh.awaitFresh("acme", "orders", Duration.ofMillis(100))).isFalse();
        assertThat(fresh.afterWrite("acme", "orders", Duration.ofMillis(100)).getFirst(FreshViews.HEADER))
            .isEqualTo("false");
        assertThat(fresh.afterWrite("acme", "orders", null).isEmpty()).isTrue();
    }

    private FreshViews freshViews(TestMongo mongo) {
        return freshViews(mongo, this.engine);
    }

    /** The shop's four views of acme, stored as their documents, and the engine the waits ask. */
    private static FreshViews freshViews(TestMongo mongo, Materializer engine) {
        for (ViewSummary view : SHOP) {
            mongo.database().getCollection("_aggregations").insertOne(new Document("_id", view.id()).append("_part", "acme")
                .append("collections", view.sources())
                .append("targetCollection", view.target()));
        }
        MongoTemplate template = new MongoTemplate(mongo.client(), mongo.database().getName());
        MaterializedViews views = new MaterializedViews(template, ViewNaming.DEFAULTS, () -> engine);
        MaterializerFields fields = new MaterializerFields("_part", "_materializerStatus", "_aggregations");
        return new FreshViews(new ViewReader(template, fields, views), views);
    }

    private static ViewSummary view(String id, List<String> sources, String target) {
        return new ViewSummary(id, id.substring(id.indexOf(':') + 1), null, sources, target, "ok", null, "1", null);
    }
}
