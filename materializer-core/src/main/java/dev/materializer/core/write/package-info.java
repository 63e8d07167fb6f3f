/**
 * What a pass writes: the run of a view ({@code ViewRunner}, and {@code BatchedWriter} for many
 * partitions at once), the row-version protocol ({@code VersionedWriter}: one transaction, or a new
 * generation written in groups and flipped), the leases on views, the status store, and the removal
 * of old row versions and of rows a view left behind.
 */
@NullMarked
package dev.materializer.core.write;

import org.jspecify.annotations.NullMarked;
