package dev.materializer.core.reconcile;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.materializer.core.time.ManualClock;
import dev.materializer.core.ViewKey;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ReconcilerTest {

    private static final Duration INTERVAL = Duration.ofHours(1);

    private final ManualClock clock = new ManualClock();

    private final FakeViews views = new FakeViews();

    @Test
    void aRoundStartsOneIntervalAfterTheStartAndChecksEveryOwnedViewAtTheRateAllowed() {
        views.owned.addAll(keys("acme", 5));
        Reconciler reconciler = new Reconciler(clock, INTERVAL, 2.0, views);
        reconciler.start();

        clock.advance(INTERVAL.minusMillis(1));
        assertThat(views.checked).isEmpty();
        clock.advance(Duration.ofMillis(1));
        assertThat(views.checked).as("the first at once").hasSize(1);
        clock.advance(Duration.ofMillis(499));
        assertThat(views.checked).as("2 per second: 500 ms apart").hasSize(1);
        clock.advance(Duration.ofMillis(1));
        assertThat(views.checked).hasSize(2);
        clock.advance(Duration.ofSeconds(2));

        assertThat(views.checked).containsExactlyElementsOf(views.owned);
        assertThat(reconciler.progress().round()).isEqualTo(1);
        assertThat(reconciler.progress().done()).isEqualTo(5);
        assertThat(reconciler.progress().nextRoundAt()).isNotNull();
    }

    @Test
    void theNextRoundStartsOneIntervalAfterThePreviousStarted() {
        views.owned.addAll(keys("acme", 2));
        Reconciler reconciler = new Reconciler(clock, INTERVAL, 10.0, views);
        reconciler.start();
        clock.advance(INTERVAL.plusSeconds(1));
        assertThat(views.checked).hasSize(2);

        clock.advance(INTERVAL.minusSeconds(2));
        assertThat(views.checked).hasSize(2);
        clock.advance(Duration.ofSeconds(2));
        assertThat(views.checked).hasSize(4);
        assertThat(reconciler.progress().round()).isEqualTo(2);
    }

    @Test
    void aViewOfABusyPartitionIsSkippedThisRound() {
        views.owned.addAll(keys("acme", 2));
        views.owned.addAll(keys("globex", 2));
        views.busy.add("acme");
        Reconciler reconciler = new Reconciler(clock, INTERVAL, 10.0, views);
        reconciler.start();
        clock.advance(INTERVAL.plusSeconds(1));

        assertThat(views.checked).extracting(ViewKey::partition).containsOnly("globex");
        assertThat(reconciler.progress().skipped()).isEqualTo(2);
    }

    @Test
    void oneRunAtATimeTheNextWaitsForTheOneBefore() {
        views.owned.addAll(keys("acme", 3));
        views.complete = false;
        Reconciler reconciler = new Reconciler(clock, INTERVAL, 100.0, views);
        reconciler.start();
        clock.advance(INTERVAL.plusSeconds(10));
        assertThat(views.checked).as("the first has not ended").hasSize(1);

        views.runs.get(0).complete(null);
        clock.advance(Duration.ofSeconds(1));
        assertThat(views.checked).hasSize(2);
    }

    @Test
    void aZeroIntervalTurnsItOffAndCloseStopsIt() {
        views.owned.addAll(keys("acme", 2));
        Reconciler off = new Reconciler(clock, Duration.ZERO, 10.0, views);
        off.start();
        clock.advance(Duration.ofDays(2));
        assertThat(views.checked).isEmpty();
        assertThat(clock.pendingTimers()).isZero();

        Reconciler on = new Reconciler(clock, INTERVAL, 10.0, views);
        on.start();
        on.close();
        clock.advance(Duration.ofDays(2));
        assertThat(views.checked).isEmpty();
    }

    private static List<ViewKey> keys(String partition, int count) {
        List<ViewKey> keys = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            keys.add(new ViewKey(partition, "v" + i));
        }
        return keys;
    }

    private static final class FakeViews implements Reconciler.Views {

        final List<ViewKey> owned = new ArrayList<>();

        final Set<String> busy = new java.util.HashSet<>();

        final List<ViewKey> checked = new CopyOnWriteArrayList<>();

        final List<CompletableFuture<Object>> runs = new CopyOnWriteArrayList<>();

        volatile boolean complete = true;

        @Override
        public List<ViewKey> owned() {
            return List.copyOf(owned);
        }

        @Override
        public boolean busy(String partition) {
            return busy.contains(partition);
        }

        @Override
        public CompletableFuture<?> reconcile(ViewKey view) {
            checked.add(view);
            CompletableFuture<Object> run = complete ? CompletableFuture.completedFuture(null) : new CompletableFuture<>();
            runs.add(run);
            return run;
        }
    }
}
