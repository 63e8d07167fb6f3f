package dev.materializer.core.faults;

import com.mongodb.client.model.Filters;
import dev.materializer.core.MaterializerOptions;
import org.bson.Document;

/** Checks of a view's stored status, failing as a finding of the scenario. */
final class FaultChecks {

    private FaultChecks() {
    }

    /** The view is errored and its last error names every one of the words. */
    static void requireErrored(FaultRun run, String tenant, Object id, String... words) {
        Document status = statusOf(run, tenant, id);
        String state = status == null ? null : status.getString("state");
        String error = status == null ? null : status.getString("lastError");
        boolean named = error != null;
        for (String word : words) {
            named = named && error.contains(word);
        }
        if (!"errored".equals(state) || !named) {
            throw new FaultFound(run, "the views converged", "view " + tenant + "/" + id + " must be errored with a last error naming "
                    + String.join(", ", words) + "; its status is " + (status == null ? "missing" : status.toJson()));
        }
    }

    static Document statusOf(FaultRun run, String tenant, Object id) {
        Document view = run.shop.views().find(Filters.and(Filters.eq("_id", id), Filters.eq(Shop.PARTITION, tenant)))
            .first();
        return view == null ? null : view.get(MaterializerOptions.DEFAULT_STATUS_FIELD, Document.class);
    }
}
