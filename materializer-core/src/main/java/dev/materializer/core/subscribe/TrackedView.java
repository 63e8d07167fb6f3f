package dev.materializer.core.subscribe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.bson.BsonValue;
import org.jspecify.annotations.Nullable;

/**
 * A view with subscribers, as the hub last handed it on: the point its subscribers stand at, how
 * many rows they hold, and a witness — the stored {@code _id} of one version readers of that point
 * see. A pass that writes a view anew in its place (its first pass there, after it left and came
 * back) removes every version below its own number, the witness among them; so a delta read that
 * still finds the witness proves the versions since were only added and closed, never wiped.
 *
 * <p>Threads: the point, count and witness are the hub worker's alone; the subscribers list is read
 * and written by any.
 */
final class TrackedView {

    final String partition;

    final String viewId;

    final List<Subscription> subscribers = new CopyOnWriteArrayList<>();

    private boolean started;

    private ViewPoint point = ViewPoint.NOTHING;

    private long rows;

    private @Nullable BsonValue witness;

    TrackedView(String partition, String viewId) {
        this.partition = partition;
        this.viewId = viewId;
    }

    boolean started() {
        return started;
    }

    ViewPoint point() {
        return point;
    }

    long rows() {
        return rows;
    }

    @Nullable BsonValue witness() {
        return witness;
    }

    void standAt(ViewPoint point, long rows, @Nullable BsonValue witness) {
        this.started = true;
        this.point = point;
        this.rows = rows;
        this.witness = witness;
    }
}
