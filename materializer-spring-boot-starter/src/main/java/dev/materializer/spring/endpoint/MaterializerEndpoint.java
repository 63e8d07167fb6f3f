package dev.materializer.spring.endpoint;

import dev.materializer.core.CatchUpProgress;
import dev.materializer.core.ReconcileProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.VerifyReport;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewQuery;
import dev.materializer.core.ViewSnapshot;
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

    static String text(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    static @Nullable String text(@Nullable Instant instant) {
        return (instant != null) ? instant.toString() : null;
    }

    /** The engine's summary and one page of its views. */
    public static final class MaterializerDescriptor implements OperationResponseBody {

        private final MaterializerSnapshot summary;

        private final Map<String, Integer> viewCounts;

        private final ViewPage page;

        private final List<ViewDescriptor> views;

        MaterializerDescriptor(MaterializerSnapshot summary, Map<ViewState, Integer> viewCounts, ViewPage page) {
            this.summary = summary;
            this.viewCounts = everyState(viewCounts);
            this.page = page;
            this.views = page.views().stream().map(ViewDescriptor::new).toList();
        }

        /** Every state by its word, in its order, 0 when the engine has no count for it. */
        private static Map<String, Integer> everyState(Map<ViewState, Integer> counts) {
            Map<String, Integer> byState = new LinkedHashMap<>();
            for (ViewState state : ViewState.values()) {
                byState.put(state.value(), counts.getOrDefault(state, 0));
            }
            return byState;
        }

        /** @return {@code new}, {@code starting}, {@code running}, {@code retrying}, {@code stopping} or {@code stopped} */
        public String getState() {
            return text(this.summary.state());
        }

        /** @return why the engine is not running, when it is not */
        public @Nullable String getReason() {
            return this.summary.reason();
        }

        /** @return change streams open now */
        public int getOpenStreams() {
            return this.summary.openStreams();
        }

        /** @return passes running or queued now */
        public int getPassesInFlight() {
            return this.summary.passesInFlight();
        }

        /** @return seconds the last change event was behind the server's time, when known */
        public @Nullable Double getLagSeconds() {
            Duration lag = this.summary.lag();
            return (lag != null) ? lag.toNanos() / 1e9 : null;
        }

        /** @return whether the deployment offers transactions (small views are then written in one) */
        public boolean isTransactions() {
            return this.summary.transactions();
        }

        /** @return how many views this instance knows in each state, every state present */
        public Map<String, Integer> getViewCounts() {
            return this.viewCounts;
        }

        /** @return how far the reconciler's round is */
        public ReconcileDescriptor getReconcile() {
            return new ReconcileDescriptor(this.summary.reconcile());
        }

        /** @return how far the catch-ups are (a start, partitions taken over, a stream that lost its history) */
        public CatchUpDescriptor getCatchUp() {
            return new CatchUpDescriptor(this.summary.catchUp());
        }

        /** @return the page of {@link #getViews()}, from 0 */
        public int getPage() {
            return this.page.page();
        }

        /** @return the most views on a page */
        public int getSize() {
            return this.page.size();
        }

        /** @return how many views match the request's partition and state, on every page */
        public int getTotal() {
            return this.page.total();
        }

        /** @return the views of this page, by partition then id */
        public List<ViewDescriptor> getViews() {
            return this.views;
        }
    }

    /** How far the catch-ups are: they take turns, a few partitions at a time. */
    public static final class CatchUpDescriptor {

        private final CatchUpProgress progress;

        CatchUpDescriptor(CatchUpProgress progress) {
            this.progress = progress;
        }

        /** @return catch-ups of partitions asked for since this instance started */
        public long getTotal() {
            return this.progress.total();
        }

        /** @return catch-ups ended */
        public long getDone() {
            return this.progress.done();
        }

        /** @return catch-ups queued or running now */
        public int getRunning() {
            return this.progress.running();
        }

        /** @return catch-ups waiting for their turn */
        public int getWaiting() {
            return this.progress.waiting();
        }
    }

    /** How far the reconciler is: the round running now, or when the next starts. */
    public static final class ReconcileDescriptor {

        private final ReconcileProgress progress;

        ReconcileDescriptor(ReconcileProgress progress) {
            this.progress = progress;
        }

        /** @return the round running now, from 1; 0 before the first (and when the reconciler is off) */
        public long getRound() {
            return this.progress.round();
        }

        /** @return views of this round checked or skipped */
        public int getDone() {
            return this.progress.done();
        }

        /** @return views in this round */
        public int getTotal() {
            return this.progress.total();
        }

        /** @return views of this round skipped because their partition had work pending */
        public int getSkipped() {
            return this.progress.skipped();
        }

        /** @return when the next round starts (ISO-8601), when none runs now */
        public @Nullable String getNextRoundAt() {
            return text(this.progress.nextRoundAt());
        }
    }

    /** One view. */
    public static final class ViewDescriptor implements OperationResponseBody {

        private final ViewSnapshot view;

        ViewDescriptor(ViewSnapshot view) {
            this.view = view;
        }

        /** @return the partition */
        public String getPartition() {
            return this.view.partition();
        }

        /** @return the text of the view's {@code _id} */
        public String getId() {
            return this.view.id();
        }

        /** @return {@code pending}, {@code ok}, {@code errored}, {@code cycle} or {@code target_shared} */
        public String getState() {
            return this.view.state().value();
        }

        /** @return the source collections */
        public List<String> getSources() {
            return this.view.sources();
        }

        /** @return the target collection */
        public String getTarget() {
            return this.view.target();
        }

        /** @return the hex of the current generation, when there is one */
        public @Nullable String getGeneration() {
            return this.view.generation();
        }

        /** @return when the view last ran here (ISO-8601), if it did */
        public @Nullable String getLastRun() {
            return text(this.view.lastRun());
        }

        /** @return why the view is errored */
        public @Nullable String getLastError() {
            return this.view.lastError();
        }

        /** @return how the last pass ended: {@code changed}, {@code unchanged}, {@code errored}, {@code superseded} */
        public @Nullable String getLastOutcome() {
            return (this.view.lastOutcome() != null) ? text(this.view.lastOutcome()) : null;
        }

        /** @return how the last pass wrote: {@code transaction}, {@code generation}, {@code none} */
        public @Nullable String getLastMode() {
            return (this.view.lastMode() != null) ? text(this.view.lastMode()) : null;
        }

        /** @return what the last pass recomputed: {@code keys} (the rows of the keys its changes affected) or {@code full} */
        public @Nullable String getLastScope() {
            return (this.view.lastScope() != null) ? text(this.view.lastScope()) : null;
        }

        /** @return which keys the last pass recomputed ("2 keys of customer"), or why it recomputed the whole view */
        public @Nullable String getLastScopeNote() {
            return this.view.lastScopeNote();
        }

        /** @return when the reconciler last compared the view with its pipeline here (ISO-8601), if it did */
        public @Nullable String getLastReconciled() {
            return text(this.view.lastReconciled());
        }

        /** @return rows of drift the reconciler found and healed here since this instance started */
        public long getDriftRows() {
            return this.view.driftRows();
        }
    }

    /** What an action on one view did: the view, how the action ended, and why there is no result. */
    public abstract static class ViewActionDescriptor implements OperationResponseBody {

        private final String partition;

        private final String id;

        private final String status;

        private final @Nullable String message;

        ViewActionDescriptor(String partition, String id, String status, @Nullable String message) {
            this.partition = partition;
            this.id = id;
            this.status = status;
            this.message = message;
        }

        /** @return the partition of the view */
        public String getPartition() {
            return this.partition;
        }

        /** @return the text of the view's {@code _id} */
        public String getId() {
            return this.id;
        }

        /** @return {@code finished} (see the result), {@code running} (still, after the wait) or {@code failed} */
        public String getStatus() {
            return this.status;
        }

        /** @return why there is no result */
        public @Nullable String getMessage() {
            return this.message;
        }
    }

    /** What a refresh did. */
    public static final class RefreshDescriptor extends ViewActionDescriptor {

        private final @Nullable PassDescriptor pass;

        RefreshDescriptor(String partition, String id, String status, @Nullable PassDescriptor pass,
                @Nullable String message) {
            super(partition, id, status, message);
            this.pass = pass;
        }

        /** @return the report of the pass, when it finished */
        public @Nullable PassDescriptor getPass() {
            return this.pass;
        }
    }

    /** The report of one pass. */
    public static final class PassDescriptor {

        private final PassReport report;

        PassDescriptor(PassReport report) {
            this.report = report;
        }

        /** @return {@code changed}, {@code unchanged}, {@code errored} or {@code superseded} */
        public String getOutcome() {
            return text(this.report.outcome());
        }

        /** @return {@code transaction}, {@code generation} or {@code none} */
        public String getMode() {
            return text(this.report.mode());
        }

        /** @return rows inserted or replaced */
        public long getRowsWritten() {
            return this.report.rowsWritten();
        }

        /** @return rows removed */
        public long getRowsRemoved() {
            return this.report.rowsRemoved();
        }

        /** @return how long the pass took, in milliseconds */
        public long getDurationMillis() {
            return this.report.duration().toMillis();
        }

        /** @return why it failed or gave way, if it did */
        public @Nullable String getError() {
            return this.report.error();
        }
    }

    /** What a verify found. */
    public static final class VerifyDescriptor extends ViewActionDescriptor {

        private final @Nullable VerifyReportDescriptor report;

        VerifyDescriptor(String partition, String id, String status, @Nullable VerifyReportDescriptor report,
                @Nullable String message) {
            super(partition, id, status, message);
            this.report = report;
        }

        /** @return what the comparison found, when it finished */
        public @Nullable VerifyReportDescriptor getReport() {
            return this.report;
        }
    }

    /** The report of one comparison of a view's stored rows with a fresh run of its pipeline. */
    public static final class VerifyReportDescriptor {

        private final VerifyReport report;

        VerifyReportDescriptor(VerifyReport report) {
            this.report = report;
        }

        /** @return rows of the fresh result */
        public long getResultRows() {
            return this.report.resultRows();
        }

        /** @return result rows the view's current generation lacks */
        public long getMissing() {
            return this.report.missing();
        }

        /** @return result rows stored with other content */
        public long getChanged() {
            return this.report.changed();
        }

        /** @return stored rows the result no longer has */
        public long getExtra() {
            return this.report.extra();
        }

        /** @return rows that differ: what a refresh would write or remove */
        public long getDifferences() {
            return this.report.differences();
        }

        /** @return whether the stored rows equal the result: the pipeline ran and nothing differs */
        public boolean isInSync() {
            return this.report.inSync();
        }

        /** @return how long the comparison took, in milliseconds */
        public long getDurationMillis() {
            return this.report.duration().toMillis();
        }

        /** @return why the pipeline could not run (the counts are then zero), if it could not */
        public @Nullable String getError() {
            return this.report.error();
        }
    }

    /**
     * The body of a {@code 400 Bad Request} of the endpoint over the web, shaped as a problem detail
     * (RFC 9457): {@code title} {@code "Bad Request"}, {@code status} 400, and the reason as {@code detail}.
     */
    public static final class BadRequestDescriptor implements OperationResponseBody {

        private final String detail;

        /** @param detail why the request was refused, naming what is allowed */
        public BadRequestDescriptor(String detail) {
            this.detail = detail;
        }

        /** The title of every such answer. */
        public String getTitle() {
            return "Bad Request";
        }

        /** The status, 400. */
        public int getStatus() {
            return 400;
        }

        /** Why the request was refused. */
        public String getDetail() {
            return this.detail;
        }
    }
}
