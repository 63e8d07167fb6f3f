package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.materializer.core.Materializer;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code materializer} actuator endpoint.
 *
 * <ul>
 * <li>{@code GET /actuator/materializer}: the engine's state, its counts of views by state, its
 * reconciler, and one page of its views, filtered by the query parameters {@code partition} and
 * {@code state}, paged by {@code page} (from 0) and {@code size} (default {@value #DEFAULT_PAGE_SIZE},
 * at most {@value #MAX_PAGE_SIZE}), by partition then id. The answer holds the {@code page}, the
 * {@code size} and the {@code total} of matching views.</li>
 * <li>{@code GET /actuator/materializer/{partition}/{id}}, or
 * {@code GET /actuator/materializer/{partition}?id=...} for any id (one with a {@code /}, which a path
 * segment cannot carry): one view, 404 when unknown.</li>
 * <li>{@code POST /actuator/materializer/{partition}/{id}} (or {@code .../{id}/refresh}): runs the
 * view now and returns the report of its pass; {@code POST .../{id}/verify} compares its stored rows
 * with a fresh run of its pipeline and writes nothing. Both wait a bounded time.
 * {@code POST /actuator/materializer/{partition}} with the JSON body
 * {@code {"id": "...", "action": "refresh"|"verify"}} does either for any id. An unknown view
 * answers 404 over the web, as on read (see {@link MaterializerWebEndpointExtension}).</li>
 * </ul>
 *
 * <p>The summary and the page are read from {@link Materializer#summary()},
 * {@link Materializer#viewCounts()} and {@link Materializer#views(ViewQuery)}, never from the whole
 * {@link Materializer#snapshot()}: the answer's size is bounded by the page, whatever the number of
 * views.
 *
 * <p>Access is read-only by default: the refresh and the verify run work on the server, so they
 * are opt-in, with {@code management.endpoint.materializer.access=unrestricted} (a
 * {@code management.endpoints.access.max-permitted} below it wins). Until then they are not mapped.
 * Thread-safe: holds no state of its own.
 *
 * <p>The answers are the {@code *Descriptor} types of this package, which Jackson writes through their
 * getters (and which {@code MaterializerEndpointRuntimeHints} registers for reflection).
 */
@Endpoint(id = "materializer", defaultAccess = Access.READ_ONLY)
public final class MaterializerEndpoint {

    /** How long a refresh or a verify waits before answering that it still runs. */
    public static final Duration DEFAULT_REFRESH_WAIT = Duration.ofSeconds(10);

    /** The action that runs the view now, as a pass: what a POST without an action does. */
    public static final String REFRESH = "refresh";

    /** The action that compares the view's stored rows with a fresh run of its pipeline, writing nothing. */
    public static final String VERIFY = "verify";

    /** The actions of the write operation. */
    public static final List<String> ACTIONS = List.of(REFRESH, VERIFY);

    /** The views on a page when the request does not say. */
    public static final int DEFAULT_PAGE_SIZE = ViewQuery.DEFAULT_SIZE;

    /** The most views on a page. */
    public static final int MAX_PAGE_SIZE = 1000;

    private static final String FINISHED = "finished";

    private static final String RUNNING = "running";

    private static final String FAILED = "failed";

    private final Materializer materializer;

    private final Duration refreshWait;

    /** @param materializer the engine to show and drive */
    public MaterializerEndpoint(Materializer materializer) {
        this(materializer, DEFAULT_REFRESH_WAIT);
    }

    /**
     * @param materializer the engine to show and drive
     * @param refreshWait how long a refresh waits for its pass, and a verify for its comparison
     */
    public MaterializerEndpoint(Materializer materializer, Duration refreshWait) {
        this.materializer = materializer;
        this.refreshWait = refreshWait;
    }

    /**
     * The engine's summary and one page of its views.
     * @param partition only the views of this partition, when given
     * @param state only the views in this state ({@code pending}, {@code ok}, {@code errored},
     *     {@code cycle}, {@code target_shared}), when given
     * @param page the page, from 0 (0 when not given)
     * @param size the views on a page, 1 to {@value #MAX_PAGE_SIZE} ({@value #DEFAULT_PAGE_SIZE} when
     *     not given)
     * @return the state of the engine, its counts of views by state, its reconciler and the page
     * @throws InvalidEndpointRequestException (400) for a state that is none of those, or a page or a
     *     size out of range
     */
    @ReadOperation
    public MaterializerDescriptor materializer(@Nullable String partition, @Nullable String state,
            @Nullable Integer page, @Nullable Integer size) {
        ViewQuery query = query(partition, state, page, size);
        return new MaterializerDescriptor(this.materializer.summary(), this.materializer.viewCounts(),
                this.materializer.views(query));
    }

    private static ViewQuery query(@Nullable String partition, @Nullable String state, @Nullable Integer page,
            @Nullable Integer size) {
        ViewState wanted = ViewState.fromValue(state);
        if (state != null && wanted == null) {
            throw invalid("Unknown state '" + state + "': the state is one of " + ViewState.VALUES);
        }
        int pageNumber = Objects.requireNonNullElse(page, 0);
        if (pageNumber < 0) {
            throw invalid("The page is 0 or more, was " + pageNumber);
        }
        int pageSize = Objects.requireNonNullElse(size, DEFAULT_PAGE_SIZE);
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw invalid("The size is between 1 and " + MAX_PAGE_SIZE + ", was " + pageSize);
        }
        return new ViewQuery(partition, wanted, pageNumber, pageSize);
    }

    private static InvalidEndpointRequestException invalid(String reason) {
        return new InvalidEndpointRequestException(reason, reason);
    }

    /**
     * One view, named in the path: {@code GET /actuator/materializer/{partition}/{id}}. The id is one
     * path segment, so it cannot hold a {@code /}; see {@link #viewById(String, String)}.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the view, or null (404) when this instance does not know it
     */
    @ReadOperation
    public @Nullable ViewDescriptor view(@Selector String partition, @Selector String id) {
        return this.materializer.view(partition, id).map(ViewDescriptor::new).orElse(null);
    }

    /**
     * One view, its id in the query: {@code GET /actuator/materializer/{partition}?id=acme/revenue}.
     * Reaches any id, one with a {@code /} too.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the view, or null (404) when this instance does not know it
     */
    @ReadOperation
    public @Nullable ViewDescriptor viewById(@Selector String partition, String id) {
        return view(partition, id);
    }

    /**
     * Runs one view now and waits for its pass, at most the refresh wait.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the report of the pass, or that it still runs, or why it failed
     * @throws UnknownViewException when this instance does not know the view
     */
    @WriteOperation
    public RefreshDescriptor refresh(@Selector String partition, @Selector String id) {
        Waited<PassReport> pass = await(partition, id, () -> this.materializer.refresh(partition, id), "The pass",
                "read the view for its outcome");
        return new RefreshDescriptor(partition, id, pass.status(),
                (pass.result() != null) ? new PassDescriptor(pass.result()) : null, pass.message());
    }

    /**
     * Runs an action on one view now ({@code POST /actuator/materializer/{partition}/{id}/{action}}):
     * {@code refresh}, as {@link #refresh(String, String)}, or {@code verify}, as
     * {@link #verify(String, String)}. The action is a path segment, not a parameter of the body,
     * so that {@code POST /actuator/materializer/{partition}/{id}} keeps taking a request without a
     * body (actuator asks for a JSON body as soon as a write operation has a parameter).
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param action one of {@link #ACTIONS}
     * @return a {@link RefreshDescriptor} or a {@link VerifyDescriptor}
     * @throws UnknownViewException when this instance does not know the view
     * @throws InvalidEndpointRequestException (400) when the action is not one of {@link #ACTIONS}
     */
    @WriteOperation
    public OperationResponseBody act(@Selector String partition, @Selector String id, @Selector String action) {
        return run(partition, id, action);
    }

    /**
     * Runs an action on one view now, its id in the JSON body
     * ({@code POST /actuator/materializer/{partition}} with {@code {"id": "acme/revenue", "action": "verify"}}),
     * which reaches any id, one with a {@code /} too.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @param action one of {@link #ACTIONS}; {@code refresh} when not given
     * @return a {@link RefreshDescriptor} or a {@link VerifyDescriptor}
     * @throws UnknownViewException when this instance does not know the view
     * @throws InvalidEndpointRequestException (400) when the action is not one of {@link #ACTIONS}
     */
    @WriteOperation
    public OperationResponseBody actById(@Selector String partition, String id, @Nullable String action) {
        return run(partition, id, (action != null) ? action : REFRESH);
    }

    private OperationResponseBody run(String partition, String id, String action) {
        if (REFRESH.equals(action)) {
            return refresh(partition, id);
        }
        if (VERIFY.equals(action)) {
            return verify(partition, id);
        }
        throw invalid("Unknown action '" + action + "': the action is one of " + ACTIONS);
    }

    /**
     * Compares one view's stored rows with a fresh run of its pipeline, writing nothing, and waits for
     * the comparison, at most the refresh wait.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return what differs, or that the comparison still runs, or why it failed
     * @throws UnknownViewException when this instance does not know the view
     */
    public VerifyDescriptor verify(String partition, String id) {
        Waited<VerifyReport> check = await(partition, id, () -> this.materializer.verify(partition, id),
                "The comparison", "it writes nothing; ask again later");
        return new VerifyDescriptor(partition, id, check.status(),
                (check.result() != null) ? new VerifyReportDescriptor(check.result()) : null, check.message());
    }

    /**
     * Starts the work and waits for it, at most the refresh wait.
     * @throws UnknownViewException when the engine does not know the view
     */
    private <T> Waited<T> await(String partition, String id, Supplier<CompletableFuture<T>> start, String work,
            String whileRunning) {
        CompletableFuture<T> future;
        try {
            future = start.get();
        }
        catch (NoSuchElementException ex) {
            throw new UnknownViewException(partition, id);
        }
        try {
            return new Waited<>(FINISHED, future.get(this.refreshWait.toMillis(), TimeUnit.MILLISECONDS), null);
        }
        catch (TimeoutException ex) {
            return new Waited<>(RUNNING, null, work + " still runs after " + this.refreshWait.toMillis() + " ms; "
                    + whileRunning);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new Waited<>(RUNNING, null, "Interrupted while waiting; " + work.toLowerCase(Locale.ROOT)
                    + " still runs");
        }
        catch (ExecutionException | CompletionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            if (cause instanceof NoSuchElementException) {
                throw new UnknownViewException(partition, id);
            }
            return new Waited<>(FAILED, null, String.valueOf(cause.getMessage()));
        }
    }

    /** How a wait ended: {@link #FINISHED} with its result, or {@link #RUNNING} or {@link #FAILED} with a message. */
    private record Waited<T>(String status, @Nullable T result, @Nullable String message) {
    }
}
