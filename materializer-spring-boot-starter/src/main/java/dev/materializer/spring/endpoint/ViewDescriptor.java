package dev.materializer.spring.endpoint;

import java.util.List;

import dev.materializer.core.ViewSnapshot;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

import static dev.materializer.spring.endpoint.DescriptorText.text;

/**
 * One view: the answer of {@code GET /actuator/materializer/{partition}/{id}}, and each view of the
 * page of a {@link MaterializerDescriptor}.
 */
public final class ViewDescriptor implements OperationResponseBody {

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
