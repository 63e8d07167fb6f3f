/**
 * Subscriptions to views' changes: per flip of a followed view, the row versions it opened and
 * closed, read once and handed to each subscriber as a delta, or a snapshot where a delta cannot be
 * proven whole ({@link dev.materializer.core.subscribe.ViewSubscriptions}).
 */
@NullMarked
package dev.materializer.core.subscribe;

import org.jspecify.annotations.NullMarked;
