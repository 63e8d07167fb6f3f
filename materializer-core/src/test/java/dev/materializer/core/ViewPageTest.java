package dev.materializer.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;


import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static dev.materializer.core.ViewState.ERRORED;
import static dev.materializer.core.ViewState.OK;
import static dev.materializer.core.ViewState.PENDING;

/** Pages of views, and the defaults of {@link Materializer} that read them from a snapshot. */
class ViewPageTest {

    private static final List<ViewSnapshot> VIEWS = List.of(view("globex", "b", OK), view("acme", "z", ERRORED),
            view("acme", "acme/revenue", OK), view("globex", "a", PENDING), view("acme", "m", OK));

    @Test
    void aPageListsTheMatchingViewsByPartitionThenIdAndCountsThemAll() {
        ViewPage first = ViewPage.of(VIEWS, new ViewQuery(null, null, 0, 2));
        assertThat(first.total()).isEqualTo(5);
        assertThat(first.page()).isZero();
        assertThat(first.size()).isEqualTo(2);
        assertThat(keys(first)).containsExactly("acme/acme/revenue", "acme/m");
        assertThat(keys(ViewPage.of(VIEWS, new ViewQuery(null, null, 1, 2)))).containsExactly("acme/z", "globex/a");
        assertThat(keys(ViewPage.of(VIEWS, new ViewQuery(null, null, 2, 2)))).containsExactly("globex/b");
    }

    @Test
    void aPagePastTheEndIsEmptyAndStillCountsTheMatchingViews() {
        ViewPage past = ViewPage.of(VIEWS, new ViewQuery(null, null, 7, 2));
        assertThat(past.views()).isEmpty();
        assertThat(past.total()).isEqualTo(5);
        assertThat(ViewPage.of(VIEWS, new ViewQuery(null, null, Integer.MAX_VALUE, Integer.MAX_VALUE)).views())
            .as("no overflow").isEmpty();
    }

    @Test
    void theQueryFiltersByPartitionAndByState() {
        assertThat(keys(ViewPage.of(VIEWS, new ViewQuery("acme", null, 0, 10)))).containsExactly("acme/acme/revenue",
                "acme/m", "acme/z");
        assertThat(keys(ViewPage.of(VIEWS, new ViewQuery(null, OK, 0, 10)))).containsExactly("acme/acme/revenue",
                "acme/m", "globex/b");
        ViewPage both = ViewPage.of(VIEWS, new ViewQuery("globex", OK, 0, 10));
        assertThat(keys(both)).containsExactly("globex/b");
        assertThat(both.total()).isEqualTo(1);
        assertThat(ViewPage.of(VIEWS, new ViewQuery("initech", null, 0, 10)).total()).isZero();
    }

    @Test
    void aNegativePageOrASizeBelowOneIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ViewQuery(null, null, -1, 10))
            .withMessage("page must be 0 or more, was -1");
        assertThatIllegalArgumentException().isThrownBy(() -> ViewQuery.first(0))
            .withMessage("size must be 1 or more, was 0");
    }

    @Test
    void theDefaultsOfTheInterfaceReadTheSnapshot() {
        Materializer engine = new SnapshotOnly(new MaterializerSnapshot(EngineState.RUNNING, null, 3, 2,
                Duration.ofSeconds(1), true, VIEWS));

        assertThat(engine.viewCounts()).containsExactlyInAnyOrderEntriesOf(Map.of(OK, 3, ERRORED, 1, PENDING, 1));
        MaterializerSnapshot summary = engine.summary();
        assertThat(summary.views()).isEmpty();
        assertThat(summary.state()).isEqualTo(EngineState.RUNNING);
        assertThat(summary.openStreams()).isEqualTo(3);
        assertThat(summary.passesInFlight()).isEqualTo(2);
        assertThat(summary.lag()).isEqualTo(Duration.ofSeconds(1));
        assertThat(summary.transactions()).isTrue();
        assertThat(keys(engine.views(new ViewQuery("acme", OK, 0, 1)))).containsExactly("acme/acme/revenue");
        assertThat(engine.views(new ViewQuery("acme", OK, 0, 1)).total()).isEqualTo(2);
    }

    private static List<String> keys(ViewPage page) {
        return page.views().stream().map(view -> view.partition() + "/" + view.id()).toList();
    }

    private static ViewSnapshot view(String partition, String id, ViewState state) {
        return new ViewSnapshot(partition, id, state, List.of("orders"), "target", null, null, null, null, null);
    }

    /** An engine that only has a snapshot, to read the interface's defaults. */
    private record SnapshotOnly(MaterializerSnapshot snapshot) implements Materializer {

        @Override
        public void start() {
        }

        @Override
        public void stopIntake() {
        }

        @Override
        public boolean drain(Duration timeout) {
            return true;
        }

        @Override
        public int inFlight() {
            return 0;
        }

        @Override
        public void close() {
        }

        @Override
        public CompletableFuture<PassReport> refresh(String partition, String id) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }
    }
}
