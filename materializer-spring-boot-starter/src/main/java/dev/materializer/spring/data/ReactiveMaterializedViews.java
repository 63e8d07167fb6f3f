package dev.materializer.spring.data;

import java.util.function.Consumer;
import java.util.function.Function;

import dev.materializer.core.ViewSubscription;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * A view's changes as a {@link Flux}, for WebFlux and server-sent events: each subscriber of the
 * flux subscribes to the view through {@link MaterializedViews#changes(String, String, Class, Consumer)},
 * and cancelling the flux closes that subscription. Demand is honoured: while the downstream asks
 * for nothing, the subscription's thread waits, its bounded queue fills, and the downstream is
 * handed a {@link ViewChange.Kind#RESET} and the rows as they are once it asks again — a slow
 * client never slows the engine, and never holds an unbounded buffer.
 *
 * <pre>{@code
 * @GetMapping(path = "/{tenant}/revenue/changes", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
 * Flux<ServerSentEvent<ViewChange<Revenue>>> changes(@PathVariable String tenant) {
 *     return views.changes(tenant, "{tenant}:revenue", Revenue.class)
 *         .map(change -> ServerSentEvent.builder(change).event(change.kind().name()).build());
 * }
 * }</pre>
 *
 * <p>Configured when Reactor is on the classpath. Thread-safe.
 */
public final class ReactiveMaterializedViews {

    private final MaterializedViews views;

    /** @param views the reader whose changes it hands on */
    public ReactiveMaterializedViews(MaterializedViews views) {
        this.views = views;
    }

    /**
     * A view's changes from now: a {@link ViewChange.Kind#RESET} and the rows, then the changes of
     * each flip. It does not complete on its own (an engine that closes hands nothing more): cancel it.
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param type the type of a row
     * @return the changes, subscribing to the view at each subscription of the flux
     */
    public <T> Flux<ViewChange<T>> changes(String tenant, String view, Class<T> type) {
        return flux(listener -> this.views.changes(tenant, view, type, listener));
    }

    /**
     * A view's changes after a generation the caller holds (see
     * {@link MaterializedViews#changes(String, String, Class, long, Consumer)}).
     * @param <T> the type of a row
     * @param tenant the tenant
     * @param view the view's id, or an id pattern with {@value ViewTemplate#TENANT}
     * @param type the type of a row
     * @param fromGeneration the generation the caller holds
     * @return the changes since
     */
    public <T> Flux<ViewChange<T>> changes(String tenant, String view, Class<T> type, long fromGeneration) {
        return flux(listener -> this.views.changes(tenant, view, type, fromGeneration, listener));
    }

    private static <T> Flux<ViewChange<T>> flux(Function<Consumer<ViewChange<T>>, ViewSubscription> subscribe) {
        return Flux.create(sink -> {
            Demand demand = new Demand();
            sink.onRequest(demand::add);
            ViewSubscription subscription = subscribe.apply(change -> {
                if (demand.take()) {
                    sink.next(change);
                }
            });
            sink.onDispose(subscription::close);
        }, FluxSink.OverflowStrategy.ERROR);
    }

    /** What the downstream asked for and was not handed yet; the subscription's thread waits for it. */
    private static final class Demand {

        private long requested;

        synchronized void add(long more) {
            this.requested = this.requested + more < 0 ? Long.MAX_VALUE : this.requested + more;
            notifyAll();
        }

        /** Waits for demand and takes one; false when interrupted (the subscription closes). */
        synchronized boolean take() {
            try {
                while (this.requested == 0) {
                    wait();
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (this.requested != Long.MAX_VALUE) {
                this.requested--;
            }
            return true;
        }
    }
}
