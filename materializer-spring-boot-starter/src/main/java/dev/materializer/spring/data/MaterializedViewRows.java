package dev.materializer.spring.data;

import java.util.List;

import org.bson.Document;
import org.jspecify.annotations.Nullable;

/**
 * The rows of one read of a view, all of one generation, with the view document they were read through.
 *
 * @param <T> the type of a row
 * @param view the view document as read (definition and status)
 * @param status its status field, empty before the engine first wrote it
 * @param rows the rows
 */
public record MaterializedViewRows<T>(Document view, Document status, List<T> rows) {

    /** The view's {@code _id}. */
    public Object id() {
        return this.view.get("_id");
    }

    /** {@code ok}, {@code errored} or {@code cycle}; null before the first status. */
    public @Nullable String state() {
        return this.status.get("state") instanceof String state ? state : null;
    }

    /** The generation read, as stored (a number; an ObjectId from an engine before row versions); null before the first run. */
    public @Nullable Object generation() {
        return this.status.get("generation");
    }
}
