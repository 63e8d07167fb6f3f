/**
 * The two writers (one transaction, or a new generation in groups), the leases on views, and the status store.
 */
@NullMarked
package dev.materializer.core.write;

import org.jspecify.annotations.NullMarked;
