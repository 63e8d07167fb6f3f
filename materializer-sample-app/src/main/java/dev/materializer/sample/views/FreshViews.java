package dev.materializer.sample.views;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.materializer.sample.InvalidInputException;
import dev.materializer.spring.data.MaterializedViewNotFoundException;
import dev.materializer.spring.data.MaterializedViews;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;

/**
 * Read-your-writes for the shop's write endpoints: after a write, waits until the tenant's views
 * that depend on the written collection reflect it, through the starter's
 * {@link MaterializedViews#awaitFresh(String, String, Duration)}.
 *
 * <p>Which views: those whose sources include the collection, and then those that read the target
 * of one of them (a view over a view, such as {@code best-product} over the target of
 * {@code revenue}), as the tenant's view documents say. A view that does not depend on the write
 * is left out, so an errored view elsewhere in the tenant does not hold a write up. One wait
 * (the request's {@code wait}) covers all of them; each asks the engine, which waits for the pass
 * the write caused and never runs one of its own.
 *
 * <p>The wait is the one answered by the instance that owns the tenant: right for this one-instance
 * shop. With several instances behind a load balancer, write in a session and use
 * {@link MaterializedViews#awaitFresh(String, String, String, com.mongodb.client.ClientSession, Duration)}
 * instead, which any instance answers. Thread-safe.
 */
@Component
public class FreshViews {

    /** The response header that says whether the views reflected the write within the wait. */
    public static final String HEADER = "Materializer-Fresh";

    /** The request parameter that asks for the wait. */
    public static final String PARAMETER = "wait";

    /** The longest wait a request may ask for. */
    public static final Duration MAX_WAIT = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(FreshViews.class);

    private final ViewReader reader;

    private final MaterializedViews views;

    FreshViews(ViewReader reader, MaterializedViews views) {
        this.reader = reader;
        this.views = views;
    }

    /**
     * The wait a request asks for. Checked before the write, so a refused wait writes nothing.
     * @param wait the parameter's value: a duration with its unit ({@code 2s}, {@code 500ms},
     *     {@code PT2S}), above zero and at most {@link #MAX_WAIT}; null when the request has none
     * @return the wait, or null for none
     * @throws InvalidInputException when the value is not such a duration
     */
    public static @Nullable Duration waitOf(@Nullable String wait) {
        if (wait == null) {
            return null;
        }
        Duration parsed = null;
        // A bare number would be read as milliseconds: ask for the unit instead of guessing.
        if (!wait.isEmpty() && !wait.chars().allMatch(Character::isDigit)) {
            try {
                parsed = DurationStyle.detectAndParse(wait);
            }
            catch (IllegalArgumentException ex) {
                parsed = null;
            }
        }
        if (parsed == null || parsed.isNegative() || parsed.isZero() || parsed.compareTo(MAX_WAIT) > 0) {
            throw new InvalidInputException(PARAMETER + " must be a duration with its unit, more than 0 and at most "
                    + MAX_WAIT.toSeconds() + "s, such as 2s, 500ms or PT2S, was '" + wait + "'");
        }
        return parsed;
    }

    /**
     * Waits, when the request asked to, until the views that depend on a write reflect it.
     * @param tenant the tenant written
     * @param collection the collection written
     * @param wait the request's wait ({@link #waitOf}), or null for none
     * @return the response headers: {@value #HEADER} {@code true} or {@code false} after a wait,
     *     none without one
     */
    public HttpHeaders afterWrite(String tenant, String collection, @Nullable Duration wait) {
        HttpHeaders headers = new HttpHeaders();
        if (wait != null) {
            headers.set(HEADER, String.valueOf(awaitFresh(tenant, collection, wait)));
        }
        return headers;
    }

    /**
     * Waits until every view of the tenant that depends on the collection reflects every write to it
     * acknowledged before this call.
     * @param tenant the tenant
     * @param collection the collection written
     * @param timeout the longest wait, for all of the views together
     * @return true when they all do; false at the timeout (a view errored, a pass retrying, a
     *     view the engine does not know yet), when interrupted, or when no engine runs
     */
    public boolean awaitFresh(String tenant, String collection, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (String view : dependingOn(this.reader.views(tenant), collection)) {
                if (!awaitFresh(tenant, view, deadline)) {
                    return false;
                }
            }
            return true;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
        catch (IllegalStateException ex) {
            // No engine in this application (materializer.enabled=false): the write stands, its views cannot follow.
            log.warn("A write of tenant '{}' asked to wait for its views, which cannot be fresh: {}", tenant,
                    ex.getMessage());
            return false;
        }
    }

    /**
     * The ids of the views that depend on a collection: those that read it, and those that read the
     * target of a view that depends on it, and so on.
     * @param views the tenant's views
     * @param collection the collection
     * @return their ids, in the order of {@code views}
     */
    static List<String> dependingOn(List<ViewSummary> views, String collection) {
        Set<String> read = new LinkedHashSet<>(List.of(collection));
        Set<String> ids = new LinkedHashSet<>();
        boolean grew = true;
        while (grew) {
            grew = false;
            for (ViewSummary view : views) {
                if (!ids.contains(view.id()) && view.sources().stream().anyMatch(read::contains)) {
                    ids.add(view.id());
                    if (view.target() != null) {
                        read.add(view.target());
                    }
                    grew = true;
                }
            }
        }
        List<String> ordered = new ArrayList<>();
        views.forEach(view -> {
            if (ids.contains(view.id())) {
                ordered.add(view.id());
            }
        });
        return ordered;
    }

    /**
     * One view's wait until the deadline. The engine waits for a view it has not read yet (one
     * installed a moment ago); one it still does not know at the deadline is not fresh.
     */
    private boolean awaitFresh(String tenant, String view, long deadline) throws InterruptedException {
        try {
            return this.views.awaitFresh(tenant, view, Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0)));
        }
        catch (MaterializedViewNotFoundException ex) {
            return false;
        }
    }
}
