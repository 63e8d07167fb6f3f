package dev.materializer.spring.endpoint;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.materializer.core.MaterializerSnapshot;
import dev.materializer.core.ViewPage;
import dev.materializer.core.ViewState;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import static dev.materializer.spring.endpoint.DescriptorText.text;

/** The answer of {@code GET /actuator/materializer}: the engine's summary and one page of its views. */
public final class MaterializerDescriptor implements OperationResponseBody {

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
