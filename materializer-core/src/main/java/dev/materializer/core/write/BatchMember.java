package dev.materializer.core.write;

import dev.materializer.core.view.ViewDefinition;
import org.jspecify.annotations.Nullable;

/**
 * One view of a batched pass: the view, the keys its pass recomputes, and what its status says
 * once the pass ends ok.
 *
 * @param view the view
 * @param scope the keys to recompute, or null for a whole pass (a batch is all of one kind)
 * @param note what the status says once the pass ends ok, sent with its flip or confirmation; null to
 *     write the result only
 */
public record BatchMember(ViewDefinition view, @Nullable KeyScope scope, @Nullable PassStatus note) {
}
