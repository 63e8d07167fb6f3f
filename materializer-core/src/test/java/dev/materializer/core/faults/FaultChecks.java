package dev.materializer.core.faults;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import com.mongodb.client.model.Filters;
import dev.materializer.core.MaterializerOptions;
import org.bson.Document;

/** Checks of a view's stored status, failing as a finding of the scenario. */
final class FaultChecks {

    private FaultChecks() {
    }

    /** How long an invalid view's status may take to be written: its views-stream event is not among what convergence waits for. */
    private static final Duration STATUS_WAIT = Duration.ofSeconds(10);

    /**
     * The view is errored and its last error names every one of the words — within a bounded wait:
     * the status of a view document that cannot run is written when the views stream hears it,
     * which the convergence of the other views does not wait for (a run of 0.1 s checked it before).
     */
    static void requireErrored(FaultRun run, String tenant, Object id, String... words) {
        long deadline = System.nanoTime() + STATUS_WAIT.toNanos();
        Document status = statusOf(run, tenant, id);
        while (!erroredNaming(status, words) && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
            status = statusOf(run, tenant, id);
        }
        if (!erroredNaming(status, words)) {
            throw new FaultFound(run, "the views converged", "view " + tenant + "/" + id + " must be errored with a last error naming "
                    + String.join(", ", words) + "; its status is " + (status == null ? "missing" : status.toJson()));
        }
    }

    private static boolean erroredNaming(Document status, String... words) {
        String state = status == null ? null : status.getString("state");
        String error = status == null ? null : status.getString("lastError");
        boolean named = error != null;
        for (String word : words) {
            named = named && error.contains(word);
        }
        return "errored".equals(state) && named;
    }

    static Document statusOf(FaultRun run, String tenant, Object id) {
        Document view = run.shop.views().find(Filters.and(Filters.eq("_id", id), Filters.eq(Shop.PARTITION, tenant)))
            .first();
        return view == null ? null : view.get(MaterializerOptions.DEFAULT_STATUS_FIELD, Document.class);
    }
}
