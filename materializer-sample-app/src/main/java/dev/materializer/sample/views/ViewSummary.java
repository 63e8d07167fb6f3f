package dev.materializer.sample.views;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One view of a tenant, as its document says: what it reads and writes, and its status.
 *
 * @param id the view's {@code _id}
 * @param name the name within the tenant (what the read URL takes)
 * @param description what it shows
 * @param sources the source collections
 * @param target the target collection
 * @param state {@code ok}, {@code errored}, {@code cycle}, or null before the first run
 * @param lastError why it is errored
 * @param generation the current generation, or null before the first run
 * @param at when the status was written
 */
public record ViewSummary(String id, String name, @Nullable String description, List<String> sources,
        @Nullable String target, @Nullable String state, @Nullable String lastError, @Nullable String generation,
        @Nullable Instant at) {
}
