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

import dev.materializer.core.Materializer;
import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.PassReport;
import dev.materializer.core.ViewSnapshot;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code materializer} actuator endpoint: the engine's state and every view
 * ({@code GET /actuator/materializer}), one view ({@code GET /actuator/materializer/{partition}/{id}},
 * 404 when unknown) and a refresh of one view now ({@code POST /actuator/materializer/{partition}/{id}}),
 * which waits a bounded time for the pass and returns its report.
 *
 * <p>Access is unrestricted by default, as for Boot's {@code loggers} endpoint: the refresh only
 * runs a pass the engine would run anyway. Set {@code management.endpoint.materializer.access=read-only}
 * to allow reading only. Thread-safe: holds no state of its own.
 */
@Endpoint(id = "materializer", defaultAccess = Access.UNRESTRICTED)
public final class MaterializerEndpoint {

    /** How long a refresh waits for its pass before answering that it still runs. */
    public static final Duration DEFAULT_REFRESH_WAIT = Duration.ofSeconds(10);

    private final Materializer materializer;

    private final Duration refreshWait;

    /** @param materializer the engine to show and drive */
    public MaterializerEndpoint(Materializer materializer) {
        this(materializer, DEFAULT_REFRESH_WAIT);
    }

    /**
     * @param materializer the engine to show and drive
     * @param refreshWait how long a refresh waits for its pass
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
        CompletableFuture<PassReport> pass;
        try {
            pass = this.materializer.refresh(partition, id);
        }
        catch (NoSuchElementException ex) {
            throw unknownView(partition, id);
        }
        try {
            PassReport report = pass.get(this.refreshWait.toMillis(), TimeUnit.MILLISECONDS);
            return RefreshDescriptor.finished(partition, id, report);
        }
        catch (TimeoutException ex) {
            return RefreshDescriptor.running(partition, id, "The pass still runs after "
                    + this.refreshWait.toMillis() + " ms; read the view for its outcome");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return RefreshDescriptor.running(partition, id, "Interrupted while waiting; the pass still runs");
        }
        catch (ExecutionException | CompletionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            if (cause instanceof NoSuchElementException) {
                throw unknownView(partition, id);
            }
            return RefreshDescriptor.failed(partition, id, String.valueOf(cause.getMessage()));
        }
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

        /** @return every view this instance knows */
        public List<ViewDescriptor> getViews() {
            return this.views;
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
    }

    /** What a refresh did. */
    public static final class RefreshDescriptor implements OperationResponseBody {

        private final String partition;

        private final String id;

        private final String status;

        private final @Nullable PassDescriptor pass;

        private final @Nullable String message;

        private RefreshDescriptor(String partition, String id, String status, @Nullable PassDescriptor pass,
                @Nullable String message) {
            this.partition = partition;
            this.id = id;
            this.status = status;
            this.pass = pass;
            this.message = message;
        }

        static RefreshDescriptor finished(String partition, String id, PassReport report) {
            return new RefreshDescriptor(partition, id, "finished", new PassDescriptor(report), null);
        }

        static RefreshDescriptor running(String partition, String id, String message) {
            return new RefreshDescriptor(partition, id, "running", null, message);
        }

        static RefreshDescriptor failed(String partition, String id, String message) {
            return new RefreshDescriptor(partition, id, "failed", null, message);
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
}
