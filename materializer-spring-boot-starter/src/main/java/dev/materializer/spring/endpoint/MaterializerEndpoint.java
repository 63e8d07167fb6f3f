package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
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
import dev.materializer.core.ViewSnapshot;
import dev.materializer.core.reconcile.Reconciler;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code materializer} actuator endpoint: the engine's state, its reconciler and every view
 * ({@code GET /actuator/materializer}), one view ({@code GET /actuator/materializer/{partition}/{id}},
 * 404 when unknown), a refresh of one view now ({@code POST /actuator/materializer/{partition}/{id}},
 * or {@code .../{id}/refresh}), which returns the report of its pass, and a verify of one view
 * ({@code POST /actuator/materializer/{partition}/{id}/verify}), which compares its stored rows with a
 * fresh run of its pipeline and writes nothing. Both wait a bounded time.
 *
 * <p>Access is unrestricted by default, as for Boot's {@code loggers} endpoint: the refresh only
 * runs a pass the engine would run anyway. Set {@code management.endpoint.materializer.access=read-only}
 * to allow reading only (which refuses the verify too: it is part of the write operation).
 * Thread-safe: holds no state of its own.
 */
@Endpoint(id = "materializer", defaultAccess = Access.UNRESTRICTED)
public final class MaterializerEndpoint {

    /** How long a refresh or a verify waits before answering that it still runs. */
    public static final Duration DEFAULT_REFRESH_WAIT = Duration.ofSeconds(10);

    /** The action that runs the view now, as a pass: what a POST without an action does. */
    public static final String REFRESH = "refresh";

    /** The action that compares the view's stored rows with a fresh run of its pipeline, writing nothing. */
    public static final String VERIFY = "verify";

    /** The actions of the write operation. */
    public static final List<String> ACTIONS = List.of(REFRESH, VERIFY);

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

    /** @return the engine's state and every view this instance knows */
    @ReadOperation
    public MaterializerDescriptor materializer() {
        return new MaterializerDescriptor(this.materializer.snapshot());
    }

    /**
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the view, or null (404) when this instance does not know it
     */
    @ReadOperation
    public @Nullable ViewDescriptor view(@Selector String partition, @Selector String id) {
        return this.materializer.view(partition, id).map(ViewDescriptor::new).orElse(null);
    }

    /**
     * Runs one view now and waits for its pass, at most the refresh wait.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return the report of the pass, or that it still runs, or why it failed
     * @throws InvalidEndpointRequestException (400) when this instance does not know the view
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
     * @throws InvalidEndpointRequestException (400) when this instance does not know the view, or
     *     the action is not one of {@link #ACTIONS}
     */
    @WriteOperation
    public OperationResponseBody act(@Selector String partition, @Selector String id, @Selector String action) {
        if (REFRESH.equals(action)) {
            return refresh(partition, id);
        }
        if (VERIFY.equals(action)) {
            return verify(partition, id);
        }
        String reason = "Unknown action '" + action + "': the action is one of " + ACTIONS;
        throw new InvalidEndpointRequestException(reason, reason);
    }

    /**
     * Compares one view's stored rows with a fresh run of its pipeline, writing nothing, and waits for
     * the comparison, at most the refresh wait.
     * @param partition the partition of the view
     * @param id the text of the view's {@code _id}
     * @return what differs, or that the comparison still runs, or why it failed
     * @throws InvalidEndpointRequestException (400) when this instance does not know the view
     */
    public VerifyDescriptor verify(String partition, String id) {
        Waited<VerifyReport> check = await(partition, id, () -> this.materializer.verify(partition, id),
                "The comparison", "it writes nothing; ask again later");
        return new VerifyDescriptor(partition, id, check.status(),
                (check.result() != null) ? new VerifyReportDescriptor(check.result()) : null, check.message());
    }

    /**
     * Starts the work and waits for it, at most the refresh wait.
     * @throws InvalidEndpointRequestException when the engine does not know the view
     */
    private <T> Waited<T> await(String partition, String id, Supplier<CompletableFuture<T>> start, String work,
            String whileRunning) {
        CompletableFuture<T> future;
        try {
            future = start.get();
        }
        catch (NoSuchElementException ex) {
            throw unknownView(partition, id);
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
                throw unknownView(partition, id);
            }
            return new Waited<>(FAILED, null, String.valueOf(cause.getMessage()));
        }
    }

    /** How a wait ended: {@link #FINISHED} with its result, or {@link #RUNNING} or {@link #FAILED} with a message. */
    private record Waited<T>(String status, @Nullable T result, @Nullable String message) {
    }

    private static InvalidEndpointRequestException unknownView(String partition, String id) {
        String reason = "No view '" + id + "' in partition '" + partition + "' is known to this instance";
        return new InvalidEndpointRequestException(reason, reason);
    }

    static String text(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    static @Nullable String text(@Nullable Instant instant) {
        return (instant != null) ? instant.toString() : null;
    }

    /** The engine and its views. */
    public static final class MaterializerDescriptor implements OperationResponseBody {

        private final MaterializerSnapshot snapshot;

        private final List<ViewDescriptor> views;

        MaterializerDescriptor(MaterializerSnapshot snapshot) {
            this.snapshot = snapshot;
            this.views = snapshot.views().stream().map(ViewDescriptor::new).toList();
        }

        /** @return {@code new}, {@code starting}, {@code running}, {@code retrying}, {@code stopping} or {@code stopped} */
        public String getState() {
            return text(this.snapshot.state());
        }

        /** @return why the engine is not running, when it is not */
        public @Nullable String getReason() {
            return this.snapshot.reason();
        }

        /** @return change streams open now */
        public int getOpenStreams() {
            return this.snapshot.openStreams();
        }

        /** @return passes running or queued now */
        public int getPassesInFlight() {
            return this.snapshot.passesInFlight();
        }

        /** @return seconds the last change event was behind the server's time, when known */
        public @Nullable Double getLagSeconds() {
            Duration lag = this.snapshot.lag();
            return (lag != null) ? lag.toNanos() / 1e9 : null;
        }

        /** @return whether the deployment offers transactions (small views are then written in one) */
        public boolean isTransactions() {
            return this.snapshot.transactions();
        }

        /** @return how many views are in each state */
        public Map<String, Long> getViewCounts() {
            Map<String, Long> counts = new LinkedHashMap<>();
            for (ViewSnapshot view : this.snapshot.views()) {
                counts.merge(view.state(), 1L, Long::sum);
            }
            return counts;
        }

        /** @return how far the reconciler's round is */
        public ReconcileDescriptor getReconcile() {
            return new ReconcileDescriptor(this.snapshot.reconcile());
        }

        /** @return every view this instance knows */
        public List<ViewDescriptor> getViews() {
            return this.views;
        }
    }

    /** How far the reconciler is: the round running now, or when the next starts. */
    public static final class ReconcileDescriptor {

        private final Reconciler.Progress progress;

        ReconcileDescriptor(Reconciler.Progress progress) {
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

        /** @return {@code pending}, {@code ok}, {@code errored} or {@code cycle} */
        public String getState() {
            return this.view.state();
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

        /** @return when the reconciler last compared the view with its pipeline here (ISO-8601), if it did */
        public @Nullable String getLastReconciled() {
            return text(this.view.lastReconciled());
        }

        /** @return rows of drift the reconciler found and healed here since this instance started */
        public long getDriftRows() {
            return this.view.driftRows();
        }
    }

    /** What a refresh did. */
    public static final class RefreshDescriptor implements OperationResponseBody {

        private final String partition;

        private final String id;

        private final String status;

        private final @Nullable PassDescriptor pass;

        private final @Nullable String message;

        RefreshDescriptor(String partition, String id, String status, @Nullable PassDescriptor pass,
                @Nullable String message) {
            this.partition = partition;
            this.id = id;
            this.status = status;
            this.pass = pass;
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

        /** @return {@code finished} (see the pass), {@code running} (still, after the wait) or {@code failed} */
        public String getStatus() {
            return this.status;
        }

        /** @return the report of the pass, when it finished */
        public @Nullable PassDescriptor getPass() {
            return this.pass;
        }

        /** @return why there is no report */
        public @Nullable String getMessage() {
            return this.message;
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
    public static final class VerifyDescriptor implements OperationResponseBody {

        private final String partition;

        private final String id;

        private final String status;

        private final @Nullable VerifyReportDescriptor report;

        private final @Nullable String message;

        VerifyDescriptor(String partition, String id, String status, @Nullable VerifyReportDescriptor report,
                @Nullable String message) {
            this.partition = partition;
            this.id = id;
            this.status = status;
            this.report = report;
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

        /** @return {@code finished} (see the report), {@code running} (still, after the wait) or {@code failed} */
        public String getStatus() {
            return this.status;
        }

        /** @return what the comparison found, when it finished */
        public @Nullable VerifyReportDescriptor getReport() {
            return this.report;
        }

        /** @return why there is no report */
        public @Nullable String getMessage() {
            return this.message;
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
}
